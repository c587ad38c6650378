"""IGD (docs/methods.md §2.18): never worse than its input, every group k..2k-1, a fixed point of its moves, and
refused where it would break a method's guarantee."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition.igd import MARGIN, igd_refine, sse

from .strategies import data_and_k


@st.composite
def partitions(draw):
    """Data, k and a random partition of it with every group >= k (sizes up to 3k: some need splitting)."""
    Z, k = draw(data_and_k())
    n = len(Z)
    order = draw(st.permutations(range(n)))
    sizes = []
    while n - sum(sizes) >= 2 * k:
        sizes.append(draw(st.integers(k, min(3 * k, n - sum(sizes) - k))))
    sizes.append(n - sum(sizes))
    labels = np.empty(n, np.int64)
    labels[np.array(order, dtype=np.int64)] = np.repeat(np.arange(len(sizes)), sizes)
    return Z, k, labels


def no_improving_move(Z, labels, k):
    """No record of a group of more than k records lowers the SSE by moving to another group (Shrink's end)."""
    tol = 1e-9 * (1 + sse(Z, labels))
    sizes = np.bincount(labels)
    C = np.array([Z[labels == g].mean(axis=0) for g in range(len(sizes))])
    for i in np.flatnonzero(sizes[labels] > k):
        p = labels[i]
        loss = sizes[p] / (sizes[p] - 1) * ((Z[i] - C[p]) ** 2).sum()
        grow = sizes / (sizes + 1) * ((Z[i] - C) ** 2).sum(axis=1)
        grow[p] = np.inf
        if grow.min() - loss < -tol:
            return False
    return True


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(partitions())
def test_never_worse_every_group_k_to_2k_minus_1_deterministic(backend, zkl):
    Z, k, labels = zkl
    before = (Z.copy(), labels.copy())
    out = igd_refine(Z, labels, k)
    assert np.array_equal(Z, before[0]) and np.array_equal(labels, before[1])  # inputs untouched
    assert np.array_equal(out, igd_refine(Z, labels, k))
    assert sse(Z, out) <= sse(Z, labels)
    sizes = np.bincount(out)
    assert sizes.sum() == len(Z) and sizes.min() >= k
    assert sizes.max() <= 2 * k - 1 or np.array_equal(out, labels)
    if not np.array_equal(out, labels):
        assert no_improving_move(Z, out, k)


@pytest.mark.parametrize("method", ["mdav", "gsms", "projection"])
def test_refines_the_casc_partitions(backend, method):
    df = ma.load_dataset("tarragona")
    Z = ma.data.preprocess.standardize(df.to_numpy(float))
    labels = ma.registry.get_method("partition", method).func(Z, 3)
    out = igd_refine(Z, labels, 3)
    assert sse(Z, out) < sse(Z, labels)  # a real gain on real data
    assert no_improving_move(Z, out, 3)


def test_decompose_dissolves_a_group_that_straddles_two_others(backend):
    # groups {0,1,2} and {6,7,8} sit on two clusters; {3,4,5} has one record near each and one between
    Z = np.array([[0.0], [0.1], [0.2], [0.05], [5.0], [10.05], [10.0], [10.1], [10.2]])
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    out = igd_refine(Z, labels, 3)
    assert sse(Z, out) < sse(Z, labels) * (1 - MARGIN)
    assert len(np.unique(out)) == 2 and out[3] == out[0] and out[5] == out[6]


def test_refine_in_the_pipeline_keeps_strata_and_is_recorded():
    df = ma.load_dataset("synthetic", n=400, seed=3)
    df["region"] = np.arange(len(df)) % 3
    rel = ma.microaggregate(df, 4, refine="igd", strata=["region"], keys=["region"], shuffle=False)
    assert rel.params["refine"] == "igd"
    for g in np.unique(rel.labels):
        assert df["region"].to_numpy()[rel.labels == g].std() == 0  # no group crosses a stratum
    sizes = np.bincount(rel.labels)
    assert sizes.min() >= 4 and sizes.max() <= 7
    blocks = ma.microaggregate(df, 4, refine="igd", engine=ma.engines.Blocks(block_size=100), shuffle=False)
    assert blocks.params["refine"] == "igd" and np.bincount(blocks.labels).max() <= 7


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "individual_ranking"}, "groups each attribute separately"),
    ({"method": "tcloseness", "confidential": ["FICA"]}, "confidential columns"),
    ({"method": "hmpfsom", "confidential": ["FICA"]}, "confidential columns"),
    ({"labels": np.zeros(1080, int)}, "not with labels="),
    ({"engine": ma.engines.Dask(out="never-written")}, "Dask"),
    ({"refine": "yes"}, "refine must be one of"),
])
def test_refused_where_it_would_break_a_guarantee(kwargs, match):
    with pytest.raises(ma.MicroaggError, match=match):
        ma.microaggregate(ma.load_dataset("census"), 3, **{"refine": "igd", **kwargs})


def test_bad_labels_get_one_message():
    Z = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ma.MicroaggError, match="group of 2 < k = 3"):
        igd_refine(Z, [0, 0, 1, 1, 1, 1], 3)
    with pytest.raises(ma.MicroaggError, match="one entry per record"):
        igd_refine(Z, np.zeros((6, 2), int), 3)


@pytest.mark.parametrize("method", ["mhm", "gsms"])
def test_huge_values_give_the_labels_of_the_same_data_scaled(backend, method):
    # squared distances of values near 1e200 overflow float64; a power-of-two rescaling keeps every comparison
    Z = np.random.default_rng(1).normal(size=(40, 3))
    func = ma.registry.get_method("partition", method).func
    labels = func(Z, 3)
    assert np.array_equal(func(Z * 2.0 ** 660, 3), labels)
    assert np.array_equal(igd_refine(Z * 2.0 ** 660, labels, 3), igd_refine(Z, labels, 3))
