"""Sampling weights, missing cells and categorical quasi-identifiers in one release (docs/methods.md §2.15, §8):
k-anonymous as published on the numeric and categorical columns with "a missing cell matches only a missing
cell", every released category held by a member of its group, the weighted group values those of a brute-force
computation, and the bundled survey example released by the API and the command line."""

import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.cli import main

ORDER = ["none", "primary", "lower secondary", "upper secondary", "tertiary"]
LEVELS = ["low", "mid", "high"]


def published_classes(text: str, columns: list[str]) -> np.ndarray:
    """Size of every row's class in the CSV as published: equal on every observed cell, missing on the same
    columns (numbers compared as read back, categories as text)."""
    out = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    parts = []
    for c in columns:
        if pd.api.types.is_numeric_dtype(out[c]):
            v = out[c].to_numpy(dtype=float)
            parts += [np.nan_to_num(v, nan=0.0), np.isnan(v)]
        else:
            parts.append(pd.factorize(out[c])[0])
    _, inverse, counts = np.unique(np.column_stack(parts), axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


def brute_group_value(x: np.ndarray, w: np.ndarray, how: str) -> float:
    """The weighted mean, or the weighted median of docs/methods.md §8.4, of the observed values ``x``."""
    seen = ~np.isnan(x)
    x, w = x[seen], w[seen]
    if not len(x):
        return np.nan
    if how == "mean":
        return float((w * x).sum() / w.sum())
    order = np.lexsort((np.arange(len(x)), x))
    xs, S, W = x[order], np.cumsum(w[order]), w.sum()
    i = next(i for i in range(len(xs)) if 2 * S[i] >= W)
    return float((xs[i] + xs[i + 1]) / 2) if 2 * S[i] == W else float(xs[i])


@pytest.mark.filterwarnings("ignore:aggregation 'median' publishes")
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([2, 3, 4]), st.sampled_from(["keep", "impute"]),
       st.sampled_from(["mean", "median"]), st.floats(0.05, 0.3))
def test_releases_with_all_three_are_k_anonymous_with_categories_and_weighted_values_of_their_groups(
        seed, k, missing, aggregation, share):
    rng = np.random.default_rng(seed)
    n = 48
    df = pd.DataFrame({"a": rng.integers(0, 5, n).astype(float), "b": rng.normal(10, 3, n).round(1),
                       "region": rng.choice(["N", "S", "E", "W"], n), "level": rng.choice(LEVELS, n),
                       "w": rng.uniform(0.5, 5, n).round(2)})
    df[["a", "b"]] = df[["a", "b"]].mask(rng.random((n, 2)) < share)
    rel = ma.microaggregate(df, k, columns=["a", "b"], nominal=["region"], ordinal={"level": LEVELS},
                            sampling_weights="w", missing=missing, aggregation=aggregation, seed=seed)
    qis = ["a", "b", "region", "level"]
    assert list(rel.protected.columns) == qis and rel.anonymity["k_anonymous"]
    assert published_classes(rel.to_csv(), qis).min() >= k

    out, labels, w = rel.in_input_order(), rel.labels, df["w"].to_numpy()
    for g in np.unique(labels):
        rows = np.flatnonzero(labels == g)
        for c in ("region", "level"):
            assert out[c].iloc[rows].nunique() == 1 and out[c].iloc[rows[0]] in set(df[c].iloc[rows])
        for c in ("a", "b"):
            x, released = df[c].to_numpy()[rows], out[c].to_numpy()[rows]
            shown = ~np.isnan(released)
            assert np.allclose(released[shown], brute_group_value(x, w[rows], aggregation), rtol=1e-12, atol=0)
            if missing == "keep":
                assert not shown[np.isnan(x)].any()  # a missing cell is released missing
            else:
                assert shown.all() == (~np.isnan(x)).any()  # imputed unless no member observes it


@pytest.mark.parametrize("missing", ["keep", "impute"])
def test_the_bundled_survey_example_releases_with_all_three(missing):
    df = ma.load_dataset("survey")
    assert df[["age", "income"]].isna().any().all() and not df[["region", "education"]].isna().any().any()
    assert set(df["education"]) == set(ORDER)
    rel = ma.microaggregate(df, 3, nominal=["region"], ordinal={"education": ORDER}, sampling_weights="weight",
                            missing=missing, seed=2)
    assert list(rel.protected.columns) == ["region", "age", "education", "household_size", "income"]
    assert rel.anonymity["k_anonymous"] and (rel.protected.isna().to_numpy().any() == (missing == "keep"))
    report = rel.report().set_index(["metric", "attribute"])["value"]
    assert report[("changed categories", "education")] > 0 and ("ordinal shift", "all") in report.index
    assert report[("observed cells suppressed for k-anonymity", "all")] == rel.survey["suppressed cells"]


def test_complete_records_give_the_release_without_missing_cells():
    df = ma.load_dataset("survey").dropna()
    kw = dict(nominal=["region"], ordinal={"education": ORDER}, seed=4)
    for missing in ("keep", "impute"):
        assert ma.microaggregate(df, 3, missing=missing, **kw).protected.equals(
            ma.microaggregate(df, 3, missing="refuse", **kw).protected)


def test_cli_releases_the_survey_example_with_all_three(tmp_path, capsys):
    out = tmp_path / "release.csv"
    assert main(["run", "--dataset", "survey", "--k", "3", "--sampling-weights", "weight", "--nominal", "region",
                 "--ordinal", "education=" + "<".join(ORDER), "--missing", "keep", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "changed categories" in printed and "IL (weighted)" in printed
    released = pd.read_csv(out)
    assert "weight" not in released and "hh_id" not in released and released["income"].isna().any()
    assert set(released["education"]) <= set(ORDER)
    assert published_classes(out.read_text(), list(released.columns)).min() >= 3


def blank_regions(n: int = 5000, blanks: int = 4) -> pd.DataFrame:
    df = ma.datasets.households(n, seed=7)
    df.loc[np.random.default_rng(1).choice(n, blanks, replace=False), "region"] = np.nan
    return df


@pytest.fixture(scope="module")
def blanks():
    return blank_regions()


@pytest.mark.parametrize("option", ["impute", "category", "drop"])
def test_four_blank_categories_in_5000_records_have_a_way_out_k_anonymous_as_published(blanks, option):
    kw = dict(columns=["age", "household_size"], nominal=["region"], ordinal={"education": ORDER}, seed=3)
    with pytest.raises(ma.MicroaggError, match="'region' has 4 missing value.* of 5000.*missing_categories="):
        ma.microaggregate(blanks, 5, **kw)  # the safe default: refused, naming the way out
    rel = ma.microaggregate(blanks, 5, missing_categories=option, **kw)
    qis = ["region", "age", "education", "household_size"]
    published = pd.read_csv(io.StringIO(rel.to_csv()), keep_default_na=False, na_values=[""])
    assert list(published.columns) == qis and published_classes(rel.to_csv(), qis).min() >= 5
    report = rel.report().set_index("metric")["value"]
    assert report["missing categories (categorical columns)"] == 4
    blank = blanks["region"].isna().to_numpy()
    if option == "drop":
        assert len(published) == 4996 and report["records left out (a category missing)"] == 4
        assert not published["region"].isna().any() and rel.original.index.equals(blanks.index[~blank])
        return
    released = rel.in_input_order()["region"]
    assert report["categorical cells released missing"] == released.isna().sum() == published["region"].isna().sum()
    for g in np.unique(rel.labels[blank]):  # a blank cell shows its group's category, held by a member
        rows = rel.labels == g
        assert released[rows].nunique(dropna=False) == 1
        shown = released[rows].iloc[0]
        assert (shown in set(blanks["region"][rows])) or (option == "category" and pd.isna(shown))
    if option == "impute":
        assert not released.isna().any()  # no group of 5 has four blanks and nothing else


def test_the_choice_is_a_command_line_flag_and_in_the_recipe(tmp_path, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "release.csv"
    blank_regions(300, 3).to_csv(src, index=False)
    argv = ["run", "--input", str(src), "--k", "3", "--columns", "age,household_size", "--nominal", "region",
            "--seed", "1"]
    assert main(argv) == 2 and "--missing-categories" in capsys.readouterr().err
    assert main([*argv, "--missing-categories", "drop", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"records left out \(a category missing\)\s+3 records", printed)
    rel = ma.microaggregate(str(src), 3, columns=["age", "household_size"], nominal=["region"], seed=1,
                            missing_categories="drop")
    assert out.read_text() == rel.to_csv()
    assert "--missing-categories drop" in ma.release.recipe.cli_command(rel.spec, ["--input", str(src)])
    assert "missing_categories='drop'" in ma.release.recipe.python_snippet(rel.spec, "df")
