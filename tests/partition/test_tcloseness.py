"""k-anonymous t-closeness (Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2015): every group >= k and t-close for
every confidential attribute, on random data and on the CASC sets as released."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.metrics.attribute import t_closeness_by_class
from microagg.partition.tcloseness import VARIANTS, k_prime, ordered_emd, t_closeness

from .strategies import data_and_k


def test_ordered_emd_by_hand():
    # values 1..4; the group {1, 2} has p = (1/2, 1/2, 0, 0), the table q = 1/4 each: cumulative differences
    # 1/4, 1/2, 1/4 (and 0), so EMD = (1/4 + 1/2 + 1/4) / 3 = 1/3 (Li, Li & Venkatasubramanian 2007, §4.2)
    emd = ordered_emd([1.0, 2.0, 3.0, 4.0], np.array([0, 0, 1, 1]))
    assert np.allclose(emd, [1 / 3, 1 / 3])
    assert ordered_emd([5.0, 5.0, 5.0], np.array([0, 0, 1])).tolist() == [0.0, 0.0]
    assert ordered_emd([3.0, 1.0, 2.0], np.zeros(3, dtype=int)).tolist() == [0.0]  # one group: 0-close
    with pytest.raises(ma.MicroaggError, match="no empty group"):
        ordered_emd([1.0, 2.0], np.array([0, 2]))



@given(st.integers(2, 60), st.integers(1, 8), st.integers(0, 2**31 - 1))
@settings(max_examples=60, deadline=None)
def test_the_methods_emd_is_the_metrics_t(n, groups, seed):
    """The method's per-group EMD (chunked, for its merges) and the metric's (O(n log n), metrics §4.15) agree."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, n).astype(float)  # ties and negative values
    labels = np.arange(n) % min(groups, n)
    np.testing.assert_allclose(ordered_emd(values, labels), t_closeness_by_class(values, labels), atol=1e-12)


def test_the_papers_bound_on_distinct_values():
    # distinct confidential values, k' dividing n: one record of every stratum keeps EMD <= (n/k' - 1)/(2(n - 1))
    rng = np.random.default_rng(3)
    n, t = 120, 0.05
    kp = k_prime(n, 2, t)
    assert n % kp == 0 and kp == int(np.ceil(n / (2 * (n - 1) * t + 1)))
    Z = np.column_stack([rng.normal(size=(n, 2)), rng.permutation(n).astype(float)])
    labels = t_closeness(Z, 2, confidential=[2], t=t)
    assert (np.bincount(labels) == kp).all()  # no merge was needed
    assert ordered_emd(Z[:, 2], labels).max() <= (n / kp - 1) / (2 * (n - 1)) <= t


def check(labels, C, k, t):
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.sum() == len(labels)
    for j in range(C.shape[1]):
        assert ordered_emd(C[:, j], labels).max() <= t


@settings(max_examples=150, deadline=None)
@given(data_and_k(), st.integers(1, 2), st.floats(0.01, 1.0), st.sampled_from(VARIANTS), st.data())
def test_k_anonymous_and_t_close(zk, n_conf, t, variant, data):
    Z, k = zk
    C = data.draw(st.sampled_from([Z[::-1].copy(), np.round(Z[::-1] / 3)]))[:, :1].repeat(n_conf, axis=1)
    C[:, -1] = np.roll(C[:, -1], data.draw(st.integers(0, len(C))))
    X = np.column_stack([Z, C])
    conf = list(range(Z.shape[1], X.shape[1]))
    before = X.copy()
    labels = t_closeness(X, k, confidential=conf, t=t, variant=variant)
    assert np.array_equal(X, before)
    assert np.array_equal(labels, t_closeness(X, k, confidential=conf, t=t, variant=variant))  # deterministic
    check(labels, C, k, t)


@pytest.mark.parametrize("name", ["tarragona", "census", "eia"])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("k, t", [(3, 0.1), (5, 0.25)])
def test_casc_release_is_k_anonymous_and_t_close(name, variant, k, t):
    df = ma.load_dataset(name)
    conf = ma.dataset_roles(name)["confidential"]
    rel = ma.microaggregate(df, k, method="tcloseness", confidential=conf, t=t, variant=variant, seed=0)
    published = rel.protected  # the file as published: classes are the rows with equal QI values
    classes = published.groupby(rel.masked, sort=False).ngroup().to_numpy()
    check(classes, published[rel.confidential].to_numpy(), k, t)
    assert rel.anonymity["k_anonymous"]


@pytest.mark.parametrize("bad, message", [
    ({"t": 0.0}, "parameter 't'"), ({"t": 1.5}, "parameter 't'"), ({"variant": "both"}, "parameter 'variant'"),
    ({"confidential": []}, "needs confidential"), ({"confidential": [0, 1]}, "every column is confidential"),
])
def test_bad_input(bad, message):
    Z = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ma.MicroaggError, match=message):
        t_closeness(Z, 2, **{"confidential": [1], **bad})


def test_refused_inside_blocks_or_strata(tmp_path):
    # t is relative to the whole table's distribution: inside blocks or strata it would hold per block only
    df = ma.load_dataset("census")
    conf = ma.dataset_roles("census")["confidential"]
    with pytest.raises(ma.MicroaggError, match="whole table"):
        ma.microaggregate(df, 5, method="tcloseness", confidential=conf, engine=ma.engines.Blocks(block_size=400))
    with pytest.raises(ma.MicroaggError, match="whole table"):
        ma.microaggregate(df, 5, method="tcloseness", confidential=conf, engine=ma.engines.Dask(out=tmp_path / "r"))
    df = df.assign(half=np.where(np.arange(len(df)) % 2, "a", "b"))
    with pytest.raises(ma.MicroaggError, match="whole table"):
        ma.microaggregate(df, 5, method="tcloseness", confidential=conf, keep=["half"], keys=["half"],
                          strata=["half"])
    one = ma.microaggregate(df.drop(columns="half"), 5, method="tcloseness", confidential=conf,
                            engine=ma.engines.Blocks(block_size=5000))  # one block: the whole table
    assert one.anonymity["k_anonymous"]
