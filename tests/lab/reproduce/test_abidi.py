"""Abidi, Ben Yahia & Perera 2018, Tables 9-12 beside our HM-pfsom (microagg/reproduce/abidi.py)."""

import numpy as np
import pytest

from microagg.lab.reproduce import published
from microagg.lab.reproduce.abidi import tables_9_12


@pytest.fixture(scope="module")
def table():
    return tables_9_12()


def test_one_row_per_published_row(table):
    assert len(table) == sum(len(rows) for sets in published.ABIDI_TABLES.values() for rows in sets.values())
    assert set(table["data"]) == {"census", "eia"}
    assert table.groupby("data")["sub"].nunique().to_dict() == {"census": 3, "eia": 5}
    for name, n in (("census", 1080), ("eia", 4092)):
        sizes = table[table["data"] == name].drop_duplicates("sub")["n ours"]
        assert sizes.sum() == n


def test_the_stable_pattern_holds(table):
    """HM-pfsom's minimal SSE_i (confidential spread) is at least MDAV's on the same sub-microdata and k, and it
    forms floor(smallest class / k) groups of at least k records per class, as the published tables do."""
    assert (table["SSE_i HM ours"] >= table["SSE_i MDAV ours"]).all()
    for _, row in table.iterrows():
        classes = [int(c) for c in row["classes ours"].split("/")]
        if min(classes) >= row["k"]:
            assert row["groups ours"] == min(classes) // row["k"]
        assert row["min size ours"] >= row["k"] * len(classes)
    assert (table.loc[table["k"] == 1, ["SSE_i MDAV ours", "IL MDAV ours"]] == 0).all().all()
    mdav_rows = table[table["k"] > 1]
    assert (mdav_rows["IL HM ours"] > mdav_rows["IL MDAV ours"]).mean() > 0.8


def test_losses_grow_with_k_within_a_sub_microdata(table):
    for _, rows in table.groupby(["data", "sub"]):
        rows = rows.sort_values("k")
        assert np.all(np.diff(rows["IL MDAV ours"]) >= 0)
        assert np.all(np.diff(rows["SSE_i MDAV ours"]) >= -1e-9)


def test_summary_and_notes(table):
    assert "44 of 44 rows of ours (published: 43 of 44" in table.attrs["summary"]
    assert "PCAES alone chooses c =" in table.attrs["summary"]
    assert (table["note"] != "").sum() == 3
