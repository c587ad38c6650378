"""One-step aggregation (docs/methods.md §3.6): the mean of a group's values clipped to median ± (3/1.486)·MAD."""

import numpy as np

import microagg as ma
from microagg.base.registry import get_method

onestep = get_method("aggregate", "onestep").func


def reference(x):
    """Per group, by the letter: R's mad (1.4826·median|x − median|) and sdcMicro's constant 3/1.486."""
    m = np.median(x)
    s = 1.4826 * np.median(np.abs(x - m))
    lo, hi = m - 3 / 1.486 * s, m + 3 / 1.486 * s
    return np.mean([hi if v > hi else lo if v < lo else v for v in x])


def test_every_group_gets_its_clipped_mean():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((60, 3))
    Z[[3, 17, 40], [0, 1, 2]] = [40.0, -35.0, 90.0]
    labels = np.repeat(np.arange(10), [3, 4, 5, 6, 7, 8, 9, 6, 7, 5])
    Zp = onestep(Z, labels)
    for g in range(10):
        rows = labels == g
        for t in range(3):
            assert abs(Zp[rows, t][0] - reference(Z[rows, t])) <= 1e-13 * (1 + abs(reference(Z[rows, t])))
            assert (Zp[rows, t] == Zp[rows, t][0]).all()


def test_without_outliers_it_is_the_mean_and_an_outlier_is_pulled_in():
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    assert onestep(x, np.zeros(4, np.int64))[0, 0] == 2.5
    y = np.array([[1.0], [2.0], [3.0], [4.0], [1000.0]])
    mad = 1.4826 * 1.0
    assert np.isclose(onestep(y, np.zeros(5, np.int64))[0, 0], (1 + 2 + 3 + 4 + 3 + 3 / 1.486 * mad) / 5)
    rel = ma.microaggregate(ma.load_dataset("census"), 4, aggregation="onestep")
    assert rel.anonymity["k_anonymous"]
