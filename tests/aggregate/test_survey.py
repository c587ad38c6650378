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


def _groups(seed, n=20):
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.repeat(np.arange(n // 5), 5))
    Z = rng.normal(size=(n, 3))
    Z[rng.random(Z.shape) < 0.1] = np.nan
    return rng, labels, Z


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(-1074, 1023), st.floats(1.0, 2.0, exclude_max=True))
def test_equal_weights_of_any_magnitude_give_the_unweighted_values_exactly(seed, exponent, mantissa):
    """All weights equal to c, from the smallest subnormal float64 to the largest (all 1e308 gave NaN, all 5e-324
    were off by 1e-5): the unweighted group values, bit for bit."""
    _, labels, Z = _groups(seed)
    c = np.ldexp(mantissa, exponent)
    assert 0 < c < np.inf
    for how in ("mean", "median"):
        assert np.array_equal(weighted_group_values(Z, labels, how, np.full(len(Z), c)),
                              weighted_group_values(Z, labels, how, None), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(-1022, 1022))
def test_weights_scaled_by_any_power_of_two_give_the_same_values(seed, exponent):
    """Unequal weights from 2^-1022 to 1.3e308: only their ratios count, so scaling them changes nothing."""
    rng, labels, Z = _groups(seed)
    w = rng.uniform(1, 3, len(Z))
    for how in ("mean", "median"):
        assert np.array_equal(weighted_group_values(Z, labels, how, np.ldexp(w, exponent)),
                              weighted_group_values(Z, labels, how, w), equal_nan=True)
