"""The numpy engine of the MDAV family: the queries of ``compiled/engine.py`` answered by vectorized passes.

MDAV, V-MDAV, CV-MDAV, MD and IAMAT are loops written against an engine (``kernels.py``); on the numpy
kernels their loop runs as Python and asks this module. Every answer is the float64 definition the compiled
engines answer (docs/methods.md §0): squared distances summed attribute by attribute in column order, the lowest
record index winning every tie, for "nearest" and "farthest", and the running sum of the remaining records
updated in ascending record order. A query is one pass over a column-major copy of the live records, O(n d) as
``brute.py``'s, with numpy's per-call cost instead of a compile; the copy is rebuilt by the caller once a quarter
of it is dead (as the compiled engine's). On a large copy the pass is screened: one matrix-vector product gives
every distance within a bound of its rounding, and only the records the bound leaves in doubt are summed exactly
(``_pass``). The record farthest from the centroid is sought by decreasing distance from the copy's anchor, and
the nearest outsiders of a group's member (V-MDAV, CV-MDAV, IAMAT) in the prefix fetched about its seed first,
both with the compiled engine's bounds; the k smallest values of a pass are found without sorting or
partitioning all of them (``_at_most``).

The state this engine hands to the loop is its own: ``build_index`` returns (anchor, None, radial order, radii,
copy), where the compiled engine returns (anchor, positions, radial order, radii, index).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

SHELLS = 1  # (the compiled engine's radial shells of its integer copy: this engine has no such copy)
SLACK = 1e-9  # relative margin of a bound on distances (MD's first bounds on every record's farthest distance)
NONE = np.iinfo(np.int64).max  # an empty slot of a list of nearest records
U64 = 2.0 ** -53  # unit roundoff of float64
SCAN = 4  # up to this many smallest values are found by repeated minima, more by a sample's threshold
SAMPLE = 256  # values of a longer array sampled for that threshold
PREFIX_TRIES = 16  # queries of ``outside`` that try the prefix before its success rate decides
SCREEN_MIN = 2 ** 14  # values in a copy of the live records from which its passes are screened (``_pass``)


def sqdist(A, a, q) -> float:
    """Squared distance from row ``a`` of ``A`` to ``q``, summed attribute by attribute."""
    s = 0.0
    for x, y in zip(A[a].tolist(), np.asarray(q).tolist()):  # (Python floats: float64, one call per row)
        s += (x - y) * (x - y)
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
    D = np.subtract(Xt, np.asarray(q, dtype=np.float64)[:, None], order="C")  # (C order: the sum of row_sums)
    np.multiply(D, D, out=D)
    return row_sums(D)


def start(Z, chunks):
    """Fresh state of a run: (labels, alive, running sum S, largest squared norm, unused); S is the column sums, row
    by row."""
    n = Z.shape[0]
    zmax2 = float(np.einsum("ij,ij->i", Z, Z).max()) if n else 0.0
    return np.full(n, -1, np.int64), np.ones(n, np.bool_), row_sums(np.ascontiguousarray(Z)), zmax2, None


class Copy(NamedTuple):
    """The live records as this engine keeps them (the loops read ``[1]``, ``[2]`` and ``[3]``, as they read the
    compiled engine's index)."""

    alive: np.ndarray  # the run's live flags
    ids: np.ndarray  # the records copied, ascending
    Xt: np.ndarray  # their values, column-major (d, m)
    m: int  # their number
    Yt: np.ndarray | None  # for a copy of at least SCREEN_MIN values the screen of ``_pass``: the records less c0,
    y2: np.ndarray | None  # their squared norms
    ymax: float  # and the largest norm (else None, None, 0)
    c0: np.ndarray  # the anchor
    pen: np.ndarray  # 0 for a live record, inf once ``emit`` took it
    tries: np.ndarray  # queries of ``outside`` that tried the prefix, and those it answered


def build_index(Z, alive, c0, zmax2, chunks, cand, pmin, shells):
    """A copy of the live records around anchor ``c0``: (``c0``, None, radial order, radii, ``Copy``). The radial
    order (records by decreasing distance to ``c0``, ties by index) and radii are those of the compiled engine (MD
    reads them)."""
    ids = np.flatnonzero(alive)
    Xt = np.ascontiguousarray(Z[ids].T)
    rho = np.sqrt(sqdists(Xt, c0))
    order = np.argsort(-rho, kind="mergesort")
    Yt, y2, ymax = None, None, 0.0
    if Xt.size >= SCREEN_MIN:
        Yt = Xt - c0[:, None]
        y2 = np.einsum("ij,ij->j", Yt, Yt)
        ymax = math.sqrt(y2.max())
    screen = Copy(alive, ids, Xt, ids.shape[0], Yt, y2, ymax, c0, np.zeros(ids.shape[0]), np.zeros(2, np.int64))
    return c0, None, ids[order], rho[order], screen


def _pass(screen, q):
    """Values v over the copy and a bound e: the squared distances to ``q`` and e = 0 on a small copy. On a large
    one v = |y|^2 - 2 y.(q - c0) for each record less c0 (y), a matrix-vector product instead of d passes:
    |q - c0|^2 plus v is within e of the squared distance as ``sqdists`` sums it (the rounding of the centring, of
    both sums and of the product, each at most (d + 2) 2^-53 (|y| + |q - c0|)^2, and underflow), so the
    selections below widen their cuts by 2e and decide on the exact distances of what remains."""
    if screen.Yt is None:
        return sqdists(screen.Xt, q), 0.0
    qc = q - screen.c0
    return screen.y2 - 2.0 * (qc @ screen.Yt), screen_bound(screen.Xt.shape[0], screen.ymax, math.sqrt(float(qc @ qc)))


def screen_bound(d, a, b):
    """How far a squared distance taken as |y|^2 + |z|^2 - 2 y.z from two points y, z of norms at most ``a`` and
    ``b`` about a common centre (both centred in float64) may lie from the same distance summed attribute by
    attribute: the rounding of the centring, of both sums and of the product are each within (d + 2) 2^-53 (a + b)^2;
    twice their sum, and the underflow of d terms."""
    return 8.0 * (d + 8) * U64 * (a + b) ** 2 + d * 2.0 ** -1000


def _nearest(screen, q, v, e, m, keep=None):
    """The ``m`` live records nearest to ``q`` by (squared distance, index) and their squared distances, from the
    values ``v`` within ``e`` of them (``_pass``); with ``keep``, among the copy's records it flags."""
    pen = screen.pen
    w = v + pen  # (dead: inf; live: v itself)
    if keep is not None:
        w[~keep] = np.inf
    pos, cut = _at_most(w, m, 2.0 * e) if 0 < m < w.shape[0] else (np.arange(w.shape[0]), np.inf)
    if cut == np.inf:  # (then the records left out are among them)
        pos = pos[pen[pos] == 0.0] if keep is None else pos[(pen[pos] == 0.0) & keep[pos]]
    return smallest(screen.ids[pos], sqdists(screen.Xt[:, pos], q) if e else v[pos], m)


def _farthest(screen, q, v, e) -> int:
    """The live record farthest from ``q``, the first among equals, from ``v`` within ``e`` of the squared
    distances."""
    w = v - screen.pen
    if not e:
        return first_max(screen.ids, w)
    pos = np.flatnonzero(w >= w.max() - 2.0 * e)
    return first_max(screen.ids[pos], sqdists(screen.Xt[:, pos], q))


def first_max(ids, d2) -> int:
    """The record of ``ids`` (ascending) with the largest ``d2``, the first one among equals."""
    return int(ids[int(np.argmax(d2))])  # first maximum: ``ids`` ascending


def smallest(ids, d2, m):
    """The ``m`` records of ``ids`` (ascending) with the smallest ``d2`` by (distance, index), and their ``d2``."""
    if 0 < m < d2.shape[0]:
        near, _ = _at_most(d2, m)
        ids, d2 = ids[near], d2[near]
    order = np.argsort(d2, kind="stable")[:m]
    return ids[order], d2[order]


def _at_most(d2, m, slack=0.0):
    """Positions of the values of ``d2`` at most ``slack`` above its ``m``-th smallest, perhaps a few more, and the
    cut they were taken below. ``np.partition`` of all of ``d2`` costs more than the pass that computed it: a few
    are found by repeated minima, more below the threshold of a sample (partitioned itself only if that leaves
    fewer than ``m``)."""
    n = d2.shape[0]
    if m <= SCAN:
        w = d2.copy()
        for _ in range(m - 1):
            w[w.argmin()] = np.inf
        cut = w.min() + slack
        return np.flatnonzero(d2 <= cut), cut
    if n >= 4 * SAMPLE and 8 * m < n:
        sample = d2[::n // SAMPLE]
        r = min(sample.shape[0] - 1, 2 * m * sample.shape[0] // n + 2)
        t = np.partition(sample, r)[r]
        near = np.flatnonzero(d2 <= t + slack)
        if np.count_nonzero(d2[near] <= t) >= m:  # (the m-th smallest is at most t: its cut is below t + slack)
            return near, t + slack
    cut = np.partition(d2, m - 1)[m - 1] + slack
    return np.flatnonzero(d2 <= cut), cut


def farthest_from_centroid(Z, alive, rid, rrho, start, c, c0, zmax2):
    """First maximum of |z - c| over the live records, read by decreasing |z - c0| (``rid``, radii ``rrho``) in
    blocks of growing size until |z - c0| + |c - c0| cannot reach the best one (the compiled engine's bound and
    slack: their rounding and underflow); returns (record, first live position of ``rid`` from ``start``)."""
    d = c.shape[0]
    drift = math.sqrt(sqdist(c.reshape(1, d), 0, c0))
    slack = 4.0 * (d + 3) * U64 * (zmax2 + float(np.dot(c, c))) + 8.0 * d * 2.0 ** -1000
    while start < rid.shape[0] - 1 and not alive[rid[start]]:  # (each dead record skipped once per copy)
        start += 1
    best, bid, j, size = -1.0, -1, start, 32
    while j < rid.shape[0]:
        ub = rrho[j] + drift
        if bid >= 0 and ub * ub * (1.0 + 1e-12) + slack < best:
            break
        block = rid[j:j + size]
        ids = np.sort(block[alive[block]])
        if ids.shape[0]:
            d2 = sqdists(Z[ids].T, c)
            i = int(np.argmax(d2))  # the first maximum: ``ids`` ascending
            if d2[i] > best or d2[i] == best and ids[i] < bid:
                best, bid = d2[i], int(ids[i])
        j += size
        size *= 2
    return bid, start


def around(Z, q, k, far, screen):
    """(farthest record or -1, the k nearest records by (distance, index)) from ``q`` among the live records."""
    v, e = _pass(screen, q)
    near, _ = _nearest(screen, q, v, e, k)
    return (_farthest(screen, q, v, e) if far else -1), near


def emit(Z, screen, pos, members, g, labels, alive, S):
    """Make group ``g`` of ``members``; update the running sum in ascending record order."""
    for i in np.sort(members):
        labels[i] = g
        alive[i] = False
        S -= Z[i]
    screen.pen[np.searchsorted(screen.ids, members)] = np.inf


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
    """Records fetched around a seed (``prefix``), as the compiled engine's."""
    return 8 * k + 8


def prefix(Z, q, L, screen, alive, n_live):
    """The ``L`` live records nearest to ``q`` by (squared distance, index): (ids, squared distances, complete)."""
    ids, d2 = _nearest(screen, q, *_pass(screen, q), L)
    return ids, d2, ids.shape[0] >= n_live


def beyond(rho, off, best) -> bool:
    """True when every record at distance >= ``rho`` from q is farther than ``best`` from a point ``off`` from q
    (the compiled engine's test)."""
    return rho - off > best + SLACK * (rho + off + best) + 2.0 ** -500


def outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
    """The ``m`` live records nearest to ``p`` that are neither flagged in ``skip`` nor ``skipid``: (ids, squared
    distances), sorted, fewer only if fewer exist. Answered from the prefix (``pid``, ``pd2``: the live records
    nearest to a point q, ``dpq`` from ``p``) when it holds every live record or when every record beyond it is
    farther from ``p`` than the m-th found (``beyond``), else by one pass over the live records. The prefix is
    tried while it answers at least half the queries since the copy was built (the answer is the same)."""
    tries = screen.tries
    if complete or tries[0] < PREFIX_TRIES or 2 * tries[1] >= tries[0]:  # (while it answers half the time)
        keep = ~skip[pid]
        if skipid >= 0:
            keep &= pid != skipid
        ids = np.sort(pid[keep])
        near, nd2 = smallest(ids, sqdists(Z[ids].T, p), m)
        tries[0] += 1
        if complete or m == 0 or nd2.shape[0] == m and beyond(math.sqrt(pd2[-1]), dpq, math.sqrt(nd2[-1])):
            tries[1] += 1
            return near, nd2
    keep = ~skip[screen.ids]
    if skipid >= 0:
        keep &= screen.ids != skipid
    return _nearest(screen, p, *_pass(screen, p), m, keep)
