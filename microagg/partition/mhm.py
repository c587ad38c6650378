"""MHM, multivariate Hansen–Mukherjee microaggregation along a path (Domingo-Ferrer, Martínez-Ballesté, Mateo-Sanz
& Sebé 2006; the travelling-salesman variant of Maya-López, Casino & Solanas 2021; docs/methods.md §2.16).

The records are put in the order of a path through all of them, and the path is cut optimally into groups of
k..2k-1 consecutive records by the Hansen–Mukherjee dynamic program (``optimal.hm_breaks``), a block costing its
multivariate SSE. The path is a *nearest-point-next* tour: it starts at the record farthest from the centroid
of the data and goes on to the nearest record not yet visited (squared distances; the lowest row index wins
every tie, docs/methods.md §0). With ``two_opt`` the open path is shortened by 2-opt moves (reverse a stretch
when that makes the path strictly shorter, Euclidean lengths) before it is cut; the moves are taken first-found
in a fixed scan order until a whole scan finds none (docs/methods.md §5, decision 40).

Cost: the path is O(n^2 d) time, every 2-opt scan O(n^2 d), the program O(n k d); memory O(n d).
"""

from __future__ import annotations

import numpy as np

from ..base.registry import Param, register
from .geometry import in_range
from .kernels import kernel
from .numpy_engine import row_sums, sqdists
from .optimal import hm_breaks

TWO_OPT_MARGIN = 1e-12  # a 2-opt move must shorten the path by more than this share of the two edges it removes
@kernel(cache=True, nogil=True)
def _sqdist(Z, a, b):
    s = 0.0
    for t in range(Z.shape[1]):
        u = Z[a, t] - Z[b, t]
        s += u * u
    return s


@kernel(cache=True, nogil=True)
def farthest(Z, rows, c):
    """The record of ``rows`` (ascending) farthest from the point ``c`` (squared distance; lowest row on ties)."""
    best, far = -1, -1.0
    for i in rows:
        s = 0.0
        for t in range(Z.shape[1]):
            u = Z[i, t] - c[t]
            s += u * u
        if s > far:
            best, far = i, s
    return best


@farthest.numpy
def _farthest_numpy(Z, rows, c):
    return rows[int(np.argmax(sqdists(np.ascontiguousarray(Z[rows].T), c)))]  # first maximum: rows ascending


@kernel(cache=True, nogil=True)
def nearest_point_next(Z):
    """The records in nearest-point-next order from the record farthest from the centroid (ties: lowest row)."""
    n, d = Z.shape
    c = np.zeros(d)
    for i in range(n):
        c += Z[i]
    c /= n
    start = farthest(Z, np.arange(n), c)
    left = np.arange(n)  # records not yet visited (compacted; order not kept, ties compare row indices)
    left[start], left[n - 1] = left[n - 1], left[start]
    path = np.empty(n, np.int64)
    path[0] = start
    for step in range(1, n):
        cur = path[step - 1]
        best, bpos, bd = -1, -1, np.inf
        for p in range(n - step):
            j = left[p]
            s = _sqdist(Z, cur, j)
            if s < bd or (s == bd and j < best):
                best, bpos, bd = j, p, s
        path[step] = best
        left[bpos] = left[n - step - 1]
    return path


@nearest_point_next.numpy
def _nearest_point_next_numpy(Z):
    """``nearest_point_next`` vectorized: one pass per step over a column-major copy of the records not yet
    visited, rebuilt once a quarter of it is visited (ties: the first minimum, the lowest row)."""
    n = Z.shape[0]
    path = np.empty(n, np.int64)
    path[0] = cur = _farthest_numpy(Z, np.arange(n), row_sums(Z) / n)
    visited = np.zeros(n, np.bool_)
    visited[cur] = True
    ids, Xt, dead = np.arange(n), np.ascontiguousarray(Z.T), 1
    for step in range(1, n):
        if 4 * dead > ids.shape[0]:
            ids = ids[~visited[ids]]
            Xt, dead = np.ascontiguousarray(Z[ids].T), 0
        d2 = sqdists(Xt, Z[cur])
        d2[visited[ids]] = np.inf
        path[step] = cur = ids[int(np.argmin(d2))]
        visited[cur] = True
        dead += 1
    return path


@kernel(cache=True, nogil=True)
def _edge2(Z, path, a, b):
    """Squared length between path positions a and b; 0 when either lies outside the path (open ends)."""
    if a < 0 or b >= path.shape[0]:
        return 0.0
    return _sqdist(Z, path[a], path[b])


@kernel(cache=True, nogil=True)
def two_opt(Z, path):
    """``path`` shortened in place by 2-opt moves on the open path; returns the number of moves made.

    A move reverses positions a+1..b (a from -1, b up to n-1: the ends may move too) when the two new edges are
    shorter than the two removed ones by more than ``TWO_OPT_MARGIN`` of the latter (Euclidean lengths). Scans
    go a = -1, 0, ..., b = a+2, ...; a move is made as soon as it is found and the scan goes on; scans repeat
    until one finds none. A pair is skipped without square roots when neither new edge is shorter than the
    removed edge it shares an end with (then no move can shorten the path).
    """
    n = path.shape[0]
    moves = 0
    improved = True
    while improved:
        improved = False
        for a in range(-1, n - 2):
            first2 = _edge2(Z, path, a, a + 1)
            for b in range(a + 2, n):
                if a == -1 and b == n - 1:
                    continue
                second2 = _edge2(Z, path, b, b + 1)
                new_a2 = _edge2(Z, path, a, b)
                new_b2 = _edge2(Z, path, a + 1, b + 1)
                if new_a2 >= first2 and new_b2 >= second2:
                    continue
                old = np.sqrt(first2) + np.sqrt(second2)
                if old - (np.sqrt(new_a2) + np.sqrt(new_b2)) > TWO_OPT_MARGIN * old:
                    path[a + 1:b + 1] = path[a + 1:b + 1][::-1].copy()
                    first2 = _edge2(Z, path, a, a + 1)
                    moves += 1
                    improved = True
    return moves


@two_opt.numpy
def _two_opt_numpy(Z, path):
    """``two_opt`` vectorized: for each a, the candidates b of one scan tested together; after a move the scan goes
    on from b + 1 with the new path, as the loop does. Squared lengths as ``_sqdist`` sums them (a reversed
    stretch keeps its edges' lengths: (x - y)^2 = (y - x)^2 exactly)."""
    n = path.shape[0]
    P = np.ascontiguousarray(Z[path].T)  # the records in path order, column-major
    E = np.zeros(n)  # E[p]: squared length of edge (p, p + 1); 0 past the end
    E[:-1] = row_sums(np.square(P[:, 1:] - P[:, :-1]))
    moves = 0
    improved = True
    while improved:
        improved = False
        for a in range(-1, n - 2):
            b0 = a + 2
            while b0 < n:
                b = np.arange(b0, n if a >= 0 else n - 1)  # (a = -1 and b = n - 1: not a move)
                if b.shape[0] == 0:
                    break
                first2 = E[a] if a >= 0 else 0.0
                second2 = E[b]
                new_a2 = sqdists(P[:, b], P[:, a]) if a >= 0 else np.zeros(b.shape[0])
                new_b2 = np.zeros(b.shape[0])
                inner = b < n - 1
                new_b2[inner] = sqdists(P[:, b[inner] + 1], P[:, a + 1])
                old = np.sqrt(first2) + np.sqrt(second2)
                move = ~((new_a2 >= first2) & (new_b2 >= second2)) & (
                    old - (np.sqrt(new_a2) + np.sqrt(new_b2)) > TWO_OPT_MARGIN * old)
                hit = np.flatnonzero(move)
                if hit.shape[0] == 0:
                    break
                j = hit[0]
                bb = int(b[j])
                path[a + 1:bb + 1] = path[a + 1:bb + 1][::-1].copy()
                P[:, a + 1:bb + 1] = P[:, a + 1:bb + 1][:, ::-1].copy()
                E[a + 1:bb] = E[a + 1:bb][::-1].copy()
                if a >= 0:
                    E[a] = new_a2[j]
                E[bb] = new_b2[j]
                moves += 1
                improved = True
                b0 = bb + 1
    return moves


@kernel(cache=True, nogil=True)
def path_labels(Z, path, k):
    """Labels of the optimal cut of ``path`` into groups of k..2k-1 consecutive records, numbered along it."""
    n = path.shape[0]
    xs = np.empty((n, Z.shape[1]))
    for i in range(n):
        xs[i] = Z[path[i]]
    starts = hm_breaks(xs, k)
    labels = np.empty(n, np.int64)
    g = 0
    for p in range(n):
        if g + 1 < starts.shape[0] and p == starts[g + 1]:
            g += 1
        labels[path[p]] = g
    return labels


@path_labels.numpy
def _path_labels_numpy(Z, path, k):
    starts = hm_breaks.on_numpy()(Z[path], k)
    block = np.zeros(path.shape[0], np.int64)
    block[starts[1:]] = 1
    labels = np.empty(path.shape[0], np.int64)
    labels[path] = np.cumsum(block)
    return labels


@kernel(cache=True, nogil=True)
def mhm_kernel(Z, k, improve):
    path = nearest_point_next(Z)
    if improve:
        two_opt(Z, path)
    return path_labels(Z, path, k)


@register(
    "partition", "mhm",
    bounded=True,
    title="MHM (path + Hansen–Mukherjee)",
    summary="The records ordered along a nearest-point-next path (optionally shortened by 2-opt) and the path "
            "cut optimally into groups of k..2k-1 consecutive records (Hansen–Mukherjee dynamic program).",
    source="Domingo-Ferrer, Martínez-Ballesté, Mateo-Sanz & Sebé 2006; Maya-López, Casino & Solanas 2021 (2-opt)",
    params=(Param("two_opt", "bool", False, "shorten the path by 2-opt moves before cutting it (O(n²) per scan)",
                  source="Maya-López, Casino & Solanas 2021", label="2-opt path"),),
)
def mhm(Z, k: int, two_opt: bool = False) -> np.ndarray:
    """Group labels 0..m-1 (along the path) of MHM on standardized ``Z``: groups of k..2k-1 records."""
    return mhm_kernel(in_range(Z), k, two_opt)
