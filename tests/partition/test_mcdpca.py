"""MCD-PCA microaggregation (docs/methods.md §2.21): blocks along the first axis of the MCD scatter."""

import numpy as np

import microagg as ma
from microagg.partition.optimal import sorted_groups
from microagg.partition.robust import mcd

from .test_pppca import outlying_line


def test_groups_are_blocks_along_the_first_axis_of_the_mcd_scatter():
    Z = outlying_line(1, 80)
    est = mcd(Z, seed=4)
    u = np.linalg.eigh(est.scatter)[1][:, -1]
    u = u if u[0] > 0 else -u
    for grouping in ("fixed", "optimal"):
        labels = ma.partition.mcdpca(Z, 3, mcd_seed=4, grouping=grouping)
        assert np.array_equal(labels, sorted_groups((Z - est.center) @ u, 3, grouping))
    assert abs(u @ np.array([1, 1]) / np.sqrt(2)) > 0.99  # the majority's axis, not the outliers'


def test_the_seed_fixes_the_groups():
    Z = ma.standardize(ma.load_dataset("tarragona"))
    first = ma.partition.mcdpca(Z, 3, mcd_seed=1)
    assert np.array_equal(first, ma.partition.mcdpca(Z, 3, mcd_seed=1))
    assert np.bincount(first).min() == 3
