import numpy as np
import pytest

import microagg as ma
from microagg import metrics
from microagg.lab.reproduce import published
from microagg.privacy.wishes import random_weights


def _mdav_renormalized(Z, k):
    return ma.renormalize(ma.aggregate.mean(Z, ma.partition.mdav(Z, k, "classic")))


@pytest.mark.parametrize("table", ["Table 2", "Table 3"])
@pytest.mark.parametrize("name", ["tarragona", "census", "eia"])
def test_mortazavi_mdav_sl_reproduced(benchmark_z, table, name):
    Z = benchmark_z[name]
    wishes = published.MORTAZAVI_SL_WEIGHTS[table]
    tol = published.MORTAZAVI_SL_TOLERANCE[table]
    for k, value in zip(published.K_MORTAZAVI, published.MORTAZAVI_SL_MDAV[table][name]):
        ours = metrics.satisfaction_level(Z, _mdav_renormalized(Z, k), delta=0.1, **wishes)
        assert abs(ours - float(value)) <= tol, (table, name, k, ours, value)


def test_random_weights_are_matlab_column_major():
    w = random_weights(3, 2, seed=1)
    first = np.random.RandomState(1).rand(6)
    assert np.array_equal(w[:, 0], first[:3]) and np.array_equal(w[:, 1], first[3:])


def test_sl_by_hand():
    Z = np.array([[0.0, 1], [1, 1], [2, 1]])
    Zp = np.array([[0.05, 1.5], [1.0, 1.5], [2.3, 0.8]])
    # distances: 0.05, 0 and 0.3 in the first column; 0.5, 0.5, 0.2 in the second (Δ = 0.1)
    assert metrics.satisfaction_level(Z, Zp) == pytest.approx(100 * 4 / 6)
    assert np.allclose(metrics.satisfaction_by_attribute(Z, Zp), [100 / 3, 100])
    w = np.array([[0.9, 0.1], [0.0, 0.1], [0.5, 0.1]])
    assert metrics.satisfaction_level(Z, Zp, w=w) == pytest.approx(100 * (0.5 + 0.3) / 1.7)
    # per-attribute Δ, and Δ relative to |x|: 0.1 |x| = 0 (no wish), 0.1, 0.2 in the first column
    assert metrics.satisfaction_level(Z, Zp, delta=[0.01, 0.6]) == pytest.approx(100 * 2 / 6)
    assert np.allclose(metrics.satisfaction_by_attribute(Z, Zp, delta=0.1, relative=True), [200 / 3, 100])
    # a distance exactly Δ satisfies (>=)
    assert metrics.satisfaction_level([[0.0]], [[0.5]], delta=0.5) == 100


def test_sl_invariants(benchmark_z):
    Z = benchmark_z["census"]
    assert metrics.satisfaction_level(Z, Z.copy()) == 0  # x' = x satisfies no one asking for Δ > 0
    assert metrics.satisfaction_level(Z, Z.copy(), delta=0) == 100  # nobody asked for anything
    Zp = _mdav_renormalized(Z, 4)
    values = [metrics.satisfaction_level(Z, Zp, delta=d) for d in (0.01, 0.1, 0.3, 1.0)]
    assert values == sorted(values, reverse=True) and values[0] > values[-1]


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(delta=-0.1), "'delta' must be >= 0"),
    (dict(delta=[0.1, -1]), "'delta' must be >= 0"),
    (dict(delta=np.nan), "'delta' contains NaN"),
    (dict(delta=[0.1, 0.1, 0.1]), "'delta' must be a scalar"),
    (dict(w=1.0), r"'w' must lie in \[0, 1\)"),
    (dict(w=-0.5), r"'w' must lie in \[0, 1\)"),
    (dict(w="rand"), "'w' must be a number or an array of numbers"),
    (dict(w="random"), "'w' must be a number or an array of numbers; got 'random' \\(random weights are "
                       "weights=\"random\"\\)"),
    (dict(weights="rand"), "'weights' must be one of"),
    (dict(weights="random", w_seed=-1), "'w_seed' must be a non-negative integer"),
    (dict(weights="random", w=0.5), "'w' has an effect only with weights='given'"),
])
def test_bad_input(kwargs, fragment):
    Z = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ma.MicroaggError, match=fragment):
        metrics.satisfaction_level(Z, Z + 1, **kwargs)


def test_breaches_are_the_cells_closer_than_delta():
    assert metrics.breaches([[1.0, 2.0]], [[1.05, 2.5]], delta=[0.1, 0.1]).tolist() == [[True, False]]
    assert metrics.breaches([[1.0, 2.0]], [[1.0, 2.0]], delta=[0.0, 0.1]).tolist() == [[False, True]]  # Δ = 0: none
    assert metrics.breaches([[-2.0]], [[-2.1]], delta=0.1, relative=True).tolist() == [[True]]  # Δ = 0.2
    Z = ma.standardize(ma.load_dataset("tarragona"))
    hit = metrics.breaches(Z, _mdav_renormalized(Z, 3), delta=0.1)
    assert hit.shape == Z.shape
    # one w for every cell: SL is the share of cells met; Mortazavi & Jalili 2017, Table 2 prints 29.33 (tolerance
    # 0.02 pp)
    assert abs(100 * (1 - hit.mean()) - float(published.MORTAZAVI_SL_MDAV["Table 2"]["tarragona"][0])) <= 0.02
