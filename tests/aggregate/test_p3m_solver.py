"""The P3M solver against exhaustive search on problems small enough to enumerate.

With three groups the constraint set (Σ n_j u_j = 0, Σ n_j u_j² = S) is a circle, so the global
optimum can be found by a dense search over its angle.
"""

import numpy as np
import pytest

import microagg as ma
from microagg.aggregate import _p3m_solver as solvers


def exhaustive(x, lab, D, W, alpha):
    """Global minimum of obj (Eq. 14, γ eliminated) over the circle, from the cells directly."""
    N = np.bincount(lab).astype(float)
    xc = x - x.mean()
    S = (xc ** 2).sum()
    C = np.bincount(lab, weights=xc) / N

    def ip(a, b):
        return (N * a * b).sum()

    basis = []
    for e in np.eye(3)[:2]:                       # N-orthonormal basis of {u : Σ n_j u_j = 0}
        e = e - ip(e, np.ones(3)) / N.sum()
        for b in basis:
            e = e - ip(e, b) * b
        basis.append(e / np.sqrt(ip(e, e)))

    def f(theta):
        u = np.sqrt(S) * (np.cos(theta)[:, None] * basis[0] + np.sin(theta)[:, None] * basis[1])
        g = (D ** 2 - (u[:, lab] - xc) ** 2) / (1 - W)
        return alpha * (g ** 2).sum(axis=1) + (1 - alpha) * (N * (u - C) ** 2).sum(axis=1)

    theta = np.linspace(0, 2 * np.pi, 20001)
    vals = f(theta)
    best = vals.min()
    for i in np.argsort(vals)[:12]:
        lo, hi = theta[i] - 4e-4, theta[i] + 4e-4
        for _ in range(5):
            t = np.linspace(lo, hi, 401)
            ft = f(t)
            j = int(np.argmin(ft))
            best = min(best, ft[j])
            lo, hi = t[j] - (hi - lo) / 100, t[j] + (hi - lo) / 100
    return best


def small_case(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, 3)
    lab = np.repeat(np.arange(3), sizes)
    n = len(lab)
    x = rng.normal(size=n) * rng.uniform(0.1, 1.5) + rng.normal(size=3)[lab]
    D = rng.uniform(0.0, 1.0, n)
    W = rng.uniform(0, 0.99, n) if seed % 2 else np.full(n, 0.001)
    return x, lab, D, W, rng.uniform(0.05, 1.0)


@pytest.mark.parametrize("seed", range(40))
def test_global_optimum_of_three_group_problems(seed):
    x, lab, D, W, alpha = small_case(seed)
    res = ma.aggregate.p3m_solve(x[:, None], lab, alpha=alpha, delta=D[:, None], w=W[:, None])
    best = exhaustive(x, lab, D, W, alpha)
    tol = 1e-7 * max(1.0, abs(best))
    assert res.success
    assert res.dual_bound[0] <= best + tol          # weak duality: always a lower bound
    assert res.objective[0] <= best + tol           # and here the global optimum is found
    if res.certified[0]:
        assert res.objective[0] == pytest.approx(best, abs=tol)


def test_dual_bound_and_solution_beat_random_feasible_points():
    rng = np.random.default_rng(5)
    Z = ma.standardize(rng.normal(size=(60, 2)))
    lab = np.repeat(np.arange(20), 3)
    W = rng.uniform(0, 0.95, (60, 2))
    res = ma.aggregate.p3m_solve(Z, lab, w=W)
    C = ma.aggregate.mean(Z, lab)
    for _ in range(20):   # feasible points: group-constant, mean 0, variance 1
        Zr = ma.renormalize(C + rng.normal(scale=0.3, size=(20, 2))[lab])
        g = (0.1 ** 2 - (Zr - Z) ** 2) / (1 - W)
        direct = 0.5 * (g ** 2).sum(axis=0) + 0.5 * ((Zr - C) ** 2).sum(axis=0)
        assert (res.dual_bound <= direct + 1e-9).all()
        assert (res.objective <= direct + 1e-9).all()


def test_retract_and_sphere_newton_stay_feasible():
    rng = np.random.default_rng(2)
    N = np.array([3.0, 4.0, 3.0, 5.0])
    C = rng.normal(size=(2, 4))
    C -= ((N * C).sum(axis=1) / N.sum())[:, None]
    S = np.array([20.0, 15.0])
    q = [rng.uniform(0.5, 2, (2, 4)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4)) + 5 * N,
         rng.normal(size=(2, 4)), np.zeros((2, 4))]
    prob = solvers.Problem(N, C, S, *q)
    u = solvers.retract(prob, rng.normal(size=(2, 4)))
    assert np.allclose((N * u).sum(axis=1), 0, atol=1e-12) and np.allclose((N * u * u).sum(axis=1), S)
    v, _ = solvers.sphere_newton(prob, u)
    h1, h2 = prob.residuals(v)
    assert np.allclose(h1, 0, atol=1e-10) and np.allclose(h2, 0, atol=1e-10)
    assert (prob.objective(v) <= prob.objective(u - C) + 1e-12).all()
