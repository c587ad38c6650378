"""GSMS (docs/methods.md §2.17): every step keeps the candidate group of least SSE(group) + SSE(rest)."""

import numpy as np
from hypothesis import HealthCheck, given, settings

import microagg as ma
from microagg.partition.gsms import gsms

from .reference import nearest
from .strategies import data_and_k


def sse(Z):
    return float(((Z - Z.mean(axis=0)) ** 2).sum()) if len(Z) else 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_and_k())
def test_every_step_keeps_a_least_cost_candidate(backend, zk):
    Z, k = zk
    labels = gsms(Z, k)
    assert np.array_equal(labels, gsms(Z, k))
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1 and (sizes[:-1] == k).all()
    scale = 1e-9 * (1 + sse(Z))
    for g in range(labels.max()):  # records still unassigned at step g: groups g, g+1, ...
        rest = np.flatnonzero(labels >= g)
        cost = {}
        for x in rest:  # brute force: every remaining record with its k-1 nearest remaining records
            group = np.sort(nearest(Z, rest, Z[x], k))
            cost[tuple(group)] = sse(Z[group]) + sse(Z[np.setdiff1d(rest, group)])
        chosen = tuple(np.flatnonzero(labels == g))
        assert chosen in cost  # a candidate group
        assert cost[chosen] <= min(cost.values()) + scale


def test_first_step_on_a_small_example(backend):
    # two tight pairs far apart and a middle cloud: the first group is the pair whose centroid is farthest
    Z = np.array([[0.0], [0.1], [0.2], [0.3], [10.0], [10.1], [-5.0], [-5.1]])
    labels = gsms(Z, 2)
    assert labels[4] == labels[5] == 0
    assert np.bincount(labels).tolist() == [2, 2, 2, 2]


def test_through_the_pipeline_with_refine():
    df = ma.load_dataset("tarragona")
    plain, refined = (ma.microaggregate(df, 5, method="gsms", refine=r, shuffle=False) for r in ("none", "igd"))
    assert refined.params["refine"] == "igd" and plain.params["refine"] == "none"
    loss = [float(((rel.Z - rel.Zp) ** 2).sum()) for rel in (plain, refined)]  # the SSE of the groups
    assert loss[1] <= loss[0]
