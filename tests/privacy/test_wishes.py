import numpy as np
import pytest

import microagg as ma
from microagg.base.registry import get_method
from microagg.metrics import registry
from microagg.privacy import wishes


def test_one_encoding_shared_by_p3m_and_the_evaluation():
    p3m = get_method("aggregate", "p3m")
    for param in wishes.PARAMS:
        assert p3m.param(param.name) is param and registry.PARAMS[param.name] is param
    assert wishes.NAMES == ("delta", "relative", "w", "weights", "w_seed")
    assert registry.get_metric("SL").params == wishes.NAMES


def test_cells_broadcast_and_resolve_the_weights():
    Z = np.arange(12.0).reshape(4, 3)
    D, W = wishes.cells(Z, delta=[0.1, 0.2, 0.3], w=np.array([[0.1], [0.2], [0.3], [0.4]]))
    assert D.shape == W.shape == (4, 3) and (D[2] == [0.1, 0.2, 0.3]).all() and (W[:, 1] == [0.1, 0.2, 0.3, 0.4]).all()
    D, W = wishes.cells(Z, delta=0.5, relative=True, weights="random", w_seed=7)
    assert np.array_equal(D, 0.5 * np.abs(Z)) and np.array_equal(W, wishes.random_weights(4, 3, 7))
    assert np.array_equal(wishes.random_weights(4, 3, 7), np.random.RandomState(7).rand(3, 4).T)


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(weights="rand"), "'weights' must be one of"),
    (dict(w="random"), "random weights are weights=\"random\""),
    (dict(weights="random", w=0.3), "'w' has an effect only with weights='given'"),
    (dict(weights="random", w_seed=-1), "'w_seed' must be a non-negative integer"),
    (dict(relative="yes"), "'relative' must be True or False"),
    (dict(delta=-1), "'delta' must be >= 0"),
    (dict(relative=True, delta=0), r"relative threshold Δ = r·\|x\| and must be > 0"),
    (dict(relative=True, delta=[0.1, 0.0, 0.2]), r"relative threshold Δ = r·\|x\| and must be > 0"),
    (dict(w=1.0), r"'w' must lie in \[0, 1\)"),
])
def test_one_validator(kwargs, fragment):
    Z = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ma.MicroaggError, match=fragment):
        wishes.cells(Z, **kwargs)
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.metrics.satisfaction_level(Z, Z + 0.05, **kwargs)
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.aggregate.p3m_solve(ma.standardize(Z + np.eye(4, 3)), np.repeat([0, 1], 2), **kwargs)


def test_a_release_passes_its_wishes_to_sl_as_they_are():
    df = ma.load_dataset("tarragona")
    rel = ma.microaggregate(df, 5, aggregation="p3m", delta=0.2, weights="random", w_seed=3)
    sl = rel.report().set_index(["metric", "attribute"]).loc[("SL", "all"), "value"]
    assert sl == ma.metrics.satisfaction_level(rel.Z, rel.Zp, 0.2, weights="random", w_seed=3)
    table = ma.evaluate(df, rel.in_input_order(), delta=0.2, weights="random", w_seed=3)
    assert table.set_index(["metric", "attribute"]).loc[("SL", "all"), "value"] == pytest.approx(sl, abs=1e-9)
    with pytest.raises(ma.MicroaggError, match="'w' has an effect only with weights='given'"):
        rel.report(w=0.5)
    assert rel.report(w=0.5, weights="given").set_index(["metric", "attribute"]).loc[("SL", "all"), "value"] == \
        ma.metrics.satisfaction_level(rel.Z, rel.Zp, 0.2, 0.5)
