"""Column roles of a release (microagg.privacy.roles): a column named like a sampling weight is withheld and proposed,
never
masked by default; the sampling-weight column is never masked as a category either; a chosen column mixing numbers
and text is refused naming the cause; a release with nothing left to mask says what was withheld and why."""

import warnings

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.cli import main


def survey(n: int = 60, seed: int = 0, weight: str = "wgt") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.normal(45, 12, n), "income": rng.lognormal(10, 0.5, n),
                         "region": rng.choice(["N", "S", "E"], n), weight: rng.uniform(80, 500, n).round(2)})


@pytest.mark.parametrize("weight", ["weight", "wgt", "pwgtp", "final_weight", "finalwgt"])
def test_a_column_named_like_a_weight_is_withheld_not_masked_by_default(weight):
    df = survey(weight=weight)
    rel = ma.microaggregate(df, 3, seed=0)
    assert rel.masked == ["age", "income"] and weight not in rel.protected.columns
    why = rel.identifiers[weight]
    assert "sampling weight" in why and f"sampling_weights='{weight}'" in why
    line = rel.report().query("metric == 'identifiers (not released)'")["value"].item()
    assert f"{weight} (its name marks a sampling weight" in line
    weighted = ma.microaggregate(df, 3, seed=0, sampling_weights=weight)  # the proposal, taken
    assert weight not in weighted.identifiers and weighted.params["sampling_weights"] == weight
    assert ma.microaggregate(df, 3, seed=0, keep=[weight]).protected[weight].sort_values().tolist() == \
        df[weight].sort_values().tolist()  # kept: the user's choice, released unchanged
    assert ma.microaggregate(df, 3, seed=0, columns=["age", weight]).masked == ["age", weight]


def test_a_body_weight_is_masked_as_before():
    df = survey(weight="weight_kg")
    assert ma.microaggregate(df, 3, seed=0).masked == ["age", "income", "weight_kg"]


def test_the_cli_says_how_to_use_a_withheld_weight(tmp_path, capsys):
    path = tmp_path / "survey.csv"
    survey().to_csv(path, index=False)
    assert main(["run", "--input", str(path), "--k", "3", "--seed", "0", "--out", str(tmp_path / "out.csv")]) == 0
    err = capsys.readouterr().err
    assert "wgt (its name marks a sampling weight" in err and "--sampling-weights wgt" in err
    assert "wgt" not in pd.read_csv(tmp_path / "out.csv").columns


@pytest.mark.parametrize("kind", ["nominal", "ordinal"])
def test_the_sampling_weight_column_is_never_masked_as_a_category(kind):
    df = survey().assign(wgt=lambda d: np.repeat([100.0, 200.0, 300.0], 20))
    with pytest.raises(ma.MicroaggError, match=f"'wgt' is the sampling-weight column and also listed in '{kind}"):
        ma.microaggregate(df, 3, sampling_weights="wgt", **{kind: ["wgt"]})


@pytest.mark.parametrize("kwargs", [{"nominal": ["m"]}, {"ordinal": ["m"]}, {"columns": ["m", "age"]}])
def test_a_column_mixing_numbers_and_text_is_refused_naming_the_cause(kwargs):
    df = survey().assign(m=[1, "1", 2.0] * 20)
    with pytest.raises(ma.MicroaggError, match=r"column 'm' mixes numbers and text \(e\.g\. 1 and '1'\)"):
        ma.microaggregate(df, 3, **kwargs)


def test_nothing_left_to_mask_says_what_was_withheld_and_why():
    df = pd.DataFrame({"rec": np.arange(1.0, 31), "wgt": np.linspace(1, 3, 30)})
    with pytest.raises(ma.MicroaggError, match=r"no column left to mask.* rec is withheld: its values look like record "
                                               r"numbers.* wgt is withheld: its name marks a sampling weight"):
        ma.microaggregate(df, 3)


@pytest.mark.parametrize("values", [np.arange(20), np.arange(20.0) * 5])
def test_an_unnamed_series_gets_a_message_about_the_series(values):
    with pytest.raises(ma.MicroaggError, match=r"^data is an unnamed pandas Series, read as one column named 'x0': "
                                               r"no column left to mask.* x0 is withheld: its values look like record "
                                               r"numbers.*give it a name \(s\.rename\('income'\)\) and pass "
                                               r"columns=\['income'\]"):
        ma.microaggregate(pd.Series(values), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ma.microaggregate(pd.Series(values, name="income"), 3, columns=["income"]).masked == ["income"]


def test_a_weight_that_is_not_positive_is_named_with_its_row_and_value():
    df = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) ** 2, "w": [1] * 9 + [-2]}, index=np.arange(10) * 7)
    with pytest.raises(ma.MicroaggError, match=r"'w' has 1 value\(s\) .* the first, at row 63, is -2\.0\. Every"):
        ma.microaggregate(df, 3, columns=["a", "b"], sampling_weights="w")
