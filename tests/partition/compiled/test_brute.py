"""The brute-force engine of small runs against the screened engine: the same loops, the same answers."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition.compiled import brute, engine

from ..strategies import data_and_k

mdav_module = importlib.import_module("microagg.partition.mdav")

FAMILY = {  # the methods run on it below brute.MAX records, with settings that take other paths of their loops
    "mdav": [{"variant": v} for v in mdav_module.VARIANTS],
    "vmdav": [{}, {"centroid": "remaining", "gamma": 0.5}],
    "cvmdav": [{}, {"zself": True, "cap": "2k-1", "step4": ">="}],
    "iamat": [{}],
}
CASES = [(method, params) for method, settings_ in FAMILY.items() for params in settings_]


def _on_each_engine(method, Z, k, params):
    """The labels of ``method`` on the brute-force engine and on the screened one."""
    out = []
    with pytest.MonkeyPatch.context() as mp:
        for limit in (10 ** 9, 0):
            mp.setattr(brute, "MAX", limit)
            out.append(getattr(ma.partition, method)(Z, k, **params))
    return out


@pytest.mark.parametrize("method,params", CASES)
def test_same_labels_as_the_screened_engine_on_the_benchmarks(benchmark_z, method, params):
    for Z in benchmark_z.values():
        for k in (2, 3, 7):
            np.testing.assert_array_equal(*_on_each_engine(method, Z, k, params))


@settings(max_examples=150, deadline=None)
@given(data_and_k(), st.sampled_from(CASES))
def test_same_labels_as_the_screened_engine_on_small_tie_heavy_data(zk, case):
    Z, k = zk
    np.testing.assert_array_equal(*_on_each_engine(case[0], Z, k, case[1]))


@pytest.mark.parametrize("variant", mdav_module.VARIANTS)
def test_mdav_takes_the_same_steps_on_either_engine(benchmark_z, variant):
    """The traced kernels: the same seeds, roles, reference points and leftovers, not only the same labels."""
    code = mdav_module.VARIANTS[variant]
    for Z in benchmark_z.values():
        for k in (3, 7):
            steps = (mdav_module.mdav_kernel_brute(Z, k, code, True, 1, None),
                     mdav_module.mdav_kernel(Z, k, code, True, 1, None))
            for a, b in zip(*steps, strict=True):
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", FAMILY)
def test_each_brute_kernel_is_its_method_loop_on_this_engine(method):
    module = importlib.import_module(f"microagg.partition.{method}")
    kernel, small = getattr(module, f"{method}_kernel"), getattr(module, f"{method}_kernel_brute")
    assert small.py_func.__code__ is kernel.py_func.__code__
    assert small.py_func.__globals__["engine"] is brute and module.engine is engine
    assert small.py_func.__qualname__ == f"{method}_kernel_brute"  # (its own file in numba's cache)


def test_vmdav_calls_its_helper_on_this_engine_too():
    module = importlib.import_module("microagg.partition.vmdav")
    helper = module.vmdav_kernel_brute.py_func.__globals__["_fill"]
    assert helper is not module._fill and helper.py_func.__globals__["engine"] is brute


@pytest.mark.parametrize("n,expected", [(brute.MAX - 1, "brute"), (brute.MAX, "screened")])
def test_mdav_picks_the_engine_by_size(monkeypatch, n, expected):
    used = []
    for name, tag in (("mdav_kernel_brute", "brute"), ("mdav_kernel", "screened")):
        kernel = getattr(mdav_module, name)
        monkeypatch.setattr(mdav_module, name, lambda *a, kernel=kernel, tag=tag: used.append(tag) or kernel(*a))
    Z = np.random.default_rng(0).standard_normal((n, 2))
    ma.partition.mdav(Z, 3)
    assert used == [expected]
