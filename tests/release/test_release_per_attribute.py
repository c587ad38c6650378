import numpy as np
import pytest

import microagg as ma
from microagg.base.labels import pooled_labels


def test_pooled_labels():
    labels = np.array([[0, 0], [0, 1], [1, 1], [1, 0]])
    assert list(pooled_labels(labels)) == [0, 2, 0, 3, 1, 3, 1, 2]
    assert list(pooled_labels(np.array([1, 0]))) == [1, 0]


def test_per_attribute_release_is_reported_and_warned(small_df):
    with pytest.warns(UserWarning, match="NOT 4-anonymous as whole records"):
        rel = ma.microaggregate(small_df, 4, method="individual_ranking", aggregation="median")
    rep = rel.report().set_index("metric")
    assert rep.loc["record-level k-anonymity", "value"].startswith("NOT guaranteed")
    assert rep.loc["groups", "attribute"] == "pooled over attributes" and rep.loc["groups", "value"] == 3 * 10
    assert rep.loc["k-anonymous", "value"] == False  # noqa: E712
    assert rep.loc["partition IL", "value"] <= rep.loc["IL", "value"]
    assert rel.labels.shape == (40, 3)


def test_record_level_release_has_no_such_row(small_df):
    rep = ma.microaggregate(small_df, 4, method="projection").report().set_index("metric")
    assert "record-level k-anonymity" not in rep.index and rep.loc["groups", "attribute"] == "all"
