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

from ..base.registry import register
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel
from .numpy_engine import row_sums

BATCH = 1 << 20  # distances computed at once by the numpy kernels' nearest-neighbour searches


@kernel(cache=True, nogil=True)
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
        engine.insert_nearest(dist, out, s, j)  # (the compiled engine's: this kernel runs compiled only)


@kernel(cache=True, nogil=True)
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


def _nearest(Z, rows, ids, k):
    """For every record of ``rows``, the ``k`` records of ``ids`` (ascending) nearest to it by (squared distance
    summed attribute by attribute, row index), ascending: ``knn_group`` for many records at once."""
    X = np.ascontiguousarray(Z[ids].T)
    out = np.empty((rows.shape[0], k), np.int64)
    step = max(1, BATCH // max(ids.shape[0], 1))
    for a in range(0, rows.shape[0], step):
        Q = Z[rows[a:a + step]]
        D = np.square(X[0] - Q[:, :1])
        for t in range(1, X.shape[0]):
            D += np.square(X[t] - Q[:, t:t + 1])
        part = np.argpartition(D, k - 1, axis=1)[:, :k] if ids.shape[0] > k else np.tile(np.arange(k), (len(Q), 1))
        r = np.arange(len(Q))[:, None]
        kth = D[r, part].max(axis=1)
        plain = (D <= kth[:, None]).sum(axis=1) == k  # no tie at the k-th distance: the k are those of part
        order = np.lexsort((ids[part], D[r, part]), axis=1)
        out[a:a + step][plain] = ids[np.take_along_axis(part, order, axis=1)][plain]
        for b in np.flatnonzero(~plain):
            near = np.flatnonzero(D[b] <= kth[b])  # the k nearest and their ties, by (distance, index)
            out[a + b] = ids[near[np.argsort(D[b, near], kind="stable")[:k]]]
    return out


def _sums(Z, nbr):
    """Sum of the records of every row of ``nbr``, added in its order."""
    r, k = nbr.shape
    return row_sums(np.ascontiguousarray(Z[nbr].transpose(1, 0, 2)).reshape(k, -1)).reshape(r, -1)


@gsms_kernel.numpy
def _gsms_numpy(Z, k):
    """``gsms_kernel`` vectorized: the same candidates, sums and choices, the searches of a step done together."""
    n = Z.shape[0]
    alive = np.ones(n, np.bool_)
    nbr = _nearest(Z, np.arange(n), np.arange(n), k)
    SG = _sums(Z, nbr)
    SR = row_sums(Z)
    labels = np.full(n, -1, np.int64)
    m, g = n, 0
    while m >= 2 * k:
        live = np.flatnonzero(alive)
        gap = SG[live].T / k - (SR / m)[:, None]
        best = live[int(np.argmax(row_sums(gap * gap)))]  # first maximum: the lowest row
        for j in np.sort(nbr[best]):
            alive[j] = False
            labels[j] = g
            SR -= Z[j]
        m -= k
        g += 1
        lost = live[alive[live] & ~alive[nbr[live]].all(axis=1)]  # candidates that lost a member: search again
        if lost.shape[0]:
            nbr[lost] = _nearest(Z, lost, np.flatnonzero(alive), k)
            SG[lost] = _sums(Z, nbr[lost])
    labels[alive] = g
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
