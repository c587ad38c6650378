"""Cluster-MCD-PCA microaggregation (docs/methods.md §2.23): inside each CLARA cluster, the first axis of its own MCD
scatter."""

import numpy as np

import microagg as ma
from microagg.partition.robust import mcd

from .test_clustpca import blobs, expected


def mcd_component(X):
    """Scores from the MCD centre on the top eigenvector of the MCD scatter (seed 4), first component positive."""
    est = mcd(X, seed=4)
    u = np.linalg.eigh(est.scatter)[1][:, -1]
    return (X - est.center) @ (u if u[0] > 0 else -u)


def test_each_cluster_is_sorted_along_the_first_axis_of_its_own_mcd():
    Z = blobs(2)
    labels = ma.partition.clustmcdpca(Z, 3, nc=3, clara_seed=4, mcd_seed=4)
    assert np.array_equal(labels, expected(Z, 3, 3, 4, mcd_component))


def test_one_cluster_is_mcdpca():
    Z = ma.standardize(ma.load_dataset("tarragona"))[:300]
    assert np.array_equal(ma.partition.clustmcdpca(Z, 4, nc=1, mcd_seed=3), ma.partition.mcdpca(Z, 4, mcd_seed=3))
