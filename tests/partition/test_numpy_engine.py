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
    X = rng.standard_normal((7, 500)) * 10.0 ** rng.integers(-5, 6, (7, 1))
    q = rng.standard_normal(7)
    assert np.array_equal(numpy_engine.sqdists(X, q), [numpy_engine.sqdist(X.T, a, q) for a in range(500)])


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
