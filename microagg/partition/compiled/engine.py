"""Compiled engine of the MDAV family (MDAV, V-MDAV, CV-MDAV, MD, IAMAT; the algorithms are in their modules).

Every decision is taken on exact float64 squared distances, accumulated attribute by
attribute in column order (``sqdist``), with the tie rules of docs/methods.md §0: among
equal distances the lowest record index wins, for "nearest" and for "farthest".
Speed comes from work that never changes those decisions:

* the centroid of the remaining records is a running sum (O(d) per removed record);
* **farthest from the centroid** scans the records in decreasing distance from an
  anchor c0 (the centroid when the index was built); since |z - c| <= |z - c0| + |c - c0|
  and the centroid drifts slowly, the scan stops after a handful of records;
* **the other queries** (farthest from r, k nearest to r, k nearest to s) stream a
  centred *integer* copy of the remaining records (int16 on a grid whose squared
  distances are exact int32 sums; a row per pair of attributes, the pair's two values of a
  record side by side, summed two at a time: ``pairs.py``) through a vectorized pass on all cores (one
  pass answers both queries about r). The integer copy is laid out in *cells* of 256
  records: for MDAV and MD, whose passes seek farthest records, the records are cut into
  four radial shells around the anchor (these methods take records from the outside in)
  and each shell into the leaves of a k-d split (for the other methods one split of all);
  every cell has exact integer bounds (its box and its largest norm). A pass sums a cell's columns in multiples
  of ``VEC`` (whole cells are allocated; the sums past its live columns are never read) and reads first
  the cell nearest to the query (and, for "farthest", the one reaching farthest), then
  skips every cell whose bounds show that none of its records can still qualify; for
  "farthest" that rules out the inner shells, whose records are too close to the anchor. A cell that can hold
  nearest records only (every cell of a near-only pass, and a cell whose upper bound rules out the farthest record)
  is summed over half of its attribute pairs (rounded up; from four attributes on) first, and the rest of it is
  skipped when those exact partial sums plus its box on the other attributes already exceed the limit.
  A pass split over threads gives each thread every so-many-th cell; the threads share their limits (the
  smallest k-th and the largest distance any of them has seen: ``shared.py``), so a thread skips what another's
  limits already rule out.
  The pass only *screens*: every record whose grid distance lies within a proven
  rounding margin of the grid threshold is re-checked in float64, so the chosen records
  are exactly those of the float64 definition. Where the
  grid is too coarse (the candidates overflow their buffers, e.g. one far outlier squeezes
  the others onto a few grid points), where the query lies off the grid, and in runs on
  fewer than ``GRID_MIN`` records (they have no integer copy), a float32 copy screens the same
  way, with a margin relative to float32 rounding; should its candidates overflow too (massive
  ties), every live record is decided in float64;
* removed records leave the integer copy (the last live column of their cell takes their place) and
  are blanked in the float32 copy (NaN never wins a comparison); both are rebuilt once a
  quarter of the float32 copy is dead (geometric total cost); a large run builds the integer copy on its
  threads (shares of the records, the k-d split's ranges; the same copy on any number of threads).

A run holds: ``start`` (labels, live flags, running sum, buffers), ``build_index`` (the
screening copy and the radial order around an anchor, rebuilt by the caller once a quarter
of it is dead), the queries ``farthest_from_centroid`` and ``around``, ``emit`` (make a
group) and ``assign_rest`` (leftovers to the nearest group). The methods that grow a group
record by record (V-MDAV, CV-MDAV, IAMAT) ask their queries through ``prefix`` and
``outside`` (the last section). ``brute.py`` answers the same queries by brute force, for small runs of MDAV,
V-MDAV, CV-MDAV and IAMAT.

Memory is O(n d): the input, a float32 and an int16 copy and a few length-n vectors.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .pairs import LANES, pair_add, pair_set
from .shared import current, tighten_max, tighten_min

BLOCK = 256            # records per vectorized block of a pass
VEC = 64               # a pass over the integer copy sums a cell's columns (records) in multiples of this many (the
                       # sums of the columns past its live ones, stale or zero, are never read): no remainder loop
                       # (before the pairs, numba's remainder loops took about a tenth of the time of a pass)
assert BLOCK % VEC == 0 and VEC % LANES == 0  # (the pairs' steps of LANES records never pass a cell's end)
PARALLEL_MIN = 32768   # default: remaining records below which a pass runs on one thread
GRID_MIN = 32768       # runs on fewer records screen on the float32 copy alone (that kernel compiles faster)
SHELLS = 4             # radial shells of the integer copy for methods that seek farthest records (MDAV, MD): a quarter
                       # each, as many records as leave between rebuilds; the near-only methods take 1 (see build_index)
CAND_CAP = 4096        # screening candidates kept per thread before falling back to the next screen
PARTIAL_MIN_D = 4      # from this many attributes a pass over the integer copy checks a cell after half of its pairs
_U32 = 2.0 ** -24      # unit roundoff of float32
_U64 = 2.0 ** -53
RADIX = 1 << 16        # digits of a round of the radial order's sort (_decreasing)
_QS_MAX = 2.0 ** 500   # grid steps finer than 1/this (data spread below about 2^-487) leave the integer pass out


@njit(cache=True, inline="always")
def sqdist(A, a, q):
    """Squared distance from row ``a`` of ``A`` to ``q``, summed attribute by attribute."""
    s = 0.0
    for t in range(q.shape[0]):
        diff = A[a, t] - q[t]
        s += diff * diff
    return s


# ----------------------------------------------------------------------------- state
#
# The screening copy: X (d, cap) float32 holds (z - c0) * scale for the records
# ids[0:m] (ascending), NaN once removed; pos[i] is the column of record i.


@njit(cache=True)
def _spread(Z, ids, c0):
    """Largest |z_t - c0_t| over the records ``ids`` (sets the scale of both copies)."""
    big = 0.0
    for i in ids:
        for t in range(Z.shape[1]):
            big = max(big, abs(Z[i, t] - c0[t]))
    return big


@njit(cache=True)
def _pack(Z, ids, c0, big):
    """Centred, power-of-two scaled float32 copy of the records ``ids``; returns (X, pos, scale, r2max)."""
    n, d = Z.shape
    m = ids.shape[0]
    scale = 1.0
    if big > 0.0:
        scale = 2.0 ** min(1000.0, max(-1000.0, -np.ceil(np.log2(big))))  # exact power of two
    X = np.empty((d, max(m, 1)), np.float32)
    pos = np.full(n, -1, np.int64)
    r2max = 0.0
    for j in range(m):
        i = ids[j]
        pos[i] = j
        r2 = 0.0
        for t in range(d):
            v = (Z[i, t] - c0[t]) * scale
            X[t, j] = v
            r2 += v * v
        r2max = max(r2max, r2)
    return X, pos, scale, r2max


@njit(cache=True)
def _radial(Z, ids, c0):
    """Records ``ids`` (ascending) sorted by decreasing distance to ``c0`` (ties by index) and those distances."""
    m = ids.shape[0]
    rho = np.empty(m)
    for j in range(m):
        rho[j] = np.sqrt(sqdist(Z, ids[j], c0))
    order = _decreasing(rho)
    return ids[order], rho[order]


@njit(cache=True)
def _decreasing(rho):
    """Positions of ``rho`` (+0.0 or positive, no NaN: radii) by decreasing value, equal values in their order: a
    stable radix sort on the complemented bits (such a float orders as its bits do), 16 bits a round, a round skipped
    when every key has the same digit. Linear: a rebuild sorted several times faster than by merging (``argsort``)."""
    m = rho.shape[0]
    key = ~rho.view(np.uint64)
    pos = np.arange(m)
    key2 = np.empty(m, np.uint64)
    pos2 = np.empty(m, np.int64)
    cnt = np.empty(RADIX + 1, np.int64)
    mask = np.uint64(RADIX - 1)
    for r in range(4):
        shift = np.uint64(16 * r)
        cnt[:] = 0
        for j in range(m):
            cnt[np.int64((key[j] >> shift) & mask) + 1] += 1
        if cnt.max() == m:
            continue
        for b in range(RADIX):
            cnt[b + 1] += cnt[b]
        for j in range(m):
            b = np.int64((key[j] >> shift) & mask)
            key2[cnt[b]] = key[j]
            pos2[cnt[b]] = pos[j]
            cnt[b] += 1
        key, key2 = key2, key
        pos, pos2 = pos2, pos
    return pos


# ----------------------------------------------------------------------------- passes
#
# A pass screens the live columns of one of two copies of the records, both centred on the anchor c0 (a column is one
# record's place in a copy: a column of the float32 copy, two int16 side by side in each row of the integer copy):
#
# * the float32 copy X holds (z - c0) * scale (removed records blanked with NaN, which never qualifies); its
#   distances differ from the float64 ones by at most the margin of ``_margin``;
# * the integer copy Q (runs large enough to split a pass) holds round((z - c0) * qs), qs a power of two chosen so
#   that every value lies in [-H, H] with d (2H)^2 < 2^31 and 2H < 2^15: squared distances between grid points are
#   exact int32 sums on 2 bytes per value, and the differences of a pair of attributes fit in 16 bits (twice the
#   records per second of the float32 pass on the benchmark machine, more since the pairs: benchmarks/README.md;
#   at 10^6 x 10 the copy fits the processor's cache). Row p holds attributes 2p and 2p + 1
#   interleaved (an odd d's last pair ends in zeros, as does the query's), summed together (``pairs.py``). Its
#   columns are cells of BLOCK records (``_cell_order``, ``_fill``); removed records leave their cell (its last
#   live column takes their place).
#   Rounding moves each coordinate by at most 1/2, so the grid distance D of a record and the exact distance delta
#   (in grid units) satisfy |sqrt(D) - delta| <= e = sqrt(d) (both points rounded). Hence a record among the k
#   nearest has sqrt(D) <= sqrt(D_k) + 2e (D_k the k-th smallest grid distance) and the farthest has
#   sqrt(D) >= sqrt(D_max) - 2e; the float64 rounding of ``sqdist`` (relative (d + 3) 2^-53) is covered by a
#   relative slack of 1e-9, and its underflow (at most d 2^-1074, d qs^2 2^-1074 in grid units) by the absolute 1
#   of the limits while qs <= 2^500 (a finer grid is not used: ``_QS_MAX``).
#
# Either way the records passing the tests are decided in float64 (``sqdist``), so the answer is the float64 one.

SKIP_AFTER_OVERFLOW = 64  # queries answered by the float32 pass after an integer screen overflowed its buffers
_SLACK16 = 1e-9
GRID, FLOAT = np.int32, np.float32  # accumulator types of a pass over the integer / the float32 copy
# A block's smallest distance starts here: above every distance between records of either copy (int32 sums stay
# below it; float32 values are scaled into [-1, 1], so distances are at most 4d). A query far off the data may
# exceed it; then a block is inspected record by record when it need not be, never the reverse.
_BLOCK_MIN_START = 2 ** 31 - 1


@njit(cache=True)
def _grid_step(d, big):
    """Grid step qs (a power of two) and bound H of the integer copy of d attributes whose largest |z_t - c0_t| is
    ``big``: every value round((z_t - c0_t) qs) lies in [-H, H]."""
    H = min(np.floor(np.sqrt((2.0 ** 31 - 1.0) / d) / 2.0), 2.0 ** 14 - 1.0)  # (differences fit in 16 bits)
    qs = 1.0
    if big > 0.0:
        qs = 2.0 ** min(1000.0, max(-1000.0, np.floor(np.log2(H / big))))
        while big * qs > H:
            qs /= 2.0
    return qs, np.int64(H)


@njit(cache=True)
def _grid_query(q, c0, qs, H):
    """``q`` on the grid of the integer copy, and whether it lies inside it (else the sums could overflow)."""
    d = q.shape[0]
    out = np.zeros(2 * ((d + 1) // 2), np.int32)  # (an odd d's last pair ends in a 0, as in the copy)
    inside = True
    for t in range(d):
        v = np.floor((q[t] - c0[t]) * qs + 0.5)
        if not abs(v) <= H:
            inside = False
            v = 0.0
        out[t] = np.int32(v)
    return out, inside


@njit(cache=True, inline="always")
def _near_limit(kth, mg, grid):
    """Largest screened distance a record among the k nearest can have, given the k-th smallest ``kth``."""
    if grid:
        return (np.sqrt(kth) + mg) ** 2 * (1.0 + _SLACK16) + 1.0
    return kth + mg


@njit(cache=True, inline="always")
def _far_limit(top, mg, grid):
    """Smallest screened distance the farthest record can have, given the largest ``top``."""
    if grid:
        r = np.sqrt(max(top, 0.0)) - mg
        return r * r * (1.0 - _SLACK16) - 1.0 if r > 0.0 else -1.0
    return top - mg


@njit(cache=True)
def _pass_range(X, q, lo, hi, stride, k, mg, grid, far, kbest, cand, val, acc_type, cells, lims):
    """Screened distances of columns lo..hi of a copy to ``q``, the k smallest (``kbest``, sorted), the largest, and
    the candidates.

    ``acc_type`` is GRID for the integer copy (``grid`` True, ``mg`` = 2e), FLOAT for the float32 one (``mg`` =
    twice the margin). Records in ``cand``/``val`` every column (and its distance) that, when seen, passed the
    running tests of ``_near_limit``/``_far_limit``: a superset of those passing the final ones (the running
    maximum only grows, the running k-th smallest only shrinks). Blocks are computed vectorized; a block is
    inspected record by record only if its extremes can matter. Returns (largest, candidates recorded); the count
    exceeds ``cand``'s length when it overflowed. NaN columns never qualify.

    The range holds the blocks lo, lo + stride, ... (in blocks of BLOCK columns) below hi.
    With ``cells`` (the integer copy) every block is a cell holding ``cells[0][b]`` live columns; a cell whose
    bounds (``_cell_bounds``) show that none of its records can pass the running tests is skipped unread. Its
    records would not have been recorded, nor changed the k smallest or the largest, so the answer is the same.

    A range of a split pass (``stride`` > 1) shares its limits with the other threads through ``lims`` (the
    smallest k-th and the largest distance any range has seen: ``shared.py``), before each block: its own k
    smallest and largest may then miss records that another range's limits rule out, but never one that passes
    the final tests, which the candidates decide; the k-th smallest and the largest over all ranges are unchanged.
    """
    d = X.shape[0]
    loc = np.empty(BLOCK, acc_type)
    for i in range(k):
        kbest[i] = np.inf
    top = -np.inf
    nlim = np.inf
    flim = -np.inf
    kth = np.inf       # the k-th smallest and the largest distance the limits are from (this range's or shared)
    far_seen = -np.inf
    shares = stride > 1
    nc = 0
    cap = cand.shape[0]
    nblk = ((hi - lo + BLOCK - 1) // BLOCK + stride - 1) // stride
    # over the integer copy a cell that can hold only nearest records (every cell of a near-only pass, and in a pass
    # that also seeks the farthest a cell whose upper bound rules that out) is checked after half of the attribute
    # pairs, rounded up (rows of X: pairs for the integer copy, attributes for the float32 one)
    split = d
    if cells is not None:
        if cells[1].shape[1] >= PARTIAL_MIN_D:
            split = (d + 1) // 2
    fn = ff = -1
    if cells is not None and nblk > 0:  # (a thread's range is empty when whole cells run out before the threads)
        lbs, ubs = _cell_bounds(cells, q, lo // BLOCK, nblk, stride, far)
        fn = np.argmin(lbs)
        if far:
            ff = np.argmax(ubs)
    for s in range(-2, nblk):  # first the cell nearest to q, then (far) the one reaching farthest: tight limits early
        b = fn if s == -2 else (ff if s == -1 else s)
        if b < 0 or (s == -1 and b == fn) or (s >= 0 and (b == fn or b == ff)):
            continue
        if shares:
            v = current(lims, 0)
            if v < kth:
                kth = v
                nlim = _near_limit(kth, mg, grid)
            if far:
                v = current(lims, 1)
                if v > far_seen:
                    far_seen = v
                    flim = _far_limit(far_seen, mg, grid)
        b0 = lo + b * stride * BLOCK
        cut = d
        if cells is None:
            nb = nr = min(hi, b0 + BLOCK) - b0
        else:
            nb = cells[0][b0 // BLOCK]
            nr = (nb + VEC - 1) // VEC * VEC
            if lbs[b] > nlim and not (far and ubs[b] >= flim):  # no record of the cell can pass either test
                continue
            if not (far and ubs[b] >= flim):
                cut = split
        if cells is None:
            _accumulate(X, q, b0, nr, loc, acc_type)
        else:
            _accumulate_pairs(X, q, b0, nr, 0, cut, loc)
            if cut < d and not _may_pass(loc, nb, cells[1], b0 // BLOCK, q, 2 * cut, nlim):
                continue  # the first attributes and the cell's box on the others rule every record of it out
            _accumulate_pairs(X, q, b0, nr, cut, d, loc)
        bmin = acc_type(_BLOCK_MIN_START)
        bmax = acc_type(-1)
        if cells is None:
            for j in range(nb):
                v = loc[j]
                if v < bmin:  # comparisons, not min/max: NaN (removed) never counts
                    bmin = v
                if v > bmax:
                    bmax = v
        else:  # (integers: min and max, which vectorize)
            for j in range(nb):
                bmin = min(bmin, loc[j])
                bmax = max(bmax, loc[j])
        if not (bmin <= nlim or (far and bmax >= flim)):
            continue
        for j in range(nb):
            v = np.float64(loc[j])
            hit = False
            if v <= nlim:
                hit = True
                if v < kbest[k - 1]:
                    i = k - 1
                    while i > 0 and v < kbest[i - 1]:
                        kbest[i] = kbest[i - 1]
                        i -= 1
                    kbest[i] = v
                    if kbest[k - 1] < kth:
                        kth = kbest[k - 1]
                        nlim = _near_limit(kth, mg, grid)
                        if shares:
                            tighten_min(lims, 0, kth)
            if far and v >= flim:
                hit = True
                if v > top:
                    top = v
                    if top > far_seen:
                        far_seen = top
                        flim = _far_limit(top, mg, grid)
                        if shares:
                            tighten_max(lims, 1, top)
            if hit:
                if nc < cap:
                    cand[nc] = b0 + j
                    val[nc] = v
                nc += 1
    return top, nc


@njit(cache=True, inline="always")
def _accumulate(X, q, b0, nb, loc, acc_type):
    """The squared distances of columns b0..b0+nb-1 of the float32 copy to ``q`` into ``loc``, summed attribute by
    attribute."""
    for t in range(X.shape[0]):
        qt = q[t]
        row = X[t, b0:b0 + nb]  # slices let LLVM vectorize (no aliasing, unit stride)
        if t == 0:
            for j in range(nb):
                diff = acc_type(row[j]) - qt
                loc[j] = diff * diff
        else:
            for j in range(nb):
                diff = acc_type(row[j]) - qt
                loc[j] += diff * diff


@njit(cache=True, inline="always")
def _accumulate_pairs(Q, q, b0, nb, p0, p1, loc):
    """Add the squared differences of the attribute pairs p0..p1-1 of columns b0..b0+nb-1 (nb a multiple of LANES)
    of the integer copy to ``loc`` (from pair 0: set ``loc`` to their sum)."""
    for p in range(p0, p1):
        qa, qb = np.int64(q[2 * p]), np.int64(q[2 * p + 1])
        row = Q[p, 2 * b0:2 * (b0 + nb)]
        if p == 0:
            for j in range(0, nb, LANES):
                pair_set(row, loc, j, qa, qb)
        else:
            for j in range(0, nb, LANES):
                pair_add(row, loc, j, qa, qb)


@njit(cache=True, inline="always")
def _may_pass(loc, nb, box, c, q, split, nlim):
    """Whether a record of cell ``c`` may still be among the nearest (squared distance <= ``nlim``), from its partial
    squared distances over the first ``split`` attributes (``loc``, of its ``nb`` live columns) and the least the
    other attributes can add inside the cell's box: exact integers, so a cell ruled out holds no record that the whole
    distance would let pass. (Only cells that cannot hold the farthest record are checked so: see ``_pass_range``.)"""
    pmin = loc[0]
    for j in range(1, nb):  # (in the sums' own type: the loop vectorizes)
        pmin = min(pmin, loc[j])
    pmin = np.int64(pmin)
    rest = np.int64(0)
    for t in range(split, box.shape[1]):
        lt, ht, qt = np.int64(box[0, t, c]), np.int64(box[1, t, c]), np.int64(q[t])
        g = max(0, max(lt - qt, qt - ht))
        rest += g * g
    return np.float64(pmin + rest) <= nlim


@njit(cache=True, inline="always")  # (inlined in the pass, specialized on ``far`` with it)
def _cell_bounds(cells, q, b0, nblk, stride, far):
    """Lower and (with ``far``) upper bounds on the squared grid distance from ``q`` to every record of the cells
    b0, b0 + stride, ... (``nblk`` of them), in exact integers: the distance to the cell's box, and |z|^2 + |q|^2 -
    2 min z.q with |z|^2 at most the cell's largest and z.q at least both its minimum over the box (tighter than the
    box's farthest corner in several dimensions, where the records do not fill the corners) and -|z||q|
    (Cauchy-Schwarz: tighter for a cell of an inner shell, whose largest norm is small), with |z| and |q| rounded up
    to integers (``_fill`` keeps the cell's). An emptied cell gets bounds no test passes (its box is that of records
    gone), so it is neither read first nor at all. With ``stride`` > 1 (thread b0 of a split pass into ``stride``
    threads) the boxes are read from those by thread (``_by_thread``, built for that many threads)."""
    cnt, box, mx, rt, boxt = cells
    d = box.shape[1]
    lbs = np.empty(nblk, np.int64)  # (set by the first attribute's terms)
    ubs = np.empty(nblk, np.int64)
    q2 = np.int64(0)
    for t in range(d):
        qt = np.int64(q[t])
        q2 += qt * qt
    rq = _ceil_sqrt(q2)
    for t in range(d):
        qt = np.int64(q[t])
        if stride == 1:  # (a contiguous slice: the loop vectorizes)
            _box_terms(box[0, t, b0:b0 + nblk], box[1, t, b0:b0 + nblk], qt, lbs, ubs, far, t == 0)
        else:  # (thread b0 of stride: its cells lie side by side in boxt)
            a = b0 * (boxt.shape[2] // stride)
            _box_terms(boxt[0, t, a:a + nblk], boxt[1, t, a:a + nblk], qt, lbs, ubs, far, t == 0)
    for b in range(nblk):
        c = b0 + b * stride
        if far:  # z.q >= -|z||q| >= -rt rq (Cauchy-Schwarz, roots rounded up) as well as the box's minimum
            ubs[b] = mx[c] + q2 + min(ubs[b], 2 * rt[c] * rq)
        if cnt[c] == 0:
            lbs[b] = np.iinfo(np.int64).max
            ubs[b] = -1
    return lbs, ubs


@njit(cache=True, inline="always")
def _ceil_sqrt(p):
    """The least integer r >= 0 with r * r >= p (exact: the float root corrected by integer steps)."""
    r = np.int64(np.sqrt(np.float64(p)))
    while r * r < p:
        r += 1
    while r > 0 and (r - 1) * (r - 1) >= p:
        r -= 1
    return r


@njit(cache=True, inline="always")
def _box_terms(lo, hi, qt, lbs, ubs, far, first):
    """One attribute's terms of ``_cell_bounds``: the squared gap from ``qt`` to [lo, hi] and -2 min z.q over it,
    added to ``lbs`` and ``ubs`` (set by the ``first`` attribute's)."""
    for b in range(lbs.shape[0]):
        lt = np.int64(lo[b])
        ht = np.int64(hi[b])
        g = max(0, max(lt - qt, qt - ht))
        lbs[b] = g * g if first else lbs[b] + g * g
        if far:
            ubs[b] = -2 * min(lt * qt, ht * qt) if first else ubs[b] - 2 * min(lt * qt, ht * qt)


@njit(cache=True, parallel=True)
def _pass_parallel(X, q, m, k, mg, grid, far, chunks, cand, val, acc_type, cells):
    """``_pass_range`` on ``chunks`` threads, thread c taking every chunks-th cell from cell c: neighbouring cells
    lie close together, so each thread gets a like share of the cells a query must read (contiguous ranges would
    give one thread the outer shells and the other the inner ones)."""
    tops = np.empty(chunks)
    counts = np.empty(chunks, np.int64)
    kb = np.empty((chunks, k))
    lims = np.array([np.inf, -np.inf])  # the limits the threads share (``shared.py``)
    for c in prange(chunks):
        tops[c], counts[c] = _pass_range(X, q, min(m, c * BLOCK), m, chunks, k, mg, grid, far, kb[c], cand[c],
                                         val[c], acc_type, cells, lims)
    return tops, counts, kb


@njit(cache=True)
def insert_nearest(dist, idx, s, i):
    """Insert record ``i`` at squared distance ``s`` into the list ``dist``/``idx`` kept sorted by (squared distance,
    index), dropping its last entry; False (nothing changed) if ``i`` does not come before that entry."""
    last = dist.shape[0] - 1
    if not (s < dist[last] or (s == dist[last] and i < idx[last])):
        return False
    p = last
    while p > 0 and (s < dist[p - 1] or (s == dist[p - 1] and i < idx[p - 1])):
        dist[p] = dist[p - 1]
        idx[p] = idx[p - 1]
        p -= 1
    dist[p] = s
    idx[p] = i
    return True


@njit(cache=True)
def _screen(Z, X, ids, m, qz, q, k, mg, grid, far, chunks, cand, val, pmin, acc_type, cells):
    """Exact (done, farthest record, k nearest records) from ``qz`` among the live columns of a copy (the first
    ``m``, or, with ``cells``, the first ``cells[0][c]`` of every cell c).

    One pass with the query ``q`` on the copy's scale screens (``_pass_range``); the candidates passing the final
    tests are decided in float64. The farthest is -1 unless ``far``; the nearest are sorted by (distance, index).
    Not done when a candidate buffer overflowed. With ``pmin`` None (runs on fewer than ``GRID_MIN`` records, see
    ``threads.run``) the pass runs on one thread and numba prunes the parallel branch when it compiles, so such a
    run never compiles ``_pass_parallel`` (the costliest kernel to compile). Larger runs compile it even when they
    cannot split (one thread, or fewer records than the method's split threshold): their kernel is one.
    """
    if pmin is not None and chunks > 1 and m >= pmin:
        tops, counts, kb = _pass_parallel(X, q, m, k, mg, grid, far, chunks, cand, val, acc_type, cells)
    else:
        tops = np.empty(1)
        counts = np.empty(1, np.int64)
        kb = np.empty((1, k))
        lo, one = np.int64(0), np.int64(1)  # (int64 as in _pass_parallel, not literals: one specialization)
        lims = np.empty(2)  # (one range shares nothing)
        if far:  # (a literal ``far`` lets the compiler drop the unused test from the near-only pass: 3 % faster)
            tops[0], counts[0] = _pass_range(X, q, lo, m, one, k, mg, grid, True, kb[0], cand[0], val[0], acc_type,
                                             cells, lims)
        else:
            tops[0], counts[0] = _pass_range(X, q, lo, m, one, k, mg, grid, False, kb[0], cand[0], val[0], acc_type,
                                             cells, lims)
    bi = np.full(k, np.iinfo(np.int64).max)
    if counts.max() > cand.shape[1]:
        return False, np.int64(-1), bi
    if kb.shape[0] == 1:  # (one range: its k smallest come sorted)
        nthr = _near_limit(kb[0, k - 1], mg, grid)
    else:
        kth = kb.ravel()
        nthr = _near_limit(kth[np.argsort(kth, kind="mergesort")[k - 1]], mg, grid)  # (one sort kernel to compile)
    fthr = _far_limit(tops.max(), mg, grid)
    fb = np.array([-1.0, -1.0])
    bd = np.full(k, np.inf)
    for c in range(counts.shape[0]):
        for e in range(counts[c]):
            v = val[c, e]
            near = v <= nthr
            farther = far and v >= fthr
            if near or farther:
                _decide(Z, ids[cand[c, e]], qz, near, farther, fb, bd, bi)
    return True, np.int64(fb[1]), bi


@njit(cache=True, inline="always")
def _decide(Z, i, qz, near, farther, fb, bd, bi):
    """Record ``i`` checked in float64 as a candidate for the farthest (into ``fb``) and the nearest (``bd``/``bi``)."""
    s = sqdist(Z, i, qz)
    if farther and (s > fb[0] or (s == fb[0] and i < fb[1])):
        fb[0] = s
        fb[1] = i
    if near:
        insert_nearest(bd, bi, s, i)


@njit(cache=True)
def _exhaustive(Z, X, ids, m, qz, k, far):
    """(farthest record or -1, k nearest records) from ``qz`` by float64 over every live column of the float32 copy:
    the answer when even its screen overflowed (massive ties)."""
    fb = np.array([-1.0, -1.0])
    bd = np.full(k, np.inf)
    bi = np.full(k, np.iinfo(np.int64).max)
    for j in range(m):
        if X[0, j] == X[0, j]:  # not NaN: live
            _decide(Z, ids[j], qz, True, far, fb, bd, bi)
    return np.int64(fb[1]), bi


@njit(cache=True)
def _margin(q, c0, scale, r2max, zmax2):
    """Bound on |float32 screening distance - float64 exact distance|, in screening units.

    float32: centring/rounding of both points, the difference, the square and the
    sum of d terms contribute at most (d + 7) u32 (|x|^2 + |q|^2) * 2.02 (x, q scaled);
    float64: the exact reference sum itself carries (d + 3) u64 (|z| + |q|)^2 in
    original units, and up to d 2^-1074 more where its squares underflow (data of a
    spread below about 2^-500, where the screen's scale is large). Both are doubled
    for safety; the margin only widens the screen.
    """
    d = q.shape[0]
    q2 = 0.0
    qz2 = 0.0
    for t in range(d):
        v = (q[t] - c0[t]) * scale
        q2 += v * v
        qz2 += q[t] * q[t]
    m32 = 2.0 * 2.02 * (d + 7) * _U32 * (r2max + q2) + 1e-30
    m64 = 2.0 * 2.0 * (d + 3) * _U64 * (zmax2 + qz2) * scale * scale
    under = 2.0 * d * (2.0 ** -537 * scale) ** 2  # d 2^-1074 scale^2, doubled (in this order: no overflow)
    return m32 + m64 + under


@njit(cache=True)
def _scaled_query(q, c0, scale):
    out = np.empty(q.shape[0], np.float32)
    for t in range(q.shape[0]):
        out[t] = (q[t] - c0[t]) * scale
    return out


@njit(cache=True)
def farthest_from_centroid(Z, alive, rid, rrho, start, c, c0, zmax2):
    """First maximum of |z - c| over live records, scanning by decreasing |z - c0|.

    Stops once |z - c0| + |c - c0| (with slack) cannot reach the best distance. The slack covers the float64
    rounding of the three distances, relative, and their underflow, absolute (at most d 2^-1074 in a squared
    distance, about sqrt(d) 2^-537 in a distance: the absolute term bounds both where the bound is small).
    Returns (record, new start of the scan).
    """
    d = c.shape[0]
    drift = np.sqrt(sqdist(c.reshape(1, d), 0, c0))
    c2 = 0.0
    for t in range(d):
        c2 += c[t] * c[t]
    slack = 4.0 * (d + 3) * _U64 * (zmax2 + c2) + 8.0 * d * 2.0 ** -1000
    while start < rid.shape[0] and not alive[rid[start]]:
        start += 1
    best = -1.0
    bid = -1
    for j in range(start, rid.shape[0]):
        i = rid[j]
        if not alive[i]:
            continue
        ub = rrho[j] + drift
        if bid >= 0 and ub * ub * (1.0 + 1e-12) + slack < best:
            break
        s = sqdist(Z, i, c)
        if s > best or (s == best and i < bid):
            best = s
            bid = i
    return bid, start


# ----------------------------------------------------------------------------- the integer copy, built on all threads
#
# Built by large runs only (``pmin`` not None), on their ``chunks`` threads, as their passes split: the rows are
# gathered in contiguous shares, the k-d split cuts level by level (a level's ranges over the threads) until each
# thread has four ranges to finish, and the cells are quantized and bounded in contiguous shares. Each share, range and
# cell is computed as on one thread, so the copy does not depend on the thread count; on one thread no parallel region
# starts (the branches ``chunks == 1``). The bodies of the parallel kernels hold no array operation (numba would turn
# one into a region on all of its threads); the functions they call are compiled on their own and may allocate.


@njit(cache=True, inline="always")
def _share(n, chunks, c):
    """Thread c's share (first, end) of n items cut into ``chunks`` contiguous parts."""
    return n * c // chunks, n * (c + 1) // chunks


@njit(cache=True)
def _gather(Z, ids, W, a, b):
    """Rows a..b-1 of W: the rows ``ids[a:b]`` of Z."""
    for j in range(a, b):
        for t in range(Z.shape[1]):
            W[j, t] = Z[ids[j], t]


@njit(cache=True, parallel=True)
def _rows(Z, ids, W, chunks):
    """W (m, d) := the rows ``ids`` of ``Z``, in that order, on ``chunks`` threads."""
    if chunks == 1:
        _gather(Z, ids, W, np.int64(0), ids.shape[0])  # (int64, not a literal 0: one compile)
    else:
        for c in prange(chunks):
            a, b = _share(ids.shape[0], chunks, c)
            _gather(Z, ids, W, a, b)


@njit(cache=True)
def _halve(W, perm, key, a, b):
    """Range a..b-1 (more than BLOCK records) cut by value on its widest attribute at the multiple of BLOCK nearest
    above its middle, h (returned): no record before h has a larger value there than one from h on."""
    d = W.shape[1]
    lo, hi = np.empty(d), np.empty(d)
    for t in range(d):
        lo[t], hi[t] = W[a, t], W[a, t]
    for j in range(a + 1, b):
        for t in range(d):
            v = W[j, t]
            lo[t] = min(lo[t], v)
            hi[t] = max(hi[t], v)
    wide, tw = -1.0, 0
    for t in range(d):
        if hi[t] - lo[t] > wide:
            wide, tw = hi[t] - lo[t], t
    for j in range(a, b):
        key[j] = W[j, tw]
    h = a + ((b - a) // 2 + BLOCK - 1) // BLOCK * BLOCK
    _select(key, perm, W, a, b, h)
    return h


@njit(cache=True)
def _split(W, perm, key, a, b):
    """Range a..b-1 cut (``_halve``), and each half longer than BLOCK in turn, depth first (the ranges met last are in
    the cache)."""
    stack = np.empty((128, 2), np.int64)
    stack[0, 0], stack[0, 1] = a, b
    top = 1
    while top > 0:
        top -= 1
        lo, hi = stack[top, 0], stack[top, 1]
        if hi - lo <= BLOCK:
            continue
        h = _halve(W, perm, key, lo, hi)
        stack[top, 0], stack[top, 1] = lo, h
        stack[top + 1, 0], stack[top + 1, 1] = h, hi
        top += 2


@njit(cache=True, inline="always")
def _cut(W, perm, key, ranges, cuts, i, whole):
    """Range i of ``ranges`` cut once (``_halve``, the cut into ``cuts[i]``) or, ``whole``, down to cells
    (``_split``)."""
    if whole:
        _split(W, perm, key, ranges[i, 0], ranges[i, 1])
    else:
        cuts[i] = _halve(W, perm, key, ranges[i, 0], ranges[i, 1])


@njit(cache=True, parallel=True)
def _cut_all(W, perm, key, ranges, nr, cuts, chunks, whole):
    """``_cut`` of the first ``nr`` ``ranges`` (first, end); thread c takes ranges c, c + chunks, ... (a level's
    ranges differ in size by less than BLOCK records a cut, so the shares are about even)."""
    if chunks == 1:
        for i in range(nr):
            _cut(W, perm, key, ranges, cuts, i, whole)
    else:
        for c in prange(chunks):
            for i in range(c, nr, chunks):
                _cut(W, perm, key, ranges, cuts, i, whole)


@njit(cache=True)
def _cell_order(W, perm, shells, chunks):
    """``perm`` (records in decreasing distance to the anchor; ``W`` their rows, in that order) reordered in place
    into cells of BLOCK consecutive records (the last one shorter): ``shells`` ranges of about equal size (ends at
    multiples of BLOCK), each reordered into the leaves of a k-d split: a range of more than BLOCK records is cut
    (``_halve``). The rows of ``W`` move with the records (the split reads memory in order). On ``chunks`` threads:
    level by level while a level has fewer than four ranges a thread, then each thread splits its ranges to the end.
    O(m d log(m / BLOCK)) expected (selection by Hoare's method)."""
    m = perm.shape[0]
    key = np.empty(m)
    ranges = np.empty((max(shells, 8 * chunks), 2), np.int64)
    nxt = np.empty_like(ranges)
    cuts = np.empty(ranges.shape[0], np.int64)
    nr = np.int64(0)  # (not a literal 0: _cut_all would be compiled for it once more)
    a = 0
    for sh in range(shells):
        b = m if sh == shells - 1 else min(m, (m * (sh + 1) // shells + BLOCK - 1) // BLOCK * BLOCK)
        if b - a > BLOCK:
            ranges[nr, 0], ranges[nr, 1] = a, b
            nr += 1
        a = b
    while True:
        whole = not 0 < nr < 4 * chunks  # (a computed flag, not literals: _cut_all compiled once)
        _cut_all(W, perm, key, ranges, nr, cuts, chunks, whole)
        if whole:
            break
        n2 = np.int64(0)
        for i in range(nr):  # the halves still longer than a cell make the next level
            for lo, hi in ((ranges[i, 0], cuts[i]), (cuts[i], ranges[i, 1])):
                if hi - lo > BLOCK:
                    nxt[n2, 0], nxt[n2, 1] = lo, hi
                    n2 += 1
        ranges, nxt = nxt, ranges
        nr = n2


@njit(cache=True)
def _select(key, perm, W, a, b, h):
    """Reorder ``key``/``perm`` (and the rows of ``W``) on a..b-1 so that no key before position h exceeds one from h
    on (Hoare's select)."""
    lo, hi = a, b - 1
    while hi > lo:
        x, y, z = key[lo], key[(lo + hi) // 2], key[hi]
        pivot = max(min(x, y), min(max(x, y), z))  # median of three
        i, j = lo, hi
        while i <= j:
            while key[i] < pivot:
                i += 1
            while key[j] > pivot:
                j -= 1
            if i <= j:
                key[i], key[j] = key[j], key[i]
                perm[i], perm[j] = perm[j], perm[i]
                for t in range(W.shape[1]):
                    W[i, t], W[j, t] = W[j, t], W[i, t]
                i += 1
                j -= 1
        if h <= j:
            hi = j
        elif h >= i:
            lo = i
        else:
            break


@njit(cache=True)
def _fill(W, qids, c0, qs, Q, qpos, cnt, box, mx, rt, first, end):
    """Cells first..end-1 of the integer copy ``Q`` of the records ``qids`` (``W`` their rows, in cell order): each
    record's grid values (row p holds attributes 2p and 2p + 1 side by side, zeros for a missing last one; zeros past
    the records up to whole cells of BLOCK), its column in ``qpos``, and each cell's live count, box (the lowest and
    highest grid value of each attribute), largest squared norm and its root rounded up (``cnt``, ``box``, ``mx``,
    ``rt``: the cells holding records)."""
    m, d = W.shape
    for c in range(first, end):
        a, b = c * BLOCK, max(c * BLOCK, min(m, (c + 1) * BLOCK))  # (b == a: a cell past the records, all zeros)
        for j in range(a, b):
            for t in range(d):
                Q[t // 2, 2 * j + t % 2] = np.int16(np.floor((W[j, t] - c0[t]) * qs + 0.5))
        if d % 2 == 1:
            for j in range(a, b):
                Q[d // 2, 2 * j + 1] = 0
        for j in range(a, b):
            qpos[qids[j]] = j
        for j in range(b, (c + 1) * BLOCK):
            for p in range(Q.shape[0]):
                Q[p, 2 * j], Q[p, 2 * j + 1] = 0, 0
        if c >= cnt.shape[0]:
            continue
        cnt[c] = b - a
        for t in range(d):
            row = Q[t // 2, t % 2::2]
            lo, hi = row[a], row[a]
            for j in range(a + 1, b):
                lo = min(lo, row[j])
                hi = max(hi, row[j])
            box[0, t, c], box[1, t, c] = lo, hi
        mx[c] = 0
        for j in range(a, b):
            r2 = np.int64(0)
            for t in range(d):
                v = np.int64(Q[t // 2, 2 * j + t % 2])
                r2 += v * v
            mx[c] = max(mx[c], r2)
        rt[c] = _ceil_sqrt(mx[c])


@njit(cache=True, parallel=True)
def _fill_all(W, qids, c0, qs, Q, qpos, cnt, box, mx, rt, chunks):
    """``_fill`` of every cell of ``Q``, thread c taking a contiguous share of the cells."""
    nq = Q.shape[1] // (2 * BLOCK)
    if chunks == 1:
        _fill(W, qids, c0, qs, Q, qpos, cnt, box, mx, rt, np.int64(0), nq)
    else:
        for c in prange(chunks):
            a, b = _share(nq, chunks, c)
            _fill(W, qids, c0, qs, Q, qpos, cnt, box, mx, rt, a, b)


@njit(cache=True)
def _integer_copy(Z, rid, c0, big, n, shells, chunks):
    """(qs, H, Q, the records in cell order, their columns, the cells) of the records ``rid`` (in decreasing distance
    to the anchor ``c0``) of Z's ``n``: their rows (``_rows``), cut into cells (``_cell_order``) and filled in
    (``_fill``) on ``chunks`` threads, with the grid of ``_grid_step`` and the boxes by thread (``_by_thread``,
    serial: a few values a cell). The cells are (live count, box (2, d, cells), largest squared norm, its root rounded
    up, the boxes by thread). Removals lower the count only: the box and norm stay bounds of the records left (the
    copy is rebuilt once a quarter of it is dead)."""
    m, d = rid.shape[0], Z.shape[1]
    W = np.empty((m, d))
    _rows(Z, rid, W, chunks)
    qids = rid.copy()
    _cell_order(W, qids, shells, chunks)
    qs, H = _grid_step(d, big)
    nc = (m + BLOCK - 1) // BLOCK
    Q = np.empty(((d + 1) // 2, 2 * max(1, nc) * BLOCK), np.int16)  # (whole cells: see VEC)
    qpos = np.full(n, -1, np.int64)
    cnt, box = np.empty(nc, np.int64), np.empty((2, d, nc), np.int16)
    mx, rt = np.empty(nc, np.int64), np.empty(nc, np.int64)
    _fill_all(W, qids, c0, qs, Q, qpos, cnt, box, mx, rt, chunks)
    return qs, H, Q, qids, qpos, (cnt, box, mx, rt, _by_thread(box, chunks))


@njit(cache=True)
def _by_thread(box, chunks):
    """The cells' boxes again, thread by thread: a split pass gives thread c the cells c, c + chunks, ... (see
    ``_pass_parallel``), and here they lie side by side (thread c's from c * per on, per = ceil(cells / chunks)), so
    that each thread's bounds read contiguous memory and vectorize (a tenth less time for two threads at 10^6, where
    the strided reads did not vectorize). Empty for one thread. The boxes never change after a build."""
    nc = box.shape[2]
    per = (nc + chunks - 1) // chunks if chunks > 1 else 0
    out = np.zeros((2, box.shape[1], per * chunks), np.int16)
    for c in range(nc if chunks > 1 else 0):  # (cell c is thread c % chunks's (c // chunks)-th)
        for e in range(2):  # (loops: a slice assignment compiles numba's shape-error formatting, 3 s of a first call)
            for t in range(box.shape[1]):
                out[e, t, c % chunks * per + c // chunks] = box[e, t, c]
    return out


@njit(cache=True)
def build_index(Z, alive, c0, zmax2, chunks, cand, pmin, shells):
    """Fresh search structures around anchor ``c0``: (c0, pos, radial order, radii, screening state).

    The screening state: the float32 copy, its records (ascending), the integer copy, the float32 copy's size, the
    anchor, the float32 scale and largest squared norm, zmax2, chunks, the candidate buffer, ``pmin``, the grid step
    and bound H, the integer copy's records (in cell order), their columns, the cells (live count, box, largest
    squared norm and its root of each, and the boxes by thread: ``_by_thread``), the candidate values, the skip
    counter.
    A run on fewer than ``GRID_MIN`` records (``pmin`` None, see ``threads.run``) has no integer copy. The integer
    copy is cut into ``shells`` radial shells (``_cell_order``): SHELLS for methods whose passes seek farthest records
    (the inner shells are then skipped), 1 for those that only seek nearest ones (cells across shells have looser
    boxes: V-MDAV, CV-MDAV and IAMAT ran 1.2-1.4 times slower with four).
    """
    ids = np.flatnonzero(alive)
    big = _spread(Z, ids, c0)
    X, pos, scale, r2max = _pack(Z, ids, c0, big)
    rid, rrho = _radial(Z, ids, c0)
    if pmin is not None:
        qs, H, Q, qids, qpos, cells = _integer_copy(Z, rid, c0, big, Z.shape[0], shells, chunks)
    else:  # numba prunes the other branch for these runs, so ``_integer_copy`` is not compiled for them
        qs, H, Q = 1.0, np.int64(0), np.empty(((Z.shape[1] + 1) // 2, 2), np.int16)
        qids, qpos = ids[:0].copy(), np.full(Z.shape[0], -1, np.int64)
        cells = (np.zeros(0, np.int64), np.empty((2, Z.shape[1], 0), np.int16), np.zeros(0, np.int64),
                 np.zeros(0, np.int64), np.empty((2, Z.shape[1], 0), np.int16))
    val = np.empty(cand.shape)
    return c0, pos, rid, rrho, (X, ids, Q, ids.shape[0], c0, scale, r2max, zmax2, chunks, cand, pmin,
                                qs, H, qids, qpos, cells, val, np.zeros(1, np.int64))


@njit(cache=True, inline="always")
def around(Z, q, k, far, screen):
    """Exact (farthest record or -1, k nearest records) from ``q`` through the screening state.

    The integer pass answers unless the query lies outside its grid or its candidates overflowed lately; the
    float32 pass answers then (the same records, more slowly), and if even its candidates overflow (massive
    ties), every live record is checked in float64. (Inlined, with ``np.int64(k)`` and ``bool(far)``: a literal
    such as ``1`` or ``True`` at a call site would otherwise make numba compile the chain of passes once more.)
    """
    return _around(Z, q, np.int64(k), bool(far), screen, screen[10])


@njit(cache=True)
def _around(Z, q, k, far, screen, pmin):
    """``around`` with the pass threshold ``pmin`` as an argument: a run on fewer than ``GRID_MIN`` records (``pmin``
    None) has no integer copy, and numba then leaves the integer pass out of the compiled code (the first call
    compiles less)."""
    X, ids, Q, m, c0, scale, r2max, zmax2, chunks, cand, _, qs, H, qids, _, cells, val, skip = screen
    if pmin is None:
        pass
    elif skip[0] > 0:
        skip[0] -= 1
    else:
        q16, inside = _grid_query(q, c0, qs, H)
        if inside and qs <= _QS_MAX:  # (a finer grid: its margins would not cover float64 underflow)
            e2 = 2.0 * np.sqrt(q.shape[0]) * (1.0 + _SLACK16)
            done, f, bi = _screen(Z, Q, qids, qids.shape[0], q, q16, k, e2, True, far, chunks, cand, val, pmin, GRID,
                                  cells)
            if done:
                return f, bi
            skip[0] = SKIP_AFTER_OVERFLOW
    mg = 2.0 * _margin(q, c0, scale, r2max, zmax2)  # (on one thread: where an integer copy exists it is the fallback)
    done, f, bi = _screen(Z, X, ids, m, q, _scaled_query(q, c0, scale), k, mg, False, far, 1, cand, val, None, FLOAT,
                          None)
    if done:
        return f, bi
    return _exhaustive(Z, X, ids, m, q, k, far)


@njit(cache=True)
def emit(Z, screen, pos, members, g, labels, alive, S):
    """Make group ``g`` of ``members``; update the running sum in ascending record order.

    The members are blanked in the float32 copy and swapped out of the integer copy (the last live column of
    their cell takes their place, so its passes never meet a removed record).
    """
    X, Q, qids, qpos, qcnt = screen[0], screen[2], screen[13], screen[14], screen[15][0]
    # float64 keys (exact for record indices): the sort kernel the passes and prefixes compile anyway, none for int64
    order = np.argsort(members.astype(np.float64), kind="mergesort")
    for i in members[order]:
        labels[i] = g
        alive[i] = False
        for t in range(Z.shape[1]):
            S[t] -= Z[i, t]
        X[0, pos[i]] = np.nan
        j = qpos[i]
        if j < 0:  # no integer copy (a small run)
            continue
        b = j // BLOCK
        last = b * BLOCK + qcnt[b] - 1
        for p in range(Q.shape[0]):
            Q[p, 2 * j], Q[p, 2 * j + 1] = Q[p, 2 * last], Q[p, 2 * last + 1]
        qids[j] = qids[last]
        qpos[qids[j]] = j
        qpos[i] = -1
        qcnt[b] -= 1


@njit(cache=True)
def _sums(Z):
    """Column sums of Z and the largest squared row norm (one pass)."""
    n, d = Z.shape
    S = np.zeros(d)
    zmax2 = 0.0
    for i in range(n):
        r2 = 0.0
        for t in range(d):
            S[t] += Z[i, t]
            r2 += Z[i, t] * Z[i, t]
        zmax2 = max(zmax2, r2)
    return S, zmax2


@njit(cache=True)
def start(Z, chunks):
    """Fresh state of a run: (labels, alive, running sum S, largest squared norm, candidate buffer)."""
    n = Z.shape[0]
    S, zmax2 = _sums(Z)
    cand = np.empty((max(chunks, 1), CAND_CAP), np.int64)
    return np.full(n, -1, np.int64), np.ones(n, np.bool_), S, zmax2, cand


@njit(cache=True)
def assign_rest(Z, labels, alive, m):
    """The records still alive (fewer than k) join their nearest of the m groups formed; returns them."""
    leftovers = np.flatnonzero(alive)
    if leftovers.shape[0] > 0:
        _assign_leftovers(Z, labels, leftovers, m)
    return leftovers


@njit(cache=True)
def _assign_leftovers(Z, labels, leftovers, m):
    """Each leftover record joins the group whose centroid is nearest (lowest group id among ties).

    Centroids are those of the groups formed so far, computed once: member sums in
    ascending record order, divided by the group size.
    """
    n, d = Z.shape
    C = np.zeros((m, d))
    cnt = np.zeros(m)
    for i in range(n):
        if labels[i] >= 0:
            for t in range(d):
                C[labels[i], t] += Z[i, t]
            cnt[labels[i]] += 1.0
    for j in range(m):
        for t in range(d):
            C[j, t] /= cnt[j]
    for i in leftovers:
        best = np.inf
        for j in range(m):
            d2 = sqdist(C, j, Z[i])
            if d2 < best:
                best = d2
                labels[i] = j


# ----------------------------------------------------------------------------- searches around a group
#
# V-MDAV, CV-MDAV and IAMAT grow a group by repeated queries: the nearest records outside
# the group of a member, the k nearest to a candidate y_j, the record nearest to the
# group's centroid. Each query has one exact answer in the engine's arithmetic (``sqdist``;
# the lowest row index wins ties), and is answered
#
# 1. from the *prefix*: the L = 8k + 8 live records nearest to the group's seed q, fetched
#    once per group by one screened pass (``around``) and sorted by (squared distance,
#    index). A record at distance rho from q is at least rho - |p - q| from a point p, so a
#    scan of the prefix in that order stops, with a proven answer, once the bound exceeds
#    the current answer by a relative margin of 1e-9 (far above float64 rounding). This
#    succeeds on data of low intrinsic dimension, such as the CASC sets;
# 2. otherwise by one screened pass over the live records.
#
# Cost: one pass per group and, where the bound is weak (high intrinsic dimension), one pass
# per query: O(k) passes per group, O(n^2 d) in all. Every added record needs an exact
# nearest-neighbour query, so this family cannot do better without a spatial index, and
# indexes do not prune in ~10 dimensions (a scipy cKDTree query on 10^5 records of
# N(0, I_10) takes longer than a screened pass).

# These methods make about one short pass per added record, so thread start-up outweighs the split unless the
# pass is long (V-MDAV, 10^5 records, k = 10 on 2 cores: 15.5 s on one thread, 18.9 s on two, and 60 s on two
# when another process keeps a core busy): their passes split over threads only above this many live records.
SEARCH_PARALLEL_MIN = 1 << 18

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
            d2[j] = sqdist(Z, live[j], q)
        order = np.argsort(d2, kind="mergesort")  # stable: ties stay in index order
        L = min(L, m)
        return live[order[:L]].copy(), d2[order[:L]].copy(), L == m
    _, ids = around(Z, q, L, False, screen)
    d2 = np.empty(L)
    for j in range(L):
        d2[j] = sqdist(Z, ids[j], q)
    return ids, d2, False


@njit(cache=True)
def beyond(rho, off, best):
    """True when every record at distance >= ``rho`` from q is farther than ``best`` from a point ``off`` from q."""
    return rho - off > best + SLACK * (rho + off + best) + 2.0 ** -500


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
        s = sqdist(Z, i, p)
        if insert_nearest(out_d, out_i, s, i):
            cnt = min(cnt + 1, m)
    if complete:
        return cnt == m
    return cnt == m and beyond(np.sqrt(pd2[L - 1]), dpq, np.sqrt(out_d[m - 1]))


@njit(cache=True, inline="always")
def outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
    """The ``m`` live records nearest to point ``p`` (``dpq`` = |p - q|) that are neither in ``skip`` nor ``skipid``.

    ``nskip`` is the number of records flagged in ``skip``. Returns (ids, squared
    distances), sorted and exact, fewer than ``m`` only if fewer exist. Answered
    from the prefix when its bounds allow, otherwise by one screened pass over the
    live records for the m + nskip + 1 nearest, which always hold m valid ones.
    (Inlined, with int64 counts, for the reason given at ``around``.)
    """
    return _outside(Z, p, dpq, np.int64(m), skip, np.int64(nskip), np.int64(skipid), pid, pd2, complete, screen,
                    alive, n_live)


@njit(cache=True)
def _outside(Z, p, dpq, m, skip, nskip, skipid, pid, pd2, complete, screen, alive, n_live):
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
def close_group(Z, screen, pos, members, g, labels, alive, S, ing):
    """Emit group g of ``members`` (label, remove from the screen and the running sum) and clear their flags."""
    emit(Z, screen, pos, members, g, labels, alive, S)
    for a in range(members.shape[0]):
        ing[members[a]] = False
