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

from ..base.errors import MicroaggError
from ..base.rows import HIGHER, LOWER, NEUTRAL
from ._arrays import pair
from .registry import Metric, register

_MARGINS, _EIGEN = "docs/metrics.md §4.20", "docs/metrics.md §4.21"
_REGRESSION, _PMSE = "docs/metrics.md §4.22", "docs/metrics.md §4.23"


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
    M = np.asfortranarray(M)
    out = np.empty((len(M), 1 + d + d * (d + 1) // 2), order="F")  # filled column by column
    out[:, 0] = 1.0
    out[:, 1:d + 1] = M
    for c, (i, j) in enumerate(zip(*np.triu_indices(d)), start=d + 1):
        np.multiply(M[:, i], M[:, j], out=out[:, c])
    return out


def _log_likelihood(eta: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


def propensity_scores(Z, Zp, max_iter: int = 100) -> tuple[np.ndarray, int]:
    """Fitted probability that each row of the stacked data [Z; Zp] belongs to the release, by maximum likelihood of
    a logistic regression on the quadratic model, and the number of its parameters (the rank of the design).

    Newton–Raphson on an orthonormal basis of the design's columns (from the eigenvectors of its Gram matrix,
    directions with eigenvalues below 1e-10 of the largest dropped, so collinear terms drop out), each
    step halved until the likelihood rises; it stops when the likelihood gains less than 1e-10 of itself. On
    separable data the likelihood has no maximum: after ``max_iter`` steps the scores are next to 0 and 1."""
    Z, Zp = pair(Z, Zp)
    A = _quadratic(np.vstack([Z, Zp]))
    A[:, 1:] -= A[:, 1:].mean(axis=0)
    A[:, 1:] /= np.maximum(np.abs(A[:, 1:]).max(axis=0), 1e-300)  # same column space, comparable scales
    lam, V = np.linalg.eigh(A.T @ A)
    keep = lam > 1e-10 * lam[-1]
    U = A @ (V[:, keep] / np.sqrt(lam[keep]))
    y = np.repeat([0.0, 1.0], len(Z))
    beta, eta = np.zeros(U.shape[1]), np.zeros(len(U))
    ll = _log_likelihood(eta, y)
    for _ in range(max_iter):
        p = 0.5 * (1.0 + np.tanh(eta / 2))
        B = U * np.sqrt(p * (1 - p))[:, None]
        step = np.linalg.lstsq(B.T @ B, U.T @ (y - p), rcond=None)[0]  # B.T @ B: one symmetric product
        t = 1.0
        while True:
            trial = U @ (beta + t * step)
            gained = _log_likelihood(trial, y) - ll
            if gained >= 0 or t < 1e-8:
                break
            t /= 2
        if gained < 0:
            break
        beta, eta, ll = beta + t * step, trial, ll + gained
        if gained <= 1e-10 * abs(ll):
            break
    return 0.5 * (1.0 + np.tanh(eta / 2)), U.shape[1]


def pmse(Z, Zp) -> tuple[float, float]:
    """pMSE = 1/N Σ (p̂_i − c)² over the N = 2n stacked records, c = 1/2 the release's share (Woo, Reiter, Oganian &
    Karr 2009), 0 indistinguishable and 0.25 separable, and its ratio to (k − 1)(1 − c)² c / N, k the model's
    parameters, Snoke et al. 2018's null expectation; two samples of one distribution give about 2, not 1, as
    the delta method predicts (docs/metrics.md §4.23). The ratio is NaN when every term but the intercept drops out
    (all records identical)."""
    p, k = propensity_scores(Z, Zp)
    N, c = len(p), 0.5
    value = float(np.mean((p - c) ** 2))
    return value, value / ((k - 1) * (1 - c) ** 2 * c / N) if k > 1 else float("nan")


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
           "pMSE divided by Snoke et al.'s null expectation (k − 1)(1 − c)²c/N: two samples of one distribution "
           "give about 2 (docs/metrics.md §4.23); larger = easier to tell apart.", _PMSE),
)
def _pmse(ctx) -> dict:
    value, ratio = pmse(ctx.Z, ctx.Zp)
    return {"pMSE": value, "pMSE ratio": ratio}
