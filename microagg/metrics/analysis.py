"""Utility of analyses: do the marginal distributions, the covariance structure, a regression and a classifier
see the release as they see the original?

KS and Wasserstein distances per attribute (docs/metrics.md §4.20), the eigenvalue-based IL of Templ & Meindl 2008
(§4.21), the confidence-interval overlap of regression coefficients of Karr et al. 2006 (§4.22) and the
propensity-score mean squared error pMSE of Woo, Reiter, Oganian & Karr 2009 with the ratio of Snoke et al. 2018
(§4.23). All are computed on z-scores of the original, where they equal their values in original units (KS, CI
overlap, pMSE) or state them in the original's sd (Wasserstein, eigenvalues).
"""

from __future__ import annotations

import numpy as np

from ..errors import MicroaggError
from ._arrays import pair
from .registry import HIGHER, LOWER, NEUTRAL, Metric, register

_MARGINS, _EIGEN, _REGRESSION, _PMSE = (f"docs/metrics.md §4.{s}" for s in (20, 21, 22, 23))


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


def regression_overlap(Z, Zp, responses=None, level: float = 0.95) -> np.ndarray:
    """Mean CI overlap (Karr et al. 2006) of the coefficients of the OLS regression of each attribute in ``responses``
    (positions; default every attribute) on all the others with an intercept, fitted on the original and on the
    release: one value per response, NaN where either design is singular (docs/metrics.md §4.22)."""
    Z, Zp = pair(Z, Zp)
    n, d = Z.shape
    responses = range(d) if responses is None else [int(r) for r in responses]
    grams = [np.vstack([np.ones(n), M.T]) @ np.column_stack([np.ones(n), M]) for M in (Z, Zp)]
    out = []
    for r in responses:
        fits = [_ols(G, n, r + 1, level) for G in grams]
        if any(f is None for f in fits):
            out.append(float("nan"))
            continue
        (b, h), (bp, hp) = fits
        out.append(float(ci_overlap(b - h, b + h, bp - hp, bp + hp).mean()))
    return np.array(out)


def _quadratic(M: np.ndarray) -> np.ndarray:
    """Intercept, main effects, squares and pairwise products: the propensity model of docs/metrics.md §4.23."""
    d = M.shape[1]
    i, j = np.triu_indices(d)
    return np.column_stack([np.ones(len(M)), M, M[:, i] * M[:, j]])


def propensity_scores(Z, Zp, max_iter: int = 50) -> tuple[np.ndarray, int]:
    """Fitted probability that each row of the stacked data [Z; Zp] belongs to the release, by a logistic regression
    on the quadratic model (Newton–Raphson / IRLS; the linear predictor is bounded by ±30, so separable data end with
    scores next to 0 and 1), and the number of model parameters."""
    Z, Zp = pair(Z, Zp)
    A = _quadratic(np.vstack([Z, Zp]))
    scale = A.std(axis=0)
    A[:, 1:] /= np.where(scale[1:] > 0, scale[1:], 1.0)  # the fitted scores do not depend on column scales
    y = np.repeat([0.0, 1.0], len(Z))
    beta = np.zeros(A.shape[1])
    p = np.full(len(A), 0.5)
    for _ in range(max_iter):
        B = A * np.sqrt(p * (1 - p))[:, None]
        H = B.T @ B + 1e-10 * np.eye(A.shape[1])  # B.T @ B: one symmetric product
        step = np.linalg.lstsq(H, A.T @ (y - p), rcond=None)[0]
        beta += step
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ beta, -30, 30)))
        if np.abs(step).max() < 1e-8:
            break
    return p, A.shape[1]


def pmse(Z, Zp) -> tuple[float, float]:
    """pMSE = 1/N Σ (p̂_i − c)² over the N = 2n stacked records, c = 1/2 the release's share (Woo, Reiter, Oganian &
    Karr 2009), and its ratio to (k − 1)(1 − c)² c / N, its expectation when both come from one distribution, k the
    model's parameters (Snoke et al. 2018): 0 and about 1 mean indistinguishable, 0.25 separable (docs/metrics.md
    §4.23)."""
    p, k = propensity_scores(Z, Zp)
    N, c = len(p), 0.5
    value = float(np.mean((p - c) ** 2))
    return value, value / ((k - 1) * (1 - c) ** 2 * c / N)


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
    each = regression_overlap(ctx.Z, ctx.Zp)
    return {"regression CI overlap": (float(np.nanmean(each)) if np.isfinite(each).any() else float("nan"), each)}


@register(
    Metric("pMSE", "Propensity-score MSE", "utility", "", LOWER, "Woo, Reiter, Oganian & Karr 2009",
           "How well a logistic model (quadratic terms) tells masked from original records: 0 = not at all, "
           "0.25 = perfectly.", _PMSE),
    Metric("pMSE ratio", "pMSE over its null expectation", "utility", "", NEUTRAL, "Snoke et al. 2018",
           "pMSE divided by its expected value when original and release come from one distribution: near 1 = "
           "indistinguishable.", _PMSE),
)
def _pmse(ctx) -> dict:
    value, ratio = pmse(ctx.Z, ctx.Zp)
    return {"pMSE": value, "pMSE ratio": ratio}
