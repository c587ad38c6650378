import numpy as np
import pytest

import microagg as ma
from microagg import metrics


def test_sse_sst_il_by_hand():
    Z = np.array([[1.0, -1], [-1, 1], [1, 1], [-1, -1]])
    Zp = np.zeros_like(Z)
    assert metrics.sse(Z, Zp) == 8 and metrics.sst(Z) == 8
    assert metrics.information_loss(Z, Zp) == 100
    assert np.array_equal(metrics.sse_by_attribute(Z, Zp), [4, 4])


def test_sst_is_n_times_d_for_z_scores(benchmark_z):
    Z = benchmark_z["tarragona"]
    assert metrics.sst(Z) == pytest.approx(Z.shape[0] * Z.shape[1])


def test_partition_il_is_the_il_of_group_means(benchmark_z):
    Z = benchmark_z["census"]
    labels = ma.partition.mdav(Z, 3)
    assert metrics.partition_information_loss(Z, labels) == pytest.approx(
        metrics.information_loss(Z, ma.aggregate.mean(Z, labels)))
    # the median gives a larger (release) IL than the group means on the same partition
    assert metrics.information_loss(Z, ma.aggregate.median(Z, labels)) > metrics.partition_information_loss(Z, labels)


def test_il_undefined_when_all_records_are_identical():
    with pytest.raises(ma.MicroaggError, match="SST = 0"):
        metrics.information_loss(np.ones((5, 2)), np.ones((5, 2)))


def test_shape_mismatch():
    with pytest.raises(ma.MicroaggError, match="same n x d shape"):
        metrics.sse(np.zeros((4, 2)), np.zeros((4, 3)))


def test_sse_by_group_by_hand():
    Z = np.array([[0.0, 1], [2, 1], [5, 5], [7, 9]])
    Zp = np.array([[1.0, 1], [1, 1], [6, 7], [6, 7]])
    assert np.array_equal(metrics.sse_by_group(Z, Zp, [0, 0, 1, 1]), [2, 10])
    with pytest.raises(ma.MicroaggError, match="fewer than k = 3"):
        metrics.sse_by_group(Z, Zp, [0, 0, 1, 1], k=3)


def test_il1s_by_hand_and_scale_invariance():
    X = np.array([0.0, 1, 2, 3])[:, None]
    Xp = np.array([0.5, 0.5, 2.5, 2.5])[:, None]
    # sample sd sqrt(5/3); every |x - x'| is 0.5
    assert metrics.il1s(X, Xp) == pytest.approx(100 * 0.5 / (np.sqrt(2) * np.sqrt(5 / 3)))
    assert metrics.il1s(1000 * X - 7, 1000 * Xp - 7) == pytest.approx(metrics.il1s(X, Xp))
    assert metrics.il1s(X, X) == 0
    # linear in the size of the perturbation
    E = np.array([1.0, -1, 1, -1])[:, None]
    assert metrics.il1s(X, X + 0.2 * E) == pytest.approx(2 * metrics.il1s(X, X + 0.1 * E))


def test_il1s_skips_constant_attributes():
    X = np.column_stack([[0.0, 1, 2, 3], np.full(4, 5.0)])
    Xp = np.column_stack([[0.5, 0.5, 2.5, 2.5], np.full(4, 6.0)])
    assert metrics.il1s(X, Xp) == pytest.approx(metrics.il1s(X[:, :1], Xp[:, :1]))


def test_adm_by_hand_with_an_even_group():
    Z = np.array([1.0, 2, 4, 10, 0, 0.2, 0.4])[:, None]
    labels = [0, 0, 0, 0, 1, 1, 1]
    # group 0: median (2 + 4)/2 = 3 -> 2 + 1 + 1 + 7; group 1: median 0.2 -> 0.2 + 0 + 0.2
    assert metrics.adm(Z, labels) == pytest.approx(11.4)


def test_kabir_claim_adm_le_sse_fails_below_one_and_holds_above():
    small = np.array([0.0, 0.2, 0.4])[:, None]  # docs/metrics.md §4.4 counterexample
    one = [0, 0, 0]
    sse_small = metrics.sse(small, ma.aggregate.mean(small, one))
    assert metrics.adm(small, one) == pytest.approx(0.4) and sse_small == pytest.approx(0.08)
    assert metrics.adm(small, one) > sse_small
    large = 10 * small  # every deviation from the mean is 0 or >= 1: the claim holds
    sse_large = metrics.sse(large, ma.aggregate.mean(large, one))
    assert metrics.adm(large, one) == pytest.approx(4) and sse_large == pytest.approx(8)
    assert metrics.adm(large, one) <= sse_large


def test_adm_exceeds_sse_on_z_scores(benchmark_z):
    Z = benchmark_z["census"]
    labels = ma.partition.mdav(Z, 3)
    assert metrics.adm(Z, labels) > metrics.sse(Z, ma.aggregate.mean(Z, labels))


def test_sse_i_by_hand():
    Z = np.array([[0.0, 1], [9, 3], [4, 0], [4, 4], [4, 8]])
    labels = [0, 0, 1, 1, 1]
    # confidential column 1: group 0 values 1, 3 (mean 2) -> 2; group 1 values 0, 4, 8 (mean 4) -> 32
    assert np.array_equal(metrics.sse_i(Z, labels, confidential=[1]), [2, 32])
    assert np.array_equal(metrics.sse_i(Z, labels, confidential=["b"], names=["a", "b"]), [2, 32])
    # all attributes: group 0 adds (0 - 4.5)^2 + (9 - 4.5)^2, group 1 adds nothing
    assert np.array_equal(metrics.sse_i(Z, labels), [42.5, 32])
    with pytest.raises(ma.MicroaggError, match="'confidential'"):
        metrics.sse_i(Z, labels, confidential=[5])


def test_il_is_zero_when_nothing_is_masked(benchmark_z):
    Z = benchmark_z["eia"]
    assert metrics.information_loss(Z, Z.copy()) == 0
