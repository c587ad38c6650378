"""The engine's queries against brute force: both screening copies, removals, and the fall-back between them."""

import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import microagg as ma
from microagg.partition.compiled import brute, engine

from .. import fresh
from ..reference import farthest, nearest, reference_mdav
from ..reference_methods import reference_cvmdav, reference_iamat, reference_md, reference_vmdav

REFERENCES = {"mdav": reference_mdav, "vmdav": reference_vmdav, "cvmdav": reference_cvmdav, "md": reference_md,
              "iamat": reference_iamat}


def _state(Z, pmin=1, chunks=1, shells=engine.SHELLS):
    """A run's state; ``pmin`` None is a small run's (no integer copy); passes split into ``chunks`` threads; the
    integer copy in ``shells`` radial shells."""
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    _, pos, _, _, screen = engine.build_index(Z, alive, S / Z.shape[0], zmax2, chunks, cand, pmin, np.int64(shells))
    return labels, alive, S, pos, screen


def _grid(screen):
    """The integer copy as (attributes, columns), int64 (the engine keeps it in interleaved pairs of attributes)."""
    Q, d = screen[2], screen[15][1].shape[1]
    return Q.reshape(Q.shape[0], -1, 2).transpose(0, 2, 1).reshape(2 * Q.shape[0], -1)[:d].astype(np.int64)


def _data(kind, rng):
    if kind == "gaussian":
        return rng.standard_normal((3000, 6))
    if kind == "one attribute":  # odd widths: the last pair of the integer copy is half padding
        return rng.standard_normal((1500, 1))
    if kind == "seven attributes":
        return rng.standard_normal((2000, 7))
    if kind == "integer ties":
        return rng.integers(0, 4, (2500, 3)).astype(float)
    if kind == "outlier":  # one record far away: the grid is coarse for the others
        Z = rng.standard_normal((2000, 4))
        Z[17] = 1e6
        return Z
    if kind == "below the grid":  # records that differ by far less than one grid step
        return np.repeat(rng.standard_normal((300, 3)), 6, axis=0) + 1e-9 * rng.standard_normal((1800, 3))
    if kind == "sphere":  # record 0 at the centre, the others at radii 1 + 1e-11 i: rounding to the grid
        u = rng.standard_normal((2000, 4))  # or to float32 scrambles their order, the margins must restore it
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        return np.vstack([np.zeros((1, 4)), u * (1.0 + 1e-11 * rng.permutation(2000))[:, None]])
    raise AssertionError(kind)


@pytest.mark.parametrize("pmin, chunks", [(1, 1), (1, 2), (None, 1)],
                         ids=["integer copy", "integer copy on two threads", "float32 copy only"])
@pytest.mark.parametrize("kind", ["gaussian", "one attribute", "seven attributes", "integer ties", "outlier",
                                  "below the grid", "sphere"])
def test_queries_equal_brute_force_while_records_are_removed(kind, pmin, chunks):
    rng = np.random.default_rng(5)
    Z = _data(kind, rng)
    labels, alive, S, pos, screen = _state(Z, pmin, chunks)
    k = 4
    for g in range(40):
        rows = np.flatnonzero(alive)
        lo, hi = Z[rows].min(axis=0), Z[rows].max(axis=0)
        off_grid = hi + 10.0 * (hi - lo + 1.0)  # answered by the float32 pass
        queries = [Z[rows[0]], Z[rng.choice(rows)], rng.uniform(lo, hi), off_grid]
        for q in queries:
            f, near = engine.around(Z, q.copy(), k, True, screen)
            assert f == farthest(Z, rows, q)
            np.testing.assert_array_equal(near, nearest(Z, rows, q, k))
            f, only = engine.around(Z, q.copy(), k, False, screen)  # a near-only pass (from 4 attributes on it rules
            assert f == -1  # cells out after half of them, engine._may_pass)
            np.testing.assert_array_equal(only, near)
        engine.emit(Z, screen, pos, near, g, labels, alive, S)
        if pmin is None:
            assert screen[15][0].shape[0] == 0
            continue
        cols = _live_columns(screen)
        np.testing.assert_array_equal(np.sort(screen[13][cols]), np.flatnonzero(alive))  # the integer copy: the live
        assert np.all(screen[14][screen[13][cols]] == cols)


def _live_columns(screen):
    """The live columns of the integer copy: the first ``count`` of every cell."""
    return np.concatenate([c * engine.BLOCK + np.arange(n) for c, n in enumerate(screen[15][0])])


@pytest.mark.parametrize("shells", [1, engine.SHELLS])
@pytest.mark.parametrize("kind", ["gaussian", "seven attributes", "integer ties", "outlier"])
def test_cells_are_the_leaves_of_a_kd_split_and_bound_their_records(kind, shells):
    Z = _data(kind, np.random.default_rng(6))
    labels, alive, S, pos, screen = _state(Z, chunks=2, shells=shells)  # (passes split in two: boxes by thread)
    Q, (cnt, box, mx, rt, by_thread) = _grid(screen), screen[15]
    per = -(-len(cnt) // 2)
    for c in range(2):  # thread c's cells c, c + 2, ... side by side
        np.testing.assert_array_equal(by_thread[:, :, c * per:c * per + len(cnt[c::2])], box[:, :, c::2])
    assert len(cnt) == -(-len(Z) // engine.BLOCK) and cnt.sum() == len(Z)
    assert np.all(cnt[:-1] == engine.BLOCK)
    for c in range(len(cnt)):
        cell = Q[:, c * engine.BLOCK:c * engine.BLOCK + cnt[c]]
        np.testing.assert_array_equal(box[0, :, c], cell.min(axis=1))
        np.testing.assert_array_equal(box[1, :, c], cell.max(axis=1))
        assert mx[c] == (cell ** 2).sum(axis=0).max()
        assert rt[c] ** 2 >= mx[c] > (rt[c] - 1) ** 2  # its root, rounded up (the far bound's |z|)
    assert Q.shape[1] % engine.BLOCK == 0 and not screen[2][:, 2 * len(Z):].any()  # whole cells, zeros past the
    if Z.shape[1] % 2:  # records (passes read them in VEC columns); an odd width's last pair ends in zeros
        assert not screen[2][-1, 1::2].any()
    rho = np.sqrt(((Z[screen[13]] - screen[4]) ** 2).sum(axis=1))  # distance to the anchor, in cell order
    cut = _shells(len(Z), shells)
    for a0, a1 in cut:  # leaves of a k-d split within each shell: any two cells are apart (or touch) somewhere
        for a in range(a0, a1):
            for b in range(a0, a):
                assert np.any((box[1, :, a] <= box[0, :, b]) | (box[1, :, b] <= box[0, :, a])), (a, b)
    for (a0, a1), (b0, b1) in zip(cut, cut[1:]):  # shells from the outside in
        outer, inner = rho[a0 * engine.BLOCK:a1 * engine.BLOCK], rho[b0 * engine.BLOCK:b1 * engine.BLOCK]
        assert outer.min() >= inner.max() * (1 - 1e-12)
    rng = np.random.default_rng(7)
    for g in range(30):  # the bounds hold for every live record while records leave (boxes are not refitted)
        cols = _live_columns(screen)
        Q = _grid(screen)  # (removals move columns within their cell)
        q = Q[:, rng.choice(cols)] + rng.integers(-50, 51, Q.shape[0])
        lbs, ubs = engine._cell_bounds(screen[15], q.astype(np.int32), 0, len(cnt), 1, True)
        d2 = ((Q[:, cols] - q[:, None]) ** 2).sum(axis=0)
        cell_of = cols // engine.BLOCK
        assert np.all(lbs[cell_of] <= d2) and np.all(d2 <= ubs[cell_of])
        odd = engine._cell_bounds(screen[15], q.astype(np.int32), 1, len(cnt) // 2, 2, True)  # a thread's cells
        np.testing.assert_array_equal(np.array(odd), np.array([lbs[1::2], ubs[1::2]]))
        near = engine.around(Z, Z[np.flatnonzero(alive)[0]].copy(), 5, False, screen)[1]
        engine.emit(Z, screen, pos, near, g, labels, alive, S)
    engine.emit(Z, screen, pos, screen[13][:cnt[0]].copy(), 30, labels, alive, S)  # empty the first cell
    lbs, ubs = engine._cell_bounds(screen[15], np.zeros(Q.shape[0], np.int32), 0, len(cnt), 1, True)
    assert cnt[0] == 0 and lbs[0] == np.iinfo(np.int64).max and ubs[0] == -1  # no test passes: never read


@pytest.mark.parametrize("d", [8, 7])
def test_a_cell_ruled_out_after_half_the_attributes_holds_no_record_that_could_pass(d):
    """``_may_pass``: the exact partial sums over the first attributes plus the least the others can add inside the
    cell's box never rule out a cell holding a record within the limit, and do rule out cells (the point of reading
    only half of a cell's attributes first); sums past the cell's live columns (a pass sums whole ``VEC``s) count
    for nothing, however small."""
    rng = np.random.default_rng(11)
    Z = rng.standard_normal((6000, d))
    screen = _state(Z)[-1]
    Q, (cnt, box, *_) = _grid(screen), screen[15]
    pairs = screen[2].shape[0]
    split, ruled_out = 2 * ((pairs + 1) // 2), 0  # (the pass's: half of the attribute pairs, rounded up)
    for _ in range(12):
        q = Q[:, rng.integers(Q.shape[1])] + rng.integers(-30, 31, Q.shape[0])
        d2 = ((Q - q[:, None]) ** 2).sum(axis=0)
        part = ((Q[:split] - q[:split, None]) ** 2).sum(axis=0)
        nlim = float(np.quantile(d2, 0.01))
        for c in range(len(cnt)):
            cols = slice(c * engine.BLOCK, c * engine.BLOCK + cnt[c])
            loc = np.full(engine.BLOCK, -1, np.int32)  # (below every true sum: it must not count)
            loc[:cnt[c]] = part[cols]
            may = engine._may_pass(loc, cnt[c], box, c, q.astype(np.int32), split, nlim)
            gap = np.maximum(0, np.maximum(box[0, split:, c] - q[split:], q[split:] - box[1, split:, c]))
            assert may == (part[cols].min() + (gap.astype(np.int64) ** 2).sum() <= nlim), c
            assert may or not np.any(d2[cols] <= nlim), c
            ruled_out += not may
    assert ruled_out > 0


@pytest.mark.parametrize("shells", [1, engine.SHELLS])
@pytest.mark.parametrize("kind", ["gaussian", "seven attributes", "integer ties", "large, a seventh removed"])
def test_a_rebuild_on_several_threads_builds_the_same_copy(kind, shells):
    """A rebuild on two, three or five threads (more than numba's on a small machine) builds what one thread builds:
    the integer copy's rows, its k-d split (level by level, then each thread's ranges depth first: from about 4 000
    records on two threads, so the large case), its cells. The same records in the same order and cells, the same
    values, the same bounds."""
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((20001, 3)) if kind.startswith("large") else _data(kind, rng)

    def build(chunks):
        _, alive, S, zmax2, cand = engine.start(Z, chunks)
        if kind.startswith("large"):  # a rebuild after removals: the columns of the removed records stay -1
            alive[::7] = False
        return engine.build_index(Z, alive, Z[alive].mean(axis=0), zmax2, chunks, cand, np.int64(1), np.int64(shells))

    *one, screen1 = build(1)
    for chunks in (2, 3, 5):
        *many, screen = build(chunks)
        for a, b in zip(many, one):  # anchor, columns of the records, radial order, radii
            np.testing.assert_array_equal(a, b)
        for part in (0, 1, 3, 5, 6, 2, 11, 12, 13, 14):  # the float32 copy, its records, size, scale and largest
            # squared norm; the integer copy, its step and bound, its records (in cell order), their columns
            np.testing.assert_array_equal(screen[part], screen1[part])
        for a, b in zip(screen[15][:4], screen1[15][:4]):  # live counts, boxes, largest squared norms and their roots
            np.testing.assert_array_equal(a, b)


def _shells(n, shells=engine.SHELLS):
    """The cells (first, end) of each radial shell of a copy of ``n`` records, as ``engine._cell_order`` cuts them."""
    ends = [min(n, -(-n * (s + 1) // shells // engine.BLOCK) * engine.BLOCK) for s in range(shells)]
    ends[-1] = n
    cuts = sorted({0, *ends})
    return [(a // engine.BLOCK, -(-b // engine.BLOCK)) for a, b in zip(cuts, cuts[1:])]


def test_inner_shells_are_not_read_for_the_farthest_record():
    """Looking for the record farthest from the one farthest out, the |z||q| bound rules out every cell of the inner
    shells (their records are too close to the anchor to be that far); in 10 dimensions the box alone would not."""
    Z = np.random.default_rng(9).standard_normal((4000, 10))
    screen = _state(Z)[-1]
    Q, (cnt, box, mx, *_) = _grid(screen), screen[15]
    q = Q[:, 0]  # the record farthest from the anchor comes first
    top = ((Q - q[:, None]) ** 2).sum(axis=0).max()
    _, ubs = engine._cell_bounds(screen[15], q.astype(np.int32), 0, len(cnt), 1, True)
    inner = np.arange(_shells(len(Z))[1][0], len(cnt))
    assert np.all(ubs[inner] < top)
    by_box = mx + (q ** 2).sum() - 2 * np.minimum(box[0].T * q, box[1].T * q).sum(axis=1)
    assert not np.all(by_box[inner] < top)


def test_a_cell_whose_bounds_rule_it_out_is_not_read():
    """The skip is real (timing aside): a cell whose box is moved off its records is passed over, so the pass
    answers as if its records were gone; with the box restored it answers right again."""
    Z = np.random.default_rng(8).standard_normal((3000, 4))
    screen = _state(Z)[-1]
    cnt, box, *_ = screen[15]
    q = Z[123].copy()
    truth = nearest(Z, np.arange(len(Z)), q, 3)
    np.testing.assert_array_equal(engine.around(Z, q, 3, False, screen)[1], truth)
    cell = screen[14][123] // engine.BLOCK  # the query's own record is in it
    inside = screen[13][cell * engine.BLOCK:cell * engine.BLOCK + cnt[cell]]
    kept = box[:, :, cell].copy()
    box[:, :, cell] = box[:, :, cell].max()  # a box in a far corner: every record's lower bound is too high
    lbs, _ = engine._cell_bounds(screen[15], engine._grid_query(q, screen[4], screen[11], screen[12])[0], 0,
                                 len(cnt), 1, False)
    assert lbs[cell] > lbs.min()  # (not the cell read first)
    others = np.setdiff1d(np.arange(len(Z)), inside)
    np.testing.assert_array_equal(engine.around(Z, q, 3, False, screen)[1], nearest(Z, others, q, 3))
    box[:, :, cell] = kept
    np.testing.assert_array_equal(engine.around(Z, q, 3, False, screen)[1], truth)


def test_the_radial_order_is_by_decreasing_distance_ties_in_index_order():
    """``_decreasing`` (a radix sort) gives the positions ``argsort(-rho, kind="mergesort")`` gives: by decreasing
    value, equal values in their order, over the whole range of non-negative floats."""
    rng = np.random.default_rng(12)
    cases = [np.sqrt((rng.standard_normal((5000, 10)) ** 2).sum(axis=1)),
             np.floor(rng.random(3000) * 20) / 7,  # many ties
             np.array([0.0, 5e-324, 1e300, 2.0, 2.0, 0.0, np.inf, 1e-310]),
             np.zeros(300), np.array([3.0]), np.empty(0)]
    for rho in cases:
        np.testing.assert_array_equal(engine._decreasing(rho), np.argsort(-rho, kind="mergesort"))


def test_grid_sums_cannot_overflow():
    rng = np.random.default_rng(1)
    for d in (1, 2, 10, 57):
        Z = rng.standard_normal((500, d)) * 10.0 ** rng.integers(-5, 6)
        screen = _state(Z)[-1]
        qs, H, Q = screen[11], screen[12], screen[2]
        assert d * (2 * H) ** 2 < 2 ** 31 and 2 * H < 2 ** 15  # (a pair's differences are taken in 16 bits)
        assert np.abs(Q).max() <= H
        assert np.log2(qs) == np.round(np.log2(qs))  # a power of two


def test_the_integer_pass_answers_and_overflow_falls_back_to_float32_then_to_every_record():
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((5000, 5))
    screen = _state(Z)[-1]
    engine.around(Z, Z[3].copy(), 3, True, screen)
    assert screen[17][0] == 0  # no overflow: the integer pass answered
    Z = np.ones((5000, 5))  # every record ties: the candidates of both passes overflow, float64 decides all
    screen = _state(Z)[-1]
    f, near = engine.around(Z, Z[3].copy(), 3, True, screen)
    assert screen[17][0] == engine.SKIP_AFTER_OVERFLOW
    assert f == 0
    np.testing.assert_array_equal(near, [0, 1, 2])


_COUNT_COMPILES = """
import collections, json, numpy as np
from numba import types
from numba.core import event
seen = collections.defaultdict(list)
class Listen(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("microagg"):
            name = f.__module__.rsplit(".", 1)[-1] + "." + f.__qualname__
            seen[name].append(str(tuple(types.unliteral(a) for a in ev.data["args"])))
    def on_end(self, ev):
        pass
event.register("numba:compile", Listen())
import microagg as ma
from microagg.partition import kernels
from microagg.partition.compiled import brute, engine
kernels.set_backend("compiled")  # (on 300 records "auto" would take the numpy kernels)
Z = np.random.default_rng(0).standard_normal((300, 4))
ma.partition.mdav(Z, 3)  # below brute.MAX: the brute-force engine
first = sorted(seen)
for method in (ma.partition.vmdav, ma.partition.iamat, ma.partition.cvmdav):  # (MD: always the screened engine)
    method(Z, 3)
brute.MAX = 0  # from here on every run on the screened engine
for grid_min in (engine.GRID_MIN, 0):  # the small runs' kernels, then those with the integer copy
    engine.GRID_MIN = grid_min
    for method in (ma.partition.mdav, ma.partition.vmdav, ma.partition.md, ma.partition.iamat, ma.partition.cvmdav):
        method(Z, 3)
print(json.dumps([first, seen]))
"""


@pytest.fixture(scope="module")
def first_compiles(tmp_path_factory):
    """With an empty numba cache, in a fresh process: the kernels compiled by a first MDAV call on 300 records, and
    then (name: argument types of every compile) by the rest of the family on the brute-force engine and by every
    method of the family on each screening copy."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("numba")), "MICROAGG_THREADS": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    res = fresh.run(["-c", _COUNT_COMPILES], env)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_first_call_compiles_each_kernel_once(first_compiles):
    """MDAV and the family compile no kernel of theirs twice for the same argument types: a literal argument
    (``g = 0``, ``True``) at a call site makes numba compile the callee, and everything it calls, once more for that
    literal (the first MDAV call compiled in 28 s instead of 16). The one deliberate exception: the pass itself,
    specialized on whether it looks for the farthest record (on one thread)."""
    seen = first_compiles[1]
    assert {"mdav.mdav_kernel", "vmdav.vmdav_kernel_brute", "engine._around"} <= set(seen)  # (else it proves nothing)
    allowed = {"engine._pass_range": 3}  # far True / far False, and far as a variable in the parallel pass
    twice = {name: sigs for name, sigs in seen.items() if max(Counter(sigs).values()) > allowed.get(name, 1)}
    assert not twice, twice


def test_a_first_small_call_compiles_no_screening_kernel(first_compiles):
    """A first MDAV call on fewer than ``brute.MAX`` records compiles the loop on the brute-force engine only: none of
    the screened engine's copies, passes and radial index (they take about half of the first compile)."""
    first = first_compiles[0]
    assert "mdav.mdav_kernel_brute" in first and "mdav.mdav_kernel" not in first
    screened = {"engine.build_index", "engine._around", "engine._screen", "engine._pass_range", "engine._radial",
                "engine.farthest_from_centroid", "engine.emit"}
    assert screened & set(first_compiles[1])  # (the names are those the listener reports)
    assert not screened & set(first), sorted(screened & set(first))


@pytest.mark.parametrize("method", ["mdav", "vmdav", "cvmdav", "md", "iamat"])
def test_every_method_gives_the_same_labels_on_either_copy(method, monkeypatch):
    """Runs of at least ``GRID_MIN`` records screen on the integer copy, smaller ones on the float32 copy alone; both
    only narrow what float64 decides, so the labels must not depend on it (forced here on small data: a CASC set,
    and integers with many ties)."""
    rng = np.random.default_rng(4)
    func = getattr(ma.partition, method)
    monkeypatch.setattr(brute, "MAX", 0)  # MDAV on the screened engine at every size

    def labels(Z, grid_min):
        monkeypatch.setattr(engine, "GRID_MIN", grid_min)
        return func(Z, 3)

    for Z in (ma.standardize(ma.load_dataset("census")), rng.integers(0, 5, (700, 3)).astype(float)):
        np.testing.assert_array_equal(labels(Z, 0), labels(Z, len(Z) + 1))


@pytest.mark.parametrize("grid_min", [engine.GRID_MIN, 0], ids=["float32 copy", "integer copy"])
@pytest.mark.parametrize("method", ["mdav", "vmdav", "cvmdav", "md", "iamat"])
def test_data_whose_squared_distances_underflow_get_the_float64_answer(method, grid_min, monkeypatch):
    """On data of a tiny spread the float64 squares underflow (to zero or to a few subnormal steps), which the
    rounding margins of the screens once ignored: each method then differed from its reference on 29 of these 40
    runs. The labels are those of the reference, whose arithmetic is the definition's."""
    monkeypatch.setattr(brute, "MAX", 0)
    monkeypatch.setattr(engine, "GRID_MIN", grid_min)
    rng = np.random.default_rng(0)
    cases = [(np.array([[0.0], [2.73083628e-215], [0.0], [0.0]]), 2), (rng.standard_normal((300, 3)) * 2.0 ** -700, 3),
             (rng.integers(0, 3, (200, 2)) * 2.0 ** -560, 3), (rng.standard_normal((500, 4)) * 1e-310, 3)]
    if method != "iamat":  # subnormal squares (the absolute margins of the prefix test and of MD's first bounds);
        # IAMAT's reference sums the squared distances to the members, equal to the engine's distance to their
        # centroid up to rounding, which subnormals make coarse (tests/partition/test_numpy_engine.py: both engines)
        cases += [(rng.standard_normal((1500, 2)) * 1e-160, 3), (rng.standard_normal((1500, 3)) * 3e-162, 3)]
    reference = REFERENCES[method]
    for Z, k in cases:
        np.testing.assert_array_equal(getattr(ma.partition, method)(Z, k), reference(Z, k))


def test_ceil_sqrt_is_exact_where_the_float_root_is_not():
    """The Cauchy-Schwarz bound's integer root: the least r with r * r >= p, also for p beyond float64's exact
    integers (2^53), where the float root can be off by one either way."""
    big = [(3 * 10 ** 8 + j) ** 2 + e for j in range(5) for e in (-1, 0, 1)] + [2 ** 62 - 1, (2 ** 31 - 1) ** 2 + 1]
    for p in [0, 1, 2, 3, 4, 5, 8, 9, 10, *big]:
        r = engine._ceil_sqrt(np.int64(p))
        assert r * r >= p and (r == 0 or (r - 1) * (r - 1) < p), p


def _split_pass(screen, q, k, far, chunks, shared, preset=None):
    """The ``chunks`` ranges of a split pass about grid query ``q`` run one after another, with one pair of shared
    limits (starting at ``preset``, as if other threads had published them) or (not ``shared``) each with its own:
    the k-th smallest and the largest over all ranges, the candidates that pass the final tests and those recorded
    (column, value), the number recorded, and the shared limits at the end."""
    Q, qids, cells = screen[2], screen[13], screen[15]
    m = qids.shape[0]
    mg = 2.0 * np.sqrt(screen[15][1].shape[1]) * (1.0 + engine._SLACK16)
    kb, tops, picked = np.empty((chunks, k)), np.empty(chunks), []
    cand, val = np.empty((chunks, engine.CAND_CAP), np.int64), np.empty((chunks, engine.CAND_CAP))
    lims = np.array([np.inf, -np.inf] if preset is None else preset)
    for c in range(chunks):
        own = lims if shared else np.array([np.inf, -np.inf])
        tops[c], n = engine._pass_range(Q, q, min(m, c * engine.BLOCK), m, chunks, k, mg, True, far, kb[c], cand[c],
                                        val[c], engine.GRID, cells, own)
        assert n <= engine.CAND_CAP
        picked += zip(cand[c, :n].tolist(), val[c, :n].tolist())
    kth = np.sort(kb.ravel())[k - 1]
    nthr, fthr = engine._near_limit(kth, mg, True), engine._far_limit(tops.max(), mg, True)
    final = {(j, v) for j, v in picked if v <= nthr or (far and v >= fthr)}
    return kth, tops.max() if far else None, final, set(picked), len(picked), lims


@pytest.mark.parametrize("kind", ["gaussian", "sphere"])
@pytest.mark.parametrize("far", [False, True], ids=["nearest", "farthest and nearest"])
def test_the_ranges_of_a_split_pass_share_their_limits(far, kind):
    """The 16 ranges of a split pass, run one after another with one pair of shared limits, record fewer candidates
    than each range with limits of its own (those another range's limits rule out are skipped), yet the k-th
    smallest and the largest over all ranges, and every candidate that passes the final tests, are the same. With
    the final k-th smallest and largest published before the pass, the ranges record exactly the candidates that
    pass the final tests: every shared limit is read, with its rounding margin. The largest published is the
    largest distance. On the sphere every record lies
    within the margins of the others' distances from its centre."""
    rng = np.random.default_rng(21)
    if kind == "gaussian":
        Z = rng.standard_normal((40_000, 6))
    else:  # record 0 at the centre, the others at radii 1 + 1e-11 i
        u = rng.standard_normal((12_000, 4))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        Z = np.vstack([np.zeros((1, 4)), u * (1.0 + 1e-11 * rng.permutation(len(u)))[:, None]])
    screen = _state(Z, chunks=16)[-1]
    for i in ((0, 777, 39_000) if kind == "gaussian" else (0, 5)):
        q = engine._grid_query(Z[i], screen[4], screen[11], screen[12])[0]
        kth, top, final, _, count, lims = _split_pass(screen, q, 3, far, 16, True)
        kth_o, top_o, final_o, _, count_o, _ = _split_pass(screen, q, 3, far, 16, False)
        assert kth == kth_o and top == top_o and final == final_o and final
        assert kth <= lims[0] < np.inf and lims[1] == (top if far else -np.inf)  # what the ranges published
        if kind == "gaussian":
            assert count < count_o
        preset = [kth, top if far else -np.inf]
        assert _split_pass(screen, q, 3, far, 16, True, preset)[3] == final
