"""Releases with ordinal and nominal quasi-identifiers (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15, §3.4):
k-anonymous on every released quasi-identifier, no category released that its group does not hold, numeric
releases unchanged."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma

EDU = ["none", "primary", "secondary", "tertiary"]


@st.composite
def mixed_frames(draw):
    n = draw(st.integers(4, 50))
    k = draw(st.integers(2, max(2, n // 2)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    few = draw(st.booleans())  # tie-heavy: few distinct values
    df = pd.DataFrame({
        "age": rng.integers(18, 22, n) if few else rng.normal(45, 12, n),
        "edu": rng.choice(EDU[: draw(st.integers(1, 4))], n),
        "region": rng.choice(["N", "S", "E", "W", "Isl"][: draw(st.integers(1, 5))], n),
        "size": rng.integers(1, 4, n),
    })
    return df, k, draw(st.booleans())


def released_groups(rel):
    """The release in input order with every record's group."""
    return rel.in_input_order(), rel.labels


@settings(max_examples=25, deadline=None)
@given(mixed_frames())
def test_k_anonymous_on_all_released_qis_and_no_category_invented(case):
    df, k, size_ordinal = case
    ordinal = {"edu": EDU, **({"size": None} if size_ordinal else {})}
    rel = ma.microaggregate(df, k, ordinal=ordinal, nominal=["region"], identifiers=[], seed=0)
    out, labels = released_groups(rel)
    sizes = rel.protected.groupby(["age", "edu", "region", "size"], sort=False).size()  # size: either kind
    assert sizes.min() >= k and rel.anonymity["k_anonymous"]
    for g in np.unique(labels):
        rows = labels == g
        for c in ["edu", "region"] + (["size"] if size_ordinal else []):
            assert out.loc[rows, c].nunique() == 1
            assert out.loc[rows, c].iloc[0] in set(df.loc[rows, c])
    assert list(rel.protected.columns) == list(df.columns)


def test_the_survey_example_on_its_complete_rows(recwarn):
    # weight and missing cells belong to other options: the weight column is not selected, incomplete rows dropped
    df = ma.load_dataset("survey").dropna()
    rel = ma.microaggregate(df, 3, columns=["age", "household_size"], ordinal={"education": list(
        ma.datasets.SURVEY_EDUCATION)}, nominal="region", seed=1)
    assert list(rel.protected.columns) == ["region", "age", "education", "household_size"]
    assert rel.params["ordinal"] == {"education": list(ma.datasets.SURVEY_EDUCATION)}
    assert rel.params["nominal"] == ["region"] and "hh_id" in rel.identifiers
    report = rel.report().set_index(["metric", "attribute"])["value"]
    assert 0 < report["changed categories", "education"] < 100 and 0 <= report["ordinal shift", "education"] < 100
    assert "region (nominal)" in report["columns masked", "all"] and report["k-anonymous", "all"]
    assert not [w for w in recwarn if "natural sort" in str(w.message)]


def test_natural_sort_of_text_is_a_warning_and_recorded():
    df = ma.load_dataset("survey").dropna().head(60)
    with pytest.warns(UserWarning, match="'education': no order given.*natural sort"):
        rel = ma.microaggregate(df, 3, columns=["age"], ordinal=["education"], seed=1)
    assert rel.params["ordinal"]["education"][0] == "lower secondary"


def test_an_ordered_categorical_is_released_in_its_own_order_and_dtype():
    rng = np.random.default_rng(3)
    levels = ["low", "medium", "high"]
    df = pd.DataFrame({"risk": pd.Categorical(rng.choice(levels, 60), categories=levels, ordered=True),
                       "x": rng.normal(size=60)})
    rel = ma.microaggregate(df, 3, ordinal=["risk"], shuffle=False)
    assert rel.params["ordinal"] == {"risk": levels} and rel.protected["risk"].dtype == df["risk"].dtype
    ranks = df["risk"].cat.codes.to_numpy()
    for g in np.unique(rel.labels):  # every group publishes its lower median in the categorical's order
        members = np.sort(ranks[rel.labels == g])
        assert rel.protected["risk"][rel.labels == g].cat.codes.unique().tolist() == [members[(len(members) - 1) // 2]]


@pytest.mark.parametrize("kind", ["ordinal", "nominal"])
def test_an_identifier_chosen_as_a_category_is_refused_naming_it(kind):
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"member": [f"M{i:04d}" for i in rng.permutation(50)], "x": rng.normal(size=50)})
    with pytest.raises(ma.MicroaggError, match=f"{kind} column 'member' is unique per record: 100 %"):
        ma.microaggregate(df, 3, **{kind: ["member"]})


def test_codes_with_leading_zeros_are_released_as_the_text_they_were(tmp_path):
    rng = np.random.default_rng(5)
    zips = rng.choice(["02134", "02139", "00501", "10001"], 40)
    (tmp_path / "in.csv").write_text("zip,x\n" + "".join(f"{z},{v}\n" for z, v in zip(zips, rng.normal(size=40))))
    with pytest.warns(UserWarning, match="'zip' holds codes written with leading zeros"):
        rel = ma.microaggregate(tmp_path / "in.csv", 3, nominal=["zip"], seed=0)
    assert set(rel.protected["zip"]) <= set(zips) and rel.protected["zip"].str.len().eq(5).all()
    rel.to_csv(tmp_path / "out.csv")
    assert set(ma.read_csv(tmp_path / "out.csv").data["zip"]) <= set(zips)
    assert all(line.split(",")[0] in set(zips) for line in (tmp_path / "out.csv").read_text().splitlines()[1:])


def test_a_true_false_column_read_from_a_file_is_kept_or_masked(tmp_path):
    rng = np.random.default_rng(6)
    flags = rng.choice(["True", "False"], 30)
    (tmp_path / "in.csv").write_text("flag,x\n" + "".join(f"{f},{v}\n" for f, v in zip(flags, rng.normal(size=30))))
    dropped = ma.microaggregate(tmp_path / "in.csv", 3, seed=0)
    assert dropped.masked == ["x"] and "flag" in dropped.dropped
    kept = ma.microaggregate(tmp_path / "in.csv", 3, keep=["flag"], seed=0)
    assert sorted(kept.protected["flag"]) == sorted(flags == "True")
    assert set(ma.microaggregate(tmp_path / "in.csv", 3, nominal=["flag"], seed=0).protected["flag"]) <= {True, False}


def test_strata_keep_groups_inside_and_the_key_released():
    df = ma.load_dataset("survey").dropna().head(200)
    rel = ma.microaggregate(df, 3, columns=["age"], ordinal={"education": list(ma.datasets.SURVEY_EDUCATION)},
                            keys=["region"], strata=["region"], seed=2)
    out = rel.in_input_order()
    assert (out["region"] == df["region"]).all() and rel.anonymity["k_anonymous"]
    for g in np.unique(rel.labels):
        assert df.loc[rel.labels == g, "region"].nunique() == 1


@pytest.mark.parametrize("kw, match", [
    ({"method": "vmdav"}, "heterogeneous MDAV"),
    ({"variant": "classic"}, "variant 'classic'"),
    ({"engine": "blocks"}, "blocks engine"),
    ({"keep": ["region"]}, "also listed in 'keep'"),
    ({"columns": []}, "empty"),
    ({"ordinal": {"education": ["none", "primary"]}}, "not in its order"),
])
def test_refusals_name_the_problem(kw, match):
    df = ma.load_dataset("survey").dropna().head(60)
    args = {"columns": ["age"], "nominal": ["region"], "ordinal": {"education": list(ma.datasets.SURVEY_EDUCATION)},
            **kw}
    with pytest.raises(ma.MicroaggError, match=match):
        ma.microaggregate(df, 3, **args)


def test_only_categorical_qis_is_refused():
    df = pd.DataFrame({"region": list("aabbcc"), "edu": list("xyxyxy"), "x": [1.0, 2, 3, 4, 5, 7]})
    with pytest.raises(ma.MicroaggError, match="no continuous quasi-identifier"):
        ma.microaggregate(df, 2, nominal=["region", "edu"], keep=["x"])
    with pytest.raises(ma.MicroaggError, match="no numeric column"):
        ma.microaggregate(df[["region", "edu"]], 2, nominal=["region", "edu"])


def test_without_categories_a_release_is_unchanged(small_df):
    plain = ma.microaggregate(small_df, 4, seed=3)
    same = ma.microaggregate(small_df, 4, seed=3, ordinal=None, nominal=[])
    pd.testing.assert_frame_equal(plain.protected, same.protected)
    assert plain.params == same.params and "ordinal" not in plain.params
    X = small_df.to_numpy(float)
    labels = ma.partition.mdav(ma.standardize(small_df), 4)
    expected = ma.aggregate.mean(X, labels)[plain.order]  # today's path: MDAV, then the group means
    np.testing.assert_allclose(plain.protected.to_numpy(float), expected, rtol=1e-12)


def test_text_columns_without_a_role_are_still_dropped():
    df = ma.load_dataset("survey").dropna().head(60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = ma.microaggregate(df, 3, columns=["age"], seed=0)
    assert list(rel.protected.columns) == ["age"] and {"region", "education"} <= set(rel.dropped)


def test_the_html_report_names_the_categories_and_skips_the_numeric_sweep(tmp_path):
    df = ma.load_dataset("survey").dropna().head(90)
    rel = ma.microaggregate(df, 3, columns=["age"], nominal=["region"], confidential=["income"], seed=0)
    ma.html_report(rel, tmp_path / "r.html", data="df", data_args=["--input", "x.csv"])
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "region (nominal)" in text and "changed categories" in text.lower()
    assert "categorical quasi-identifiers (the sweep is numeric)" in text
