"""Hostile input through the API and the command line: every case gives a correct release or one clear message
(a MicroaggError; exit 2 with one 'error:' line), and nothing on disk is lost or half written."""

import contextlib
import gzip
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.cli import main


@pytest.fixture
def frame():
    rng = np.random.default_rng(3)
    return pd.DataFrame({"income": rng.normal(5e4, 1e4, 30), "age": rng.integers(20, 70, 30).astype(float),
                         "region": rng.choice(["=north", "south"], 30)})


# ----------------------------------------------------------------------------- API: data


def test_integer_column_labels_and_an_unnamed_series():
    X = np.random.default_rng(0).normal(size=(20, 3))
    rel = ma.microaggregate(pd.DataFrame(X), 3)
    assert list(rel.in_input_order().columns) == ["0", "1", "2"] and rel.anonymity["k_anonymous"]
    rel = ma.microaggregate(pd.Series(X[:, 0]), 3)
    assert list(rel.in_input_order().columns) == ["x0"]
    rel = ma.microaggregate(pd.DataFrame(X), 3, columns=["0", "2"], keep=["1"])
    assert list(rel.in_input_order().columns) == ["0", "1", "2"] and np.array_equal(rel.in_input_order()["1"], X[:, 1])


@pytest.mark.parametrize("columns, message", [
    (pd.MultiIndex.from_tuples([("g", "a"), ("g", "b"), ("h", "c")]), "columns have 2 levels"),
    (["a", None, "c"], "column 2 of the data has no name"), (["a", "b", ""], "column 3 of the data has no name"),
    (["a", pd.NA, "c"], "column 2 of the data has no name")])
def test_columns_without_one_name_each_are_one_message(columns, message):
    df = pd.DataFrame(np.random.default_rng(0).normal(size=(20, 3)))
    df.columns = columns
    for call in (lambda: ma.microaggregate(df, 3), lambda: ma.evaluate(df, df)):
        with pytest.raises(ma.MicroaggError, match=message):
            call()


def test_all_identical_records_release_with_il_undefined():
    df = pd.DataFrame({"a": [5.0] * 9, "b": [1.0] * 9})
    rel = ma.microaggregate(df, 3)
    assert (rel.in_input_order().to_numpy() == df.to_numpy()).all()
    values = rel.report().query("attribute == 'all'").set_index("metric")["value"]
    assert np.isnan(values["IL"]) and values["SST"] == 0 and values["k-anonymous"]


def test_complex_columns_are_refused():
    df = pd.DataFrame({"z": np.arange(9) + 1j, "x": np.arange(9.0)})
    with pytest.raises(ma.MicroaggError, match=r"\['z'\] hold complex numbers"):
        ma.microaggregate(df, 3)
    with pytest.raises(ma.MicroaggError, match="complex"):
        ma.microaggregate(df, 3, columns=["z"])


def test_mixed_magnitudes_are_released_exactly():
    # eleven values 1.23456 and one 1e12 used to release 1.0 (rounded to 12 digits of the column's largest value)
    df = pd.DataFrame({"a": [1.23456] * 11 + [1e12], "b": np.arange(12.0)})
    rel = ma.microaggregate(df, 3)
    expected = df["a"].groupby(rel.labels).transform("mean")
    assert np.allclose(rel.in_input_order()["a"], expected, rtol=1e-12, atol=0)
    without_outlier = rel.labels != rel.labels[-1]
    assert (rel.in_input_order()["a"][without_outlier] == 1.23456).all()


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e150, 1e200, 1e300])
def test_extreme_magnitudes_standardize(scale):
    df = pd.DataFrame({"a": np.arange(1.0, 13.0) * scale, "b": np.arange(12.0) ** 2})
    rel = ma.microaggregate(df, 3, identifiers=[])  # record-number-like columns, masked on purpose
    assert rel.anonymity["k_anonymous"]
    groups = pd.Series(df["a"]).groupby(rel.labels).transform("mean")
    assert np.allclose(rel.in_input_order()["a"], groups, rtol=1e-12, atol=0)


def test_magnitudes_float64_cannot_standardize_are_refused_naming_the_column():
    symmetric = pd.DataFrame({"x": np.arange(12.0), "huge": np.r_[np.full(6, -1.7e308), np.full(6, 1.7e308)]})
    assert set(ma.microaggregate(symmetric, 3).protected["huge"]) == {-1.7e308, 1.7e308}
    near_max = pd.DataFrame({"x": np.arange(12.0), "huge": np.r_[np.full(2, -1.7e308), np.full(10, 1.7e308)]})
    with pytest.raises(ma.MicroaggError, match="column 'huge' has values up to 1.7e\\+308.*overflow"):
        ma.microaggregate(near_max, 3)
    subnormal = pd.DataFrame({"x": np.arange(12.0), "tiny": np.arange(12.0) * 1e-320})
    with pytest.raises(ma.MicroaggError, match="column 'tiny' varies by only .* smallest normal"):
        ma.microaggregate(subnormal, 3)


def test_a_csv_path_is_read_by_the_one_reader(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text('income,city\n"12,345",=x\n"13,000",y\n"9,999",z\n"11,111",w\n')
    with pytest.warns(UserWarning) as caught:
        rel = ma.microaggregate(path, 2)
    told = " ".join(str(w.message) for w in caught)
    assert "'income': numbers written with thousands separators" in told and "'city' is text" in told
    assert rel.masked == ["income"] and rel.dropped == ["city"]
    assert sorted(set(rel.in_input_order()["income"])) == [(9999 + 11111) / 2, (12345 + 13000) / 2]
    (tmp_path / "bad.csv").write_text("income,age\n123,45,30\n200,10,40\n")
    with pytest.raises(ma.MicroaggError, match="line 2: 3 field"):
        ma.microaggregate(tmp_path / "bad.csv", 2)


def test_release_to_csv_is_spreadsheet_safe_unless_turned_off(frame, tmp_path):
    frame = frame.rename(columns={"age": "-age"})
    rel = ma.microaggregate(frame, 3, keep=["region"])
    rel.to_csv(tmp_path / "r.csv", index=False)
    back = pd.read_csv(tmp_path / "r.csv")
    assert list(back.columns) == ["income", "'-age", "region"]
    assert set(back["region"]) == {"'=north", "south"}
    assert (back["income"] == rel.protected["income"]).all()  # numbers untouched
    text = rel.to_csv(None, index=False, spreadsheet_safe=False)
    assert "=north" in text and "'=north" not in text and text.startswith("income,-age")
    assert list(frame.columns) == ["income", "-age", "region"] and "=north" in set(frame["region"])


# ----------------------------------------------------------------------------- API: parameters


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"renormalize": "false"}, "'renormalize' must be True or False"),
    ({"n_jobs": 1}, "settings of an engine"),
    ({"aggregation": "p3m", "w": 0.5, "weights": "random"}, "'w' .* only with weights='given'"),
    ({"aggregation": "p3m", "w_seed": 3}, "'w_seed' .* only with weights='random'"),
    ({"method": "projection", "column": 1}, "'column' .* only with axis='column'"),
    ({"method": "projection", "axis": "column", "column": 5}, "column index below 2"),
    ({"method": "hmpfsom", "c": 2, "c_max": 5}, "'c_max' .* only with c=0"),
    ({"method": "hmpfsom", "cs": 2, "cs_max": 5}, "'cs_max' .* only with cs=0"),
    ({"variant": "classic", "method_params": {"variant": "generic"}}, "both as keywords and in method_params"),
    ({"aggregation": "p3m", "alpha": 0.2, "aggregation_params": {"alpha": 0.3}}, "both as keywords"),
])
def test_parameters_that_would_be_ignored_or_mistyped_are_refused(frame, kwargs, message):
    with pytest.raises(ma.MicroaggError, match=message):
        ma.microaggregate(frame[["income", "age"]], 3, **kwargs)


def test_parameters_with_an_effect_still_pass(frame):
    df = frame[["income", "age"]]
    rel = ma.microaggregate(df, 3, aggregation="p3m", weights="random", w_seed=4)
    assert rel.params["w_seed"] == 4
    rel = ma.microaggregate(df, 3, method="projection", axis="column", column=1)
    assert np.array_equal(rel.labels, ma.microaggregate(df[["age", "income"]], 3, method="projection",
                                                        axis="column", column=0).labels)


def test_a_per_record_w_is_never_read_per_attribute():
    from microagg.privacy.wishes import resolve_weights

    df = pd.DataFrame({"a": [1.5, 2, 3, 4], "b": [4.5, 1, 3, 2], "c": [0.0, 1, 0, 1], "d": [2.0, 2, 1, 1]})
    w = np.array([0.1, 0.2, 0.3, 0.4])  # n = d = 4: per record or per attribute?
    with pytest.raises(ma.MicroaggError, match=r"one per record or one per attribute: give an \(4, 1\)"):
        ma.microaggregate(df, 2, aggregation="p3m", w=w)
    assert (resolve_weights(w[:, None], 4, 4) == w[:, None]).all()   # one weight per record, on every attribute
    assert (resolve_weights(w[None, :], 4, 4) == w[None, :]).all()   # one per attribute, for every record
    assert ma.microaggregate(df, 2, aggregation="p3m", w=w[:, None]).anonymity["k_anonymous"]
    assert (resolve_weights(w[:3], 3, 4) == w[:3, None]).all()       # n != d: a vector of length n is per record


def test_the_labels_route_records_only_the_method_that_made_them(frame):
    df = frame[["income", "age"]]
    labels = ma.microaggregate(df, 3, method="projection").labels
    rel = ma.microaggregate(df, 3, labels=labels)
    assert rel.params["method"] == "given labels" and "variant" not in rel.params
    with pytest.raises(ma.MicroaggError, match="no method="):
        ma.microaggregate(df, 3, labels=labels, variant="classic")
    rel = ma.microaggregate(df, 3, labels=labels, method="projection")
    assert rel.params["method"] == "projection" and rel.params["axis"] == "pca"


# ----------------------------------------------------------------------------- command line


def run(argv, capsys):
    """Exit status and stderr of ``python -m microagg argv`` run in process; any exception but SystemExit (a
    traceback for the user) fails the test."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    err = capsys.readouterr().err
    return code, err


def error_line(code, err):
    assert code == 2, err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def files(tmp_path):
    f = {"good": "a,b,t\n1.5,2.5,x\n3.25,4,y\n5,7.5,z\n8.5,9,w\n",
         "ragged": "income,age\n123,45,30\n200,10,40\n150,20,50\n",
         "empty": "", "header": "a,b\n", "dup": "a,a\n1,2\n3,4\n", "text": "a,b\nx,y\nz,w\n",
         "nan": "a,b\n1,2\n,4\n5,6\n", "short": "a,b\n1,2\n3\n", "inf": "a,b\n1,2\ninf,4\n5,6\n"}
    for name, text in f.items():
        (tmp_path / f"{name}.csv").write_text(text)
    (tmp_path / "latin.csv").write_bytes("größe,b\n1,2\n3,4\n".encode("latin-1"))
    (tmp_path / "nohdr.csv").write_text("1.5,2.5\n3.25,4\n5,7.5\n")  # a record where the header should be
    (tmp_path / "good.csv.gz").write_bytes(gzip.compress(f["good"].encode()))
    (tmp_path / "folder").mkdir()
    if hasattr(os, "mkfifo"):  # (the cases that need them are skipped where a system has no pipes or links)
        os.mkfifo(tmp_path / "pipe")
    with contextlib.suppress(OSError):
        (tmp_path / "link.csv").symlink_to(tmp_path / "header.csv")
        (tmp_path / "here").symlink_to(tmp_path, target_is_directory=True)
    return tmp_path


CLI_ERRORS = [
    (["--input", "{d}/ragged.csv", "--k", "2"], "line 2: 3 field"),
    (["--input", "{d}/short.csv", "--k", "2"], "line 3: 1 field"),
    (["--input", "{d}/empty.csv", "--k", "2"], "is empty"),
    (["--input", "/dev/null", "--k", "2"], "is empty"),
    (["--input", "{d}/header.csv", "--k", "2"], "no records"),
    (["--input", "{d}/dup.csv", "--k", "2"], "duplicate column names"),
    (["--input", "{d}/text.csv", "--k", "2"], "no numeric column"),
    (["--input", "{d}/nan.csv", "--k", "2", "--missing", "refuse"], "missing"),
    (["--input", "{d}/inf.csv", "--k", "2"], "infinite"),
    (["--input", "{d}/latin.csv", "--k", "2"], "--encoding latin-1"),
    (["--input", "{d}/good.csv", "--k", "2", "--encoding", "nope"], "unknown encoding"),
    (["--input", "{d}/missing.csv", "--k", "2"], "cannot read"),
    (["--input", "{d}/folder", "--k", "2"], "is a directory"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/good.csv"], "is the input file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/folder/../good.csv"], "is the input file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/nowhere/out.csv"], "does not exist"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/folder"], "is a directory"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/header.csv"], "already exists"),
    (["--input", "{d}/nohdr.csv", "--k", "2"], "every name in the header row is a number (1.5, 2.5)"),
    (["--input", "{d}/good.csv.gz", "--k", "2"], "is a gzip-compressed file, not a CSV text file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/pipe", "--force"], "is not a regular file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "/dev/null", "--force"], "is not a regular file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/link.csv", "--force"], "is a symbolic link"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/new.csv", "--report", "{d}/here/new.csv"],
     "--out and --report name the same file"),
    (["--input", "{d}/good.csv", "--k", "2", "--out", "{d}/ok.csv", "--report", "{d}/" + "r" * 250 + ".html"],
     "its name is too long"),
    (["--input", "{d}/good.csv", "--k", "2", "--no-shuffle", "--seed", "5"], "leave the seed out"),
    (["--input", "{d}/good.csv", "--k", "2", "--force"], "--force allows --out or --report"),
    (["--input", "{d}/good.csv", "--k", "2", "--data-param", "n=5"], "--data-param"),
    (["--dataset", "census", "--k", "3", "--encoding", "latin-1"], "--encoding applies"),
    (["--dataset", "census", "--k", "3", "--param", "variant=classic", "--param", "variant=generic"], "given twice"),
    (["--dataset", "census", "--k", "3", "--param", "variant"], "name=value"),
    (["--dataset", "census", "--k", "3", "--aggregation", "p3m", "--param", "weights=random", "--param", "w=0.2"],
     "only with weights='given'"),
    (["--dataset", "census", "--k", "3", "--method", "projection", "--param", "column=3"], "only with axis"),
    (["--dataset", "census", "--k", "3", "--param", "renormalize=false"], "not a parameter of method 'mdav'"),
    (["--dataset", "census", "--k", "3", "--aggregation", "p3m", "--param", "relative=maybe"], "true or false"),
    (["--dataset", "census", "--k", "1"], "k must be an integer >= 2"),
    (["--dataset", "census", "--k", "1.5"], "invalid int value"),
    (["--dataset", "census", "--k", "3", "--engine", "warp"], "invalid choice"),
    (["--dataset", "nope", "--k", "3"], "nope"),
    (["--dataset", "census", "--k", "3", "--data-param", "n=5"], "n"),
    (["--dataset", "census", "--k", "3", "--engine", "dask"], "give --out"),
    (["--dataset", "census", "--k", "3", "--engine", "dask", "--out", "{d}/good.csv"], "is a file"),
    (["--dataset", "census", "--k", "3", "--engine", "dask", "--out", "{d}/d", "--no-spreadsheet-safe"], "Parquet"),
    (["--input", "{d}/good.csv", "--k", "3", "--engine", "dask", "--out", "{d}"], "holds or is the input"),
    (["--dataset", "census", "--k", "3", "--engine", "dask", "--out", "{d}/nowhere/deeper"], "does not exist"),
    (["--k", "3"], "exactly one of"),
    (["--dataset", "census", "--k", "3", "--block-size", "100"], "needs --engine blocks"),
    (["--dataset", "census", "--k", "3", "--scheduler", "tcp://localhost:1"], "needs --engine dask"),
    (["--dataset", "census", "--k", "3", "--engine", "blocks", "--block-size", "4"], "smaller than 2k"),
    (["--dataset", "census", "--k", "3", "--columns", "nope"], "not in the data"),
    (["--dataset", "census", "--k", "3", "--keep", "nope"], "not in the data"),
    (["--dataset", "census", "--k", "3", "--confidential", "nope"], "not in the data"),
    (["--dataset", "census", "--k", "3", "--aggregation", "p3m", "--renormalize"], "renormalize"),
    (["--dataset", "census", "--k", "3", "--method", "nope"], "unknown method"),
    (["--dataset", "census", "--k", "2000"], "1080 records but k = 2000"),
]


@pytest.mark.parametrize(("argv", "message"), CLI_ERRORS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_every_cli_error_is_one_line_and_exit_2(files, capsys, argv, message):
    needs = [n for n in ("pipe", "link.csv", "here", "/dev/null") if any(n in a for a in argv)]
    if not all(os.path.lexists(n if n.startswith("/") else files / n) for n in needs):
        pytest.skip(f"this system has no {needs}")
    before = {p.name: p.read_bytes() for p in files.glob("*.csv")}
    code, err = run(["run", *[a.format(d=files) for a in argv]], capsys)
    assert message in error_line(code, err)
    assert {p.name: p.read_bytes() for p in files.glob("*.csv")} == before  # nothing lost, nothing written
    assert not list(files.glob(".*.tmp")) and not list(files.glob("*partial*"))


def test_a_real_process_prints_no_traceback(files):
    for argv in (["--input", str(files / "empty.csv"), "--k", "2"],
                 ["--input", str(files / "good.csv"), "--k", "2", "--out", str(files / "good.csv")]):
        done = subprocess.run([sys.executable, "-m", "microagg", "run", *argv], capture_output=True, text=True,
                              timeout=300, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.count("error:") == 1
    assert (files / "good.csv").read_text().startswith("a,b,t\n1.5,2.5,x")


def test_cli_converts_tells_and_writes_safely(files, capsys):
    (files / "money.csv").write_text('amount,share,name\n"12,345",12%,=cmd\n"1,234",13%,b\n"2,000",14%,c\n'
                                     '"3,100",15%,d\n')
    out = files / "out.csv"
    assert main(["run", "--input", str(files / "money.csv"), "--k", "2", "--keep", "name", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "'amount'" in err and "thousands" in err and "percent" in err
    back = pd.read_csv(out)
    assert back["amount"].sum() == 12345 + 1234 + 2000 + 3100 and back["amount"].nunique() == 2  # two group means
    assert "'=cmd" in set(back["name"])
    assert main(["run", "--input", str(files / "money.csv"), "--k", "2", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["run", "--input", str(files / "money.csv"), "--k", "2", "--keep", "name", "--out", str(out),
                 "--force", "--no-spreadsheet-safe"]) == 0
    assert "=cmd" in set(pd.read_csv(out)["name"])
    assert main(["run", "--input", str(files / "text.csv"), "--k", "2", "--columns", "a"]) == 2
    assert main(["run", "--input", str(files / "money.csv"), "--k", "2"]) == 0
    assert "text column(s) name are dropped from the release" in capsys.readouterr().err


def test_cli_all_identical_records_release_with_il_undefined(files, capsys):
    (files / "same.csv").write_text("a,b\n" + "5,1\n" * 6)
    assert main(["run", "--input", str(files / "same.csv"), "--k", "3", "--out", str(files / "o.csv")]) == 0
    assert "undefined (every record identical)" in capsys.readouterr().out
    assert pd.read_csv(files / "o.csv").to_numpy().tolist() == [[5, 1]] * 6


def test_a_failure_while_writing_leaves_no_partial_release(files, capsys, monkeypatch):
    out = files / "o.csv"
    out.write_text("previous release\n")

    def full_disk(self, f, **kwargs):
        f.write("a,b\n1,")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    code, err = run(["run", "--input", str(files / "good.csv"), "--k", "2", "--out", str(out), "--force"], capsys)
    assert "No space left on device" in error_line(code, err)
    assert out.read_text() == "previous release\n" and not list(files.glob(".*.tmp"))


def test_large_inputs_get_a_time_estimate_and_the_block_hint(capsys):
    from microagg.base.advice import scale_hint
    from microagg.base.registry import get_method

    mdav = get_method("partition", "mdav")

    assert scale_hint(2_000_000, 10, mdav) and "--engine blocks" in scale_hint(2_000_000, 10, mdav)
    assert scale_hint(10_000, 10, mdav) is None
    assert scale_hint(2_000_000, 10, mdav, engine="blocks") is None
    assert scale_hint(2_000_000, 10, get_method("partition", "projection")) is None


# ----------------------------------------------------------------------------- the Dask engine


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        yield c


def test_dask_reads_csv_with_the_one_reader(client, tmp_path):
    from microagg.release.scale import microaggregate_dask

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.csv").write_text("x;y\n" + "".join(f"{i},5;{i * i}\n" for i in range(12)))
    rel = microaggregate_dask(str(tmp_path / "in" / "*.csv"), 3, out=tmp_path / "o", scheduler=client)
    released = rel.protected.compute()
    assert released["x"].sum() == pytest.approx(sum(i + 0.5 for i in range(12)))
    (tmp_path / "in" / "b.csv").write_text("x;y\n1,5;2\n3;4;5\n")
    with pytest.raises(ma.MicroaggError, match=r"b\.csv, line 3: 3 field"):
        microaggregate_dask(str(tmp_path / "in" / "*.csv"), 3, out=tmp_path / "o2", scheduler=client)
    assert not (tmp_path / "o2").exists()


def test_dask_replaces_only_a_previous_release_and_only_with_force(client, tmp_path):
    from microagg.release.scale import microaggregate_dask

    df = pd.DataFrame({"a": np.arange(30.0), "b": np.arange(30.0) ** 2})
    first = microaggregate_dask(df, 3, out=tmp_path / "o", scheduler=client, identifiers=[])
    with pytest.raises(ma.MicroaggError, match="exists and is not empty.*--force"):
        microaggregate_dask(df, 5, out=tmp_path / "o", scheduler=client, identifiers=[])
    assert first.protected.compute()["a"].nunique() == 10  # still the k = 3 release
    again = microaggregate_dask(df, 5, out=tmp_path / "o", scheduler=client, force=True, identifiers=[])
    assert again.protected.compute()["a"].nunique() == 6
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("years of work")
    with pytest.raises(ma.MicroaggError, match="not a microagg release"):
        microaggregate_dask(df, 3, out=tmp_path / "mine", scheduler=client, force=True, identifiers=[])
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize("where", ["_report", "k_anonymity"])
def test_dask_writes_nothing_when_a_check_or_the_report_fails(client, tmp_path, monkeypatch, where):
    import microagg.release.scale as scale

    def fail(*args, **kwargs):
        if where == "k_anonymity":
            return {"k_anonymous": False, "min_class": 1}
        raise ma.MicroaggError("report failed")

    monkeypatch.setattr(scale, where, fail)
    df = pd.DataFrame({"a": np.arange(30.0), "b": np.arange(30.0) ** 2})
    with pytest.raises(ma.MicroaggError, match="report failed|internal check failed"):
        scale.microaggregate_dask(df, 3, out=tmp_path / "o", scheduler=client, identifiers=[])
    assert os.listdir(tmp_path) == []


def test_dask_standardizes_extreme_magnitudes_or_refuses_naming_the_column(client, tmp_path):
    from microagg.release.scale import microaggregate_dask

    for name, values in (("big", np.arange(1.0, 31.0) * 1e300 / 30), ("tiny", np.arange(1.0, 31.0) * 1e-300)):
        df = pd.DataFrame({"a": np.arange(30.0), name: values})
        released = microaggregate_dask(df, 3, out=tmp_path / name, scheduler=client,
                                       identifiers=[]).protected.compute()
        want = np.sort(values.reshape(10, 3).mean(axis=1))  # groups of three consecutive records
        assert np.allclose(np.sort(released[name].unique()), want, rtol=1e-12, atol=0)
    near_max = pd.DataFrame({"a": np.arange(12.0), "huge": np.r_[np.full(2, -1.7e308), np.full(10, 1.7e308)]})
    with pytest.raises(ma.MicroaggError, match="column 'huge' has values up to 1.7e\\+308.*overflow"):
        microaggregate_dask(near_max, 3, out=tmp_path / "o", scheduler=client, identifiers=[])
    assert not (tmp_path / "o").exists()
