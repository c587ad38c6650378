import numpy as np
import pytest

import microagg as ma
from microagg.lab import baselines


@pytest.fixture
def X():
    rng = np.random.default_rng(4)
    return rng.normal(size=(20_000, 3)) * [1.0, 10.0, 0.1] + [0.0, 100.0, -5.0]


def ranks(v):
    return np.argsort(np.argsort(v, kind="stable"), kind="stable")


def test_noise_has_the_promised_share_of_the_variance_and_follows_its_seed(X):
    before = X.copy()
    Y = baselines.noise_addition(X, 0.2, seed=7)
    assert np.array_equal(X, before)  # input untouched
    share = (Y - X).var(axis=0) / X.var(axis=0)
    assert share == pytest.approx([0.2] * 3, rel=0.05)  # sd of the variance estimate: 0.2 * sqrt(2 / n) = 0.5 %
    assert abs((Y - X).mean(axis=0) / X.std(axis=0)).max() < 0.02
    assert np.array_equal(Y, baselines.noise_addition(X, 0.2, seed=7))
    assert not np.array_equal(Y, baselines.noise_addition(X, 0.2, seed=8))


def test_rank_swap_moves_values_within_the_rank_distance_and_keeps_every_marginal(X):
    Y = baselines.rank_swap(X, 5, seed=1)
    window = 5 * len(X) // 100
    for t in range(X.shape[1]):
        assert np.array_equal(np.sort(Y[:, t]), np.sort(X[:, t]))  # a permutation of the column
        moved = np.abs(ranks(X[:, t]) - ranks(Y[:, t]))
        assert moved.max() <= window and np.mean(moved > 0) > 0.95 and moved.max() > window * 0.9
    assert np.array_equal(Y, baselines.rank_swap(X, 5, seed=1))
    assert not np.array_equal(Y, baselines.rank_swap(X, 5, seed=2))
    assert ma.metrics.ks_distance(X, Y).max() == 0.0 and ma.metrics.wasserstein(X, Y).max() == 0.0


def test_rank_swap_pairs_values_on_a_tiny_example():
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    y = baselines.rank_swap(x, 20, seed=0)[:, 0]  # window 1: each value swaps with its successor in rank, or stays
    r, ry = ranks(x), ranks(y)
    assert np.abs(r - ry).max() <= 1 and sorted(y) == sorted(x)
    swapped = r != ry
    assert swapped.sum() == 4  # ranks (0, 1) and (2, 3) swap; rank 4 has no partner left


def test_bad_levels_are_refused():
    with pytest.raises(ma.MicroaggError, match="fraction"):
        baselines.noise_addition(np.ones((5, 2)), -0.1)
    with pytest.raises(ma.MicroaggError, match="allows no swap"):
        baselines.rank_swap(np.arange(10.0), 5)
    with pytest.raises(ma.MicroaggError, match="seed"):
        baselines.rank_swap(np.arange(10.0), 50, seed=-1)
    with pytest.raises(ma.MicroaggError, match="unknown comparison method"):
        baselines.get_baseline("pram")
