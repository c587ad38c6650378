import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import microagg as ma
from microagg.partition.optimal import sorted_groups

from .reference_methods import best_contiguous_sse, best_partition_sse


def sse(x, labels):
    return sum(float(((x[labels == g] - x[labels == g].mean()) ** 2).sum()) for g in np.unique(labels))


values = st.one_of(st.floats(-100, 100, allow_nan=False, width=64), st.sampled_from([0.0, 1.0, 2.5]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays(np.float64, st.integers(2, 10), elements=values), st.integers(2, 4))
def test_equals_brute_force_over_every_partition(backend, x, k):
    if len(x) < k:
        return
    labels = ma.partition.optimal_univariate(x, k)
    assert sse(x, labels) == pytest.approx(best_partition_sse(x, k), rel=1e-9, abs=1e-9)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays(np.float64, st.integers(2, 14), elements=values), st.integers(2, 5))
def test_equals_brute_force_over_consecutive_blocks_and_beats_fixed_blocks(backend, x, k):
    if len(x) < k:
        return
    labels = ma.partition.optimal_univariate(x, k)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    order = np.argsort(x, kind="stable")
    assert (np.diff(labels[order]) >= 0).all()  # consecutive in sorted order, numbered from the smallest
    assert sse(x, labels) == pytest.approx(best_contiguous_sse(x, k), rel=1e-9, abs=1e-9)
    assert sse(x, labels) <= sse(x, sorted_groups(x, k, "fixed")) + 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_n14_against_every_partition(backend, seed):
    x = np.random.default_rng(seed).normal(size=14)
    for k in (3, 4):
        assert sse(x, ma.partition.optimal_univariate(x, k)) == pytest.approx(best_partition_sse(x, k), rel=1e-12)


def test_ties_go_to_the_smallest_predecessor_and_the_lower_row(backend):
    # all equal: every split costs 0; the smallest predecessor gives blocks [0..k-1], [k..], ...
    labels = ma.partition.optimal_univariate(np.zeros(7), 2)
    assert list(labels) == [0, 0, 1, 1, 2, 2, 2]
    labels = ma.partition.optimal_univariate(np.array([5.0, 1.0, 5.0, 1.0, 9.0, 9.0]), 2)
    assert list(labels) == [1, 0, 1, 0, 2, 2]


def test_k_to_2k_minus_1_records_form_one_group():
    assert (ma.partition.optimal_univariate([3.0, 1.0, 2.0, 8.0, 4.0], 3) == 0).all()


def test_large_input_gives_consecutive_groups_of_k_to_2k_minus_1(backend):
    x, k = np.random.default_rng(0).standard_normal(200_000), 5
    labels = ma.partition.optimal_univariate(x, k)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert (np.diff(labels[np.argsort(x, kind="stable")]) >= 0).all()


def test_input_is_not_modified_and_bad_input():
    x = np.array([3.0, 1.0, 2.0, 0.0])
    before = x.copy()
    ma.partition.optimal_univariate(x, 2)
    assert np.array_equal(x, before)
    with pytest.raises(ma.MicroaggError, match="1-D"):
        ma.partition.optimal_univariate(np.zeros((4, 2)), 2)
    with pytest.raises(ma.MicroaggError, match="'x'.*NaN"):
        ma.partition.optimal_univariate([1.0, np.nan, 2.0], 2)
    with pytest.raises(ma.MicroaggError, match="at least k"):
        ma.partition.optimal_univariate([1.0, 2.0], 3)
    with pytest.raises(ma.MicroaggError, match="integer >= 2"):
        ma.partition.optimal_univariate([1.0, 2.0], 1)
    with pytest.raises(ma.MicroaggError, match="numeric"):
        ma.partition.optimal_univariate(["a", "b"], 2)
