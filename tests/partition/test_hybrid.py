"""HM-pfsom (microagg/partition/hybrid.py): the worked examples of Abidi, Ben Yahia & Perera 2018, group properties,
roles, bad input.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition.hybrid import diverse_groups, hm_pfsom, hm_pfsom_steps, scale

TABLE8 = [{1, 8, 10, 12}, {2, 4, 9, 11}, {3, 5, 6, 7, 13}]


def groups_of(labels) -> list[set]:
    return [set(np.flatnonzero(labels == g) + 1) for g in range(labels.max() + 1)]


def qi_sse(Q, groups) -> float:
    return sum(((Q[sorted(i - 1 for i in g)] - Q[sorted(i - 1 for i in g)].mean(axis=0)) ** 2).sum() for g in groups)


def salary_trace(**params):
    df = ma.load_dataset("abidi_salary")
    return hm_pfsom_steps(df.to_numpy(float), 1, [2], c=1, scaling="minmax", **params)


def test_worked_example_tables_4_to_8():
    """Abidi, Ben Yahia & Perera 2018, §3.2: 13 records, 3 salary classes (Tables 5-7), a 3-partition with every
    class in every group.

    Algorithm 2 gives Table 8's group {x2, x4, x9, x11} but not its other two groups: ours are {x3, x6, x7, x12}
    and {x1, x5, x8, x10, x13}. No reading we tried gives Table 8 (z / min-max / raw units; mean, median or
    PFCM centre; squared, absolute-sum or L1 distances; leftovers to the nearest centroid or seed). Ours has the
    smaller within-group spread of the quasi-identifiers.
    """
    tr = salary_trace(pcaes="min")
    assert tr.cs.tolist() == [3]
    assert sorted((set(np.flatnonzero(tr.classes == j) + 1) for j in range(3)), key=min) == \
        [{1, 2, 3}, {4, 5, 6, 10, 11, 12}, {7, 8, 9, 13}]
    ours = groups_of(tr.labels)
    assert len(ours) == 3 and {2, 4, 9, 11} in ours
    assert sorted(ours, key=min) == [{1, 5, 8, 10, 13}, {2, 4, 9, 11}, {3, 6, 7, 12}]
    assert all(len({int(tr.classes[i - 1]) for i in g}) == 3 for g in ours)
    assert all(len({int(tr.classes[i - 1]) for i in g}) == 3 for g in TABLE8)  # Table 8 is diverse too
    Q = scale(ma.load_dataset("abidi_salary")[["ZIP", "Age"]].to_numpy(float), "minmax")
    assert qi_sse(Q, ours) == pytest.approx(1.6295, abs=1e-4) and qi_sse(Q, TABLE8) == pytest.approx(1.8587, abs=1e-4)
    assert np.array_equal(salary_trace(cs=3).labels, tr.labels)


def test_worked_example_with_the_default_pcaes_finds_two_classes():
    tr = salary_trace()
    assert tr.cs.tolist() == [2]
    assert {int(tr.classes[i - 1]) for i in (7, 8, 9, 13)} != {int(tr.classes[i - 1]) for i in (1, 4)}
    assert all(len({int(tr.classes[i - 1]) for i in g}) == 2 for g in groups_of(tr.labels))


def test_disease_example_tables_1_to_3():
    """Table 2 (grouping on the quasi-identifiers only) has an all-Cancer group; Algorithm 2 with the diseases
    as classes puts every disease in every group (Table 3 is another such partition)."""
    df = ma.load_dataset("abidi_disease")
    table2 = np.repeat([0, 1, 2], 4)
    assert min(df.groupby(table2)["Disease"].nunique()) == 1
    labels = diverse_groups(scale(df[["ZIP", "Age"]].to_numpy(float), "minmax"), df["Disease"], 1)
    assert groups_of(labels) == [{1, 4, 9}, {2, 3, 10}, {5, 6, 7, 8, 11, 12}]
    assert (df.groupby(labels)["Disease"].nunique() == 3).all()
    table3 = [{5, 6, 8}, {2, 7, 10, 12}, {1, 3, 4, 9, 11}]
    assert all(df.loc[sorted(g), "Disease"].nunique() == 3 for g in table3)


@st.composite
def data(draw):
    n = draw(st.integers(6, 60))
    d = draw(st.integers(2, 4))
    k = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d)) if draw(st.booleans()) else rng.integers(0, 3, size=(n, d)).astype(float)
    conf = sorted(draw(st.sets(st.integers(0, d - 1), min_size=1, max_size=d - 1)))
    return Z, k, conf


@given(data())
@settings(max_examples=40, deadline=None)
def test_every_group_holds_k_records_of_every_class_of_its_sub_microdata(zkc):
    Z, k, conf = zkc
    before = Z.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = hm_pfsom_steps(Z, k, conf)
        again = hm_pfsom(Z, k, conf) if k >= 2 else tr.labels  # the partition's k is a release's, >= 2
    assert np.array_equal(Z, before) and np.array_equal(again, tr.labels)
    m = tr.labels.max() + 1
    assert np.array_equal(np.unique(tr.labels), np.arange(m)) and len(tr.seeds) == m
    for g in range(m):
        members = tr.labels == g
        subs = np.unique(tr.sub[members])
        assert len(subs) == 1
        cs = tr.cs[subs[0]]
        counts = np.bincount(tr.classes[members], minlength=cs)
        assert len(counts) == cs and counts.min() >= k and members.sum() >= k * cs
    assert (np.bincount(tr.labels) >= k).all()


def test_deterministic_under_a_seed_and_seed_matters_only_through_the_clustering():
    Z = ma.standardize(ma.load_dataset("census"))
    conf = list(range(5, 13))
    a, b = hm_pfsom_steps(Z, 5, conf), hm_pfsom_steps(Z, 5, conf)
    assert np.array_equal(a.labels, b.labels) and np.array_equal(a.sub, b.sub)
    assert np.array_equal(a.classes, b.classes) and a.pcaes.equals(b.pcaes)
    fixed = hm_pfsom_steps(Z, 5, conf, seed=11)
    assert (np.bincount(fixed.labels) >= 5 * fixed.cs[fixed.sub[fixed.seeds]]).all()


def test_roles_confidential_values_never_drive_the_quasi_identifier_split():
    rng = np.random.default_rng(2)
    Z = ma.standardize(ma.load_dataset("census"))
    conf = list(range(5, 13))
    other = Z.copy()
    other[:, conf] = rng.normal(size=(len(Z), len(conf)))
    a, b = hm_pfsom_steps(Z, 4, conf), hm_pfsom_steps(other, 4, conf)
    assert np.array_equal(a.sub, b.sub) and np.array_equal(a.centres, b.centres)
    assert not np.array_equal(a.classes, b.classes)
    # with one class per sub-microdata, the confidential values cannot change anything
    assert np.array_equal(hm_pfsom(Z, 4, conf, cs=1), hm_pfsom(other, 4, conf, cs=1))
    # the QI columns do drive it: the same values declared confidential instead give another split
    swapped = hm_pfsom_steps(Z, 4, list(range(0, 5)))
    assert not np.array_equal(swapped.sub, a.sub)


def test_a_sub_microdata_smaller_than_k_joins_its_nearest_neighbour():
    rng = np.random.default_rng(0)
    Q = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(10, 1, (20, 2)), [[50, 50], [51, 50]]])
    tr = hm_pfsom_steps(np.column_stack([Q, rng.normal(size=42)]), 3, [2], c=3)
    assert tr.c == 2 and sorted(np.bincount(tr.sub)) == [20, 22]
    assert tr.notes == ("a sub-microdata of 2 record(s) < k = 3 merged into its nearest neighbour",)
    assert set(tr.sub[40:]) == set(tr.sub[20:40])


def test_a_single_class_left_is_reported():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(9, 3))
    with pytest.warns(UserWarning, match="single confidential class"):
        tr = hm_pfsom_steps(Z, 5, [2], c=1, cs=2)
    assert tr.cs.tolist() == [1] and np.bincount(tr.labels).min() >= 5
    assert "merged" in tr.notes[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hm_pfsom(Z, 5, [2], c=1, cs=1)  # one class asked for: nothing to warn about


def test_trace_describes_both_levels():
    Z = ma.standardize(ma.load_dataset("census"))
    tr = hm_pfsom_steps(Z, 5, list(range(5, 13)), scaling="minmax")
    levels = tr.pcaes.groupby("level")["chosen"].sum()
    assert levels["sub-microdata (QIs)"] == 1 and levels["classes (confidential)"] == tr.c
    assert tr.qi.tolist() == [0, 1, 2, 3, 4] and tr.confidential.tolist() == list(range(5, 13))
    assert tr.scaled.min() == 0 and tr.scaled.max() == 1
    assert tr.centres.shape == (tr.c, 5)
    # every group was formed around the unassigned record farthest from its sub-microdata's centre: the first
    # group's seed is the record of its sub-microdata farthest from the centre
    for j in range(tr.c):
        rows = np.flatnonzero(tr.sub == j)
        far = rows[np.argmax(((tr.scaled[rows][:, tr.qi] - tr.centres[j]) ** 2).sum(axis=1))]
        first = tr.labels[rows].min()
        assert tr.seeds[first] == far


def test_diverse_groups_checks_its_input():
    Q = np.arange(12.0).reshape(6, 2)
    # centre (5, 6): rows 1 and 6 tie as farthest, the lower index forms the first group; then row 6, then row 3
    assert groups_of(diverse_groups(Q, ["a", "b"] * 3, 1)) == [{1, 2}, {5, 6}, {3, 4}]
    with pytest.raises(ma.MicroaggError, match="no group can be formed"):
        diverse_groups(Q, ["a"] * 5 + ["b"], 2)
    with pytest.raises(ma.MicroaggError, match="one class per record"):
        diverse_groups(Q, ["a", "b"], 1)
    with pytest.raises(ma.MicroaggError, match="positive integer"):
        diverse_groups(Q, ["a"] * 6, 0)


@pytest.mark.parametrize("args,kwargs,fragment", [
    ((None,), {}, "needs confidential attributes"),
    (([],), {}, "needs confidential attributes"),
    (([0, 1, 2],), {}, "every column is confidential"),
    (([7],), {}, "'confidential' must list column names or positions"),
    (([2],), {"c": 50}, "parameter 'c' of partition method 'hmpfsom'"),
    (([2],), {"a": 0.0}, r"parameter 'a' of partition method 'hmpfsom' must lie in \(0, inf\)"),
    (([2],), {"scaling": "robust"}, "parameter 'scaling'.*must be one of"),
    (([2],), {"m": 1}, "parameter 'm'"),
    (([2],), {"max_iter": 0}, "parameter 'max_iter'"),
])
def test_bad_parameters(args, kwargs, fragment):
    Z = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ma.MicroaggError, match=fragment):
        hm_pfsom(Z, 3, *args, **kwargs)


def test_bad_data_and_k():
    Z = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ma.MicroaggError, match="integer >= 2"):
        hm_pfsom(Z, 0, [2])
    with pytest.raises(ma.MicroaggError, match="integer >= 2"):
        hm_pfsom(Z, 2.5, [2])
    with pytest.raises(ma.MicroaggError, match="k = 1 would release"):  # the partition's k is the release's
        hm_pfsom(Z, 1, [2])
    with pytest.raises(ma.MicroaggError, match="positive integer"):  # the trace takes k >= 1, as the paper's example
        hm_pfsom_steps(Z, 0, [2])
    with pytest.raises(ma.MicroaggError, match="at least k"):
        hm_pfsom(Z, 31, [2])
    bad = Z.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ma.MicroaggError, match="non-finite"):
        hm_pfsom(bad, 3, [2])
    with pytest.raises(ma.MicroaggError, match="2-D"):
        hm_pfsom(Z[:, 0], 3, [0])
    with pytest.raises(ma.MicroaggError, match="numeric"):
        hm_pfsom([["a", "b"]] * 4, 2, [1])
