"""Cluster-PP-PCA microaggregation (docs/methods.md §2.23): inside each CLARA cluster, its own projection-pursuit
axis."""

import numpy as np

import microagg as ma
from microagg.partition.clusters import clara
from microagg.partition.simple import consecutive_groups

from .test_clustpca import blobs
from .test_robust import brute_pp_axis


def test_each_cluster_is_sorted_along_its_own_projection_pursuit_axis():
    Z = blobs(1)
    clusters, _ = clara(Z, 3, 2)
    parts = []
    for c in range(clusters.max() + 1):
        rows = np.flatnonzero(clusters == c)
        score = Z[rows, 0] if len(rows) < 3 else (Z[rows] - np.median(Z[rows], 0)) @ brute_pp_axis(Z[rows])
        parts.append(rows[np.argsort(score, kind="stable")])
    labels = ma.partition.clustpppca(Z, 3, nc=3, clara_seed=2)
    assert np.array_equal(labels, consecutive_groups(np.concatenate(parts), 3))


def test_one_cluster_is_pppca():
    Z = ma.standardize(ma.load_dataset("tarragona"))[:300]
    assert np.array_equal(ma.partition.clustpppca(Z, 4, nc=1), ma.partition.pppca(Z, 4))
