"""RMD, robust MDAV (docs/methods.md §2.22): groups of k around the records farthest from the robust centre."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition.rmd import nearest, seeded_groups
from microagg.partition.robust import mcd

from .reference import nearest as reference_nearest
from .strategies import data_and_k


def reference_rmd(Z, k, farness):
    """The loop by the letter: seed = first maximum of farness among the records left, with its k-1 nearest."""
    labels = np.full(len(Z), -1)
    left = np.arange(len(Z))
    g = 0
    while len(left) >= 2 * k:
        r = left[int(np.argmax(farness[left]))]
        group = np.append(reference_nearest(Z, left[left != r], Z[r], k - 1), r)  # r and its k-1 nearest others
        labels[group] = g
        left = np.setdiff1d(left, group)
        g += 1
    labels[left] = g
    return labels


@settings(max_examples=80, deadline=None)
@given(data_and_k(), st.integers(0, 3))
def test_the_loop_matches_the_reference_with_any_farness(zk, kind):
    Z, k = zk
    farness = [Z[:, 0].copy(), np.zeros(len(Z)), -np.arange(len(Z), dtype=float), (Z * Z).sum(axis=1)][kind]
    assert np.array_equal(seeded_groups(Z, k, farness), reference_rmd(Z, k, farness))


def test_nearest_takes_the_lowest_positions_among_ties():
    assert list(nearest(np.array([3.0, 1, 1, 1, 0]), 3)) == [1, 2, 4]
    assert list(nearest(np.array([2.0, 2, 2]), 2)) == [0, 1]
    assert list(nearest(np.array([5.0, 4]), 3)) == [0, 1]


def test_rmd_groups_the_outliers_first_and_uses_the_mcd_distances():
    rng = np.random.default_rng(0)
    Z = np.vstack([rng.standard_normal((97, 3)), [[8, 8, 8], [-9, 9, 0], [0, 0, 12]]])
    Z = (Z - Z.mean(0)) / Z.std(0)
    labels = ma.partition.rmd(Z, 3, mcd_seed=2)
    assert np.array_equal(labels, seeded_groups(Z, 3, mcd(Z, seed=2).distances(Z)))
    assert set(labels[97:]) <= {0, 1, 2}  # the three outliers seed the first three groups
    sizes = np.bincount(labels)
    assert (sizes[:-1] == 3).all() and sizes[-1] == 4


def test_rmd_runs_on_collinear_data_where_the_covariance_is_singular():
    Z = ma.standardize(ma.load_dataset("census"))  # a linear dependency among the 13 attributes
    assert mcd(Z).basis.shape == (13, 12)
    labels = ma.partition.rmd(Z, 5)
    assert np.bincount(labels).min() == 5 and np.array_equal(labels, ma.partition.rmd(Z, 5))


def test_the_seed_is_in_its_group_where_distances_underflow():
    Z = np.array([[0.0], [0.0], [1e-300], [0.0]])  # (1e-300 - 0)^2 is 0: four records at distance 0 from the seed
    labels = seeded_groups(Z, 2, Z[:, 0].copy())
    assert labels[2] == 0 and (labels == 0).sum() == 2
