"""Robust estimators (docs/methods.md §2.20-2.21): FAST-MCD finds the minimum covariance determinant where it can be
checked by brute force, reweights it consistently, and survives collinear data; the projection-pursuit axis is the
record direction of largest MAD."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings

from microagg.partition.robust import _log_det, _moments, consistency, mcd, mcd_scores, pp_axis, pp_scores

from .strategies import data_and_k


def log_det(Z, rows):
    return _log_det(_moments(Z, np.asarray(rows))[1])


@pytest.mark.parametrize("seed", range(40))
def test_mcd_finds_the_smallest_determinant_of_every_h_subset(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(6, 11)), int(rng.integers(1, 3))
    Z = rng.standard_normal((n, d))
    Z[: seed % 3] += 8  # some with outliers
    h = (n + d + 1) // 2
    best = min(log_det(Z, c) for c in combinations(range(n), h))
    est = mcd(Z)
    assert est.raw_support.sum() == h
    assert log_det(Z, np.flatnonzero(est.raw_support)) <= best + 1e-9


def test_mcd_is_a_fixed_point_of_the_c_step_and_ignores_outliers():
    rng = np.random.default_rng(5)
    Z = np.vstack([rng.standard_normal((400, 3)) @ np.array([[1, 0.8, 0], [0, 0.6, 0], [0, 0, 1]]),
                   rng.normal(12, 1, (60, 3))])  # 13 % outliers far away
    est = mcd(Z, seed=3)
    rows = np.flatnonzero(est.raw_support)
    center, scatter = _moments(Z, rows)
    dev = Z - center
    dist = np.einsum("ij,jk,ik->i", dev, np.linalg.inv(scatter), dev)
    assert set(np.argsort(dist, kind="stable")[: len(rows)]) == set(rows)  # a C-step returns the same subset
    assert not est.support[400:].any() and est.support[:400].mean() > 0.9
    assert np.allclose(est.center, 0, atol=0.2)
    clean = np.cov(Z[:400].T)
    corr = est.scatter / np.sqrt(np.outer(np.diag(est.scatter), np.diag(est.scatter)))
    assert np.allclose(corr, clean / np.sqrt(np.outer(np.diag(clean), np.diag(clean))), atol=0.05)
    assert (0.7 < np.diag(est.scatter) / np.diag(clean)).all() and (np.diag(est.scatter) / np.diag(clean) < 1.5).all()
    classical = np.cov(Z.T)
    assert classical[0, 0] > 15 and est.scatter[0, 0] < 2.5  # the outliers inflate only the classical estimate
    again = mcd(Z, seed=3)
    assert np.array_equal(again.support, est.support) and np.array_equal(again.center, est.center)


def test_consistency_factor_makes_the_central_share_of_a_normal_sample_unbiased():
    rng = np.random.default_rng(0)
    for d, alpha in ((1, 0.5), (3, 0.5), (2, 0.75)):
        X = rng.standard_normal((200_000, d))
        inner = X[(X * X).sum(axis=1) <= np.quantile((X * X).sum(axis=1), alpha)]
        variance = np.diag(np.cov(inner.T, ddof=1).reshape(d, d)).mean()
        assert variance * consistency(alpha, d) == pytest.approx(1, abs=0.02)
    assert consistency(1.0, 4) == 1.0


def test_mcd_on_records_lying_on_a_hyperplane():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((200, 3))
    A[:10, 0] += 20  # outliers, on the hyperplane too
    Z = np.column_stack([A, A.sum(axis=1)])  # a linear dependency, as Census has
    est = mcd(Z)
    assert est.basis.shape == (4, 3)
    dist = est.distances(Z)
    assert np.isfinite(dist).all() and dist[:10].min() > np.median(dist[10:]) * 20
    assert not est.support[:10].any()
    same = mcd(np.ones((6, 2)))  # every record equal: no direction, distance 0
    assert same.basis.shape == (2, 0) and (same.distances(np.ones((6, 2))) == 0).all()


@settings(max_examples=80, deadline=None)
@given(data_and_k())
def test_robust_scores_are_finite_and_deterministic_on_any_data(zk):
    Z, _ = zk
    for scores in (mcd_scores(Z, 2), pp_scores(Z)):
        assert scores.shape == (len(Z),) and np.isfinite(scores).all()
    assert np.array_equal(mcd_scores(Z, 2), mcd_scores(Z, 2))


def brute_pp_axis(Z):
    """Croux & Ruiz-Gazen 2005 by the letter: every record direction from the median, MAD of the projections."""
    m = np.median(Z, axis=0)
    best, best_mad = None, -1.0
    for z in Z:
        if np.linalg.norm(z - m) == 0:
            continue
        a = (z - m) / np.linalg.norm(z - m)
        p = Z @ a
        mad = np.median(np.abs(p - np.median(p)))
        if mad > best_mad:
            best, best_mad = a, mad
    return best if best[0] >= 0 else -best


def test_pp_axis_is_the_record_direction_of_largest_mad():
    rng = np.random.default_rng(2)
    for n, d in ((30, 2), (51, 4), (200, 3)):
        Z = rng.standard_normal((n, d)) * np.arange(1, d + 1)
        m, a = pp_axis(Z, chunk=n * 7)  # several chunks
        assert np.array_equal(m, np.median(Z, axis=0))
        assert np.allclose(a, brute_pp_axis(Z)) and a[0] >= 0


def test_pp_axis_resists_an_outlier_that_turns_the_principal_axis():
    rng = np.random.default_rng(4)
    t = rng.standard_normal(100)
    Z = np.column_stack([t, t + 0.1 * rng.standard_normal(100)])
    Z[:4] = [[8, -8], [9, -9], [-8, 8], [-9, 9]]  # 4 % along the other diagonal
    classical = np.linalg.eigh(np.cov(Z.T))[1][:, -1]
    _, robust = pp_axis(Z)
    diagonal = np.array([1, 1]) / np.sqrt(2)
    assert abs(classical @ diagonal) < 0.5 and abs(robust @ diagonal) > 0.99
    center, flat = pp_axis(np.zeros((5, 3)))  # every record at the median: no candidate direction
    assert np.array_equal(flat, [1, 0, 0])
