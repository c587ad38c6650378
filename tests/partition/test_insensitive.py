"""Insensitive MDAV (Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2014; docs/methods.md §7.1)."""

import numpy as np

import microagg as ma
from microagg.partition.insensitive import insensitive_mdav
from microagg.privacy.bounds import insensitive_keys

BOX = np.array([[0.0, 10.0], [-5.0, 5.0], [0.0, 100.0]])


def test_groups_are_consecutive_in_the_distance_to_the_lower_corner():
    rng = np.random.default_rng(1)
    X = rng.uniform(BOX[:, 0], BOX[:, 1], size=(23, 3))
    labels = insensitive_mdav(X, 5, bounds=BOX)
    s = (((X - BOX[:, 0]) / (BOX[:, 1] - BOX[:, 0])) ** 2).sum(axis=1)
    assert np.allclose(insensitive_keys(X, BOX), s)
    assert list(labels[np.argsort(s)]) == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 8  # the last group takes the rest


def test_ties_go_to_the_lower_row_index():
    X = np.array([[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [2.0, 2.0]])
    assert insensitive_mdav(X, 2, bounds=[[0, 2], [0, 2]]).tolist() == [1, 0, 1, 2, 0, 2]


def test_replacing_one_record_changes_at_most_one_member_of_each_group():
    """The property the Laplace aggregation's sensitivity rests on, by brute force: every record replaced by points
    of the box (corners included), every group of the new partition matched with the old group at its rank."""
    rng = np.random.default_rng(2)
    X = rng.uniform(BOX[:, 0], BOX[:, 1], size=(17, 3))
    k = 3
    before = insensitive_mdav(X, k, bounds=BOX)
    points = np.vstack([BOX[:, 0], BOX[:, 1], rng.uniform(BOX[:, 0], BOX[:, 1], size=(6, 3))])
    for i in range(len(X)):
        for p in points:
            Y = X.copy()
            Y[i] = p
            after = insensitive_mdav(Y, k, bounds=BOX)
            for g in range(before.max() + 1):
                old, new = set(np.flatnonzero(before == g)), set(np.flatnonzero(after == g))
                assert len(old - new - {i}) <= 1 and len(new - old - {i}) <= 1


def test_the_data_box_without_bounds_and_the_bounds_as_text():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    own = np.column_stack([X.min(axis=0), X.max(axis=0)])
    assert np.array_equal(insensitive_mdav(X, 4), insensitive_mdav(X, 4, bounds=own))
    assert np.array_equal(insensitive_mdav(X, 4, bounds=",".join(f"{float(lo)!r}:{float(hi)!r}" for lo, hi in own)),
                          insensitive_mdav(X, 4, bounds=own))


def test_the_release_works_in_original_units():
    """The partition sees the data's own units (not z-scores), so bounds given in them mean what they say."""
    df = ma.load_dataset("tarragona")
    X = df.to_numpy(dtype=float)
    B = np.column_stack([np.zeros(X.shape[1]), X.max(axis=0) * 2])
    rel = ma.microaggregate(df, 5, method="insensitive_mdav", bounds=B)
    assert np.array_equal(rel.labels, insensitive_mdav(X, 5, bounds=B))
    assert rel.anonymity["k_anonymous"]
