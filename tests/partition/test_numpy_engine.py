"""The numpy engine and the numpy kernels against the compiled ones: the same labels, tie rule included."""

import sys

import numpy as np
import pytest

import microagg as ma
from microagg.base.registry import get_method, methods
from microagg.data.datasets import SURVEY_EDUCATION
from microagg.partition import kernels, numpy_engine

# Every method of the MDAV family (the methods of the engine), each variant that changes its loop.
FAMILY = [("mdav", {"variant": v}) for v in ("generic", "classic", "mdav1", "single")] + [
    ("vmdav", {}), ("vmdav", {"centroid": "remaining"}), ("cvmdav", {}), ("cvmdav", {"step4": ">="}),
    ("md", {}), ("md", {"tail": "classic"}), ("iamat", {})]


def on_both(func):
    """``func()`` on the numpy kernels and on the compiled ones."""
    with kernels.use_backend("numpy"):
        mine = func()
    with kernels.use_backend("compiled"):
        theirs = func()
    return mine, theirs


def same_labels(name, Z, k, params):
    mine, theirs = on_both(lambda: get_method("partition", name).func(Z, k, **params))
    assert np.array_equal(mine, theirs), (name, params, Z.shape, k)


def test_row_sums_add_row_after_row():
    # float64 is not associative: the sums must be the running ones the compiled engines form, one column too
    rng = np.random.default_rng(0)
    for D in (rng.standard_normal((1001, 3)) * 10.0 ** rng.integers(-8, 9, (1001, 3)), rng.standard_normal((999, 1))):
        running = np.zeros(D.shape[1])
        for row in D:
            running = running + row
        assert np.array_equal(numpy_engine.row_sums(D), running)


def test_sqdists_sum_attribute_by_attribute():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((11, 500)) * 10.0 ** rng.integers(-5, 6, (11, 1))  # (numpy sums 8 or more pairwise)
    q = rng.standard_normal(11)
    expected = [numpy_engine.sqdist(X.T, a, q) for a in range(500)]
    assert np.array_equal(numpy_engine.sqdists(X, q), expected)
    assert np.array_equal(numpy_engine.sqdists(np.asfortranarray(X), q), expected)  # (contiguous attributes)


@pytest.mark.parametrize("name, params", FAMILY)
def test_the_casc_sets_give_the_same_labels(compiled, benchmark_z, name, params):
    for Z in benchmark_z.values():
        for k in (3, 5, 10):
            same_labels(name, Z, k, params)


@pytest.mark.parametrize("name, params", FAMILY)
def test_tie_heavy_data_gives_the_same_labels(compiled, name, params):
    rng = np.random.default_rng(5)
    for n, d, top in ((60, 2, 2), (500, 3, 3), (1500, 2, 4), (3000, 1, 5)):  # on both sides of brute.MAX
        Z = rng.integers(0, top, (n, d)).astype(float)
        for k in (2, 3, 7):
            same_labels(name, Z, k, params)
    same_labels(name, rng.integers(0, 4, (6000, 3)).astype(float), 3, params)  # screened passes (SCREEN_MIN)


@pytest.mark.parametrize("name, params", FAMILY)
def test_normal_data_up_to_the_crossover_gives_the_same_labels(compiled, name, params):
    rng = np.random.default_rng(2)
    for n, d in ((100, 10), (1199, 4), (1200, 4), (4000, 10)):
        same_labels(name, rng.standard_normal((n, d)), 3, params)


def test_mdav_at_the_crossover_gives_the_same_labels(compiled):
    same_labels("mdav", np.random.default_rng(3).standard_normal((kernels.CROSSOVER, 10)), 3, {})


def _with_kernels() -> list[tuple[str, dict]]:
    """The partitioners outside the MDAV family whose module defines a kernel (their runs reach one), with the
    parameters that make them use it."""
    own = [m.name for m in methods("partition") if m.name not in dict(FAMILY)
           and any(isinstance(v, kernels.Kernel) for v in vars(sys.modules[m.func.__module__]).values())]
    return [(name, {}) for name in own] + [("projection", {"grouping": "optimal"})]


@pytest.mark.parametrize("name, params", _with_kernels())
def test_every_other_partitioner_with_a_kernel_gives_the_same_labels(compiled, benchmark_z, monkeypatch, name,
                                                                      params):
    part = get_method("partition", name)
    Z = benchmark_z["census"]
    roles = {"confidential": list(range(10, 13))} if part.caps.uses_roles else {}
    built = []
    for side in ("compiled", "on_numpy"):  # count the kernels each run takes, so that the test compares engines
        monkeypatch.setattr(kernels.Kernel, side, _counted(getattr(kernels.Kernel, side), built, side))
    mine, theirs = on_both(lambda: part.func(Z, 5, **roles, **params))
    assert "compiled" in built and "on_numpy" in built, built
    assert np.array_equal(mine, theirs)


def _counted(method, calls: list, name: str):
    def wrapped(self, *args, **kwargs):
        calls.append(name)
        return method(self, *args, **kwargs)
    return wrapped


@pytest.mark.parametrize("missing", ["keep", "impute"])
def test_the_survey_example_gives_the_same_release(compiled, missing):
    df = ma.load_dataset("survey")
    kw = dict(nominal=["region"], ordinal={"education": list(SURVEY_EDUCATION)}, sampling_weights="weight",
              missing=missing, seed=2)
    mine, theirs = on_both(lambda: ma.microaggregate(df, 3, **kw))
    assert mine.protected.equals(theirs.protected)
    assert np.array_equal(mine.labels, theirs.labels)


def _reference(Z, q, live):
    """(records ascending, squared distances to ``q`` summed attribute by attribute) of the ``live`` records."""
    ids = np.flatnonzero(live)
    return ids, np.array([numpy_engine.sqdist(Z, i, q) for i in ids])


def _first_by_distance(ids, d2, m):
    order = np.lexsort((ids, d2))[:m]
    return ids[order], d2[order]


@pytest.mark.parametrize("m", [1, 3, 4, 5, 40, 900])  # repeated minima, a sample's threshold, a partition
def test_smallest_takes_the_m_nearest_by_distance_then_index(m):
    rng = np.random.default_rng(m)
    for n in (7, 1000, 5000):
        for d2 in (rng.integers(0, 6, n).astype(float), rng.random(n)):  # every value tied many times, none
            ids = np.sort(rng.choice(10 * n, n, replace=False))
            mine, theirs = numpy_engine.smallest(ids, d2, m), _first_by_distance(ids, d2, m)
            assert np.array_equal(mine[0], theirs[0]) and np.array_equal(mine[1], theirs[1])


@pytest.mark.parametrize("m", [1, 4, 5, 40])
def test_at_most_keeps_every_value_within_the_slack_of_the_m_th_smallest(m):
    d2 = np.full(8192, 10.0)
    d2[[0, 32, 64]] = 0.0
    d2[1:4] = 1.0, 0.5, 1.4  # (a sample of every 32nd value sees only the zeros and the tens)
    rng = np.random.default_rng(m)
    for values in (d2, rng.integers(0, 9, 8192).astype(float), rng.random(5000)):
        for slack in (0.0, 1.0, 1e-3):
            pos, cut = numpy_engine._at_most(values, m, slack)
            kept = set(np.flatnonzero(values <= np.sort(values)[m - 1] + slack))
            assert kept <= set(pos) and (values[pos] <= cut).all()


def _index(Z, dead):
    """A copy of ``Z``'s records built about their centroid, then the records of ``dead`` emitted as one group."""
    labels, alive, S, zmax2, _ = numpy_engine.start(Z, 1)
    c0, _, rid, rrho, screen = numpy_engine.build_index(Z, alive, S / len(Z), zmax2, 1, None, None, 1)
    numpy_engine.emit(Z, screen, None, dead, 0, labels, alive, S)
    return alive, S, zmax2, c0, rid, rrho, screen


# Large offsets and a tiny spread (the screen's rounding is then largest), integer ties, and a copy below and above
# SCREEN_MIN values (the exact passes and the screened ones).
DATA = {"offset": lambda rng, n, d: 1e6 + rng.standard_normal((n, d)) * 1e-3,
        "ties": lambda rng, n, d: rng.integers(0, 3, (n, d)).astype(float),
        "normal": lambda rng, n, d: rng.standard_normal((n, d))}


@pytest.mark.parametrize("kind", list(DATA))
@pytest.mark.parametrize("n, d", [(300, 4), (6000, 4)])
def test_the_queries_answer_as_one_exact_pass_would(kind, n, d):
    assert (n * d >= numpy_engine.SCREEN_MIN) == (n == 6000)
    rng = np.random.default_rng(n + d)
    Z = DATA[kind](rng, n, d)
    alive, S, zmax2, c0, rid, rrho, screen = _index(Z, rng.choice(n, n // 5, replace=False))
    for q in (Z[int(np.flatnonzero(alive)[3])].copy(), Z[0] + 0.5, S / alive.sum()):
        ids, d2 = _reference(Z, q, alive)
        far, near = numpy_engine.around(Z, q, 7, True, screen)
        assert far == ids[np.argmax(d2)]
        assert np.array_equal(near, _first_by_distance(ids, d2, 7)[0])
        got = numpy_engine.prefix(Z, q, 40, screen, alive, alive.sum())
        assert np.array_equal(got[0], _first_by_distance(ids, d2, 40)[0]) and not got[2]
        skip = np.zeros(n, bool)
        skip[got[0][:5]] = True
        outside = numpy_engine.outside(Z, q, 0.0, 6, skip, 5, int(got[0][6]), got[0][:1], got[1][:1], False, screen,
                                       alive, alive.sum())  # (a prefix of one: the pass answers)
        keep = ~skip[ids] & (ids != got[0][6])
        assert np.array_equal(outside[0], _first_by_distance(ids[keep], d2[keep], 6)[0])


@pytest.mark.parametrize("kind", list(DATA))
def test_the_scan_by_radius_finds_the_first_farthest_record(kind):
    rng = np.random.default_rng(7)
    Z = DATA[kind](rng, 2000, 3)
    alive, S, zmax2, c0, rid, rrho, _ = _index(Z, rng.choice(2000, 300, replace=False))
    for c in (c0, S / alive.sum(), c0 + (Z.std(axis=0) + 1e-9)):  # the anchor, the centroid, one far from it
        ids, d2 = _reference(Z, c, alive)
        assert numpy_engine.farthest_from_centroid(Z, alive, rid, rrho, 0, c, c0, zmax2)[0] == ids[np.argmax(d2)]


def test_outside_answers_from_the_prefix_only_when_that_is_the_answer():
    rng = np.random.default_rng(8)
    Z = rng.standard_normal((3000, 2))
    alive, S, zmax2, c0, rid, rrho, screen = _index(Z, np.arange(0))
    q = Z[10]
    pid, pd2, complete = numpy_engine.prefix(Z, q, 32, screen, alive, 3000)
    skip = np.zeros(3000, bool)
    skip[pid[:3]] = True
    for p in (Z[pid[1]], Z[pid[31]], q + 3.0):  # near q (the prefix answers), at its edge and far (a pass does)
        dpq = np.sqrt(numpy_engine.sqdist(p.reshape(1, 2), 0, q))
        ids, d2 = _reference(Z, p, alive & ~skip)
        got = numpy_engine.outside(Z, p, dpq, 5, skip, 3, -1, pid, pd2, complete, screen, alive, 3000)
        assert np.array_equal(got[0], _first_by_distance(ids, d2, 5)[0])
        assert screen.tries[1] == 1  # (queries the prefix answered: the first only)


@pytest.mark.parametrize("n", [40, 6000])
def test_outside_asked_for_more_than_remain_gives_those_that_remain(n):
    rng = np.random.default_rng(9)
    Z = rng.standard_normal((n, 4))
    alive, S, zmax2, c0, rid, rrho, screen = _index(Z, np.arange(10, n))  # ten records left
    skip = np.zeros(n, bool)
    skip[[2, 5]] = True
    got = numpy_engine.outside(Z, Z[0], 0.0, 9, skip, 2, 0, np.array([0]), np.zeros(1), False, screen, alive, 10)
    ids, d2 = _reference(Z, Z[0], alive & ~skip)
    assert np.array_equal(got[0], _first_by_distance(ids[ids != 0], d2[ids != 0], 9)[0]) and len(got[0]) == 7


@pytest.mark.parametrize("name, params", FAMILY)
def test_huge_values_give_the_labels_of_the_same_data_scaled(compiled, name, params):
    # (squared distances of values near 1e180 overflow float64: the family scales them by a power of two first)
    Z = np.random.default_rng(10).standard_normal((6000, 3))  # (a screened copy on the numpy kernels)
    func = get_method("partition", name).func
    labels = func(Z, 3, **params)
    mine, theirs = on_both(lambda: func(Z * 2.0 ** 600, 3, **params))
    assert np.array_equal(mine, labels) and np.array_equal(theirs, labels)


@pytest.mark.parametrize("name, params", FAMILY)
def test_data_whose_squares_are_subnormal_give_the_same_labels(compiled, name, params):
    rng = np.random.default_rng(12)
    for Z in (rng.standard_normal((1500, 2)) * 1e-160, rng.standard_normal((1500, 3)) * 3e-162):
        same_labels(name, Z, 3, params)


def test_the_steps_of_huge_values_are_told_in_their_units():
    from microagg.partition.mdav import mdav_steps

    Z = np.random.default_rng(11).standard_normal((40, 2))
    small, huge = mdav_steps(Z, 3), mdav_steps(Z * 2.0 ** 600, 3)
    assert np.array_equal(huge.labels, small.labels)
    refs = [np.vstack(t.steps["reference"][:-1]) for t in (huge, small)]  # (the last: the rest, no reference)
    assert np.array_equal(refs[0], refs[1] * 2.0 ** 600)
