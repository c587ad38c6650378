"""The distances and axes the partitioners share."""

import numpy as np

from microagg.partition.geometry import LARGE, in_range, partial_distances, principal_axis


def test_partial_distance_is_rescaled_and_defined_without_shared_attributes(backend):
    Z = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, np.nan], [0.0, 0.0, 0.0]])
    observed = ~np.isnan(Z)
    y = np.array([0.0, np.nan, 1.0])
    d = partial_distances(np.where(observed, Z, 0.0), observed, np.arange(3), np.nan_to_num(y), ~np.isnan(y), 0.0)
    assert d[0] == (1 + 4) * 3 / 2      # two shared attributes, rescaled to three
    assert d[1] == 2 * 3                # none shared: 2d
    assert d[2] == 1 * 3 / 2
    with_penalty = partial_distances(np.where(observed, Z, 0.0), observed, np.arange(3), np.nan_to_num(y),
                                     ~np.isnan(y), 10.0)
    assert list(with_penalty - d) == [0.0, 30.0, 10.0]  # attributes observed in only one of the two


def test_in_range_scales_by_a_power_of_two_only_above_the_overflow_bound():
    Z = np.array([[1.0, -2.0], [3.0, 0.5]])
    assert in_range(Z) is Z
    huge = Z * 1e300
    scaled = in_range(huge)
    assert np.isfinite(((scaled[:, None] - scaled[None]) ** 2).sum(-1)).all() and np.abs(scaled).max() <= LARGE
    factor = scaled / huge  # one exact power of two
    assert np.all(factor == factor[0, 0]) and np.frexp(factor[0, 0])[0] == 0.5


def test_principal_axis_is_a_unit_eigenvector_of_the_largest_variance():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(200, 3)) @ np.array([[3.0, 0, 0], [1, 1, 0], [0, 0, 0.2]])
    u = principal_axis(Z)
    cov = np.cov(Z.T, bias=True)
    assert np.isclose(np.linalg.norm(u), 1) and np.isclose(u @ cov @ u, np.linalg.eigvalsh(cov)[-1])
