"""The numpy engine of the MDAV family: the queries of ``compiled/engine.py`` answered by vectorized passes.

MDAV, V-MDAV, CV-MDAV, MD and IAMAT are loops written against an engine (``kernels.py``); on the numpy
kernels their loop runs as Python and asks this module. Every answer is the float64 definition the compiled
engines answer (docs/methods.md §0): squared distances summed attribute by attribute in column order, the lowest
record index winning every tie, for "nearest" and "farthest", and the running sum of the remaining records
updated in ascending record order. Each query is one pass over a column-major copy of the live records: O(n d)
per query, as ``brute.py``'s, with numpy's per-call cost instead of a compile. The copy is rebuilt by the caller
once a quarter of it is dead (as the compiled engine's).

The state this engine hands to the loop is its own: ``build_index`` returns (copy, None, radial order, radii,
copy), where the compiled engine returns (anchor, positions, ...); the loop only passes the first two back.
"""

from __future__ import annotations

import numpy as np

SHELLS = 1  # (the compiled engine's radial shells of its integer copy: this engine has no such copy)
SLACK = 1e-9  # relative margin of a bound on distances (MD's first bounds on every record's farthest distance)
NONE = np.iinfo(np.int64).max  # an empty slot of a list of nearest records


def sqdist(A, a, q) -> float:
    """Squared distance from row ``a`` of ``A`` to ``q``, summed attribute by attribute."""
    s = 0.0
    for t in range(q.shape[0]):
        diff = float(A[a, t]) - float(q[t])
        s += diff * diff
    return s


def row_sums(D: np.ndarray) -> np.ndarray:
    """The sum of every column of the C-ordered ``D``, added row after row: numpy reduces such an array over its
    first axis one row at a time, except a single column, which it would sum pairwise (a running sum here;
    tests/partition/test_numpy_engine.py checks both)."""
    if D.shape[1] != 1:
        return np.add.reduce(D, axis=0)
    return np.cumsum(D[:, 0])[-1:] if D.shape[0] else np.zeros(1)


def sqdists(Xt: np.ndarray, q) -> np.ndarray:
    """Squared distances from every column of ``Xt`` (d, m) to ``q``, as ``sqdist`` sums them."""
    D = Xt - np.asarray(q, dtype=np.float64)[:, None]
    np.multiply(D, D, out=D)
    return row_sums(D)


def start(Z, chunks):
    """Fresh state of a run: (labels, alive, running sum S, unused, unused); S is the column sums, row by row."""
    n = Z.shape[0]
    return np.full(n, -1, np.int64), np.ones(n, np.bool_), row_sums(np.ascontiguousarray(Z)), 0.0, None


def build_index(Z, alive, c0, zmax2, chunks, cand, pmin, shells):
    """A copy of the live records around anchor ``c0``: (copy, None, radial order, radii, copy), the copy being
    (live flags, live records ascending, their values column-major, their number). The radial order (records by
    decreasing distance to ``c0``, ties by index) and radii are those of the compiled engine (MD reads them)."""
    ids = np.flatnonzero(alive)
    Xt = np.ascontiguousarray(Z[ids].T)
    rho = np.sqrt(sqdists(Xt, c0))
    order = np.argsort(-rho, kind="mergesort")
    screen = (alive, ids, Xt, ids.shape[0])
    return screen, None, ids[order], rho[order], screen


def _live(screen, q):
    """(live records ascending, their squared distances to ``q``)."""
    alive, ids, Xt, _ = screen
    d2 = sqdists(Xt, q)
    live = alive[ids]
    return ids[live], d2[live]


def first_max(ids, d2) -> int:
    """The record of ``ids`` (ascending) with the largest ``d2``, the first one among equals."""
    return int(ids[int(np.argmax(d2))])  # first maximum: ``ids`` ascending


def smallest(ids, d2, m):
    """The ``m`` records of ``ids`` (ascending) with the smallest ``d2`` by (distance, index), and their ``d2``."""
    if m < d2.shape[0]:
        near = np.flatnonzero(d2 <= np.partition(d2, m - 1)[m - 1])  # the m smallest and their ties
        ids, d2 = ids[near], d2[near]
    order = np.argsort(d2, kind="stable")[:m]
    return ids[order], d2[order]


def farthest_from_centroid(Z, alive, rid, rrho, start, c, screen, zmax2):
    """First maximum of |z - c| over the live records; returns (record, ``start``)."""
    return first_max(*_live(screen, c)), start


def around(Z, q, k, far, screen):
    """(farthest record or -1, the k nearest records by (distance, index)) from ``q`` among the live records."""
    ids, d2 = _live(screen, q)
    near, _ = smallest(ids, d2, k)
    return (first_max(ids, d2) if far else -1), near


def emit(Z, screen, pos, members, g, labels, alive, S):
    """Make group ``g`` of ``members``; update the running sum in ascending record order."""
    for i in np.sort(members):
        labels[i] = g
        alive[i] = False
        S -= Z[i]


def close_group(Z, screen, pos, members, g, labels, alive, S, ing):
    """``emit`` group ``g`` and clear its members' flags in ``ing``."""
    emit(Z, screen, pos, members, g, labels, alive, S)
    ing[members] = False


def assign_rest(Z, labels, alive, m):
    """The records still alive (fewer than k) join their nearest of the m groups formed (lowest group among ties),
    whose centroids are member sums in ascending record order divided by the group size; returns them."""
    leftovers = np.flatnonzero(alive)
    if leftovers.shape[0]:
        done = np.flatnonzero(labels >= 0)
        C = np.zeros((m, Z.shape[1]))
        np.add.at(C, labels[done], Z[done])  # (in the order given: ascending records)
        C /= np.bincount(labels[done], minlength=m)[:, None]
        Ct = np.ascontiguousarray(C.T)
        for i in leftovers:
            d2 = sqdists(Ct, Z[i])
            j = int(np.argmin(np.where(np.isnan(d2), np.inf, d2)))
            if d2[j] < np.inf:
                labels[i] = j
    return leftovers


def prefix_size(k):
    """Records fetched around a seed (the compiled engine's size; here every query is one pass anyway)."""
    return 8 * k + 8


def prefix(Z, q, L, screen, alive, n_live):
    """The ``L`` live records nearest to ``q`` by (squared distance, index): (ids, squared distances, complete)."""
    ids, d2 = smallest(*_live(screen, q), L)
    return ids, d2, ids.shape[0] >= n_live


def outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
    """The ``m`` live records nearest to ``p`` that are neither flagged in ``skip`` nor ``skipid``: (ids, squared
    distances), sorted, fewer only if fewer exist (the prefix arguments are the compiled engine's shortcut)."""
    ids, d2 = _live(screen, p)
    keep = ~skip[ids]
    if skipid >= 0:
        keep &= ids != skipid
    return smallest(ids[keep], d2[keep], m)
