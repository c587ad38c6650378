import numpy as np
import pytest

import microagg as ma
from microagg import metrics

# Kabir & Wang, §4's example: three groups of four values of one attribute.
VALUES = np.array([45.0, 42, 51, 46, 2, 5, 6, 11, 31, 22, 26, 25])[:, None]
GROUPS = np.repeat([0, 1, 2], 4)


def test_kabir_example_mean_and_median():
    mean = metrics.sign_test(VALUES, ma.aggregate.mean(VALUES, GROUPS))
    assert mean.loc[0, "N"] == 9 and mean.loc[0, "W"] == 3  # three values equal their group mean
    assert mean.loc[0, "p_value"] == pytest.approx(0.5078, abs=5e-5)
    median = metrics.sign_test(VALUES, ma.aggregate.median(VALUES, GROUPS))  # medians 45.5, 5.5, 25.5
    assert (median.loc[0, "N"], median.loc[0, "W"], median.loc[0, "p_value"]) == (12, 6, 1.0)


def test_pooled_row_ties_and_a_systematic_shift():
    X = np.column_stack([VALUES[:, 0], np.arange(12.0)])
    out = metrics.sign_test(X, X - 1, names=["a", "b"])  # every masked value is lower
    assert list(out["attribute"]) == ["a", "b", "all"]
    assert list(out["N"]) == [12, 12, 24] and list(out["W"]) == [12, 12, 24]
    assert out.loc[2, "p_value"] == pytest.approx(2 * 0.5 ** 24)
    same = metrics.sign_test(X, X)
    assert (same["N"] == 0).all() and (same["p_value"] == 1).all()
