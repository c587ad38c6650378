"""Ordinal lower median and nominal mode of a group (docs/methods.md §3.4, §5 decisions 33-34)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from microagg.aggregate.categorical import nominal_mode, ordinal_median


@st.composite
def codes_and_labels(draw):
    n = draw(st.integers(1, 40))
    groups = draw(st.integers(1, n))
    labels = np.array(draw(st.lists(st.integers(0, groups - 1), min_size=n, max_size=n)))
    labels = np.unique(labels, return_inverse=True)[1]  # consecutive ids
    C = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))[:, None]
    return C, labels


@settings(max_examples=40, deadline=None)
@given(codes_and_labels())
def test_ordinal_median_is_the_lower_median_by_brute_force(data):
    P, labels = data
    out = ordinal_median(P, labels)
    for g in np.unique(labels):
        members = sorted(P[labels == g, 0])
        lower = members[(len(members) - 1) // 2]
        assert (out[labels == g, 0] == lower).all()
        assert sum(v <= lower for v in members) >= len(members) / 2  # at least half at or below it


@settings(max_examples=40, deadline=None)
@given(codes_and_labels())
def test_nominal_mode_by_brute_force_with_the_first_member_tie_rule(data):
    N, labels = data
    out = nominal_mode(N, labels)
    for g in np.unique(labels):
        rows = np.flatnonzero(labels == g)
        counts = {c: int((N[rows, 0] == c).sum()) for c in set(N[rows, 0])}
        top = max(counts.values())
        first = next(N[i, 0] for i in rows if counts[N[i, 0]] == top)
        assert (out[rows, 0] == first).all()


def test_mode_ties_are_deterministic_and_follow_the_lowest_member():
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    N = np.array([[2], [1], [1], [2], [0], [3], [3], [0]])
    assert nominal_mode(N, labels)[:, 0].tolist() == [2] * 4 + [0] * 4
    # the same members in another order: the lowest-indexed one decides
    assert nominal_mode(N[[1, 0, 2, 3, 5, 4, 6, 7]], labels)[:, 0].tolist() == [1] * 4 + [3] * 4


def test_even_group_takes_the_lower_middle_category():
    assert ordinal_median(np.array([[0], [3], [1], [2]]), np.zeros(4, np.int64))[:, 0].tolist() == [1] * 4


def test_an_unknown_category_takes_the_group_value_of_the_members_that_have_one():
    labels = np.array([0, 0, 0, 0, 1, 1, 1])
    C = np.array([[-1], [3], [1], [2], [-1], [-1], [-1]])  # -1: unknown (missing_categories="impute")
    assert ordinal_median(C, labels)[:, 0].tolist() == [2] * 4 + [-1] * 3  # lower median of 1, 2, 3
    assert nominal_mode(C, labels)[:, 0].tolist() == [3] * 4 + [-1] * 3  # a tie of three: the first member's


@settings(max_examples=40, deadline=None)
@given(codes_and_labels(), st.integers(0, 2**32 - 1))
def test_with_unknown_categories_both_are_those_of_the_known_members(data, seed):
    C, labels = data
    C = np.where(np.random.default_rng(seed).random(C.shape) < 0.3, -1, C)
    median, mode = ordinal_median(C, labels)[:, 0], nominal_mode(C, labels)[:, 0]
    for g in np.unique(labels):
        rows = np.flatnonzero(labels == g)
        known = rows[C[rows, 0] >= 0]
        if not len(known):
            assert (median[rows] == -1).all() and (mode[rows] == -1).all()
            continue
        assert (median[rows] == sorted(C[known, 0])[(len(known) - 1) // 2]).all()
        assert (mode[rows] == nominal_mode(C[known], np.zeros(len(known), np.int64))[0, 0]).all()
