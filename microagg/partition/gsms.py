"""GSMS, successive group selection by minimum SSE (Panagiotakis & Tziritas 2013; docs/methods.md §2.17).

While at least 2k records R remain, every remaining record x proposes the candidate group G_x of x and its k-1
nearest remaining records (the k records of R nearest to x, docs/methods.md §0), and the candidate that
minimises SSE(G) + SSE(R \\ G) becomes a group; the last k..2k-1 records form the last group.

**Incremental form.** With m = |R| and centroids c_G, c_R, the decomposition of SSE(R) into within- and
between-group parts (Ward 1963) gives

    SSE(G) + SSE(R \\ G) = SSE(R) - (k m / (m - k)) ||c_G - c_R||^2,

and SSE(R) is the same for every candidate, so the minimiser is the candidate whose centroid lies **farthest
from the centroid of the remaining records** (docs/methods.md §5, decision 41). We keep the sum of every
candidate (O(n d)) and the running sum of R, so a step costs O(n d) plus the k-nearest searches of the
candidates that lost a member (one pass over R each); no n x n distance matrix is stored. Ties: the lowest row
index of x. Cost: O(n^2 d) time (the first candidates alone are n passes), O(n (d + k)) memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..base.registry import register
from .compiled.engine import insert_nearest
from .mhm import in_range


@njit(cache=True, nogil=True)
def knn_group(Z, x, alive, k, out):
    """The k records of ``alive`` nearest to record ``x`` (squared distance, then row index), ascending."""
    n, d = Z.shape
    dist = np.full(k, np.inf)
    out[:] = n
    for j in range(n):
        if not alive[j]:
            continue
        s = 0.0
        for t in range(d):
            u = Z[j, t] - Z[x, t]
            s += u * u
        insert_nearest(dist, out, s, j)


@njit(cache=True, nogil=True)
def gsms_kernel(Z, k):
    """Labels of GSMS on ``Z`` (groups in order of selection)."""
    n, d = Z.shape
    alive = np.ones(n, np.bool_)
    nbr = np.empty((n, k), np.int64)
    SG = np.zeros((n, d))
    SR = np.zeros(d)
    for i in range(n):
        SR += Z[i]
        knn_group(Z, i, alive, k, nbr[i])
        for j in nbr[i]:
            SG[i] += Z[j]
    labels = np.full(n, -1, np.int64)
    m = n
    g = 0
    while m >= 2 * k:
        best, far = -1, -1.0
        for i in range(n):
            if alive[i]:
                s = 0.0
                for t in range(d):
                    u = SG[i, t] / k - SR[t] / m
                    s += u * u
                if s > far:
                    best, far = i, s
        members = np.sort(nbr[best])
        for j in members:
            alive[j] = False
            labels[j] = g
            SR -= Z[j]
        m -= k
        g += 1
        for i in range(n):  # candidates that lost a member: search again
            if alive[i]:
                for j in nbr[i]:
                    if not alive[j]:
                        knn_group(Z, i, alive, k, nbr[i])
                        SG[i] = 0.0
                        for q in nbr[i]:
                            SG[i] += Z[q]
                        break
    for i in range(n):
        if alive[i]:
            labels[i] = g
    return labels


@register(
    "partition", "gsms",
    bounded=True,
    title="GSMS (successive group selection)",
    summary="Successive group selection: of the groups of each remaining record and its k-1 nearest, keep the "
            "one that minimises SSE(group) + SSE(rest); groups of k, the last up to 2k-1.",
    source="Panagiotakis & Tziritas 2013",
)
def gsms(Z, k: int) -> np.ndarray:
    """Group labels 0..m-1 (in order of selection) of GSMS on standardized ``Z``."""
    return gsms_kernel(in_range(Z), k)
