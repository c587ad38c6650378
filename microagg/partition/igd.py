"""IGD, iterative group decomposition: a refinement of any partition (Khomnotai, Lin, Peng & Samanta 2018;
docs/methods.md §2.18).

Rounds of three operations on a partition with every group >= k, each accepted only when it lowers the SSE:

* **Decompose** a group p (groups in id order): its records, in row order, join one by one the other group
  whose SSE grows least, n_q/(n_q+1) ||x - c_q||^2 (Ward 1963); kept when the total change, -SSE(p) plus
  those growths, is negative, else undone;
* **Shrink** a group p of more than k records: move the record of p, and the group it joins, that lower the SSE
  most, -n_p/(n_p-1) ||x - c_p||^2 + n_q/(n_q+1) ||x - c_q||^2, while that is negative and p keeps >= k;
* **Split** every group of 2k or more records after each of the two: while it holds >= 2k, its record farthest
  from its centroid and the k-1 records nearest to the growing group's centroid become a new group (a
  split never raises the SSE).

Rounds repeat until one changes nothing. A change must lower the SSE by more than ``MARGIN`` times the SSE of
the data as one group, and a whole round must lower the SSE recomputed from fresh sums, else the round is undone
and the refinement stops: the running sums' rounding can make a move look better than it is, and without that
check two such moves could undo each other for ever. The output's SSE,
recomputed in two passes, is compared with the input's, and the input is returned if the output's is higher
(never worse; rounding is the only way that can happen). Every group of the output has k..2k-1 records
(unless the input is returned).
Ties: lowest row index, then lowest group id. Cost per round O(n^2 d / k) (each record against every group);
memory O(n d).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..base.checks import check_k
from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..base.registry import Method, partition_input
from .mhm import farthest, in_range

MARGIN = 1e-12
REFINEMENTS = ("none", "igd")


@njit(cache=True, nogil=True)
def _dist(Z, i, S, cnt, q):
    """||z_i - c_q||^2 with c_q = S[q] / cnt[q]."""
    s = 0.0
    for t in range(Z.shape[1]):
        u = Z[i, t] - S[q, t] / cnt[q]
        s += u * u
    return s


@njit(cache=True, nogil=True)
def _members(labels, p):
    return np.nonzero(labels == p)[0]


@njit(cache=True, nogil=True)
def _cheapest(Z, i, S, cnt, m, skip):
    """The group q != skip (cnt > 0) that record i joins at the least SSE growth, and that growth."""
    best, grow = -1, np.inf
    for q in range(m):
        if q == skip or cnt[q] == 0:
            continue
        c = cnt[q] / (cnt[q] + 1.0) * _dist(Z, i, S, cnt, q)
        if c < grow:
            best, grow = q, c
    return best, grow


@njit(cache=True, nogil=True)
def _move(Z, i, p, q, labels, S, cnt):
    S[p] -= Z[i]
    cnt[p] -= 1
    S[q] += Z[i]
    cnt[q] += 1
    labels[i] = q


@njit(cache=True, nogil=True)
def _decompose(Z, p, labels, S, cnt, m, tol):
    """Dissolve group p into the others if that lowers the SSE by more than tol."""
    rows = _members(labels, p)
    delta = 0.0
    for i in rows:
        delta -= cnt[p] / (cnt[p] - 1.0) * _dist(Z, i, S, cnt, p) if cnt[p] > 1 else 0.0
        S[p] -= Z[i]
        cnt[p] -= 1
        q, grow = _cheapest(Z, i, S, cnt, m, p)
        if q < 0:  # no other group: undo below
            S[p] += Z[i]
            cnt[p] += 1
            delta = 0.0
            break
        delta += grow
        S[q] += Z[i]
        cnt[q] += 1
        labels[i] = q
    if delta < -tol:
        S[p] = 0.0
        return True
    for i in rows[::-1]:  # undo
        if labels[i] != p:
            _move(Z, i, labels[i], p, labels, S, cnt)
    return False


@njit(cache=True, nogil=True)
def _shrink(Z, p, k, labels, S, cnt, m, tol):
    """Move records out of group p while a move lowers the SSE by more than tol and p keeps >= k records."""
    moved = False
    while cnt[p] > k:
        bi, bq, bd = -1, -1, -tol
        for i in _members(labels, p):
            loss = cnt[p] / (cnt[p] - 1.0) * _dist(Z, i, S, cnt, p)
            q, grow = _cheapest(Z, i, S, cnt, m, p)
            if grow - loss < bd:
                bi, bq, bd = i, q, grow - loss
        if bi < 0:
            break
        _move(Z, bi, p, bq, labels, S, cnt)
        moved = True
    return moved


@njit(cache=True, nogil=True)
def _split(Z, k, labels, S, cnt, m):
    """Split every group of >= 2k records (module docstring); returns the new number of group ids."""
    d = Z.shape[1]
    for p in range(m):
        while cnt[p] >= 2 * k:
            rows = _members(labels, p)
            r = farthest(Z, rows, S[p] / cnt[p])
            new = 0
            while new < m and cnt[new] > 0:  # the id of a dissolved group, else a new one
                new += 1
            _move(Z, r, p, new, labels, S, cnt)
            while cnt[new] < k:
                c = S[new] / cnt[new]
                b, near = -1, np.inf
                for i in rows:
                    if labels[i] != p:
                        continue
                    s = 0.0
                    for t in range(d):
                        u = Z[i, t] - c[t]
                        s += u * u
                    if s < near:
                        b, near = i, s
                _move(Z, b, p, new, labels, S, cnt)
            if new == m:
                m += 1
    return m


@njit(cache=True, nogil=True)
def igd_kernel(Z, labels, k, tol):
    """Refined labels (group ids not yet consecutive) of ``labels`` (consecutive ids, every group >= k)."""
    n, d = Z.shape
    labels = labels.copy()
    cap = n // k + 1
    S = np.zeros((cap, d))
    cnt = np.zeros(cap, np.int64)
    m = labels.max() + 1
    for i in range(n):
        S[labels[i]] += Z[i]
        cnt[labels[i]] += 1
    m = _split(Z, k, labels, S, cnt, m)
    best = _sse(Z, labels, m)
    changed = True
    while changed:
        changed = False
        before = labels.copy()
        for p in range(m):
            if cnt[p] > 0 and _decompose(Z, p, labels, S, cnt, m, tol):
                changed = True
        m = _split(Z, k, labels, S, cnt, m)
        for p in range(m):
            if cnt[p] > k and _shrink(Z, p, k, labels, S, cnt, m, tol):
                changed = True
        m = _split(Z, k, labels, S, cnt, m)
        if changed:  # a round must lower the SSE recomputed from scratch: the running sums' rounding cannot cycle
            now = _sse(Z, labels, m)
            if not now < best:
                return before
            best = now
    return labels


@njit(cache=True, nogil=True)
def _sse(Z, labels, m):
    """Within-group SSE of ``labels`` (ids < m), centroids from fresh sums."""
    n, d = Z.shape
    S = np.zeros((m, d))
    cnt = np.zeros(m)
    for i in range(n):
        S[labels[i]] += Z[i]
        cnt[labels[i]] += 1
    s = 0.0
    for i in range(n):
        g = labels[i]
        for t in range(d):
            u = Z[i, t] - S[g, t] / cnt[g]
            s += u * u
    return s


def sse(Z: np.ndarray, labels: np.ndarray) -> float:
    """Within-group sum of squared errors, two passes (centroids first)."""
    sizes = np.bincount(labels)
    means = np.stack([np.bincount(labels, weights=Z[:, t]) for t in range(Z.shape[1])], axis=1) / sizes[:, None]
    return float(((Z - means[labels]) ** 2).sum())


def refined(Z: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """IGD on validated input (``labels`` consecutive ids, every group >= k): labels numbered by their group's
    first record, never of higher SSE than ``labels``."""
    Z = in_range(Z)
    before = sse(Z, labels)
    out = igd_kernel(Z, labels.astype(np.int64), k, MARGIN * sse(Z, np.zeros(len(Z), np.int64)))
    _, first, inverse = np.unique(out, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    out = rank[inverse.reshape(-1)]
    return out if sse(Z, out) <= before else labels


def igd_refine(Z, labels, k: int) -> np.ndarray:
    """IGD refinement of the partition ``labels`` of standardized ``Z`` (every group >= k): labels 0..m-1 of groups
    of k..2k-1 records whose SSE is never higher (docs/methods.md §2.18)."""
    Z, k = partition_input(Z, check_k(k))
    lab = check_labels(labels, Z.shape[0])  # one label per record
    if np.bincount(lab).min() < k:
        raise MicroaggError(f"labels have a group of {np.bincount(lab).min()} < k = {k} records: IGD refines a "
                            "partition whose groups all have at least k records.")
    return refined(Z, lab, k)


def check_refine(refine, part: Method) -> str:
    """``refine`` ("none" or "igd") checked against the partitioner ``part``: IGD moves records by the SSE of the
    masked columns alone, so it is refused after a method whose guarantee is about something else."""
    if refine not in REFINEMENTS:
        raise MicroaggError(f"refine must be one of {', '.join(map(repr, REFINEMENTS))}; got {refine!r}.")
    if refine == "none":
        return refine
    why = ("it groups each attribute separately (one labelling per attribute)" if not part.record_level else
           "its groups are chosen for the confidential columns too (diversity or t-closeness), which moving "
           "records by the SSE of the masked columns would break" if part.caps.uses_roles or part.caps.whole_table else
           "its order is fixed by the attribute bounds so that one record moves at most one member of each group "
           "(insensitivity, docs/methods.md §7.1), which moving records by SSE would break"
           if part.caps.units == "original" else "")
    if why:
        raise MicroaggError(f"refine={refine!r} cannot follow method '{part.name}': {why}. Leave refine out.")
    return refine
