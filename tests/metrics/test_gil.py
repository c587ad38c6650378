import numpy as np
import pytest

import microagg as ma
from microagg import metrics
from microagg.metrics.gil import mean_variation


def test_m1_to_m5_by_hand():
    X = np.array([[1.0, 2], [3, 6], [5, 4]])
    Xp = np.array([[2.0, 2], [2, 6], [5, 4]])  # records 0 and 1 aggregated in the first attribute
    g = metrics.gil_components(X, Xp)
    assert g["M1"] == pytest.approx((1 + 1 / 3) / 6)       # |1-2|/1 and |3-2|/3 over 6 cells
    assert g["M2"] == 0                                     # the mean is kept
    assert g["M3"] == pytest.approx((0.25 + 0) / 2)         # variance 8/3 -> 2
    assert g["M4"] == pytest.approx((0.25 + 1 + 0) / 3)     # t <= t': v00, v01 (4/3 -> 0), v11
    assert g["M5"] == pytest.approx(0.5)                    # correlation 1/2 -> 0
    assert g["G_IL"] == pytest.approx(100 * (g["M1"] + g["M3"] + g["M4"] + g["M5"]) / 5)
    assert metrics.g_il(X, Xp) == g["G_IL"]


def test_mean_variation_zero_rule():
    # a = 0 < a' divides by |a'|; a = a' = 0 is left out of the mean (Oommen & Fayyoumi 2010, footnote 5)
    assert mean_variation([0.0, 0, 2], [0.0, 3, 1]) == pytest.approx((1 + 0.5) / 2)
    assert mean_variation([0.0, 0], [0.0, 0]) == 0


def test_g_il_is_zero_when_nothing_is_masked_and_m1_is_linear():
    X = ma.load_dataset("census").to_numpy(float)
    assert metrics.g_il(X, X.copy()) == 0
    E = np.where(np.arange(X.size).reshape(X.shape) % 2, 1.0, -1.0)
    m1 = [metrics.gil_components(X, X + c * E)["M1"] for c in (1.0, 2.0)]
    assert m1[1] == pytest.approx(2 * m1[0])


def test_one_attribute_has_no_correlation_term():
    X = np.array([1.0, 2, 3, 4])[:, None]
    g = metrics.gil_components(X, np.array([1.5, 1.5, 3.5, 3.5])[:, None])
    assert "M5" not in g and g["G_IL"] == pytest.approx(100 * (g["M1"] + g["M2"] + g["M3"] + g["M4"]) / 4)
