import numpy as np
import pytest

import microagg as ma
from microagg import metrics
from microagg.lab.reproduce import published, reproduce_dld
from microagg.metrics.risk import blocked_credit, exact_cells

# Six records on a line, grouped {0, 1, 9} (mean 10/3) and {2, 6, 8} (mean 16/3): records 2 and 5
# are nearer to the other group's masked value than to their own.
LINE = np.array([0.0, 1, 2, 6, 8, 9])[:, None]
LINE_LABELS = np.array([0, 0, 1, 1, 1, 0])
LINE_MASKED = np.where(LINE_LABELS == 0, 10 / 3, 16 / 3)[:, None]


def test_rules_by_hand_two_pairs():
    Z = np.array([0.0, 1, 5, 6])[:, None]
    Zp = np.array([0.5, 0.5, 5.5, 5.5])[:, None]
    # original -> masked: each record's own masked row is one of 2 tied nearest: 1/2 each
    assert metrics.dld(Z, Zp) == 50
    # Mortazavi & Jalili 2017, Eq. 7: N1 = lowest index of the tie, so records 0 and 2 link
    assert np.array_equal(metrics.nearest_masked(Z, Zp), [0, 0, 2, 2])
    assert metrics.dld(Z, Zp, "lowest_index") == 50
    # masked -> original: 0.5 is equally near originals 0 and 1; the lowest index is 1st, the other 2nd
    assert np.array_equal(metrics.linkage(Z, Zp, "1st"), [1, 0, 1, 0])
    assert np.array_equal(metrics.linkage(Z, Zp, "2nd"), [0, 1, 0, 1])
    assert metrics.dld(Z, Zp, "1st_or_2nd") == 100


def test_rules_by_hand_when_the_nearest_group_is_not_the_own():
    Z, Zp = LINE, LINE_MASKED
    # records 0, 1, 3, 4 find their own group nearest (1/3 each), records 2 and 5 the other one
    assert np.allclose(metrics.linkage(Z, Zp), [1 / 3, 1 / 3, 0, 1 / 3, 1 / 3, 0])
    assert metrics.dld(Z, Zp) == pytest.approx(100 * 4 / 18)
    # N1: 0 for records 0-2 (group {0, 1, 5}'s lowest row), 2 for records 3-5: only record 0 links
    assert np.array_equal(metrics.nearest_masked(Z, Zp), [0, 0, 0, 2, 2, 2])
    assert metrics.dld(Z, Zp, "lowest_index") == pytest.approx(100 / 6)
    # masked 10/3 -> originals 2 (1.33) then 1 (2.33); masked 16/3 -> 6 (0.67) then 8 (2.67)
    assert np.array_equal(metrics.linkage(Z, Zp, "1st"), [0, 0, 0, 1, 0, 0])
    assert np.array_equal(metrics.linkage(Z, Zp, "2nd"), [0, 1, 0, 0, 1, 0])


def test_sdid_by_hand_linked_and_own_record():
    Z, Zp = LINE, LINE_MASKED
    p = 100 * 1.5 / Z.std()  # interval half-width 1.5 in the units of Z
    # linked record's value: |x - x'| = 10/3, 7/3, 4/3, 2/3, 8/3, 11/3 -> records 2 and 3 within 1.5
    assert metrics.sdid(Z, Zp, p) == pytest.approx(100 * 2 / 6)
    # own record's value: record 2 is 10/3 away from its own group's 16/3
    assert metrics.sdid(Z, Zp, p, link="own") == pytest.approx(100 / 6)


def test_sdid_is_inclusive_and_grows_with_p():
    Z = np.array([0.0, 1, 5, 6])[:, None]  # population sd sqrt(6.5); every record is 0.5 from its value
    Zp = np.array([0.5, 0.5, 5.5, 5.5])[:, None]
    edge = 100 * 0.5 / np.sqrt(6.5)
    assert metrics.sdid(Z, Zp, edge * (1 - 1e-9)) == 0
    assert metrics.sdid(Z, Zp, edge * (1 + 1e-9)) == 100
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(200, 3))
    Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 4))
    values = [metrics.sdid(Z, Zp, p) for p in (1, 5, 20, 60)]
    assert values == sorted(values) and values[0] < values[-1]


def test_constant_attribute_is_skipped_by_sdid():
    Z = np.column_stack([[0.0, 1, 5, 6], np.zeros(4)])
    Zp = np.column_stack([[0.5, 0.5, 5.5, 5.5], np.zeros(4)])
    assert metrics.sdid(Z, Zp, 5) == 0  # the constant column would otherwise count as disclosed
    assert np.isnan(metrics.sdid(Z, Zp, 5, by_attribute=True)[1])


def test_nothing_masked_links_every_distinct_record():
    Z = np.random.default_rng(0).normal(size=(300, 4))
    for rule in ("expected", "lowest_index", "1st", "1st_or_2nd"):
        assert metrics.dld(Z, Z.copy(), rule) == 100
    assert metrics.dld(Z, Z, "2nd") == 0
    # two identical records cannot be told apart: 1/2 each under the expected rule
    Zd = np.vstack([Z, Z[:1]])
    assert metrics.dld(Zd, Zd) == pytest.approx(100 * (300 - 1 + 2 * 0.5) / 301)


def _reference(Z, Zp):
    """Plain loops over the records (one distance vector at a time) with the documented tie rules."""
    n = len(Z)

    def sq(A, b):
        acc = np.zeros(len(A))
        for t in range(A.shape[1]):
            acc += (A[:, t] - b[t]) ** 2
        return acc

    out = {rule: np.zeros(n) for rule in ("expected", "lowest_index", "1st", "2nd")}
    for i in range(n):
        d = sq(Zp, Z[i])
        tied = np.flatnonzero(d == d.min())
        out["expected"][i] = 1 / len(tied) if i in tied else 0
        out["lowest_index"][i] = tied[0] == i
        order = np.lexsort((np.arange(n), sq(Z, Zp[i])))
        out["1st"][i], out["2nd"][i] = order[0] == i, order[1] == i
    return out


@pytest.mark.parametrize("seed", range(12))
def test_kdtree_linkage_equals_plain_loops_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(8, 70)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    Z = rng.integers(-2, 3, size=(n, d)).astype(float)  # duplicates and equidistant records everywhere
    if seed % 2:
        Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, k, "classic"))
    else:
        Zp = np.round(Z + rng.normal(scale=0.7, size=Z.shape))
    ref = _reference(Z, Zp)
    for rule, expected in ref.items():
        assert np.allclose(metrics.linkage(Z, Zp, rule), expected), rule


def test_linkage_bounds_for_k_anonymous_data(benchmark_z):
    Z = benchmark_z["census"]
    labels = ma.partition.mdav(Z, 5)
    Zp = ma.aggregate.mean(Z, labels)
    m, n = labels.max() + 1, len(Z)
    assert metrics.dld(Z, Zp) <= 100 * m / n
    assert metrics.dld(Z, Zp, "lowest_index") <= 100 * m / n
    assert metrics.dld(Z, Zp, "1st_or_2nd") <= 200 * m / n
    assert metrics.dld(Z, Zp, "1st_or_2nd") == pytest.approx(
        metrics.dld(Z, Zp, "1st") + metrics.dld(Z, Zp, "2nd"))


def test_keys_restrict_the_distance():
    Z = np.column_stack([[0.0, 1, 5, 6], [0.0, 0, 0, 9]])
    Zp = Z.copy()
    Zp[:, 0] = [0.5, 0.5, 5.5, 5.5]
    assert metrics.dld(Z, Zp) == 75  # record 3 is told apart by the second column
    assert metrics.dld(Z, Zp, keys=[0]) == 50
    assert metrics.dld(Z, Zp, keys=["a"], names=["a", "b"]) == 50
    with pytest.raises(ma.MicroaggError, match="'keys'.*unknown column 'c'"):
        metrics.dld(Z, Zp, keys=["c"], names=["a", "b"])
    with pytest.raises(ma.MicroaggError, match="'keys'"):
        metrics.dld(Z, Zp, keys=[2])


@pytest.mark.parametrize("p", [0, 100, -5, 150, "5", True, float("nan")])
def test_p_must_be_a_percentage(p):
    Z = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ma.MicroaggError, match=r"'p' must be a percentage in \(0, 100\)"):
        metrics.sdid(Z, Z, p)


def test_bad_input():
    Z = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ma.MicroaggError, match="'rule' must be one of"):
        metrics.dld(Z, Z, "nearest")
    with pytest.raises(ma.MicroaggError, match="'link'"):
        metrics.sdid(Z, Z, link="random")
    with pytest.raises(ma.MicroaggError, match="same n x d shape"):
        metrics.dld(Z, Z[:3])
    bad = Z.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ma.MicroaggError, match="protected attribute '1'.*NaN"):
        metrics.dld(Z, bad)
    with pytest.raises(ma.MicroaggError, match="2nd nearest"):
        metrics.dld(Z[:1], Z[:1], "1st_or_2nd")


def test_inputs_are_not_mutated():
    Z = np.random.default_rng(1).normal(size=(30, 3))
    Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 3))
    before = Z.copy(), Zp.copy()
    metrics.dld(Z, Zp, "1st_or_2nd")
    metrics.sdid(Z, Zp)
    assert np.array_equal(Z, before[0]) and np.array_equal(Zp, before[1])


# Our figures for Chettri, Paul & Dutta, Table 4 (CV-MDAV literal reading + mean, rule "1st or 2nd"): linked records
# out of n.
OUR_TABLE4_COUNTS = {"tarragona": (498, 351, 288, 135), "census": (633, 470, 376, 193),
                     "eia": (1924, 1473, 1260, 695)}


def test_chettri_table4_our_values_are_stable():
    table = reproduce_dld()
    sizes = {"tarragona": 834, "census": 1080, "eia": 4092}
    for row in table.itertuples():
        count = OUR_TABLE4_COUNTS[row.data][published.K_CHETTRI.index(row.k)]
        assert row.ours == pytest.approx(round(100 * count / sizes[row.data], 4), abs=1e-9)
        assert not row.match


def test_chettri_table4_k10_inconsistency_is_what_the_docs_say():
    sizes = {"tarragona": 834, "census": 1080, "eia": 4092}

    def whole_count(n, value):  # some number of records c gives the printed (truncated) percentage
        return any(published.truncate(100 * c / n, published.printed_decimals(value)) == float(value)
                   for c in range(n + 1))

    for name, values in published.CHETTRI_DLD.items():
        n = sizes[name]
        for k, value in zip(published.K_CHETTRI, values):
            assert whole_count(n, value) == (k != 10), (name, k)
    # at most 2 records per group link, and 1080 records form at most 108 groups of 10
    assert float(published.CHETTRI_DLD["census"][3]) > 100 * 2 * (1080 // 10) / 1080 == 20.0
    assert published.CHETTRI_DLD["tarragona"][3] == published.CHETTRI_IL["MDAV"]["eia"][3]
    for note in ("20.134", "20.0 %", "3.839", "whole number"):
        assert note in published.CHETTRI_DLD_NOTE


def test_exact_cells_counts_cells_and_records_published_as_they_were():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    Xp = np.array([[1.0, 2.5], [3.0, 4.0], [5.5, 6.5], [7.0 + 1e-9, 8.0]])
    assert exact_cells(X, Xp) == (pytest.approx(100 * 4 / 8), pytest.approx(100 * 3 / 4))
    assert exact_cells(X, X + 1) == (0.0, 0.0)


def test_blocked_linkage_links_only_within_the_key_classes():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(30, 2))
    Zp = Z + rng.normal(scale=0.5, size=Z.shape)
    classes = np.repeat([0, 1, 2], 10)
    credit = blocked_credit(Z, Zp, classes, np.array([0]))
    for c in range(3):
        rows = classes == c
        assert credit[rows] == pytest.approx(ma.metrics.linkage(Z[rows], Zp[rows], keys=[0]))
    assert credit.sum() > ma.metrics.linkage(Z, Zp, keys=[0]).sum()  # knowing the class narrows the search
