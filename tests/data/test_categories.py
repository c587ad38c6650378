"""Categorical quasi-identifiers as codes (microagg.data.categories; docs/methods.md §2.15)."""

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.data.categories import drop_rows, encode, natural_key, natural_order, spec


def test_given_order_positions_and_nominal_first_appearance():
    df = pd.DataFrame({"edu": ["high", "low", "mid", "low"], "region": ["b", "a", "b", "c"]})
    cats = encode(df, *spec({"edu": ["low", "mid", "high"]}, ["region"]))
    assert cats.names == ["edu", "region"] and cats.kinds == ["ordinal", "nominal"]
    assert cats.codes[:, 0].tolist() == [2, 0, 1, 0] and cats.codes[:, 1].tolist() == [0, 1, 0, 2]
    assert list(cats.decode(cats.codes)["edu"]) == list(df["edu"]) and not cats.notes


def test_natural_sort_of_text_is_announced_and_numbers_sort_by_value():
    df = pd.DataFrame({"rooms": ["10 rooms", "2 rooms", "1 room"], "size": [3, 10, 2]})
    cats = encode(df, *spec(["rooms", "size"], None))
    assert cats.levels[0].tolist() == ["1 room", "2 rooms", "10 rooms"] and cats.levels[1].tolist() == [2, 3, 10]
    assert len(cats.notes) == 1 and "natural sort" in cats.notes[0] and "'rooms'" in cats.notes[0]
    assert natural_key("a2") < natural_key("a10")


def test_an_order_given_as_text_matches_numbers():
    df = pd.DataFrame({"size": [1.0, 2.0, 3.0]})
    assert encode(df, *spec({"size": ["3", "2", "1"]}, None)).codes[:, 0].tolist() == [2, 1, 0]


@pytest.mark.parametrize("ordinal, nominal, match", [
    ({"edu": ["low", "mid"]}, None, r"categories \['high'\] that are not in its order"),
    ({"edu": ["low", "low", "mid", "high"]}, None, "more than once"),
    ({"edu": "low<mid"}, None, "must be a list"),
    (["edu"], ["edu"], "both as ordinal and nominal"),
])
def test_bad_orders_are_refused(ordinal, nominal, match):
    df = pd.DataFrame({"edu": ["high", "low", "mid"]})
    with pytest.raises(ma.MicroaggError, match=match):
        encode(df, *spec(ordinal, nominal))


def test_missing_category_is_refused_naming_the_column_and_the_choices():
    df = pd.DataFrame({"region": ["a", None, "b"]})
    with pytest.raises(ma.MicroaggError, match="'region' has 1 missing value.* of 3.*'impute'.*'category'.*'drop'"):
        encode(df, *spec(None, ["region"]))
    assert encode(pd.DataFrame({"x": [1.0]}), {}, []) is None
    assert np.array_equal(encode(df.fillna("c"), {}, ["region"]).codes[:, 0], [0, 1, 2])


def test_an_ordered_categorical_takes_its_own_order():
    levels = ["low", "medium", "high"]  # alphabetical order would be high < low < medium
    df = pd.DataFrame({"risk": pd.Categorical(["high", "low", "medium", "low"], categories=levels, ordered=True)})
    cats = encode(df, *spec(["risk"], None))
    assert cats.levels[0].tolist() == levels and cats.codes[:, 0].tolist() == [2, 0, 1, 0] and not cats.notes
    assert natural_order(df["risk"]) == levels  # the dashboard pre-fills this order
    plain = df.assign(risk=df["risk"].astype(str))
    assert encode(plain, *spec(["risk"], None)).levels[0].tolist() == ["high", "low", "medium"]  # text: natural sort


@pytest.mark.parametrize("kind", ["ordinal", "nominal"])
@pytest.mark.parametrize("unique", [1.0, 0.5])
def test_a_category_unique_per_record_is_refused_naming_the_column(kind, unique):
    n = 40
    alone = int(unique * n)
    codes = [f"P{i:05d}" for i in range(alone)] + ["shared"] * (n - alone)  # an ID, or half the records alone
    df = pd.DataFrame({"code": codes})
    ordinal, nominal = (["code"], None) if kind == "ordinal" else (None, ["code"])
    with pytest.raises(ma.MicroaggError, match=f"{kind} column 'code' is unique per record: {100 * unique:.0f} % of "
                                               "the records hold a category no other record holds"):
        encode(df, *spec(ordinal, nominal))
    fewer = pd.DataFrame({"code": codes[: alone - 1] + ["shared"] * (n - alone + 1)})  # just under half
    if unique < 1:
        assert encode(fewer, *spec(ordinal, nominal)) is not None


def test_a_small_file_s_categories_are_not_codes_of_records():
    df = pd.DataFrame({"region": list("NSEWC") + ["N"] * 3})  # 5 of 8 records alone, but only 5 categories
    assert encode(df, *spec(None, ["region"])).levels[0].tolist() == list("NSEWC")


def test_a_missing_category_is_unknown_its_own_category_or_its_row_dropped():
    df = pd.DataFrame({"region": ["a", None, "b", "a"], "level": ["lo", "hi", None, "hi"]})
    both = spec({"level": ["lo", "hi"]}, ["region"])
    unknown = encode(df, *both, missing="impute")
    assert unknown.codes.tolist() == [[0, 0], [-1, 1], [1, -1], [0, 1]]  # -1: unknown
    assert list(unknown.decode(unknown.codes)["region"][[0, 2]]) == ["a", "b"]
    assert pd.isna(unknown.decode(unknown.codes)["region"][1])  # a group with no known category: released missing
    with pytest.raises(ma.MicroaggError, match="'level' has 1 missing value.*no place in its order"):
        encode(df, *both, missing="category")
    own = encode(df[["region"]], {}, ["region"], missing="category")
    assert own.codes[:, 0].tolist() == [0, 1, 2, 0] and pd.isna(own.levels[0][1])
    assert drop_rows(df, *both).index.tolist() == [0, 3]
    with pytest.raises(ma.MicroaggError, match="missing_categories must be one of"):
        encode(df, *both, missing="mode")
