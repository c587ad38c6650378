"""Heterogeneous MDAV (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition.heterogeneous import mdav_heterogeneous, weights
from microagg.partition.missing import mdav_missing

from .strategies import data_and_k


def none(n):
    return np.empty((n, 0), np.int64)


@pytest.mark.parametrize("name", ["tarragona", "census"])
@pytest.mark.parametrize("k", [3, 5])
def test_without_categories_it_is_mdav_generic(backend, benchmark_z, name, k):
    Z = benchmark_z[name]
    assert (mdav_heterogeneous(Z, none(len(Z)), none(len(Z)), k) == ma.partition.mdav(Z, k)).all()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k())
def test_without_categories_it_is_mdav_generic_on_ties_too(backend, data):
    Z, k = data
    Z = ma.standardize(Z)
    assert (mdav_heterogeneous(Z, none(len(Z)), none(len(Z)), k) == ma.partition.mdav(Z, k)).all()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k(), st.integers(0, 2**32 - 1))
def test_groups_are_k_to_2k_minus_1(backend, data, seed):
    Z, k = data
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, (len(Z), 1))
    N = rng.integers(0, 3, (len(Z), 2))
    labels = mdav_heterogeneous(ma.standardize(Z), P, N, k)
    sizes = np.bincount(labels)
    assert labels.min() == 0 and (sizes >= k).all() and (sizes <= 2 * k - 1).all()


def test_a_nominal_attribute_alone_groups_equal_categories():
    # two categories of 6 records each and a constant continuous column: every group is pure
    Z = np.zeros((12, 1))
    N = np.repeat([0, 1], 6)[:, None]
    labels = mdav_heterogeneous(Z, none(12), N, 3)
    for g in np.unique(labels):
        assert len(set(N[labels == g, 0])) == 1


def test_weights_give_every_kind_the_mean_squared_distance_of_a_z_score():
    rng = np.random.default_rng(3)
    P = rng.integers(0, 5, (400, 1))
    N = rng.choice(4, size=(400, 1), p=[0.5, 0.3, 0.15, 0.05])
    a, w = weights(P, N)
    pairs_p = ((a[0] * (P[:, None, 0] - P[None, :, 0])) ** 2).mean()
    pairs_n = (w[0] * (N[:, None, 0] != N[None, :, 0])).mean()
    assert pairs_p == pytest.approx(2.0) and pairs_n == pytest.approx(2.0)
    assert weights(np.zeros((5, 1), np.int64), np.zeros((5, 1), np.int64)) == (0.0, 0.0)


def reference(Z, P, N, k, mismatch=0.0):
    """Heterogeneous MDAV-generic written plainly (docs/methods.md §2.15): full distance vectors, sorts by
    (distance, index), the centroid recomputed from the remaining records every time; with missing continuous
    cells (NaN) their part of the distance is the partial distance of docs/methods.md §8.2."""
    a, w = weights(P, N)
    n, dz = Z.shape
    labels = np.full(n, -1)
    live = list(range(n))

    def dist(i, cz, cp, cn):  # accumulated term by term in the kernel's order, so that ties round alike
        both = ~np.isnan(Z[i]) & ~np.isnan(cz)
        s = 0.0
        for term in (Z[i] - cz)[both] ** 2:
            s += float(term)
        s = (s * (dz / both.sum()) if both.any() else 2.0 * dz) + mismatch * int((np.isnan(Z[i]) != np.isnan(cz)).sum())
        unknown_p, unknown_n = (P[i] < 0) | (cp < 0), (N[i] < 0) | (cn < 0)  # an unknown category adds 2
        for term in [*np.where(unknown_p, 2.0, (a * (P[i] - cp)) ** 2), *np.where(unknown_n, 2.0, w * (N[i] != cn))]:
            s += float(term)
        return s

    def centroid():
        rows = np.array(live)
        count = (~np.isnan(Z[rows])).sum(axis=0)
        cz = np.where(count > 0, S / np.maximum(count, 1), np.nan)  # the running sum, as the kernel keeps it
        known = [sorted(v for v in P[rows, t] if v >= 0) for t in range(P.shape[1])]  # lower median of the known
        cp = np.array([v[(len(v) - 1) // 2] if v else -1 for v in known], dtype=np.int64)
        cn = []
        for t in range(N.shape[1]):
            counts = np.bincount(N[rows, t][N[rows, t] >= 0], minlength=1)
            cn.append(next((N[i, t] for i in rows if N[i, t] >= 0 and counts[N[i, t]] == counts.max()), -1))
        return cz, cp, np.array(cn, dtype=np.int64)

    def group(r):
        order = sorted(live, key=lambda i: (0.0 if i == r else dist(i, Z[r], P[r], N[r]), i))
        return order[:k], max(live, key=lambda i: (0.0 if i == r else dist(i, Z[r], P[r], N[r]), -i))

    S = np.zeros(Z.shape[1])
    for i in range(n):
        S += np.nan_to_num(Z[i])
    g = 0

    def emit(members):
        nonlocal g, S
        for i in sorted(members):
            labels[i] = g
            live.remove(i)
            S -= np.nan_to_num(Z[i])
        g += 1

    while len(live) >= 2 * k:
        cz, cp, cn = centroid()
        r = max(live, key=lambda i: (dist(i, cz, cp, cn), -i))
        members, s = group(r)
        emit(members)
        if len(live) < 2 * k:
            break
        if s not in live:
            s = max(live, key=lambda i: (0.0 if i == r else dist(i, Z[r], P[r], N[r]), -i))
        emit(group(s)[0])
    labels[live] = g
    return labels


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k(), st.integers(0, 2**32 - 1), st.booleans())
def test_the_kernel_is_the_plain_algorithm(backend, data, seed, few):
    Z, k = data
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 2 if few else 5, (len(Z), rng.integers(0, 3)))
    N = rng.integers(0, 2 if few else 4, (len(Z), rng.integers(0, 3)))
    Z = ma.standardize(Z)
    assert (mdav_heterogeneous(Z, P, N, k) == reference(Z, P, N, k)).all()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k(), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 10.0]))
def test_with_missing_cells_the_kernel_is_the_plain_algorithm(backend, data, seed, mismatch):
    Z, k = data
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, (len(Z), rng.integers(0, 3)))
    N = rng.integers(0, 3, (len(Z), rng.integers(0, 3)))
    Z = ma.standardize(Z)
    Z[rng.random(Z.shape) < 0.25] = np.nan
    Z[rng.integers(len(Z))] = np.nan  # a record observing no continuous attribute is still grouped
    labels = mdav_heterogeneous(Z, P, N, k, mismatch)
    assert (labels == reference(Z, P, N, k, mismatch)).all()
    assert np.bincount(labels).min() >= k and np.bincount(labels).max() <= 2 * k - 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k(), st.integers(0, 2**32 - 1), st.floats(0.05, 1.0))
def test_with_unknown_categories_the_kernel_is_the_plain_algorithm(backend, data, seed, share):
    Z, k = data
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, (len(Z), rng.integers(1, 3)))
    N = rng.integers(0, 3, (len(Z), rng.integers(1, 3)))
    P[rng.random(P.shape) < share] = -1  # unknown categories (missing_categories="impute"), up to whole columns
    N[rng.random(N.shape) < share] = -1
    Z = ma.standardize(Z)
    labels = mdav_heterogeneous(Z, P, N, k)
    assert (labels == reference(Z, P, N, k)).all()
    assert np.bincount(labels).min() >= k and np.bincount(labels).max() <= 2 * k - 1


def test_a_record_of_unknown_category_joins_the_records_it_is_near_on_the_others():
    rng = np.random.default_rng(5)
    Z = np.concatenate([rng.normal(-5, 0.1, (6, 1)), rng.normal(5, 0.1, (6, 1))])
    N = np.repeat([[0], [1]], 6, axis=0)
    N[2, 0] = N[9, 0] = -1  # one of each cluster: its category unknown
    labels = mdav_heterogeneous(Z, none(12), N, 3)
    assert set(np.flatnonzero(labels == labels[2])) <= set(range(6))  # its group: records of its own cluster
    assert set(np.flatnonzero(labels == labels[9])) <= set(range(6, 12))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 5]), st.sampled_from([0.0, 10.0]))
def test_without_categories_missing_cells_give_mdav_with_partial_distances(backend, seed, k, mismatch):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(int(rng.integers(k, 80)), int(rng.integers(1, 5))))
    Z[rng.random(Z.shape) < 0.2] = np.nan
    assert (mdav_heterogeneous(Z, none(len(Z)), none(len(Z)), k, mismatch) == mdav_missing(Z, k, mismatch)).all()


def test_the_pattern_penalty_groups_records_missing_the_same_attributes():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(60, 3))
    Z[:12, 0] = np.nan  # 12 records miss the first attribute
    P, N = rng.integers(0, 3, (60, 1)), rng.integers(0, 2, (60, 1))

    def mixed_groups(mismatch):
        labels = mdav_heterogeneous(Z, P, N, 3, mismatch)
        return sum(len(set(np.isnan(Z[labels == g, 0]))) > 1 for g in np.unique(labels))

    assert mixed_groups(10.0) < mixed_groups(0.0)
