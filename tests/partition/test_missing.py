"""MDAV-generic with partial distances: the compiled MDAV on complete data, groups of k..2k-1 with missing cells."""

import numpy as np
import pytest

import microagg as ma
from microagg.partition.missing import mdav_missing


@pytest.mark.parametrize(("name", "k"), [("tarragona", 3), ("census", 5)])
def test_complete_data_give_the_labels_of_mdav(backend, name, k):
    Z = ma.standardize(ma.load_dataset(name))
    assert np.array_equal(mdav_missing(Z, k), ma.partition.mdav(Z, k=k))


def test_missing_cells_still_give_groups_of_k_to_2k_minus_1(backend):
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(200, 4))
    Z[rng.random(Z.shape) < 0.3] = np.nan
    Z[7] = np.nan  # a record with nothing observed is still grouped
    for k in (2, 3, 7):
        sizes = np.bincount(mdav_missing(Z, k))
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1


def test_the_pattern_penalty_groups_alike_patterns_and_leaves_complete_data_alone(backend):
    from microagg.partition.missing import PATTERN_PENALTY
    from microagg.privacy.safety import uniform_patterns

    Z = ma.standardize(ma.load_dataset("tarragona"))
    assert np.array_equal(mdav_missing(Z, 3, PATTERN_PENALTY), mdav_missing(Z, 3))
    Z[np.random.default_rng(0).random(Z.shape) < 0.05] = np.nan
    hidden = [uniform_patterns(np.isnan(Z), mdav_missing(Z, 3, m), 3).sum() for m in (0.0, PATTERN_PENALTY)]
    assert hidden[1] < hidden[0]
    assert np.bincount(mdav_missing(Z, 3, PATTERN_PENALTY)).min() >= 3
