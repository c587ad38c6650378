"""CLARA and the cluster-by-cluster order (docs/methods.md §2.23): PAM's medoids cannot be improved by one swap,
CLARA is PAM on small data, clusters are numbered by their first record, and the groups run across clusters."""

import numpy as np
from hypothesis import given, settings

from microagg.partition.clusters import _distances, clara, cluster_order, clustered_groups, pam

from .strategies import data_and_k


def cost(D, medoids):
    return D[medoids].min(axis=0).sum()


@settings(max_examples=60, deadline=None)
@given(data_and_k())
def test_pam_stops_where_no_swap_lowers_the_cost(zk):
    Z, k = zk
    D = _distances(Z, Z)
    medoids = pam(D, k)
    assert len(set(medoids)) == len(medoids) == min(k, len(Z)) and list(medoids) == sorted(medoids)
    here = cost(D, medoids)
    for i in range(len(medoids)):
        for h in np.setdiff1d(np.arange(len(Z)), medoids):
            swapped = medoids.copy()
            swapped[i] = h
            assert cost(D, swapped) >= here - 1e-9 * (1 + here)


def test_pam_build_starts_from_the_most_central_record():
    Z = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    D = _distances(Z, Z)
    assert list(pam(D, 1)) == [2]  # the smallest sum of distances
    assert list(pam(D, 2)) == [1, 3]  # {1, 3}: cost 1 + 1 + 1 = 3, lower than BUILD's {2, 3}


def test_clara_is_pam_on_small_data_and_numbers_clusters_by_first_record():
    rng = np.random.default_rng(0)
    Z = np.vstack([rng.normal(5, 0.3, (10, 2)), rng.normal(-5, 0.3, (15, 2)), rng.normal(0, 0.3, (12, 2))])
    Z = Z[rng.permutation(len(Z))]
    clusters, medoids = clara(Z, 3, seed=1)
    assert np.array_equal(np.sort(medoids), pam(_distances(Z, Z), 3))  # 37 <= 40 + 2·3: one sample, the data
    assert np.array_equal(clara(Z, 3, seed=99)[0], clusters)
    firsts = [np.flatnonzero(clusters == c)[0] for c in range(3)]
    assert firsts == sorted(firsts) and firsts[0] == 0
    assert all(clusters[m] == c for c, m in enumerate(medoids))
    assert sorted(np.bincount(clusters)) == [10, 12, 15]
    nearest = np.argmin(_distances(Z, Z[medoids]), axis=1)
    assert np.array_equal(nearest, clusters)


def test_clara_on_large_data_is_seeded_and_finds_separated_clusters():
    rng = np.random.default_rng(3)
    centres = np.array([[0, 0], [20, 0], [0, 20], [20, 20]])
    Z = np.vstack([c + rng.standard_normal((250, 2)) for c in centres])[rng.permutation(1000)]
    clusters, medoids = clara(Z, 4, seed=7)
    assert np.array_equal(clara(Z, 4, seed=7)[0], clusters)
    truth = np.argmin(_distances(Z, centres), axis=1)
    assert len(np.unique(np.stack([clusters, truth]), axis=1).T) == 4  # the same four clusters


def test_fewer_distinct_records_than_clusters_give_fewer_clusters():
    Z = np.repeat([[0.0, 0.0], [1.0, 1.0], [5.0, 0.0]], 4, axis=0)
    clusters, medoids = clara(Z, 8)
    assert clusters.max() + 1 == len(medoids) == 3


def test_order_runs_cluster_by_cluster_and_groups_span_clusters():
    Z = np.array([[3.0, 0, 0], [1, 0, 0], [2, 0, 0], [9, 5, 0], [8, 6, 0], [7, 7, 0], [6, 8, 0], [10, 1, 1],
                  [4, 9, 0]])
    clusters = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2])
    medoids = np.array([2, 5, 7])
    by_second = cluster_order(Z, clusters, medoids, lambda rows, medoid: Z[rows, 1])
    # clusters 0 and 1 (>= 3 rows for 3 attributes) by the score; cluster 2 (2 rows) by its first attribute
    assert list(by_second) == [0, 1, 2, 3, 4, 5, 6, 8, 7]
    by_score = cluster_order(Z, clusters, medoids, lambda rows, medoid: Z[rows, 1], projected=False)
    assert list(by_score) == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    labels = clustered_groups(Z, 4, 3, 0, lambda rows, medoid: Z[rows, 0])
    found = clara(Z, 3, 0)[0]
    assert sorted(np.bincount(labels)) == [4, 5]
    assert any(len(set(found[labels == g])) > 1 for g in range(2))  # a group spans two clusters
