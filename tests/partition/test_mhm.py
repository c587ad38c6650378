"""MHM (docs/methods.md §2.16): the path's rules, 2-opt, and the optimal cut of the path."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.data.preprocess import standardize
from microagg.partition.mhm import nearest_point_next, path_labels, two_opt
from microagg.partition.optimal import sorted_groups

from .reference import farthest, nearest, running_sum
from .strategies import data_and_k


def sse(Z, labels):
    return sum(float(((Z[labels == g] - Z[labels == g].mean(axis=0)) ** 2).sum()) for g in np.unique(labels))


def best_cut(Z, path, k):
    """The least SSE over every cut of ``path`` into consecutive groups of at least k records (brute force)."""
    n, best = len(path), np.inf
    for cuts in itertools.product([False, True], repeat=n - 1):
        starts = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        if min(np.diff(starts)) < k:
            continue
        best = min(best, sum(sse(Z[path[a:b]], np.zeros(b - a, int)) for a, b in zip(starts, starts[1:])))
    return best


def length(Z, path):
    return float(np.sqrt(((Z[path[1:]] - Z[path[:-1]]) ** 2).sum(axis=1)).sum())


def reference_path(Z):
    rows = np.arange(len(Z))
    path = [farthest(Z, rows, running_sum(Z) / len(Z))]
    left = np.setdiff1d(rows, path)
    while len(left):
        path.append(nearest(Z, left, Z[path[-1]], 1)[0])
        left = np.setdiff1d(left, path)
    return np.array(path)


@settings(max_examples=40, deadline=None)
@given(data_and_k())
def test_path_follows_its_rules_and_2opt_only_shortens_it(zk):
    Z, _ = zk
    path = nearest_point_next(Z)
    assert np.array_equal(path, reference_path(Z))  # farthest from the centroid, then nearest next; lowest row
    shorter = path.copy()
    two_opt(Z, shorter)
    assert np.array_equal(np.sort(shorter), np.arange(len(Z)))
    assert length(Z, shorter) <= length(Z, path) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(data_and_k().filter(lambda zk: len(zk[0]) <= 13), st.booleans())
def test_the_cut_is_optimal_for_the_path(zk, improve):
    Z, k = zk
    path = nearest_point_next(Z)
    if improve:
        two_opt(Z, path)
    labels = path_labels(Z, path, k)
    assert np.array_equal(labels, ma.partition.mhm(Z, k, two_opt=improve))
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert (np.diff(labels[path]) >= 0).all()  # consecutive along the path, numbered along it
    assert sse(Z, labels) == pytest.approx(best_cut(Z, path, k), rel=1e-9, abs=1e-9)


def test_one_attribute_cut_equals_the_univariate_optimum():
    x = np.random.default_rng(3).normal(size=200)
    order = np.argsort(x, kind="stable")
    assert np.array_equal(path_labels(x[:, None], order, 4), sorted_groups(x, 4, "optimal"))


def test_two_opt_untangles_a_crossing():
    # four points on a line visited 0, 2, 1, 3: the path doubles back, 2-opt straightens it
    Z = np.array([[0.0], [1.0], [2.0], [3.0]])
    path = np.array([0, 2, 1, 3])
    assert two_opt(Z, path) >= 1
    assert length(Z, path) == pytest.approx(3.0)


def test_census_two_opt_lowers_the_sse_and_the_method_runs_through_the_pipeline():
    df = ma.load_dataset("census")
    Z = standardize(df.to_numpy(float))
    plain, improved = (sse(Z, ma.partition.mhm(Z, 3, two_opt=opt)) for opt in (False, True))
    assert improved < plain
    rel = ma.microaggregate(df, 3, method="mhm", two_opt=True, shuffle=False)
    assert rel.params["two_opt"] is True and rel.anonymity["k_anonymous"]
