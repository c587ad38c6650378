"""The brute-force engine of small MDAV runs against the screened engine: the same loop, the same answers."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings

import microagg as ma
from microagg.partition import brute, engine

from .strategies import data_and_k

mdav_module = importlib.import_module("microagg.partition.mdav")


def _both(Z, k, variant):
    """(labels, seeds, roles, refs, leftovers) of the traced MDAV ``variant`` on each engine."""
    code = mdav_module.VARIANTS[variant]
    return (mdav_module.mdav_kernel_brute(Z, k, code, True, 1, None),
            mdav_module.mdav_kernel(Z, k, code, True, 1, None))


def _assert_same(a, b):
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("variant", mdav_module.VARIANTS)
def test_same_steps_as_the_screened_engine_on_the_benchmarks(benchmark_z, variant):
    for Z in benchmark_z.values():
        for k in (2, 3, 7):
            _assert_same(*_both(Z, k, variant))


@settings(max_examples=150, deadline=None)
@given(data_and_k())
def test_same_steps_as_the_screened_engine_on_small_tie_heavy_data(zk):
    Z, k = zk
    for variant in mdav_module.VARIANTS:
        _assert_same(*_both(np.ascontiguousarray(ma.standardize(Z)), k, variant))


def test_the_brute_kernel_is_the_mdav_loop_on_this_engine():
    kernel = mdav_module.mdav_kernel_brute
    assert kernel.py_func.__code__ is mdav_module.mdav_kernel.py_func.__code__
    assert kernel.py_func.__globals__["engine"] is brute and mdav_module.engine is engine
    assert kernel.py_func.__qualname__ == "mdav_kernel_brute"  # (its own file in numba's cache)


@pytest.mark.parametrize("n,expected", [(brute.MAX - 1, "brute"), (brute.MAX, "screened")])
def test_mdav_picks_the_engine_by_size(monkeypatch, n, expected):
    used = []
    for name, tag in (("mdav_kernel_brute", "brute"), ("mdav_kernel", "screened")):
        kernel = getattr(mdav_module, name)
        monkeypatch.setattr(mdav_module, name, lambda *a, kernel=kernel, tag=tag: used.append(tag) or kernel(*a))
    Z = np.random.default_rng(0).standard_normal((n, 2))
    ma.partition.mdav(Z, 3)
    assert used == [expected]
