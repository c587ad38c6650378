"""pMSE: how well a propensity model tells the release's records from the original's (Woo, Reiter, Oganian & Karr
2009), and its ratio to the null expectation of Snoke, Raab, Nowok, Dibben & Slavković 2018 (docs/metrics.md §4.23).

The model is a logistic regression on a quadratic polynomial: intercept, main effects, squares and pairwise
products of the attributes' z-scores while that model fits the budget of :func:`propensity_model` (at most 400
terms, at least 10 stacked records per term, one Newton step of at most 4·10⁹ multiply-adds), else the same
polynomial in the first m principal components of the stacked records, m the largest that fits. Its cost is then
bounded whatever the width d: the principal components take N·d² + d³, the fit N·k² per Newton step with k ≤ 400,
and the terms are formed in chunks of rows, so memory stays O(N + k²) beyond one chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.errors import MicroaggError
from ..base.rows import LOWER, NEUTRAL
from ._arrays import pair
from .registry import Metric, Noted, not_computed, register

_PMSE = "docs/metrics.md §4.23"
MAX_TERMS = 400  # the number of parameters above which synthpop's utility.gen warns that a logistic fit may fail
RECORDS_PER_TERM = 10  # stacked records per parameter: fewer, and the model fits noise (or separates the files)
MAX_STEP_WORK = 4e9  # N·k² multiply-adds of one Newton step
CHUNK = 1 << 21  # entries of one chunk of the design (16 MB)
SEPARATED = 1e-12  # every score this close to its label: the files are separated, pMSE = c(1 − c)


def n_terms(m: int) -> int:
    """Terms of the quadratic polynomial in m variables: 1 + m + m(m + 1)/2."""
    return 1 + m + m * (m + 1) // 2


@dataclass(frozen=True)
class PropensityModel:
    """The propensity model of N stacked records with d attributes: quadratic in the d attributes (``m == d``) or in
    the first ``m`` principal components of the stacked records; ``m == 0``: none fits (too few records)."""

    N: int
    d: int
    m: int
    budget: int

    @property
    def terms(self) -> int:
        return n_terms(self.m)

    def describe(self) -> str:
        if self.m == self.d:
            return f"logistic, quadratic in the {self.d} attributes ({self.terms:,} terms)"
        return (f"logistic, quadratic in the first {self.m} of {self.d} principal components ({self.terms:,} terms; "
                f"all {self.d} attributes would need {n_terms(self.d):,}, above min({MAX_TERMS}, N/{RECORDS_PER_TERM}, "
                f"√(4·10⁹/N)) = {self.budget:,} at N = {self.N:,} stacked records)")


def propensity_model(N: int, d: int) -> PropensityModel:
    """The model for N stacked records of d attributes: the quadratic polynomial in the most variables m ≤ d whose
    1 + m + m(m + 1)/2 terms stay within min(400, N/10, √(4·10⁹/N)) (docs/metrics.md §4.23)."""
    budget = int(min(MAX_TERMS, N // RECORDS_PER_TERM, np.sqrt(MAX_STEP_WORK / max(N, 1))))
    m = d
    while m > 0 and n_terms(m) > budget:
        m -= 1
    return PropensityModel(N, d, m, budget)


def _quadratic(M: np.ndarray) -> np.ndarray:
    """Intercept, main effects, squares and pairwise products of the columns of ``M``."""
    d = M.shape[1]
    M = np.asfortranarray(M)
    out = np.empty((len(M), n_terms(d)), order="F")  # filled column by column
    out[:, 0] = 1.0
    out[:, 1:d + 1] = M
    for c, (i, j) in enumerate(zip(*np.triu_indices(d)), start=d + 1):
        np.multiply(M[:, i], M[:, j], out=out[:, c])
    return out


class _Design:
    """The terms of the quadratic model on the rows of ``M``, every column but the intercept centred and divided by
    its largest deviation (the same column space, comparable scales), formed in chunks of rows (one chunk, kept,
    when small)."""

    def __init__(self, M: np.ndarray):
        self.M, self.k = M, n_terms(M.shape[1])
        step = max(1, CHUNK // self.k)
        self.rows = [slice(s, s + step) for s in range(0, len(M), step)]
        total, low, high = np.zeros(self.k), np.full(self.k, np.inf), np.full(self.k, -np.inf)
        for rows in self.rows:
            A = _quadratic(M[rows])
            total += A.sum(axis=0)
            np.minimum(low, A.min(axis=0), out=low)
            np.maximum(high, A.max(axis=0), out=high)
        mean = total / len(M)
        self.shift, self.scale = np.zeros(self.k), np.ones(self.k)
        self.shift[1:] = mean[1:]
        self.scale[1:] = np.maximum(np.maximum(high - mean, mean - low)[1:], 1e-300)
        self._kept = self._terms(A) if len(self.rows) == 1 else None

    def _terms(self, A: np.ndarray) -> np.ndarray:
        A -= self.shift
        A /= self.scale
        return A

    def chunks(self):
        """(rows, their centred and scaled terms), chunk after chunk."""
        if self._kept is not None:
            yield self.rows[0], self._kept
            return
        for rows in self.rows:
            yield rows, self._terms(_quadratic(self.M[rows]))


def _log_likelihood(eta: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


def _expit(eta: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(eta / 2))


def _variables(Z: np.ndarray, Zp: np.ndarray, m: int) -> np.ndarray:
    """The stacked records [Z; Zp], or their first m principal components when m < d."""
    M = np.vstack([Z, Zp])
    if m == M.shape[1]:
        return M
    centred = M - M.mean(axis=0)
    _, V = np.linalg.eigh(centred.T @ centred)
    return centred @ V[:, ::-1][:, :m]


def propensity_scores(Z, Zp, max_iter: int = 100) -> tuple[np.ndarray, int]:
    """Fitted probability that each row of the stacked data [Z; Zp] belongs to the release, by maximum likelihood of
    a logistic regression on the model of :func:`propensity_model`, and the number of its parameters (the rank of
    the design).

    Newton–Raphson in an orthonormal basis of the design's columns (from the eigenvectors of its Gram matrix,
    directions with eigenvalues below 1e-10 of the largest dropped, so collinear terms drop out), each step halved
    until the likelihood rises; it stops when the likelihood gains less than 1e-10 of itself, or when every score
    lies within 1e-12 of its label (the files are separated). On separable data the likelihood has no maximum:
    the scores tend to 0 and 1. The Gram matrix and the Hessian are summed over chunks of rows: no N × k matrix is
    kept beyond one chunk."""
    Z, Zp = pair(Z, Zp)
    model = propensity_model(2 * len(Z), Z.shape[1])
    if model.m == 0:
        raise MicroaggError(f"pMSE needs at least {RECORDS_PER_TERM * n_terms(1)} stacked records "
                            f"({RECORDS_PER_TERM} per term of the smallest model); got {2 * len(Z)}.")
    design = _Design(_variables(Z, Zp, model.m))
    gram = sum(A.T @ A for _, A in design.chunks())
    lam, V = np.linalg.eigh(gram)
    keep = lam > 1e-10 * lam[-1]
    T = V[:, keep] / np.sqrt(lam[keep])  # U = A T has orthonormal columns
    y = np.repeat([0.0, 1.0], len(Z))
    eta = np.zeros(len(y))
    ll = _log_likelihood(eta, y)
    for _ in range(max_iter):
        p = _expit(eta)
        if np.abs(p - y).max() <= SEPARATED:
            break
        hessian, gradient = np.zeros((design.k, design.k)), np.zeros(design.k)
        for rows, A in design.chunks():
            B = A * np.sqrt(p[rows] * (1 - p[rows]))[:, None]
            hessian += B.T @ B  # one symmetric product
            gradient += A.T @ (y[rows] - p[rows])
        step = T @ np.linalg.lstsq(T.T @ hessian @ T, T.T @ gradient, rcond=None)[0]
        delta = np.concatenate([A @ step for _, A in design.chunks()])
        t = 1.0
        while True:
            trial = eta + t * delta
            gained = _log_likelihood(trial, y) - ll
            if gained >= 0 or t < 1e-8:
                break
            t /= 2
        if gained < 0:
            break
        eta, ll = trial, ll + gained
        if gained <= 1e-10 * abs(ll):
            break
    return _expit(eta), int(keep.sum())


def pmse(Z, Zp) -> tuple[float, float]:
    """pMSE = 1/N Σ (p̂_i − c)² over the N = 2n stacked records, c = 1/2 the release's share (Woo, Reiter, Oganian &
    Karr 2009), 0 indistinguishable and 0.25 separable, and its ratio to (k − 1)(1 − c)² c / N, k the model's
    parameters, Snoke et al. 2018's null expectation; two samples of one distribution give about 2, not 1, as
    the delta method predicts (docs/metrics.md §4.23). The ratio is NaN when every term but the intercept drops out
    (all records identical). The model: :func:`propensity_model`."""
    p, k = propensity_scores(Z, Zp)
    N, c = len(p), 0.5
    value = float(np.mean((p - c) ** 2))
    return value, value / ((k - 1) * (1 - c) ** 2 * c / N) if k > 1 else float("nan")


@register(
    Metric("pMSE", "Propensity-score MSE", "utility", "", LOWER, "Woo, Reiter, Oganian & Karr 2009",
           "How well a logistic model (quadratic terms) tells masked from original records: 0 = not at all, "
           "0.25 = perfectly.", _PMSE),
    Metric("pMSE ratio", "pMSE over its null expectation", "utility", "", NEUTRAL, "Snoke et al. 2018",
           "pMSE divided by Snoke et al.'s null expectation (k − 1)(1 − c)²c/N: two samples of one distribution "
           "give about 2 (docs/metrics.md §4.23); larger = easier to tell apart.", _PMSE),
)
def _pmse(ctx) -> dict:
    model = propensity_model(2 * ctx.n, ctx.d)
    if model.m == 0:
        why = not_computed(f"{2 * ctx.n} stacked records, fewer than {RECORDS_PER_TERM} per term of the smallest "
                           f"propensity model ({n_terms(1)} terms)")
        return {"pMSE": why, "pMSE ratio": why}
    value, ratio = pmse(ctx.Z, ctx.Zp)
    note = f"model: {model.describe()}"
    return {"pMSE": Noted(value, note), "pMSE ratio": Noted(ratio, note)}
