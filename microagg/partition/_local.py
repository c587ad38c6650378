"""Exact searches around a group being formed, shared by V-MDAV, CV-MDAV and IAMAT.

These methods grow a group by repeated queries: the nearest records outside the
group of a member, the k nearest to a candidate y_j, the record nearest to the
group's centroid. Each query has one exact answer in the engine's arithmetic
(``_mdav_kernel._sqdist``: squared distances summed attribute by attribute; the
lowest row index wins ties), and is answered

1. from the *prefix*: the L = 8k + 8 live records nearest to the group's seed q,
   fetched once per group by one screened pass of the MDAV engine (``_around``)
   and sorted by (squared distance, index). A record at distance rho from q is at
   least rho - |p - q| from a point p, so a scan of the prefix in that order stops,
   with a proven answer, once the bound exceeds the current answer by a relative
   margin of 1e-9 (far above float64 rounding). This succeeds on data of low
   intrinsic dimension, such as the CASC sets;
2. otherwise by one screened pass over the live records.

Cost: one pass per group and, where the bound is weak (high intrinsic dimension),
one pass per query: O(k) passes per group, O(n^2 d) in all. Every added record
needs an exact nearest-neighbour query, so this family cannot do better without a
spatial index, and indexes do not prune in ~10 dimensions (a scipy cKDTree query
on 10^5 records of N(0, I_10) takes longer than a screened pass).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _mdav_kernel as mk
from .mdav import call_kernel

FULL_MIN = 512   # prefixes longer than this (or a quarter of the live records) are sorted in full
SLACK = 1e-9     # relative margin of every pruning test
NONE = np.iinfo(np.int64).max


@njit(cache=True)
def prefix_size(k):
    """Records fetched around a seed: enough for the searches of one group on low-dimensional data."""
    return 8 * k + 8


@njit(cache=True)
def prefix(Z, q, L, screen, alive, n_live):
    """The ``L`` live records nearest to ``q`` by (squared distance, index): (ids, squared distances, complete).

    ``complete`` is True when the prefix holds every live record.
    """
    if L >= n_live or L > FULL_MIN or 4 * L >= n_live:
        ids = screen[1]
        live = np.empty(n_live, np.int64)
        m = 0
        for i in ids:
            if alive[i]:
                live[m] = i
                m += 1
        d2 = np.empty(m)
        for j in range(m):
            d2[j] = mk._sqdist(Z, live[j], q)
        order = np.argsort(d2, kind="mergesort")  # stable: ties stay in index order
        L = min(L, m)
        return live[order[:L]].copy(), d2[order[:L]].copy(), L == m
    _, ids = mk._around(Z, q, L, False, screen)
    d2 = np.empty(L)
    for j in range(L):
        d2[j] = mk._sqdist(Z, ids[j], q)
    return ids, d2, False


@njit(cache=True)
def beyond(rho, off, best):
    """True when every record at distance >= ``rho`` from q is farther than ``best`` from a point ``off`` from q."""
    return rho - off > best + SLACK * (rho + off + best) + 1e-300


@njit(cache=True)
def knn(Z, pid, pd2, complete, p, dpq, m, skip, skipid, out_i, out_d):
    """The ``m`` records of the prefix nearest to point ``p`` (``dpq`` = |p - q|), skipping ``skip`` and ``skipid``.

    Fills ``out_i``/``out_d`` sorted by (squared distance, index). Returns False
    when records outside the prefix could still qualify (extend the prefix).
    """
    for j in range(m):
        out_d[j] = np.inf
        out_i[j] = NONE
    cnt = 0
    L = pid.shape[0]
    for j in range(L):
        if cnt == m and beyond(np.sqrt(pd2[j]), dpq, np.sqrt(out_d[m - 1])):
            return True
        i = pid[j]
        if skip[i] or i == skipid:
            continue
        s = mk._sqdist(Z, i, p)
        if s < out_d[m - 1] or (s == out_d[m - 1] and i < out_i[m - 1]):
            a = m - 1
            while a > 0 and (s < out_d[a - 1] or (s == out_d[a - 1] and i < out_i[a - 1])):
                out_d[a] = out_d[a - 1]
                out_i[a] = out_i[a - 1]
                a -= 1
            out_d[a] = s
            out_i[a] = i
            cnt = min(cnt + 1, m)
    if complete:
        return cnt == m
    return cnt == m and beyond(np.sqrt(pd2[L - 1]), dpq, np.sqrt(out_d[m - 1]))


@njit(cache=True)
def outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
    """The ``m`` live records nearest to point ``p`` (``dpq`` = |p - q|) that are neither in ``skip`` nor ``skipid``.

    ``nskip`` is the number of records flagged in ``skip``. Returns (ids, squared
    distances), sorted and exact, fewer than ``m`` only if fewer exist. Answered
    from the prefix when its bounds allow, otherwise by one screened pass over the
    live records for the m + nskip + 1 nearest, which always hold m valid ones.
    """
    m = max(0, min(m, n_live - nskip - (1 if skipid >= 0 and not skip[skipid] else 0)))
    out_i = np.empty(m, np.int64)
    out_d = np.empty(m)
    if m == 0 or knn(Z, pid, pd2, complete, p, dpq, m, skip, skipid, out_i, out_d):
        return out_i, out_d
    ids, d2, _ = prefix(Z, p, min(n_live, m + nskip + 1), screen, alive, n_live)
    a = 0
    for j in range(ids.shape[0]):
        i = ids[j]
        if a < m and not skip[i] and i != skipid:
            out_i[a] = i
            out_d[a] = d2[j]
            a += 1
    return out_i, out_d


@njit(cache=True)
def close_group(Z, X, pos, acc, members, g, labels, alive, S, ing):
    """Emit group g of ``members`` (label, remove from the screen and the running sum) and clear their flags."""
    mk._emit(Z, X, pos, acc, members, g, labels, alive, S)
    for a in range(members.shape[0]):
        ing[members[a]] = False


PARALLEL_MIN = 1 << 18  # these methods make about one pass per record: threads pay off only on long passes


def run(kernel, Z, *args, parallel_min: int = PARALLEL_MIN, threads: int | None = None):
    """Call a compiled partitioner with the thread count (``mdav.call_kernel``: the engine's lock when it can thread).

    Passes split over threads only above ``parallel_min`` live records: with one
    short pass per added record, thread start-up outweighs the split (V-MDAV,
    10^5 records, k = 10 on 2 cores: 15.5 s on one thread, 18.9 s on two, and 60 s
    on two when another process keeps a core busy). ``threads`` overrides ``mdav.kernel_threads()``.
    """
    return call_kernel(kernel, Z, *args, parallel_min=parallel_min, threads=threads)


def params(method: str, **values) -> dict:
    """``values`` checked against the registered parameters of partition ``method`` (clear errors)."""
    from ..registry import get_method

    return get_method("partition", method).resolve(values)
