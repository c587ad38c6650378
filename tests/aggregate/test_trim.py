"""Trimmed-mean aggregation (docs/methods.md §3.5): scipy's trimmed mean of every group, the median at 0.5."""

import numpy as np
import pytest
from scipy.stats import trim_mean

import microagg as ma
from microagg.base.registry import get_method

trim = get_method("aggregate", "trim").func


@pytest.mark.parametrize("share", [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.49])
def test_every_group_gets_its_trimmed_mean(share):
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 3))
    Z[5, 1] = 50.0
    labels = np.repeat(np.arange(8), [3, 4, 5, 6, 7, 5, 4, 6])
    Zp = trim(Z, labels, trim=share)
    for g in range(8):
        rows = labels == g
        assert np.allclose(Zp[rows], trim_mean(Z[rows], share, axis=0), rtol=1e-14, atol=1e-14)


def test_limits_and_per_attribute_labels():
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((21, 2))
    labels = ma.partition.individual_ranking(Z, 4)
    assert np.allclose(trim(Z, labels, trim=0.0), ma.aggregate.mean(Z, labels))
    assert np.array_equal(trim(Z, labels, trim=0.5), ma.aggregate.median(Z, labels))
    Zp = trim(Z, labels, trim=0.25)
    for t in range(2):
        for g in range(labels[:, t].max() + 1):
            rows = labels[:, t] == g
            assert np.allclose(Zp[rows, t], trim_mean(Z[rows, t], 0.25))
    with pytest.raises(ma.MicroaggError, match="trim"):
        trim(Z, labels, trim=0.6)


def test_one_outlier_in_a_group_of_five_does_not_move_the_release():
    x = np.array([[1.0], [2.0], [3.0], [4.0], [500.0]])
    assert trim(x, np.zeros(5, np.int64))[0, 0] == 3.0  # 0.2 of 5: one value off each end
    rel = ma.microaggregate(ma.load_dataset("tarragona"), 5, aggregation="trim", trim=0.25)
    assert rel.anonymity["k_anonymous"]


def test_sampling_weights_are_refused_not_ignored():
    df = ma.load_dataset("tarragona").iloc[:60, :3].assign(w=np.linspace(1, 3, 60))
    with pytest.raises(ma.MicroaggError, match="'trim' cannot take sampling weights"):
        ma.microaggregate(df, 3, aggregation="trim", sampling_weights="w")
