"""Releases with sampling weights and missing cells (docs/methods.md §8): k-anonymous on the masked columns with
"a missing cell matches only a missing cell", the weight column never masked, today's release when the weights
are all 1, the CSV round trip of missing cells, and every bad combination refused."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.base.said import caught
from microagg.cli import main


def holes(df, share, seed):
    """``df`` with ``share`` of its cells removed at random (seeded)."""
    return df.mask(np.random.default_rng(seed).random(df.shape) < share)


def classes_of_published_rows(protected, columns):
    """Size of every released row's class: rows equal on every observed cell and missing on the same columns."""
    V = protected[columns].to_numpy(dtype=float)
    code = np.column_stack([np.nan_to_num(V, nan=0.0), np.isnan(V)])
    _, inverse, counts = np.unique(code, axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([2, 3, 5]), st.sampled_from(["keep", "impute"]),
       st.sampled_from(["mean", "median"]), st.floats(0.02, 0.4))
def test_every_release_with_missing_cells_is_k_anonymous_as_published(seed, k, missing, aggregation, share):
    rng = np.random.default_rng(seed)
    df = holes(pd.DataFrame(rng.integers(0, 4, size=(60, 4)).astype(float), columns=list("abcd")), share, seed)
    df["w"] = rng.uniform(0.5, 4, len(df))
    with pytest.warns() if aggregation == "median" else np.errstate():
        rel = ma.microaggregate(df, k, aggregation=aggregation, missing=missing, sampling_weights="w", seed=seed)
    assert classes_of_published_rows(rel.protected, list("abcd")).min() >= k
    assert rel.anonymity["k_anonymous"] and "w" not in rel.protected
    released = rel.in_input_order()[list("abcd")].isna().to_numpy()
    original = df[list("abcd")].isna().to_numpy()
    if missing == "keep":
        assert (released >= original).all()  # a missing cell stays missing
    else:
        assert released.sum() <= original.sum()  # missing only where no member of the group observes it


@pytest.mark.parametrize("aggregation", ["mean", "median"])
def test_unit_weights_give_todays_release(aggregation):
    df = ma.load_dataset("tarragona")
    with pytest.warns() if aggregation == "median" else np.errstate():
        today = ma.microaggregate(df, 3, aggregation=aggregation, seed=5)
    weighted = df.assign(w=1.0)
    with pytest.warns() if aggregation == "median" else np.errstate():
        ones = ma.microaggregate(weighted, 3, aggregation=aggregation, seed=5, sampling_weights="w")
    assert ones.protected.equals(today.protected)


def test_weights_are_never_masked_and_released_only_if_kept():
    df = ma.load_dataset("census").assign(w=np.linspace(1, 3, 1080))
    assert "w" not in ma.microaggregate(df, 3, sampling_weights="w", seed=1).protected
    kept = ma.microaggregate(df, 3, sampling_weights="w", keep=["w"], seed=1)
    assert kept.protected["w"].sort_values().to_numpy().tolist() == df["w"].sort_values().tolist()
    report = kept.report().set_index("metric")["value"]
    assert "released unchanged" in report["sampling weights"] and "IL (weighted)" in report


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sampling_weights": "w", "columns": ["a", "w"]}, "sampling-weight column and also listed in 'columns"),
    ({"sampling_weights": "bad"}, "not finite numbers > 0"),
    ({"sampling_weights": "nope"}, "not in the data"),
    ({"sampling_weights": "w", "aggregation": "p3m"}, "aggregation 'p3m' cannot take sampling weights"),
    ({"missing": "refuse"}, "'a' has 1 non-finite"),
    ({"missing": "maybe"}, "missing must be one of"),
    ({"method": "vmdav"}, "only method 'mdav'"),
    ({"param": "classic"}, "only method 'mdav'"),
])
def test_bad_survey_input_is_one_message(kwargs, message):
    df = pd.DataFrame({"a": [1.0, np.nan, 3, 4, 5, 6], "b": [1.0, 2, 3, 4, 5, 7], "w": [1.0] * 6,
                       "bad": [1.0, 0, 1, 1, 1, 1]})
    if kwargs.pop("param", None):
        kwargs["variant"] = "classic"
    kwargs.setdefault("columns", ["a", "b"])
    with pytest.raises(ma.MicroaggError, match=message):
        ma.microaggregate(df, 2, **kwargs)


def test_missing_cells_are_written_empty_and_read_back_missing(tmp_path):
    df = holes(ma.load_dataset("tarragona"), 0.05, 0)
    rel = ma.microaggregate(df, 3, seed=2)
    path = tmp_path / "release.csv"
    rel.to_csv(path)
    back = ma.read_csv(path).data
    raw = pd.read_csv(path, keep_default_na=False, dtype=str)
    assert (raw == "").to_numpy().sum() == rel.protected.isna().to_numpy().sum() > 0  # written as empty cells
    assert back.isna().equals(rel.protected.isna())
    report = rel.report().set_index("metric")["value"]
    assert report["observed cells suppressed for k-anonymity"] >= 0 and report["k-anonymous"]


def test_cli_sampling_weights_and_missing(tmp_path, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    df = holes(ma.load_dataset("census"), 0.05, 1).assign(weight=np.linspace(1, 2, 1080))
    df.to_csv(src, index=False)
    assert main(["run", "--input", str(src), "--k", "3", "--sampling-weights", "weight", "--missing", "impute",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "IL (weighted)" in printed and "DLD (partial distances)" in printed
    released = pd.read_csv(out)
    assert "weight" not in released and released.isna().sum().sum() < df.isna().sum().sum()
    assert main(["run", "--input", str(src), "--k", "3", "--missing", "refuse"]) == 2
    assert "non-finite" in capsys.readouterr().err


def test_what_needs_complete_records_is_refused_not_ignored():
    df = holes(ma.load_dataset("tarragona"), 0.05, 3)
    rel = ma.microaggregate(df, 3, missing="impute", seed=1)
    with pytest.raises(ma.MicroaggError, match="take no \\['p'\\]"):
        rel.report(p=10)


@pytest.mark.parametrize("method", ["mdav", "vmdav"])
def test_on_complete_data_the_missing_option_changes_nothing(method):
    df = ma.load_dataset("tarragona")
    today = ma.microaggregate(df, 3, method=method, seed=4)
    for missing in ("impute", "refuse"):
        same = ma.microaggregate(df, 3, method=method, seed=4, missing=missing)
        assert same.protected.equals(today.protected) and same.params == today.params and same.survey is None


def test_a_missing_cells_choice_with_nothing_to_do_is_said_not_ignored():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [1.0, 2, 3, 4, 5, 7]})
    with pytest.warns(UserWarning, match="missing='impute' has nothing to impute"):
        ma.microaggregate(df, 2, missing="impute", identifiers=[])
    with pytest.warns(UserWarning, match="missing_categories='drop' has nothing to do: no ordinal or nominal"):
        ma.microaggregate(df, 2, missing_categories="drop", identifiers=[])
    both = pd.DataFrame({"a": [np.nan, 2, 3, 4, 5, 6, 7, 8], "b": np.arange(8.0) ** 2,
                         "r": [None, "x", "y", "x", "y", "x", "y", "x"]})  # the missing cell's record is dropped
    _, notes = caught(ma.microaggregate, both, 2, nominal=["r"], missing="impute", missing_categories="drop",
                      identifiers=[])
    assert not [n for n in notes if "nothing to" in n], notes  # there were missing cells to impute, as the data said


def test_the_exact_cells_of_a_release_with_missing_cells_are_counted_on_the_file_as_published():
    """The median's warning points at the report's exact cells: with missing cells the report has them too,
    counted on the values as published (a missing cell equals nothing)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    df.loc[rng.choice(300, 20, replace=False), "a"] = np.nan
    with pytest.warns(UserWarning, match="see 'exact cells' in the report"):
        rel = ma.microaggregate(df, 3, aggregation="median", missing="keep")
    row = rel.report().set_index("metric")["value"]
    published = rel.in_input_order()[rel.masked].to_numpy() == df.to_numpy()
    assert np.isclose(row["exact cells"], 100 * published.mean()) and row["exact cells"] > 20
    assert np.isclose(row["exact records"], 100 * published.any(axis=1).mean())
