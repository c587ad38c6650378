"""Cluster-PP-PCA microaggregation (docs/methods.md §2.23): inside each CLARA cluster, its own projection-pursuit
axis."""

import numpy as np

import microagg as ma

from .test_clustpca import blobs, expected
from .test_robust import brute_pp_axis


def test_each_cluster_is_sorted_along_its_own_projection_pursuit_axis():
    Z = blobs(1)
    labels = ma.partition.clustpppca(Z, 3, nc=3, clara_seed=2)
    assert np.array_equal(labels, expected(Z, 3, 3, 2, lambda X: (X - np.median(X, 0)) @ brute_pp_axis(X)))


def test_one_cluster_is_pppca():
    Z = ma.standardize(ma.load_dataset("tarragona"))[:300]
    assert np.array_equal(ma.partition.clustpppca(Z, 4, nc=1), ma.partition.pppca(Z, 4))
