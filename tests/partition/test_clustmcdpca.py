"""Cluster-MCD-PCA microaggregation (docs/methods.md §2.23): inside each CLARA cluster, the first axis of its own MCD
scatter."""

import numpy as np

import microagg as ma
from microagg.partition.clusters import clara
from microagg.partition.robust import mcd
from microagg.partition.simple import consecutive_groups

from .test_clustpca import blobs


def test_each_cluster_is_sorted_along_the_first_axis_of_its_own_mcd():
    Z = blobs(2)
    clusters, _ = clara(Z, 3, 4)
    parts = []
    for c in range(clusters.max() + 1):
        rows = np.flatnonzero(clusters == c)
        if len(rows) < 3:
            score = Z[rows, 0]
        else:
            est = mcd(Z[rows], seed=4)
            u = np.linalg.eigh(est.scatter)[1][:, -1]
            score = (Z[rows] - est.center) @ (u if u[0] > 0 else -u)
        parts.append(rows[np.argsort(score, kind="stable")])
    labels = ma.partition.clustmcdpca(Z, 3, nc=3, clara_seed=4, mcd_seed=4)
    assert np.array_equal(labels, consecutive_groups(np.concatenate(parts), 3))


def test_one_cluster_is_mcdpca():
    Z = ma.standardize(ma.load_dataset("tarragona"))[:300]
    assert np.array_equal(ma.partition.clustmcdpca(Z, 4, nc=1, mcd_seed=3), ma.partition.mcdpca(Z, 4, mcd_seed=3))
