import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from microagg import load_dataset
from microagg.base.registry import methods
from microagg.cli import main


def test_run_writes_the_release_and_prints_the_report(tmp_path, capsys):
    out = tmp_path / "release.csv"
    assert main(["run", "--dataset", "census", "--k", "5", "--method", "mdav", "--aggregation", "median",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "IL" in printed and "k-anonymous" in printed
    rel = pd.read_csv(out)
    assert rel.shape == (1080, 13)


def test_run_on_a_csv_with_columns_keep_and_params(tmp_path, capsys):
    src = tmp_path / "in.csv"
    pd.DataFrame({"id": range(30), "x": range(30), "y": [v * v for v in range(30)], "t": ["a"] * 30}).to_csv(
        src, index=False)
    out = tmp_path / "out.csv"
    assert main(["run", "--input", str(src), "--columns", "x,y", "--keep", "t", "--k", "3", "--param",
                 "variant=classic", "--out", str(out)]) == 0
    rel = pd.read_csv(out)
    assert list(rel.columns) == ["x", "y", "t"]
    assert "id" in capsys.readouterr().out  # reported as dropped


def test_errors_exit_with_status_2(capsys):
    assert main(["run", "--dataset", "census", "--k", "1"]) == 2
    assert "k must be an integer >= 2" in capsys.readouterr().err
    assert main(["run", "--dataset", "census", "--k", "3", "--param", "variant"]) == 2
    assert "name=value" in capsys.readouterr().err
    assert main(["run", "--k", "3"]) == 2
    assert main(["run", "--input", "/nonexistent/file.csv", "--k", "3"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "microagg", "datasets"], capture_output=True, text=True, check=True)
    assert "tarragona" in res.stdout


def test_reproduce_sl_prints_every_cell(capsys):
    assert main(["reproduce", "sl"]) == 0
    out = capsys.readouterr().out
    assert "24 of 24 published values reproduced (SL %, tolerance 0.02 pp (Table 2) and 0.05 pp (Table 3))" in out


def test_run_with_roles(tmp_path, capsys):
    out = tmp_path / "release.csv"
    assert main(["run", "--dataset", "census", "--k", "3", "--method", "hmpfsom", "--confidential",
                 "STATETAX,TAXINC,POTHVAL,INTVAL,PEARNVAL,FICA,WSALVAL,ERNVAL", "--param", "scaling=minmax",
                 "--param", "c=2", "--no-shuffle", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "columns confidential (unchanged)" in printed and "STATETAX, TAXINC" in printed
    rel = pd.read_csv(out)
    census = load_dataset("census")
    assert rel.shape == (1080, 13) and (rel["FICA"] == census["FICA"]).all()
    assert main(["run", "--dataset", "census", "--k", "3", "--method", "hmpfsom"]) == 2
    assert "needs confidential attributes" in capsys.readouterr().err


def test_reproduce_prints_a_table_summary_when_it_has_one(monkeypatch, capsys):
    from microagg import cli

    table = pd.DataFrame({"match": [True, False]})
    table.attrs["summary"] = "the pattern holds"
    monkeypatch.setitem(cli.REPRODUCIBLE, "hmpfsom", lambda: table)
    assert main(["reproduce", "hmpfsom"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("the pattern holds")


def test_run_withholds_identifiers_checks_keys_in_strata_and_shuffles_by_seed(tmp_path, capsys):
    rng = np.random.default_rng(0)
    src = tmp_path / "in.csv"
    pd.DataFrame({"member_id": range(60), "region": ["n", "s", "e"] * 20, "x": rng.normal(size=60),
                  "y": rng.normal(size=60)}).to_csv(src, index=False)
    runs = []
    for i, extra in enumerate((["--seed", "4"], ["--seed", "4"], ["--no-shuffle"])):
        out = tmp_path / f"out{i}.csv"
        assert main(["run", "--input", str(src), "--k", "3", "--keys", "region", "--strata", "region",
                     "--out", str(out), *extra]) == 0
        runs.append(pd.read_csv(out))
        captured = capsys.readouterr()
        assert "member_id (its name marks an identifier)" in captured.err
    assert list(runs[0].columns) == ["region", "x", "y"]
    assert runs[0].equals(runs[1]) and not runs[0].equals(runs[2])
    assert runs[0].groupby(["region", "x", "y"]).size().min() >= 3
    assert (runs[2]["region"] == ["n", "s", "e"] * 20).all()
    out = tmp_path / "ids.csv"
    assert main(["run", "--input", str(src), "--k", "3", "--identifiers", "", "--columns", "x,y", "--keep",
                 "member_id", "--out", str(out)]) == 0
    assert sorted(pd.read_csv(out)["member_id"]) == list(range(60))
    assert main(["run", "--input", str(src), "--k", "3", "--identifiers", "x", "--columns", "x,y"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: columns ['x'] are listed in")


def test_a_text_key_is_not_said_to_be_dropped_a_text_stratum_is(tmp_path, capsys):
    rng = np.random.default_rng(2)
    src = tmp_path / "in.csv"
    pd.DataFrame({"region": ["n", "s"] * 30, "x": rng.normal(size=60), "y": rng.normal(size=60)}).to_csv(
        src, index=False)
    assert main(["run", "--input", str(src), "--k", "3", "--keys", "region", "--strata", "region", "--full"]) == 0
    captured = capsys.readouterr()
    assert "dropped from the release" not in captured.err
    assert re.search(r"columns dropped\s+all\s+none", captured.out)
    assert re.search(r"columns kept unmasked\s+all\s+region", captured.out)
    assert main(["run", "--input", str(src), "--k", "3", "--strata", "region", "--full"]) == 0
    captured = capsys.readouterr()
    assert "text column(s) region are dropped from the release" in captured.err
    assert re.search(r"columns dropped\s+all\s+region", captured.out)  # the note and the report agree


def test_list_flags_take_quoted_names(tmp_path, capsys):
    rng = np.random.default_rng(3)
    src = tmp_path / "in.csv"
    pd.DataFrame({"income, net": rng.normal(size=30), 'say "hi"': rng.normal(size=30), "x": rng.normal(size=30)}
                 ).to_csv(src, index=False)
    out = tmp_path / "out.csv"
    assert main(["run", "--input", str(src), "--k", "3", "--columns", '"income, net" , "say ""hi"""', "--keep", "x",
                 "--out", str(out)]) == 0
    assert list(pd.read_csv(out).columns) == ["income, net", 'say "hi"', "x"]
    assert main(["run", "--input", str(src), "--k", "3", "--columns", '"income, net']) == 2
    assert "a quote is opened and not closed" in capsys.readouterr().err
    assert main(["run", "--input", str(src), "--k", "3", "--columns", '"income" net,x']) == 2
    assert "'net,x' follows the quoted name 'income'" in capsys.readouterr().err


def test_a_malformed_argument_is_one_line_with_where_to_read_the_usage(capsys):
    for argv, said in ((["run", "--dataset", "census", "--k", "2.5"], "argument --k: invalid int value: '2.5' (see "
                        "python -m microagg run --help)"),
                       (["frobnicate"], "argument command: invalid choice: 'frobnicate'")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.startswith(f"error: {said}") and err.count("\n") == 1


def test_an_empty_list_of_columns_to_mask_is_refused_not_read_as_every_column(capsys):
    for given in ("", " , "):
        assert main(["run", "--dataset", "census", "--k", "3", "--columns", given]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --columns names no column") and err.count("\n") == 1
    assert main(["run", "--dataset", "census", "--k", "3", "--keep", ""]) == 0  # no column kept: the default


def test_run_prints_a_compact_report_unless_full(capsys):
    assert main(["run", "--dataset", "census", "--k", "5"]) == 0
    compact = capsys.readouterr().out.splitlines()
    assert max(map(len, compact)) <= 100 and "e+" not in "\n".join(compact)
    assert any(line.split() == ["sign", "test", "N", "14,014", "pairs"] for line in compact)
    assert main(["run", "--dataset", "census", "--k", "5", "--full"]) == 0
    full = capsys.readouterr().out.splitlines()
    assert len(full) > len(compact) + 50 and any("AFNLWGT" in line and "SDID" in line for line in full)


def test_the_noise_seed_of_a_private_release_is_never_printed(tmp_path, capsys):
    """The noise seed undoes the noise: neither the compact report nor --full prints it (both did); the HTML report,
    marked private, holds it."""
    run = ["run", "--dataset", "uniform", "--data-param", "n=200", "--data-param", "d=2", "--k", "10", "--method",
           "insensitive_mdav", "--aggregation", "laplace", "--param", "bounds=0:40000,0:40000", "--param",
           "noise_seed=987654321"]
    for extra in ([], ["--full"]):
        assert main([*run, *extra]) == 0
        out = capsys.readouterr().out
        assert "987654321" not in out and "DP noise seed" not in out
        assert "not printed: the noise seed" in out and "differential privacy ε" in out
    assert main([*run, "--report", str(tmp_path / "report.html")]) == 0
    assert "987654321" not in capsys.readouterr().out
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "987654321" in page and "Keep this file private" in page


def test_methods_lists_every_registered_method_in_the_menu_order(capsys):
    """``python -m microagg methods``: sdcMicro's methods included (docs/reproductions.md §13), in registry order."""
    main(["methods"])
    out = capsys.readouterr().out
    listed = re.findall(r"^  (\w+) ", out, re.M)
    assert listed == [m.name for m in methods("partition")] + [m.name for m in methods("aggregate")]
    assert {"rmd", "simple", "pppca", "mcdpca", "clustpca", "clustpppca", "clustmcdpca", "influence", "trim",
            "onestep"} <= set(listed)
