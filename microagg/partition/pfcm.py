"""Possibilistic fuzzy c-means and the PCAES validity index: the clustering engine of HM-pfsom.

Abidi, Ben Yahia & Perera 2018, §3.3 clusters with PFSOM (Abidi & Ben Yahia 2013), a multi-level self-organising
variant of possibilistic fuzzy clustering that Abidi, Ben Yahia & Perera 2018 only cites: its levels, learning rates
and neighbourhoods are not given. What Abidi, Ben Yahia & Perera 2018 does specify is implemented here
(docs/methods.md §2.12): prototypes updated from the memberships and typicalities of all records until they stabilise
or ``max_iter`` is reached (PFCM, Pal, Pal, Keller & Bezdek 2005), every record assigned to its nearest prototype, and
the number of clusters chosen by the PCAES validity index (Wu & Yang 2005). The multi-level search for the best
partition is replaced by one PFCM run per candidate number of clusters [decision, docs/methods.md §2.12].

Every update is one vectorized operation on the n x c matrix of squared distances (no loop over records);
randomness (the k-means++ seeding) comes only from ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError

NORMALIZERS = ("max", "min")


@dataclass(frozen=True)
class Pfcm:
    """A PFCM result: ``prototypes`` (c x d), memberships ``u`` and typicalities ``t`` (n x c), the
    typicality scales ``gamma`` (c,), the number of PFCM ``iterations`` and whether they ``converged``."""

    prototypes: np.ndarray
    u: np.ndarray
    t: np.ndarray
    gamma: np.ndarray
    iterations: int
    converged: bool

    @property
    def labels(self) -> np.ndarray:
        """Cluster of every record: the largest membership, i.e. the nearest prototype (ties: lowest cluster)."""
        return np.argmax(self.u, axis=1)


def kmeans_pp(X: np.ndarray, c: int, rng: np.random.Generator) -> np.ndarray:
    """c initial prototypes drawn by k-means++ seeding (Arthur & Vassilvitskii 2007) from the rows of X."""
    n = X.shape[0]
    chosen = [int(rng.integers(n))]
    d2 = ((X - X[chosen[0]]) ** 2).sum(axis=1)
    for _ in range(1, c):
        total = d2.sum()
        i = int(rng.choice(n, p=d2 / total)) if total > 0 else int(rng.integers(n))
        chosen.append(i)
        d2 = np.minimum(d2, ((X - X[i]) ** 2).sum(axis=1))
    return X[chosen].copy()


def memberships(D2: np.ndarray, m: float) -> np.ndarray:
    """FCM memberships u_ij = 1 / sum_l (D_ij / D_lj)^(2/(m-1)) from squared distances D2 (n x c).

    Computed as a softmax of -log(D2)/(m-1), so no power overflows; a record lying on one or more
    prototypes shares its membership equally among them (docs/methods.md §2.12).
    """
    D2 = np.asfortranarray(D2)  # one column per cluster: the reductions over clusters run along records
    on = D2 <= 0
    u = np.zeros_like(D2)
    np.log(D2, out=u, where=~on)
    u *= -1.0 / (m - 1.0)
    u -= u.max(axis=1, keepdims=True)
    np.exp(u, out=u)
    u /= u.sum(axis=1, keepdims=True)
    hit = on.any(axis=1)
    if hit.any():
        u[hit] = on[hit] / on[hit].sum(axis=1, keepdims=True)
    return u


def _update(X: np.ndarray, W: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Prototypes as W-weighted means of the records; a cluster with no weight keeps its prototype."""
    mass = W.sum(axis=0)
    new = (W.T @ X) / np.where(mass > 0, mass, 1.0)[:, None]
    return np.where((mass > 0)[:, None], new, V)


def _sqdist(X: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Squared distances of the records to the prototypes, n x c in column-major order."""
    from scipy.spatial.distance import cdist  # (scipy's modules are imported by the calls that need them)

    return np.asfortranarray(cdist(X, V, "sqeuclidean"))


def _moved(V: np.ndarray, new: np.ndarray) -> float:
    return float(np.sqrt(((new - V) ** 2).sum(axis=1)).max())


def fcm(X: np.ndarray, V: np.ndarray, m: float, tol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fuzzy c-means (Bezdek et al. 1984) from prototypes V: the final prototypes, memberships and squared
    distances (:func:`_sqdist`)."""
    for _ in range(max_iter):
        u = memberships(_sqdist(X, V), m)
        new = _update(X, u ** m, V)
        done = _moved(V, new) < tol
        V = new
        if done:
            break
    D2 = _sqdist(X, V)
    return V, memberships(D2, m), D2


def pfcm(X, c: int, a: float = 1.0, b: float = 1.0, m: float = 2.0, eta: float = 2.0, K: float = 1.0,
         tol: float = 1e-5, max_iter: int = 100, seed: int = 0) -> Pfcm:
    """Possibilistic fuzzy c-means of the rows of ``X`` into ``c`` clusters (Pal et al. 2005; docs/methods.md §2.12).

    Minimizes sum_ij (a u_ij^m + b t_ij^eta) D_ij^2 + sum_i gamma_i sum_j (1 - t_ij)^eta with memberships u
    summing to 1 over the clusters and typicalities t in [0, 1]. Started, as Pal et al. recommend, from a
    fuzzy c-means run (itself seeded by k-means++ with ``seed``), whose terminal partition gives
    gamma_i = K sum_j u_ij^m D_ij^2 / sum_j u_ij^m. Then, until no prototype moves by ``tol`` or more (or
    ``max_iter`` iterations): u_ij = 1 / sum_l (D_ij/D_lj)^(2/(m-1)),
    t_ij = 1 / (1 + (b D_ij^2 / gamma_i)^(1/(eta-1))), v_i = sum_j (a u^m + b t^eta) x_j / sum_j (a u^m + b t^eta).
    """
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(seed)
    V, u, D2 = fcm(X, kmeans_pp(X, c, rng), m, tol, max_iter)
    um = u ** m
    gamma = K * (um * D2).sum(axis=0) / np.maximum(um.sum(axis=0), np.finfo(float).tiny)
    gamma = np.maximum(gamma, np.finfo(float).tiny)
    converged, iterations = False, 0
    with np.errstate(over="ignore"):
        while not converged and iterations < max_iter:
            iterations += 1
            u = memberships(D2, m)
            t = 1.0 / (1.0 + (b * D2 / gamma) ** (1.0 / (eta - 1.0)))
            new = _update(X, a * u ** m + b * t ** eta, V)
            converged = _moved(V, new) < tol
            V = new
            D2 = _sqdist(X, V)
        t = 1.0 / (1.0 + (b * D2 / gamma) ** (1.0 / (eta - 1.0)))
    return Pfcm(prototypes=V, u=memberships(D2, m), t=t, gamma=gamma, iterations=iterations, converged=converged)


def pcaes(u: np.ndarray, prototypes: np.ndarray, normalizer: str = "max") -> float:
    """PCAES validity index (Wu & Yang 2005), larger is better (docs/methods.md §2.12).

    PCAES = sum_i [ sum_j u_ij^2 / u_M - exp(-min_{l != i} ||v_i - v_l||^2 / beta_T) ] with
    beta_T = (1/c) sum_i ||v_i - vbar||^2 and vbar the mean prototype.

    ``normalizer`` is u_M. Wu & Yang 2005 define u_M = min_i sum_j u_ij^2 ("min"). Then the first term is unbounded
    and grows as soon as one cluster is tiny, so on data with outliers PCAES keeps increasing with c: four
    well-separated blobs with 3 % uniform noise score highest at c = 8, and the Census and EIA quasi-identifiers at c
    = 9 or 10 (of 2..10), with a cluster of 1-3 records. The default "max" (u_M = max_i sum_j u_ij^2) bounds every
    cluster's term to (-1, 1]: it recovers the 4 blobs and chooses 2 or 3 clusters on the benchmark data, but merges
    Abidi, Ben Yahia & Perera 2018, Table 4's low and middle salaries, which "min" keeps apart
    (tests/partition/test_pfcm.py) [decision]. A degenerate partition (all prototypes equal) scores -inf.
    """
    if normalizer not in NORMALIZERS:
        raise MicroaggError(f"PCAES normalizer must be one of {NORMALIZERS}; got {normalizer!r}.")
    V = np.asarray(prototypes, dtype=np.float64)
    c = V.shape[0]
    if c < 2:
        raise MicroaggError("PCAES compares clusters with each other: it needs at least 2 clusters.")
    compact = (np.asarray(u, dtype=np.float64) ** 2).sum(axis=0)
    u_M = compact.max() if normalizer == "max" else compact.min()
    beta = ((V - V.mean(axis=0)) ** 2).sum(axis=1).mean()
    if not (u_M > 0 and beta > 0):
        return -np.inf
    from scipy.spatial.distance import cdist

    gaps = cdist(V, V, "sqeuclidean")
    np.fill_diagonal(gaps, np.inf)
    return float((compact / u_M - np.exp(-gaps.min(axis=1) / beta)).sum())


@dataclass(frozen=True)
class Selection:
    """The PFCM partition chosen by PCAES: ``result`` with ``c`` clusters, and ``table`` (one row per
    candidate c: PCAES, PFCM iterations, converged, size of the smallest cluster, number of clusters with
    at least ``min_size`` records, and which was chosen)."""

    result: Pfcm
    c: int
    table: pd.DataFrame


def select_pfcm(X, c: int = 0, c_max: int = 10, normalizer: str = "max", seed: int = 0, min_size: int = 1,
                **params) -> Selection:
    """PFCM of the rows of X with c clusters, or, with ``c = 0``, the c in 2..min(c_max, floor(sqrt(n)))
    of largest PCAES (ties: the smaller c); a single cluster when fewer than 4 rows leave no candidate.

    HM-pfsom needs ``min_size`` (= k) records in every class, so the candidates compete in this order:
    those whose every cluster has ``min_size`` records; else those with at least two such clusters (the
    caller merges the smaller ones); else all. ``params`` are those of :func:`pfcm` (a, b, m, eta, K, tol,
    max_iter); every candidate is seeded with ``seed``.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if c > n:
        raise MicroaggError(f"cannot split {n} records into c = {c} clusters: lower c (0 chooses it by PCAES).")
    candidates = [c] if c else list(range(2, min(c_max, int(np.sqrt(n))) + 1)) or [1]
    rows, results = [], []
    for cc in candidates:
        res = pfcm(X, cc, seed=seed, **params)
        sizes = np.bincount(res.labels, minlength=cc)
        rows.append({"c": cc, "PCAES": pcaes(res.u, res.prototypes, normalizer) if cc > 1 else np.nan,
                     "iterations": res.iterations, "converged": res.converged, "smallest cluster": int(sizes.min()),
                     "clusters >= min_size": int((sizes >= min_size).sum())})
        results.append(res)
    table = pd.DataFrame(rows)
    score = table["PCAES"].fillna(-np.inf).to_numpy()
    large = table["clusters >= min_size"].to_numpy()
    for eligible in (large == table["c"].to_numpy(), large >= 2):
        if eligible.any():
            score = np.where(eligible, score, -np.inf)
            break
    best = int(np.argmax(score))
    table["chosen"] = np.arange(len(rows)) == best
    return Selection(result=results[best], c=candidates[best], table=table)
