import shlex

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import microagg as ma
from microagg.cli import main
from microagg.release import recipe
from microagg.release.spec import join_names, split_names


def test_python_snippet_rebuilds_the_release(tmp_path, monkeypatch):
    rel = ma.microaggregate(ma.load_dataset("tarragona"), 4, aggregation="median", variant="classic",
                            columns=["SALES", "LABOR.COSTS"])
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('tarragona')")
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(code, scope)  # noqa: S102 - the snippet is ours
    pd.testing.assert_frame_equal(scope["rel"].protected, rel.protected)


def test_cli_command_rebuilds_the_release(tmp_path, monkeypatch):
    rel = ma.microaggregate(ma.load_dataset("synthetic", n=300, seed=5), 3, variant="single")
    cmd = recipe.cli_command(rel.spec, ["--dataset", "synthetic", "--data-param", "n=300", "--data-param", "seed=5"])
    argv = shlex.split(cmd)
    assert argv[:4] == ["python", "-m", "microagg", "run"]
    monkeypatch.chdir(tmp_path)
    assert main(argv[3:]) == 0
    out = pd.read_csv(tmp_path / "release.csv")
    assert (out.to_numpy() == rel.protected.to_numpy()).all()


def test_recipes_carry_the_confidential_columns(tmp_path, monkeypatch):
    conf = ["STATETAX", "TAXINC"]
    rel = ma.microaggregate(ma.load_dataset("census"), 3, method="hmpfsom", confidential=conf, c=2, cs=2)
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('census')")
    assert "confidential=['STATETAX', 'TAXINC']" in code
    argv = shlex.split(recipe.cli_command(rel.spec, ["--dataset", "census"]))
    assert argv[argv.index("--confidential") + 1] == "STATETAX,TAXINC"
    monkeypatch.chdir(tmp_path)
    assert main(argv[3:]) == 0
    out = pd.read_csv(tmp_path / "release.csv")
    assert (out.to_numpy() == rel.protected.to_numpy()).all()


def test_recipes_carry_the_block_engine(tmp_path, monkeypatch):
    rel = ma.microaggregate(ma.load_dataset("eia"), 3, engine=ma.engines.Blocks(600))
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('eia')")
    assert "engine=ma.engines.Blocks(block_size=600)" in code and "blocks=" not in code
    argv = shlex.split(recipe.cli_command(rel.spec, ["--dataset", "eia"]))
    assert argv[argv.index("--engine") + 1] == "blocks" and argv[argv.index("--block-size") + 1] == "600"
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(code, scope)  # noqa: S102 - the snippet is ours
    pd.testing.assert_frame_equal(scope["rel"].protected, rel.protected)
    assert main(argv[3:]) == 2  # the snippet wrote release.csv: the command line does not overwrite it
    (tmp_path / "release.csv").unlink()
    assert main(argv[3:]) == 0
    out = pd.read_csv(tmp_path / "release.csv")
    assert (out.to_numpy() == rel.protected.to_numpy()).all()


def test_per_record_arrays_are_named_not_printed():
    df = ma.load_dataset("census")
    W = np.full(len(df), 0.01)
    rel = ma.microaggregate(df, 5, aggregation="p3m", w=W)
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('census')")
    assert "w=w_values" in code and "array(" not in code and "(1080,) array of w values" in code
    cli = recipe.cli_command(rel.spec, ["--dataset", "census"])
    assert "w=" not in cli and cli.endswith("# w per record: only through the Python API")
    assert "--param alpha=0.5" in cli  # the scalar parameters are still passed


def test_recipes_carry_keys_strata_identifiers_and_the_shuffle_seed(tmp_path, monkeypatch):
    df = ma.load_dataset("eia")
    rel = ma.microaggregate(df, 5, columns=["RESREVENUE", "RESSALES"], keys=["UTILITYID"], strata=["UTILITYID"])
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('eia')")
    assert "keys=['UTILITYID']" in code and f"seed={rel.params['shuffle_seed']}" in code
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(code, scope)  # noqa: S102 - the snippet is ours
    pd.testing.assert_frame_equal(scope["rel"].protected, rel.protected)
    (tmp_path / "release.csv").unlink()  # the snippet wrote it; the CLI refuses to overwrite it
    argv = shlex.split(recipe.cli_command(rel.spec, ["--dataset", "eia"]))
    assert main(argv[3:]) == 0
    out = pd.read_csv(tmp_path / "release.csv")
    assert (out.to_numpy() == rel.protected.to_numpy()).all()
    plain = ma.microaggregate(df, 5, identifiers=[], shuffle=False)
    code = recipe.python_snippet(plain.spec, "df")
    assert "identifiers=[]" in code and "shuffle=False" in code and "seed=" not in code
    argv = shlex.split(recipe.cli_command(plain.spec, ["--dataset", "eia"]))
    assert argv[argv.index("--identifiers") + 1] == "" and "--no-shuffle" in argv


def test_snippet_for_an_uploaded_file_imports_pandas_and_writes_no_index(tmp_path, monkeypatch):
    src = tmp_path / "mine.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame({"x": rng.normal(size=12), "y": rng.normal(size=12)}).to_csv(src, index=False)
    rel = ma.microaggregate(pd.read_csv(src), 3)
    code = recipe.python_snippet(rel.spec, "pd.read_csv('mine.csv')")
    monkeypatch.chdir(tmp_path)
    exec(code, {})  # noqa: S102 - the snippet is ours; a fresh scope, as when pasted into a new session
    assert (tmp_path / "release.csv").read_text() == rel.to_csv(None)


def test_recipes_carry_the_refinement(tmp_path, monkeypatch):
    rel = ma.microaggregate(ma.load_dataset("synthetic", n=300, seed=5), 3, method="gsms", refine="igd")
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('synthetic', n=300, seed=5)")
    assert "refine='igd'" in code
    argv = shlex.split(recipe.cli_command(rel.spec, ["--dataset", "synthetic", "--data-param", "n=300",
                                                       "--data-param", "seed=5"]))
    assert argv[argv.index("--refine") + 1] == "igd"
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(code, scope)  # noqa: S102 - the snippet is ours
    pd.testing.assert_frame_equal(scope["rel"].protected, rel.protected)
    (tmp_path / "release.csv").unlink()
    assert main(argv[3:]) == 0
    out = pd.read_csv(tmp_path / "release.csv")
    assert (out.to_numpy() == rel.protected.to_numpy()).all()


@given(names=st.lists(st.text(max_size=8), min_size=1, max_size=5), sep=st.sampled_from([",", "<", "="]))
def test_any_list_of_names_is_written_so_that_it_reads_back(names, sep):
    assert split_names(join_names(names, sep), sep) == names


def test_names_with_commas_quotes_and_categories_with_less_than_reproduce_byte_identically(tmp_path, monkeypatch):
    rng = np.random.default_rng(8)
    n = 60
    pd.DataFrame({"person, no": rng.permutation(n) + 7, "income, net": rng.lognormal(10, 1, n).round(2),
                  'say "hi"': rng.normal(size=n).round(3), "band": rng.choice(["<18", "18 to 64", ">=65"], n),
                  "grade=level": rng.choice(["low", "mid < high", " top"], n),
                  "region, old": rng.choice(["north, east", "south"], n), "area, code": np.repeat(["x", "y"], n // 2),
                  "pay, gross": rng.normal(size=n).round(2), "a=b": rng.integers(0, 5, n)}
                 ).to_csv(tmp_path / "names.csv", index=False)
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match="is text"):
        rel = ma.microaggregate("names.csv", 3, columns=["income, net", 'say "hi"'],
                                ordinal={"band": ["<18", "18 to 64", ">=65"],
                                         "grade=level": ["low", "mid < high", " top"]},
                                nominal=["region, old"], keys=["area, code"], strata=["area, code"],
                                confidential=["pay, gross"], keep=["a=b"], identifiers=["person, no"])
    argv = shlex.split(recipe.cli_command(rel.spec, ["--input", "names.csv"]))
    assert argv[argv.index("--columns") + 1] == '"income, net","say ""hi"""'
    assert 'band="<18"<18 to 64<">=65"' in argv and '"grade=level"=low<"mid < high"<" top"' in argv
    assert main(argv[3:]) == 0
    assert (tmp_path / "release.csv").read_bytes() == rel.to_csv().encode()


def test_a_release_of_given_labels_has_a_recipe_that_takes_them_again(tmp_path, monkeypatch):
    df = ma.load_dataset("tarragona")
    labels = np.arange(len(df)) // 3
    rel = ma.microaggregate(df, 3, labels=labels, columns=["SALES", "LABOR.COSTS"], seed=8)
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('tarragona')")  # before: "unknown method"
    assert "labels=labels" in code and "method=" not in code
    assert recipe.cli_command(rel.spec, ["--dataset", "tarragona"]).startswith("# a release of a partition given")
    monkeypatch.chdir(tmp_path)
    exec(code.replace("labels = ...", "labels = given"), {"given": labels})  # noqa: S102 - the snippet is ours
    assert (tmp_path / "release.csv").read_bytes() == rel.to_csv().encode()


def test_labels_given_with_the_method_that_made_them_keep_both_in_the_recipe(tmp_path, monkeypatch):
    """labels= with method= (the caller's statement of how they were made): the recipe takes the labels again and
    keeps the method, so running it gives the same release, not a new partition by the method."""
    df = ma.load_dataset("tarragona")
    labels = np.arange(len(df)) // 3
    rel = ma.microaggregate(df, 3, labels=labels, method="vmdav", gamma=0.5, columns=["SALES", "LABOR.COSTS"], seed=8)
    code = recipe.python_snippet(rel.spec, "ma.load_dataset('tarragona')")
    assert "labels=labels" in code and "method='vmdav'" in code and "gamma=0.5" in code
    assert recipe.cli_command(rel.spec, ["--dataset", "tarragona"]).startswith("# a release of a partition given")
    monkeypatch.chdir(tmp_path)
    exec(code.replace("labels = ...", "labels = given"), {"given": labels})  # noqa: S102 - the snippet is ours
    assert (tmp_path / "release.csv").read_bytes() == rel.to_csv().encode()
