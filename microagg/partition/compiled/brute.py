"""Brute-force engine of the MDAV family for small runs: the queries of ``engine.py`` answered by checking every
live record.

The same interface and the same answers as the screened engine (every decision on ``engine.sqdist``, the lowest
record index winning ties, the running sum updated in ascending record order), without its copies, screens and
radial index. Below ``MAX`` records a run on it takes a few milliseconds more than on the screened engine, and its
kernels compile in about a third of the time (the first call on a new machine; benchmarks/README.md). Compiled
runs of MDAV, V-MDAV, CV-MDAV and IAMAT on fewer than ``MAX`` records run their loop on it (``kernels.run``: the
same Python code, compiled a second time with the name ``engine`` bound to this module, so the two cannot drift
apart); MD does not (it takes its heap's bounds from the radial order's radii, which this engine does not compute).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine import NONE, SHELLS, assign_rest, insert_nearest, knn, prefix_size, sqdist, start

__all__ = ["MAX", "NONE", "SHELLS", "around", "assign_rest", "build_index", "close_group", "emit",
           "farthest_from_centroid", "outside", "prefix", "prefix_size", "sqdist", "start"]

MAX = 1200  # runs on fewer records use this engine (read at the call)


@njit(cache=True)
def build_index(Z, alive, c0, zmax2, chunks, cand, pmin, shells):
    """(c0, pos, live records, radii, state) as ``engine.build_index`` returns them; here the live records in
    ascending order stand for the radial order (no radii) and the state is (live flags, live records, None, their
    number): as in the screened engine's, ``state[1]`` holds the records and ``state[3]`` their number (the caller
    rebuilds the state once a quarter of them are gone)."""
    ids = np.flatnonzero(alive)
    return c0, ids, ids, np.empty(0), (alive, ids, None, ids.shape[0])


@njit(cache=True)
def farthest_from_centroid(Z, alive, rid, rrho, start, c, c0, zmax2):
    """First maximum of |z - c| over the live records ``rid``; returns (record, ``start``)."""
    best = -1.0
    bid = -1
    for i in rid:
        if alive[i]:
            s = sqdist(Z, i, c)
            if s > best or (s == best and i < bid):
                best = s
                bid = i
    return bid, start


@njit(cache=True, inline="always")
def around(Z, q, k, far, screen):
    """Exact (farthest record or -1, k nearest records) from ``q`` over the live records. (Inlined, with
    ``np.int64(k)`` and ``bool(far)``, as ``engine.around``: no version compiled per literal.)"""
    return _around(Z, q, np.int64(k), bool(far), screen)


@njit(cache=True)
def _around(Z, q, k, far, screen):
    alive, ids = screen[0], screen[1]
    fd, f = -1.0, np.int64(-1)
    bd = np.full(k, np.inf)
    bi = np.full(k, NONE)
    for i in ids:  # (``engine._decide``'s rules on scalars: its arrays made MDAV 1.5-1.75 times slower here)
        if alive[i]:
            s = sqdist(Z, i, q)
            if far and (s > fd or (s == fd and i < f)):
                fd, f = s, i
            insert_nearest(bd, bi, s, i)
    return f, bi


@njit(cache=True)
def emit(Z, screen, pos, members, g, labels, alive, S):
    """Make group ``g`` of ``members``; update the running sum in ascending record order."""
    order = members.copy()
    for a in range(1, order.shape[0]):  # (insertion sort of k records: no sort kernel to compile)
        i, b = order[a], a
        while b > 0 and order[b - 1] > i:
            order[b] = order[b - 1]
            b -= 1
        order[b] = i
    for i in order:
        labels[i] = g
        alive[i] = False
        for t in range(Z.shape[1]):
            S[t] -= Z[i, t]


@njit(cache=True)
def close_group(Z, screen, pos, members, g, labels, alive, S, ing):
    """``emit`` group ``g`` and clear its members' flags in ``ing``."""
    emit(Z, screen, pos, members, g, labels, alive, S)
    for a in range(members.shape[0]):
        ing[members[a]] = False


@njit(cache=True)
def prefix(Z, q, L, screen, alive, n_live):
    """The ``L`` live records nearest to ``q`` by (squared distance, index): (ids, squared distances, complete), as
    ``engine.prefix`` returns them; complete when they are all the live records."""
    L = min(L, n_live)
    _, ids = around(Z, q, L, False, screen)
    d2 = np.empty(L)
    for j in range(L):
        d2[j] = sqdist(Z, ids[j], q)
    return ids, d2, L >= n_live


@njit(cache=True, inline="always")
def outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
    """The ``m`` live records nearest to ``p`` (``dpq`` = |p - q|) that are neither flagged in ``skip`` (``nskip``
    of them) nor ``skipid``: (ids, squared distances), sorted, fewer only if fewer exist. As ``engine.outside``:
    from the prefix ``pid`` when its bounds allow (``engine.knn``), else from every live record. (Inlined, with
    int64 counts, as there.)"""
    return _outside(Z, p, dpq, np.int64(m), skip, np.int64(nskip), np.int64(skipid), pid, pd2, complete, screen,
                    n_live)


@njit(cache=True)
def _outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, n_live):
    m = max(0, min(m, n_live - nskip - (1 if skipid >= 0 and not skip[skipid] else 0)))
    out_i = np.empty(m, np.int64)
    out_d = np.empty(m)
    if m == 0 or knn(Z, pid, pd2, complete, p, dpq, m, skip, skipid, out_i, out_d):
        return out_i, out_d
    alive, ids = screen[0], screen[1]
    out_d[:] = np.inf
    out_i[:] = NONE
    for i in ids:
        if alive[i] and not skip[i] and i != skipid:
            insert_nearest(out_d, out_i, sqdist(Z, i, p), i)
    return out_i, out_d
