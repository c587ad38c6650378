"""Brute-force engine of MDAV for small runs: the queries of ``engine.py`` answered by checking every live record.

The same interface and the same answers as the screened engine (every decision on ``engine.sqdist``, the lowest
record index winning ties, the running sum updated in ascending record order), without its copies, screens and
radial index. Below ``MAX`` records a run on it takes a few milliseconds more than on the screened engine, and its
kernel compiles in about a third of the time (the first call on a new machine; benchmarks/README.md). ``mdav.py``
runs the same MDAV loop on it (``version_of``) below ``MAX`` records.
"""

from __future__ import annotations

import sys
import types

import numpy as np
from numba import jit, njit

from .engine import NONE, SHELLS, assign_rest, insert_nearest, sqdist, start

__all__ = ["MAX", "SHELLS", "around", "assign_rest", "build_index", "emit", "farthest_from_centroid", "start",
           "version_of"]

MAX = 1200  # runs on fewer records use this engine (read at the call)


def version_of(kernel):
    """The compiled partitioner ``kernel`` (written against ``engine``) compiled once more on this engine: the same
    Python code, with the name ``engine`` bound to this module, cached on disk as ``<name>_brute``. One loop, two
    engines, so the two cannot drift apart. The other names of the kernel's module are taken as they are now: call
    this after the helpers the kernel uses are defined."""
    f = kernel.py_func
    scope = dict(f.__globals__, engine=sys.modules[__name__])
    g = types.FunctionType(f.__code__, scope, f.__name__ + "_brute", f.__defaults__, f.__closure__)
    g.__qualname__, g.__module__, g.__doc__ = f.__qualname__ + "_brute", f.__module__, f.__doc__
    return jit(cache=True, **kernel.targetoptions)(g)


@njit(cache=True)
def build_index(Z, alive, c0, zmax2, chunks, cand, pmin, shells):
    """(c0, pos, live records, radii, state) as ``engine.build_index`` returns them; here the live records in
    ascending order stand for the radial order (no radii) and the state is (live records, live flags, None, their
    number): the caller rebuilds it once a quarter of them are gone (``state[3]``, as in the screened engine's)."""
    ids = np.flatnonzero(alive)
    return c0, ids, ids, np.empty(0), (ids, alive, None, ids.shape[0])


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
    ids, alive = screen[0], screen[1]
    fd, f = -1.0, np.int64(-1)
    bd = np.full(k, np.inf)
    bi = np.full(k, NONE)
    for i in ids:
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
