"""Clustering first, then a sort inside every cluster: the frame of sdcMicro's ``clustpca``, ``clustmcdpca``,
``clustpppca`` and ``influence`` (Templ, Kowarik & Meindl 2015; docs/methods.md §2.23). Not a registered method.

**CLARA** (Clustering LARge Applications, Kaufman & Rousseeuw 1990, ch. 3), sdcMicro's default clustering: PAM
(partitioning around medoids, ch. 2: BUILD, then SWAP while a swap of a medoid and another record lowers the sum of
Euclidean distances to the nearest medoid, the best swap each time) on ``SAMPLES`` samples of 40 + 2·nc records,
each sample after the first holding the best medoids so far; every record joins its nearest medoid, and the medoids
whose clustering has the smallest mean distance win. Ties go to the lowest row index (medoids, swaps, records
between equally near medoids). With at most 40 + 2·nc records every sample is the whole data set: PAM itself.
Fewer than nc clusters result when the data have fewer distinct records. Clusters are numbered in the order of
their first record, as sdcMicro's clustering (R's ``cluster::clara``) numbers them.

**The order** (:func:`cluster_order`): cluster by cluster in that numbering, the records of a cluster sorted by a
score computed on that cluster alone (ties in row order); the whole sequence is then cut into consecutive groups
of k, the last taking the n mod k rest, so a group may span the end of one cluster and the start of the next
(sdcMicro's rule: every group has k records whatever the clusters' sizes). Where the score is a projection of the
cluster, a cluster of fewer records than attributes is sorted by its first attribute instead, as sdcMicro sorts it
(its ``varsort``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base.registry import Param
from .simple import consecutive_groups

SAMPLES = 5  # CLARA's samples (Kaufman & Rousseeuw 1990, ch. 3; R's cluster::clara default)
MAX_SWAPS = 1000  # a guard: every accepted swap lowers the cost strictly

NC = Param("nc", "int", 8, "number of clusters formed first (CLARA); fewer when the data have fewer distinct records",
           source="Kaufman & Rousseeuw 1990, ch. 3; Templ, Kowarik & Meindl 2015", low=1, label="clusters")
CLARA_SEED = Param("clara_seed", "int", 0, "seed of CLARA's samples; the same seed gives the same clusters",
                   source="Kaufman & Rousseeuw 1990, ch. 3", low=0, label="CLARA seed", advanced=True)
CLUSTERED = {"bounded": True, "params": (NC, CLARA_SEED)}  # the registration every clustered method shares


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of ``A`` and of ``B`` (squares summed attribute by attribute)."""
    D = np.zeros((len(A), len(B)))
    for t in range(A.shape[1]):
        u = A[:, t, None] - B[None, :, t]
        D += u * u
    return np.sqrt(D)


def pam(D: np.ndarray, nc: int) -> np.ndarray:
    """Positions of the nc medoids (ascending) that PAM's BUILD and SWAP find for the distance matrix ``D``."""
    m = len(D)
    nc = min(nc, m)
    medoids = [int(np.argmin(D.sum(axis=1)))]
    near = D[medoids[0]].copy()
    while len(medoids) < nc:  # BUILD: the record that lowers the total distance most
        gain = np.maximum(near[None, :] - D, 0.0).sum(axis=1)
        gain[medoids] = -1.0
        medoids.append(int(np.argmax(gain)))
        near = np.minimum(near, D[medoids[-1]])
    medoids = np.array(medoids)
    cost = D[medoids].min(axis=0).sum()
    for _ in range(MAX_SWAPS):  # SWAP: the best exchange of a medoid and another record, while it lowers the cost
        to = D[medoids]
        nearest = np.argmin(to, axis=0)
        second = np.sort(to, axis=0)[1] if nc > 1 else np.full(m, np.inf)
        without = np.where(np.arange(nc)[:, None] == nearest[None, :], second[None, :], to.min(axis=0)[None, :])
        trial = np.stack([np.minimum(w[None, :], D).sum(axis=1) for w in without])  # medoid i replaced by record h
        trial[:, medoids] = np.inf
        i, h = np.unravel_index(np.argmin(trial), trial.shape)
        swapped = medoids.copy()
        swapped[i] = h
        new = D[swapped].min(axis=0).sum()
        if not new < cost:
            break
        medoids, cost = swapped, new
    return np.sort(medoids)


def clara(Z: np.ndarray, nc: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """CLARA on the rows of ``Z`` (module docstring): every record's cluster id 0..c-1 (c <= nc, numbered by first
    record) and the row of every cluster's medoid."""
    n = len(Z)
    size = min(n, 40 + 2 * nc)
    rng = np.random.default_rng(seed)
    best, best_cost = None, np.inf
    for _ in range(SAMPLES if size < n else 1):
        if best is None:
            sample = np.sort(rng.choice(n, size, replace=False)) if size < n else np.arange(n)
        else:
            others = rng.choice(np.setdiff1d(np.arange(n), best), size - len(best), replace=False)
            sample = np.sort(np.concatenate([best, others]))
        medoids = sample[pam(_distances(Z[sample], Z[sample]), nc)]
        cost = _distances(Z, Z[medoids]).min(axis=1).mean()
        if cost < best_cost:
            best, best_cost = medoids, cost
    nearest = np.argmin(_distances(Z, Z[best]), axis=1)
    used, first, ids = np.unique(nearest, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    medoids = np.empty(len(first), np.int64)
    medoids[rank] = best[used]
    return rank[ids], medoids


def cluster_order(Z: np.ndarray, clusters: np.ndarray, medoids: np.ndarray,
                  score: Callable[[np.ndarray, int], np.ndarray], projected: bool = True) -> np.ndarray:
    """The records cluster by cluster, each cluster's rows sorted by ``score(rows, medoid row)``, ties in row order;
    with ``projected`` (a score that projects the cluster), a cluster of fewer records than attributes by its first
    attribute instead."""
    parts = []
    for c, medoid in enumerate(medoids):
        rows = np.flatnonzero(clusters == c)
        s = Z[rows, 0] if projected and len(rows) < Z.shape[1] else score(rows, medoid)
        parts.append(rows[np.argsort(s, kind="stable")])
    return np.concatenate(parts)


def clustered_groups(Z: np.ndarray, k: int, nc: int, seed: int, score: Callable[[np.ndarray, int], np.ndarray],
                     projected: bool = True) -> np.ndarray:
    """Labels of the records clustered by CLARA, sorted inside every cluster by ``score`` (:func:`cluster_order`)
    and cut into groups of k (module docstring)."""
    return consecutive_groups(cluster_order(Z, *clara(Z, nc, seed), score, projected), k)
