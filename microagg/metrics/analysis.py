"""Utility of analyses: do the marginal distributions, the covariance structure, a regression and a classifier
see the release as they see the original?

KS and Wasserstein distances per attribute (docs/metrics.md §4.20), the eigenvalue-based IL of Templ & Meindl 2008
(§4.21), and the confidence-interval overlap of regression coefficients of Karr et al. 2006 (§4.22); pMSE is in
``propensity``. All are computed on z-scores of the original, where they equal their values in original units (KS,
CI overlap) or state them in the original's sd (Wasserstein, eigenvalues).
"""

from __future__ import annotations

import numpy as np

from ..base.errors import MicroaggError
from ..base.rows import HIGHER, LOWER
from ._arrays import pair
from .registry import Metric, not_computed, register

_MARGINS, _EIGEN = "docs/metrics.md §4.20", "docs/metrics.md §4.21"
_REGRESSION = "docs/metrics.md §4.22"
SEPARATE_MAX = 100  # attributes up to which regressions on exactly collinear attributes are fitted one by one


def ks_distance(Z, Zp) -> np.ndarray:
    """Two-sample Kolmogorov–Smirnov statistic per attribute: max over x of |F(x) − F′(x)|, F and F′ the empirical
    distribution functions of the original and masked values (docs/metrics.md §4.20)."""
    Z, Zp = pair(Z, Zp)
    n = len(Z)
    out = np.empty(Z.shape[1])
    for t in range(Z.shape[1]):
        a, b = np.sort(Z[:, t]), np.sort(Zp[:, t])
        at = np.concatenate([a, b])  # the supremum is reached at a data point
        out[t] = np.abs(np.searchsorted(a, at, side="right") - np.searchsorted(b, at, side="right")).max() / n
    return out


def wasserstein(Z, Zp) -> np.ndarray:
    """First Wasserstein distance per attribute between the original and masked values: with n values each, the mean
    absolute difference of their order statistics (docs/metrics.md §4.20)."""
    Z, Zp = pair(Z, Zp)
    return np.abs(np.sort(Z, axis=0) - np.sort(Zp, axis=0)).mean(axis=0)


def eigen_il(Z, Zp) -> float:
    """Σ_j |λ_j − λ′_j| / λ_j over the eigenvalues of the covariance matrices of the original and masked z-scores,
    both sorted from the largest (Templ & Meindl 2008; docs/metrics.md §4.21). Eigenvalues of the original at or below
    1e-12 of its largest (exact collinearity) are left out; NaN if all are."""
    Z, Zp = pair(Z, Zp)
    if len(Z) < 2:
        raise MicroaggError("eigenvalue IL needs at least 2 records (it compares covariance matrices).")
    lam = np.linalg.eigvalsh(np.atleast_2d(np.cov(Z, rowvar=False)))[::-1]
    lam_p = np.linalg.eigvalsh(np.atleast_2d(np.cov(Zp, rowvar=False)))[::-1]
    keep = lam > 1e-12 * max(lam[0], 0.0)
    return float(np.sum(np.abs(lam - lam_p)[keep] / lam[keep])) if keep.any() else float("nan")


def ci_overlap(lo, hi, lo_p, hi_p) -> np.ndarray:
    """Karr et al. 2006's overlap of intervals [lo, hi] (original) and [lo_p, hi_p] (release): the mean of the shares
    of each interval covered by their intersection, 0 when they are disjoint (docs/metrics.md §4.22). An interval of
    zero width counts as covered when its point lies in the other interval."""
    lo, hi, lo_p, hi_p = (np.asarray(v, dtype=np.float64) for v in (lo, hi, lo_p, hi_p))
    common = np.minimum(hi, hi_p) - np.maximum(lo, lo_p)

    def share(width):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(width > 0, np.clip(common, 0, None) / np.where(width > 0, width, 1), common >= 0)

    return 0.5 * (share(hi - lo) + share(hi_p - lo_p))


def _ols(G: np.ndarray, n: int, response: int, level: float):
    """Coefficients and their ``level`` confidence half-widths of the OLS regression of column ``response`` on the
    others (column 0 the intercept), from the Gram matrix G = AᵀA of A = [1, Z]; None if the design is singular."""
    from scipy.stats import t as student  # imported on use, like the sign test's binomtest

    rest = [j for j in range(len(G)) if j != response]
    S = G[np.ix_(rest, rest)]
    p = len(rest)
    if n <= p or np.linalg.matrix_rank(S) < p:
        return None
    inv = np.linalg.inv(S)
    beta = inv @ G[rest, response]
    rss = max(G[response, response] - G[response, rest] @ beta, 0.0)
    se = np.sqrt(rss / (n - p) * np.clip(np.diag(inv), 0, None))
    return beta, student.ppf(0.5 + level / 2, n - p) * se


def _ols_all(P: np.ndarray, n: int, responses: list[int], level: float):
    """The fits of :func:`_ols` for every column in ``responses`` at once from P = G⁻¹ of a Gram matrix of full rank
    (block inversion: with r last, P_rr = 1/RSS, the coefficients −P_{·r}/P_rr and the inverse of the others' Gram
    matrix P_{··} − P_{·r}P_{r·}/P_rr): O(d²) per response instead of O(d³)."""
    from scipy.stats import t as student

    p = len(P) - 1
    for r in responses:
        rest = np.arange(len(P)) != r
        col, prr = P[rest, r], P[r, r]
        rss = max(1.0 / prr, 0.0)
        se = np.sqrt(rss / (n - p) * np.clip(np.diag(P)[rest] - col ** 2 / prr, 0, None))
        yield -col / prr, student.ppf(0.5 + level / 2, n - p) * se


def _fits(G: np.ndarray, n: int, responses: list[int], level: float) -> list:
    """:func:`_ols` for every column in ``responses``: from one inverse when G has full rank (then so has every
    design it contains), else one regression at a time, up to :data:`SEPARATE_MAX` attributes."""
    if n <= len(G) - 1:
        return [None] * len(responses)  # more coefficients than records: no regression has intervals
    if np.linalg.matrix_rank(G) == len(G):
        return list(_ols_all(np.linalg.inv(G), n, responses, level))
    if len(G) - 1 > SEPARATE_MAX:
        raise MicroaggError(f"the attributes are exactly collinear (their design has rank {np.linalg.matrix_rank(G)} "
                            f"of {len(G)}), so every regression needs its own fit, O(d⁴) in all: not done above "
                            f"{SEPARATE_MAX} attributes (here {len(G) - 1})")
    return [_ols(G, n, r, level) for r in responses]


def regression_overlap(Z, Zp, responses=None, level: float = 0.95) -> np.ndarray:
    """Mean CI overlap (Karr et al. 2006) of the coefficients of the OLS regression of each attribute in ``responses``
    (positions; default every attribute) on all the others with an intercept, fitted on the original and on the
    release: one value per response, NaN where either design is singular (docs/metrics.md §4.22). Every fit comes
    from one inverse of the Gram matrix, O(n·d² + d³) in all; if the attributes of either file are exactly collinear,
    each regression is fitted on its own (O(d⁴)), which is refused above 100 attributes."""
    Z, Zp = pair(Z, Zp)
    n, d = Z.shape
    responses = list(range(d)) if responses is None else [int(r) for r in responses]
    grams = [np.vstack([np.ones(n), M.T]) @ np.column_stack([np.ones(n), M]) for M in (Z, Zp)]
    out = []
    for fits in zip(*(_fits(G, n, [r + 1 for r in responses], level) for G in grams)):
        if any(f is None for f in fits):
            out.append(float("nan"))
            continue
        (b, h), (bp, hp) = fits
        out.append(float(ci_overlap(b - h, b + h, bp - hp, bp + hp).mean()))
    return np.array(out)


@register(
    Metric("KS", "Kolmogorov–Smirnov distance", "utility", "", LOWER, "two-sample Kolmogorov–Smirnov statistic",
           "Largest gap between the distribution functions of the original and masked values: 0 for the same "
           "marginal distribution, 1 for disjoint ones (mean over attributes).", _MARGINS, per_attribute=True),
    Metric("Wasserstein", "Wasserstein distance", "utility", "z units", LOWER, "first Wasserstein distance",
           "How far the masked values' distribution is moved from the original's, in original sds (mean over "
           "attributes).", _MARGINS, per_attribute=True),
)
def _margins(ctx) -> dict:
    ks, w = ks_distance(ctx.Z, ctx.Zp), wasserstein(ctx.Z, ctx.Zp)
    return {"KS": (float(ks.mean()), ks), "Wasserstein": (float(w.mean()), w)}


@register(Metric("eigen IL", "Eigenvalue information loss", "utility", "", LOWER, "Templ & Meindl 2008",
                 "Σ |λ − λ′| / λ over the eigenvalues of the covariance matrices: how much the masking changed "
                 "the principal variances.", _EIGEN))
def _eigen(ctx) -> dict:
    return {"eigen IL": float("nan") if ctx.n < 2 else eigen_il(ctx.Z, ctx.Zp)}


@register(Metric("regression CI overlap", "Regression fidelity: CI overlap", "utility", "", HIGHER,
                 "Karr, Kohnen, Oganian, Reiter & Sanil 2006",
                 "Mean overlap of the 95 % confidence intervals of the coefficients of each attribute regressed on "
                 "the others, fitted on original and release: 1 = same inference.", _REGRESSION, per_attribute=True))
def _regression(ctx) -> dict:
    try:
        each = regression_overlap(ctx.Z, ctx.Zp)
    except MicroaggError as exc:  # the inputs were checked: only the cost of collinear attributes is refused
        return {"regression CI overlap": not_computed(str(exc))}
    return {"regression CI overlap": (float(np.nanmean(each)) if np.isfinite(each).any() else float("nan"), each)}
