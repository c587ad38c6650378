"""Cluster-PCA microaggregation (docs/methods.md §2.23): inside each CLARA cluster, the cluster's own first
principal component of its own z-scores."""

import numpy as np

import microagg as ma
from microagg.partition.clusters import clara
from microagg.partition.simple import consecutive_groups


def blobs(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(40)
    b = rng.standard_normal(35)
    Z = np.vstack([np.column_stack([a, -a + 0.1 * rng.standard_normal(40), rng.standard_normal(40)]) + [8, 0, 0],
                   np.column_stack([b, 3 * b + 0.1 * rng.standard_normal(35), rng.standard_normal(35)]) - [8, 0, 0],
                   [[0.0, 30, 0], [0.5, 31, 1]]])  # a cluster of two records: fewer than the 3 attributes
    return Z[rng.permutation(len(Z))]


def expected(Z, k, nc, seed, score):
    """CLARA's clusters in turn, each sorted by ``score`` of its rows (one smaller than d by its first attribute),
    then blocks of k."""
    clusters, _ = clara(Z, nc, seed)
    parts = []
    for c in range(clusters.max() + 1):
        rows = np.flatnonzero(clusters == c)
        parts.append(rows[np.argsort(Z[rows, 0] if len(rows) < Z.shape[1] else score(Z[rows]), kind="stable")])
    return consecutive_groups(np.concatenate(parts), k)


def first_component(X):
    """Scores on the first principal component of X's own z-scores: numpy's SVD, R's sign (first loading > 0)."""
    W = (X - X.mean(0)) / X.std(0)
    v = np.linalg.svd(W, full_matrices=False)[2][0]
    return W @ (v if v[0] > 0 else -v)


def test_each_cluster_is_sorted_along_its_own_principal_component():
    Z = blobs()
    labels = ma.partition.clustpca(Z, 4, nc=3, clara_seed=5)
    assert np.array_equal(labels, expected(Z, 4, 3, 5, first_component))
    assert len(np.unique(clara(Z, 3, 5)[0])) == 3
    assert sorted(np.bincount(labels)) == [4] * 18 + [5]


def test_one_cluster_is_the_pca_projection():
    Z = ma.standardize(ma.load_dataset("tarragona"))
    assert np.array_equal(ma.partition.clustpca(Z, 3, nc=1), ma.partition.projection(Z, 3))
