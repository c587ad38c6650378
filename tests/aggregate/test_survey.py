"""Weighted mean and weighted median over the observed members of a group, against brute force."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.aggregate.survey import weighted_group_values


def brute_median(x, w):
    """The first value (sorted) whose cumulative weight reaches half the total; the mean with the next one
    when it is exactly half."""
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    total = w.sum()
    for i in range(len(x)):
        below = w[: i + 1].sum()
        if 2 * below >= total:
            return (x[i] + x[i + 1]) / 2 if 2 * below == total else x[i]
    raise AssertionError


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 10**6), st.booleans())
def test_weighted_mean_and_median_equal_brute_force(groups, seed, integer_weights):
    rng = np.random.default_rng(seed)
    n = groups * 5
    labels = rng.permutation(np.repeat(np.arange(groups), 5))
    Z = rng.integers(-3, 4, size=(n, 3)).astype(float)  # ties on purpose
    Z[rng.random(Z.shape) < 0.2] = np.nan
    w = rng.integers(1, 5, n).astype(float) if integer_weights else rng.uniform(0.1, 3, n)
    mean, median = (weighted_group_values(Z, labels, how, w) for how in ("mean", "median"))
    for i in range(n):
        for t in range(3):
            members = (labels == labels[i]) & ~np.isnan(Z[:, t])
            if not members.any():
                assert np.isnan(mean[i, t]) and np.isnan(median[i, t])
                continue
            x, wx = Z[members, t], w[members]
            assert np.isclose(mean[i, t], (wx * x).sum() / wx.sum(), rtol=1e-12, atol=1e-12)
            assert median[i, t] == brute_median(x, wx)


def test_unit_weights_give_the_ordinary_mean_and_median_exactly():
    Z = ma.standardize(ma.load_dataset("tarragona"))
    for k in (3, 4):
        labels = ma.partition.mdav(Z, k=k)
        ones = np.ones(len(Z))
        assert np.array_equal(weighted_group_values(Z, labels, "median", ones), ma.aggregate.median(Z, labels))
        assert np.array_equal(weighted_group_values(Z, labels, "mean", None), ma.aggregate.mean(Z, labels))


def test_a_heavy_member_pulls_the_median_to_its_value():
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    lab = np.zeros(4, dtype=np.int64)
    assert weighted_group_values(x, lab, "median", np.array([1.0, 1, 1, 1]))[0, 0] == 2.5
    assert weighted_group_values(x, lab, "median", np.array([1.0, 1, 1, 5]))[0, 0] == 4.0
    assert weighted_group_values(x, lab, "mean", np.array([1.0, 1, 1, 5]))[0, 0] == (1 + 2 + 3 + 20) / 8
