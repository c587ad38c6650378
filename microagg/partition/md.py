"""MD, maximum distance (Domingo-Ferrer & Mateo-Sanz 2002; Chettri, Paul & Dutta, §3; docs/methods.md §2.5).

Like MDAV, but the two seeds of an iteration are the two mutually most distant
unassigned records (r, s), r the smaller row index; G_r = r + its k-1 nearest, then
G_s = s + its k-1 nearest among the rest (if s fell into G_r, which needs massive
ties, s is re-chosen as the farthest remaining record from r, as in MDAV).

``tail="generic"`` (default; the 2002 control structure): the two-group step while
>= 3k records remain; with 2k..3k-1 left one more group around r of the farthest
pair and the rest as the last group; with k..2k-1 left, one group.
``tail="classic"`` (Chettri, Paul & Dutta's prose): the step while >= 2k remain; k..2k-1 left form a
group, fewer than k join the group with the nearest centroid. No seed table reports MD.

**Exact farthest pair without O(n^2) per iteration.** Every record i keeps a key:
either an upper bound of its largest squared distance to a live record (initially
(|x_i - a| + max_j |x_j - a|)^2 for the anchor a, with a 1e-9 margin), or the exact
value D(i) with the partner that attains it. Removing records only lowers the true
values, so the keys stay upper bounds. Repeatedly take the live record with the
largest key (a binary heap; lowest index among equal keys): if its key is exact and
its partner is still live, it is the diameter, and that record is the smallest index
of any farthest pair; otherwise compute its exact farthest live record (one screened
pass of the MDAV engine), update its key and look again. The pair is therefore
exactly the lexicographically smallest (i, j) of maximal squared distance. The
number of exact passes depends on the data (records near the boundary whose partner
was removed): about 3 per record on 10^5 records of N(0, I_10), 32 per record on
EIA, whose far outliers are everybody's partner. The literature's MD is O(n^3);
this one is O(n^2 d) times that count, with O(n d) memory.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import Param, register
from . import kernels
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel
from .numpy_engine import sqdists

TAILS = ("generic", "classic")
EXACT_BATCH = 32  # records whose farthest distance the numpy kernels compute together


@kernel(cache=True, nogil=True)
def _above(key, a, b):
    """Heap order: larger key first, lower index among equal keys."""
    return key[a] > key[b] or (key[a] == key[b] and a < b)


@kernel(cache=True, nogil=True)
def _swap(heap, pos, a, b):
    heap[a], heap[b] = heap[b], heap[a]
    pos[heap[a]] = a
    pos[heap[b]] = b


@kernel(cache=True, nogil=True)
def _sift(heap, pos, key, j, size):
    """Restore the order of the heap ``heap[:size]`` around slot ``j`` (up, then down)."""
    while j > 0 and _above(key, heap[j], heap[(j - 1) // 2]):
        _swap(heap, pos, j, (j - 1) // 2)
        j = (j - 1) // 2
    while 2 * j + 1 < size:
        c = 2 * j + 1
        if c + 1 < size and _above(key, heap[c + 1], heap[c]):
            c += 1
        if not _above(key, heap[c], heap[j]):
            return
        _swap(heap, pos, j, c)
        j = c


@kernel(cache=True, nogil=True)
def _drop(heap, pos, key, size, i):
    """Remove record ``i`` from the heap of ``size`` entries; returns the new size."""
    j = pos[i]
    size -= 1
    if j != size:
        _swap(heap, pos, j, size)
        _sift(heap, pos, key, j, size)
    pos[i] = -1
    return size


@kernel(cache=True, nogil=True)
def _farthest_pair(Z, heap, pos, key, exact, partner, alive, size, screen):
    """The lexicographically smallest pair (r, s), r < s, of largest squared distance among live records."""
    while True:
        a = heap[0]
        if exact[a] and alive[partner[a]]:
            break
        f, _ = engine.around(Z, Z[a].copy(), 1, True, screen)
        key[a] = engine.sqdist(Z, f, Z[a])
        exact[a] = True
        partner[a] = f
        _sift(heap, pos, key, np.int64(0), size)  # (np.int64: see md_kernel's g)
    b = partner[a]
    if b == a:  # every live record coincides with a: the two lowest indices
        for i in screen[1]:
            if alive[i] and i != a:
                b = i
                break
    return a, b


@_farthest_pair.numpy
def _farthest_pair_numpy(Z, heap, pos, key, exact, partner, alive, size, screen):
    """``_farthest_pair`` on the numpy kernels, the same pair: the live record of largest key (lowest index among
    equal keys) is taken once its key is exact with a live partner; until then the exact farthest distances of the
    ``EXACT_BATCH`` records of largest stale keys are computed together. Stale keys are first lowered to a fresh
    bound, and each exact search reads only the records that can be farthest (module docstring of the numpy
    kernels' bounds: ``_radii``, ``_reach``); exact keys are the same values and stale ones stay upper bounds."""
    live = alive[screen[1]]
    ids, X = screen[1][live], screen[2][:, live]
    stale = ~exact[ids] | ~alive[partner[ids]]
    Y = np.ascontiguousarray((X - X.mean(axis=1)[:, None]).T)  # the records about their centroid, row by row
    Y = (Y, np.einsum("ij,ij->i", Y, Y))  # (and their squared norms: ``_radii``, ``_farthest_among``)
    rho = _radii(Y[1], X.shape[0])
    ub = (rho + rho.max()) * (1.0 + engine.SLACK)  # |x_i - x_j| <= |x_i - c| + |x_j - c|, c the live centroid
    bound = ub * ub * (1.0 + engine.SLACK) + X.shape[0] * 2.0 ** -1074
    key[ids[stale]] = np.minimum(key[ids[stale]], bound[stale])
    j0 = int(np.argmax(rho))
    while True:
        stale = ~exact[ids] | ~alive[partner[ids]]
        keys = key[ids]
        top = int(np.argmax(keys))
        if not stale[top]:
            break
        cand = np.flatnonzero(stale)
        if cand.shape[0] > EXACT_BATCH:
            cand = cand[np.argpartition(-keys[cand], EXACT_BATCH - 1)[:EXACT_BATCH]]
        reach = _reach(sqdists(X[:, cand], X[:, j0]), rho[cand], X.shape[0])
        far = np.flatnonzero(rho >= reach.min())  # every record that can be farthest from one of ``cand``
        best, d2 = _farthest_among(Z, ids, Y, cand, far)
        rows = ids[cand]
        key[rows] = d2
        partner[rows] = ids[far[best]]
        exact[rows] = True
    a = int(ids[top])
    b = int(partner[a])
    if b == a:  # every live record coincides with a: the two lowest indices
        b = int(ids[ids != a][0])
    return a, b


def _farthest_among(Z, ids, Y, cand, far):
    """For each record ``ids[cand]``, the position in ``far`` (ascending positions of ``ids``) of its farthest
    record, the first among equals, and their squared distance summed attribute by attribute. Screened with ``Y``
    (the records of ``ids`` about their centroid, row by row, and their squared norms): one matrix product gives
    every distance within ``engine.screen_bound`` of its rounding (``numpy_engine._pass``), and only the pairs
    within twice that of their row's largest are summed exactly (most rows: one pair)."""
    (Yr, y2), d = Y, Z.shape[1]
    A = y2[cand][:, None] + y2[far] - 2.0 * (Yr[cand] @ Yr[far].T)
    e = engine.screen_bound(d, np.sqrt(y2[far].max()), np.sqrt(y2[cand]))
    i = np.arange(cand.shape[0])
    j = A.argmax(axis=1)
    near = A >= (A[i, j] - 2.0 * e)[:, None]
    if np.count_nonzero(near) > cand.shape[0]:  # (ties or near-ties: every pair in doubt)
        i, j = np.nonzero(near)
    D = np.cumsum(np.square(Z[ids[cand[i]]] - Z[ids[far[j]]]), axis=1)[:, -1]  # (cumsum: in attribute order)
    if i.shape[0] == cand.shape[0]:
        return j, D
    top = np.full(cand.shape[0], -np.inf)
    np.maximum.at(top, i, D)
    hit = np.flatnonzero(D == top[i])
    first = hit[np.unique(i[hit], return_index=True)[1]]  # (pairs in row order, then ascending j: the lowest index)
    return j[first], D[first]


def _radii(y2, d):
    """Upper bounds on the distances of records to their mean c from ``y2``, their squared distances to it as
    computed (records less c, squared and summed in any order), whatever the rounding and underflow of those or of
    ``sqdists`` (relative (d + 3) 2^-53 each, absolute d 2^-1074: covered by ``SLACK`` and the added term)."""
    return np.sqrt(y2 * (1.0 + 2.0 * engine.SLACK) + d * 2.0 ** -1074) * (1.0 + engine.SLACK)


def _reach(L, rho, d):
    """For records at squared distance ``L`` (as ``sqdists`` gives it) from some record, with radius bounds ``rho``
    (``_radii``): a radius below which no record can be at least as far from them (triangle inequality
    |x_j - c| >= |x_i - x_j| - |x_i - c|, with margins for rounding and underflow)."""
    low = np.sqrt(np.maximum(L - d * 2.0 ** -1074, 0.0) / (1.0 + engine.SLACK)) * (1.0 - engine.SLACK)
    gap = low - rho
    return gap - engine.SLACK * (low + rho) - d * 2.0 ** -537


@kernel(cache=True, nogil=True)
def _take(Z, members, g, labels, alive, S, screen, pos, heap, hpos, key, size):
    """Emit group ``g`` and drop its members from the heap; returns the heap size."""
    engine.emit(Z, screen, pos, members, g, labels, alive, S)
    for i in members:
        size = _drop(heap, hpos, key, size, i)
    return size


@kernel(cache=True, nogil=True)
def md_kernel(Z, k, generic, chunks, pmin):
    """Labels of MD on ``Z`` (groups in order of formation)."""
    n, d = Z.shape
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    shells = np.int64(engine.SHELLS)  # (radial shells: its passes seek farthest records)
    c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n, zmax2, chunks, cand, pmin, shells)
    key = np.empty(n)
    exact = np.zeros(n, np.bool_)
    partner = np.full(n, -1, np.int64)
    for j in range(n):
        ub = (rrho[j] + rrho[0]) * (1.0 + engine.SLACK) + 2.0 ** -500  # (absolute: radii of underflowing squares)
        key[rid[j]] = ub * ub
    heap = np.arange(n)
    hpos = np.arange(n)
    for j in range(n):  # insert one record at a time
        _sift(heap, hpos, key, j, j + 1)
    size = n
    n_live = n
    dead = 0
    g = np.int64(0)  # (np.int64, not a literal: numba would compile the callees once more for it)
    while n_live >= 2 * k:
        if 4 * dead > screen[3]:
            c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n_live, zmax2, chunks, cand, pmin, shells)
            dead = 0
        r, s = _farthest_pair(Z, heap, hpos, key, exact, partner, alive, size, screen)
        zr = Z[r].copy()
        _, near = engine.around(Z, zr, k, False, screen)
        size = _take(Z, near, g, labels, alive, S, screen, pos, heap, hpos, key, size)
        n_live -= k
        dead += k
        g += 1
        if generic and n_live < 2 * k:  # generic tail: 2k..3k-1 records were left, one group around r only
            break
        if not alive[s]:  # only with massive ties: s fell into r's group
            s, _ = engine.around(Z, zr, 1, True, screen)
        _, near = engine.around(Z, Z[s].copy(), k, False, screen)
        size = _take(Z, near, g, labels, alive, S, screen, pos, heap, hpos, key, size)
        n_live -= k
        dead += k
        g += 1
    if n_live >= k:
        for i in range(n):
            if alive[i]:
                labels[i] = g
                alive[i] = False
        g += 1
        n_live = 0
    engine.assign_rest(Z, labels, alive, g)
    return labels


@register(
    "partition", "md",
    bounded=True,
    quadratic=True,
    title="MD (maximum distance)",
    summary="Like MDAV, but each iteration grows two groups of k from the two mutually most distant records.",
    source="Domingo-Ferrer & Mateo-Sanz 2002; Chettri, Paul & Dutta, §3",
    params=(
        Param("tail", "choice", "generic", "generic: two groups while >= 3k remain, then one or two final groups "
              "(2002); classic: two groups while >= 2k remain, fewer than k join the nearest group (Chettri, Paul & "
              "Dutta)",
              source="docs/methods.md §2.5", choices=TAILS, label="end rule"),
    ),
)
def md(Z, k: int, tail: str = "generic") -> np.ndarray:
    """Group labels 0..m-1 of MD on standardized ``Z``; every group has at least k records."""
    return kernels.run(md_kernel, in_range(Z), k, tail == "generic", searches=True, small=False)
