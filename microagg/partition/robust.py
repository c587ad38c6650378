"""Robust centre, scatter and first axis: the estimators behind sdcMicro's robust methods (Templ, Kowarik & Meindl
2015; docs/methods.md §2.20-2.22). Not a registered method.

**MCD** (minimum covariance determinant, Rousseeuw 1984): the h = ⌊(n + d + 1)/2⌋ records whose covariance matrix
has the smallest determinant, found by the C-steps of FAST-MCD (Rousseeuw & Van Driessen 1999): from an h-subset
H, the h records nearest to mean(H) in the Mahalanobis distance of cov(H) form a subset whose determinant is no
larger (their Theorem 1). :func:`mcd` draws ``starts`` random (d+1)-subsets from a random subsample of at most
``SUBSAMPLE`` records (every (d+1)-subset when there are no more than ``starts`` of them), extended while
singular by 1, 2, 4, ... further random records, takes two C-steps from each, then C-steps on all records from
the 10 best until the subset repeats, and keeps the smallest determinant (the first among equal ones). Ties among
distances go to the lowest row index. All randomness comes from ``numpy.random.default_rng(seed)``: the same
data and seed give the same estimate. The raw estimate is then reweighted once (Rousseeuw & Van Driessen 1999,
§2): the records whose squared Mahalanobis distance from the raw estimate, its covariance multiplied by the
consistency factor c(α) = α / P(χ²_{d+2} ≤ χ²_{d,α}) with α = h/n (Croux & Haesbroeck 1999), is at most
χ²_{d,0.975} give the final centre and scatter. A subset of determinant 0 (h records on a hyperplane, an "exact
fit") is the minimum; distances from it raise its eigenvalues to at least 10⁻¹² of the largest, so records off
the hyperplane are very far. Records that all lie on one hyperplane (a linear dependency among the attributes)
are estimated within it (``span``).

**Projection-pursuit axis** (Croux & Ruiz-Gazen 2005, the algorithm of sdcMicro's ``prcompRob``): the candidate
directions are the records centred at the coordinatewise median and normalised, a_i = (z_i − m) / ||z_i − m||; the
first robust axis is the candidate along which the projections of the records have the largest median absolute
deviation (MAD), the first such candidate in row order; a record equal to the median gives no direction.
O(n² d) time.

The MCD axis is signed as R's ``princomp`` signs its loadings (``univariate.signed``); the projection-pursuit axis
has its first component non-negative, as sdcMicro signs it (a candidate with first component 0 keeps its
direction: it is a record's, not an eigensolver's).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
from scipy.stats import chi2

from ..base.registry import Param
from .univariate import signed

STARTS = 500  # random (d+1)-subsets (Rousseeuw & Van Driessen 1999, §3)
SUBSAMPLE = 1500  # records the starts are drawn from and first refined on (their merged set of 5 x 300)
BEST = 10  # solutions taken from the subsample to all records
MAX_STEPS = 200  # C-steps on all records (each lowers the determinant; a subset that repeats stops them)
EXACT_FIT = 1e-12  # eigenvalue ratio below which a scatter matrix counts as singular
CUTOFF = 0.975  # χ² quantile of the reweighting step

MCD_SEED = Param("mcd_seed", "int", 0, "seed of the MCD's random starts (FAST-MCD); the same seed gives the same "
                 "groups",
             source="Rousseeuw & Van Driessen 1999", low=0, label="MCD seed", advanced=True)


@dataclass(frozen=True)
class Mcd:
    """A reweighted MCD estimate: ``center`` and ``scatter`` (consistent at the normal), ``support`` the records it
    was computed from, ``raw_support`` the h-subset of smallest determinant found, ``basis`` the orthonormal
    directions in which the records vary (d x r; r < d when every record lies on one hyperplane)."""

    center: np.ndarray
    scatter: np.ndarray
    support: np.ndarray
    raw_support: np.ndarray
    basis: np.ndarray

    def distances(self, Z: np.ndarray) -> np.ndarray:
        """Squared robust Mahalanobis distances of the rows of ``Z``, within the records' span (``basis``)."""
        B = self.basis
        return mahalanobis(Z @ B, self.center @ B, B.T @ self.scatter @ B)


def mahalanobis(Z: np.ndarray, center: np.ndarray, scatter: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances of the rows of ``Z`` (a singular ``scatter`` regularised, module docstring)."""
    if scatter.size == 0:  # no direction of variation: every record is at the centre
        return np.zeros(len(Z))
    w, V = np.linalg.eigh(scatter)
    top = w[-1]
    w = np.maximum(w, top * EXACT_FIT if top > 0 else 1.0)
    Y = (Z - center) @ V
    return (Y * Y / w).sum(axis=1)


def _log_det(scatter: np.ndarray) -> float:
    """log det of a covariance matrix, -inf when it is singular (an exact fit)."""
    w = np.linalg.eigvalsh(scatter)
    return -np.inf if w[-1] <= 0 or w[0] <= w[-1] * EXACT_FIT else float(np.log(w).sum())


def _moments(Z: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance (divisor |rows| − 1) of ``Z[rows]``."""
    X = Z[rows]
    center = X.mean(axis=0)
    dev = X - center
    return center, dev.T @ dev / max(len(rows) - 1, 1)


def _c_steps(Z: np.ndarray, rows: np.ndarray, h: int, steps: int) -> tuple[float, np.ndarray]:
    """Up to ``steps`` C-steps from the subset ``rows`` (stopping when the subset repeats): (log det, subset)."""
    for _ in range(steps):
        center, scatter = _moments(Z, rows)
        new = np.sort(np.argsort(mahalanobis(Z, center, scatter), kind="stable")[:h])
        if np.array_equal(new, rows):
            break
        rows = new
    return _log_det(_moments(Z, rows)[1]), rows


def _start(S: np.ndarray, first: np.ndarray, rng: np.random.Generator, hs: int) -> np.ndarray:
    """The hs records of ``S`` nearest to a (d+1)-subset ``first``, extended by random records while singular."""
    rows = first
    if _log_det(_moments(S, rows)[1]) == -np.inf and len(rows) < len(S):
        rest = rng.permutation(np.setdiff1d(np.arange(len(S)), rows))
        add = 1
        while add <= len(rest):
            rows = np.concatenate([first, rest[:add]])
            if _log_det(_moments(S, rows)[1]) > -np.inf or add == len(rest):
                break
            add = min(2 * add, len(rest))
    center, scatter = _moments(S, rows)
    return np.sort(np.argsort(mahalanobis(S, center, scatter), kind="stable")[:hs])


def consistency(alpha: float, d: int) -> float:
    """c(α) = α / P(χ²_{d+2} ≤ χ²_{d,α}): the factor that makes the covariance of the α share of a normal sample
    nearest to its centre consistent (Croux & Haesbroeck 1999)."""
    return alpha / chi2.cdf(chi2.ppf(alpha, d), d + 2) if alpha < 1 else 1.0


def span(Z: np.ndarray) -> np.ndarray:
    """Orthonormal basis (d x r) of the directions in which the rows of ``Z`` vary: the identity when their
    covariance matrix is regular, else its eigenvectors of eigenvalues above ``EXACT_FIT`` of the largest (none
    when every row is equal)."""
    d = Z.shape[1]
    w, V = np.linalg.eigh(_moments(Z, np.arange(len(Z)))[1])
    if w[-1] > 0 and w[0] > w[-1] * EXACT_FIT:
        return np.eye(d)
    return V[:, w > w[-1] * EXACT_FIT] if w[-1] > 0 else np.zeros((d, 0))


def mcd(Z: np.ndarray, seed: int = 0, starts: int = STARTS) -> Mcd:
    """The reweighted MCD estimate of the rows of ``Z`` (n x d, n >= 2; module docstring). Records that all lie
    on a hyperplane (a linear dependency among the attributes, as in Census) are estimated within it, in the
    coordinates of ``span``; the scatter is then singular across it."""
    B = span(Z)
    est = _mcd(Z @ B, seed, starts)
    return Mcd(est.center @ B.T, B @ est.scatter @ B.T, est.support, est.raw_support, B)


def _mcd(Z: np.ndarray, seed: int, starts: int) -> Mcd:
    """:func:`mcd` on records whose covariance matrix is regular (or with no attribute at all)."""
    n, d = Z.shape
    h = min(n, (n + d + 1) // 2)
    if h == n or d == 0:  # too few records for a robust fit, or every record equal: the classical estimate
        center, scatter = _moments(Z, np.arange(n))
        return Mcd(center, scatter, np.ones(n, bool), np.ones(n, bool), np.eye(d))
    rng = np.random.default_rng(seed)
    sub = np.sort(rng.choice(n, SUBSAMPLE, replace=False)) if n > SUBSAMPLE else np.arange(n)
    S = Z[sub]
    hs = min(len(S), -(-len(S) * h // n))
    if comb(len(S), d + 1) <= starts:
        firsts = [np.array(c) for c in combinations(range(len(S)), d + 1)]
    else:
        firsts = [np.sort(rng.choice(len(S), d + 1, replace=False)) for _ in range(starts)]
    found = {}
    for first in firsts:
        det, rows = _c_steps(S, _start(S, first, rng, hs), hs, 2)
        found.setdefault(rows.tobytes(), (det, len(found), rows))
    best = sorted(found.values(), key=lambda t: (t[0], t[1]))[:BEST]
    candidates = []
    for _, order, rows in best:
        center, scatter = _moments(S, rows)
        full = np.sort(np.argsort(mahalanobis(Z, center, scatter), kind="stable")[:h])
        candidates.append((*_c_steps(Z, full, h, MAX_STEPS), order))
    det, rows, _ = min(candidates, key=lambda t: (t[0], t[2]))
    raw = np.zeros(n, bool)
    raw[rows] = True
    center, scatter = _moments(Z, rows)
    keep = mahalanobis(Z, center, scatter * consistency(h / n, d)) <= chi2.ppf(CUTOFF, d)
    if keep.sum() > d:
        center, scatter = _moments(Z, np.flatnonzero(keep))
        scatter = scatter * consistency(keep.mean(), d)
    else:
        keep = raw
    return Mcd(center, scatter, keep, raw, np.eye(d))


def mcd_axis(Z: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(centre, first axis): the MCD centre and the eigenvector of the largest eigenvalue of the MCD scatter."""
    est = mcd(Z, seed)
    return est.center, signed(np.linalg.eigh(est.scatter)[1][:, -1])  # within the span, as its top eigenvalue


def mcd_scores(Z: np.ndarray, seed: int = 0) -> np.ndarray:
    """The records' positions (z_i − c) · u along the first MCD axis u, measured from the MCD centre c."""
    center, axis = mcd_axis(Z, seed)
    return (Z - center) @ axis


def pp_scores(Z: np.ndarray) -> np.ndarray:
    """The records' positions (z_i − m) · a along the projection-pursuit axis a, measured from the median m."""
    center, axis = pp_axis(Z)
    return (Z - center) @ axis


def pp_axis(Z: np.ndarray, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """(coordinatewise median, first projection-pursuit axis) of the rows of ``Z`` (module docstring); the
    projections are formed ``chunk`` values at a time."""
    m = np.median(Z, axis=0)
    C = Z - m
    norms = np.sqrt((C * C).sum(axis=1))
    cand = np.flatnonzero(norms > 0)
    if len(cand) == 0:  # every record is the median: any axis gives equal scores
        return m, np.eye(Z.shape[1])[0]
    A = C[cand] / norms[cand, None]
    rows = max(1, chunk // len(Z))
    spread = np.empty(len(cand))
    for a in range(0, len(cand), rows):
        P = A[a:a + rows] @ Z.T
        spread[a:a + rows] = np.median(np.abs(P - np.median(P, axis=1, keepdims=True)), axis=1)
    a = A[np.argmax(spread)]
    return m, -a if a[0] < 0 else a  # sdcMicro's prcompRob: the first component non-negative
