"""--ordinal and --nominal on the command line (microagg.cli; docs/methods.md §2.15)."""

import pandas as pd
import pytest

import microagg as ma
from microagg.cli import main
from microagg.release.recipe import cli_command

ORDER = "<".join(ma.datasets.SURVEY_EDUCATION)


@pytest.fixture(scope="module")
def survey_csv(tmp_path_factory):
    # the weight and the cells left missing belong to other options: complete rows, weight not selected
    path = tmp_path_factory.mktemp("survey") / "survey.csv"
    ma.load_dataset("survey").dropna().head(150).to_csv(path, index=False)
    return path


def test_ordinal_and_nominal_flags_release_categories(survey_csv, tmp_path, capsys):
    out = tmp_path / "release.csv"
    assert main(["run", "--input", str(survey_csv), "--k", "3", "--columns", "age,household_size", "--ordinal",
                 f"education={ORDER}", "--nominal", "region", "--seed", "4", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    rel = pd.read_csv(out)
    assert list(rel.columns) == ["region", "age", "education", "household_size"]
    assert set(rel["education"]) <= set(ma.datasets.SURVEY_EDUCATION)
    assert rel.groupby(list(rel.columns)).size().min() >= 3
    assert "changed categories" in captured.out and "text column" not in captured.err
    expected = ma.microaggregate(pd.read_csv(survey_csv), 3, columns=["age", "household_size"],
                                 ordinal={"education": list(ma.datasets.SURVEY_EDUCATION)}, nominal=["region"], seed=4)
    assert out.read_text(encoding="utf-8") == expected.to_csv()  # the same file as the Python call
    assert f"--ordinal 'education={ORDER}' --nominal region" in cli_command(expected.spec, ["--input", "x.csv"])


def test_natural_sort_is_announced_and_text_without_a_role_is_named(survey_csv, capsys):
    assert main(["run", "--input", str(survey_csv), "--k", "3", "--columns", "age", "--ordinal", "education"]) == 0
    err = capsys.readouterr().err
    assert "natural sort" in err and "text column(s) region are dropped" in err and "--nominal" in err


@pytest.mark.parametrize("argv, message", [
    (["--ordinal", "education="], "--ordinal expects COLUMN"),
    (["--ordinal", "education", "--ordinal", "education"], "given twice"),
    (["--ordinal", "education=none<primary"], "not in its order"),
    (["--nominal", "region", "--method", "md"], "heterogeneous MDAV"),
])
def test_bad_categorical_flags_exit_2(survey_csv, capsys, argv, message):
    assert main(["run", "--input", str(survey_csv), "--k", "3", "--columns", "age", *argv]) == 2
    assert message in capsys.readouterr().err


def test_dask_refuses_categories(survey_csv, tmp_path, capsys):
    assert main(["run", "--engine", "dask", "--input", str(survey_csv), "--k", "3", "--nominal", "region", "--out",
                 str(tmp_path / "rel")]) == 2
    assert "the Dask engine does not take 'nominal'" in capsys.readouterr().err
