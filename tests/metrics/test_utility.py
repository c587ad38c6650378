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
