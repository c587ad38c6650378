"""Projection-pursuit PCA microaggregation (docs/methods.md §2.20): blocks along the robust axis."""

import numpy as np

import microagg as ma
from microagg.partition.optimal import sorted_groups
from microagg.partition.robust import pp_axis


def outlying_line(seed=0, n=61):
    """A strong correlation along (1, 1) with a few records far out along (1, -1)."""
    rng = np.random.default_rng(seed)
    t = rng.standard_normal(n)
    Z = np.column_stack([t, t + 0.05 * rng.standard_normal(n)])
    Z[:3] = [[9, -9], [-9, 9], [10, -10]]
    return Z


def test_groups_are_blocks_along_the_projection_pursuit_axis():
    Z = outlying_line()
    m, a = pp_axis(Z)
    for grouping in ("fixed", "optimal"):
        labels = ma.partition.pppca(Z, 4, grouping=grouping)
        assert np.array_equal(labels, sorted_groups((Z - m) @ a, 4, grouping))
    labels = ma.partition.pppca(Z, 4)
    assert sorted(np.bincount(labels)) == [4] * 14 + [5]


def test_outliers_do_not_turn_the_axis_as_they_turn_the_principal_component():
    Z = outlying_line()
    _, a = pp_axis(Z)
    u = ma.partition.univariate.principal_axis(Z)
    diagonal = np.array([1, 1]) / np.sqrt(2)
    assert abs(a @ diagonal) > 0.99 and abs(u @ diagonal) < 0.5
    sse = lambda lab: ((Z - ma.aggregate.mean(Z, lab)) ** 2).sum()  # noqa: E731
    assert sse(ma.partition.pppca(Z, 3)) < sse(ma.partition.projection(Z, 3))
