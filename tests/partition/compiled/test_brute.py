"""The brute-force engine of small compiled runs against the screened engine and the numpy engine: the same loops,
the same answers."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.partition import numpy_engine
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
def test_mdav_takes_the_same_steps_on_every_engine(benchmark_z, variant):
    """The traced kernels: the same seeds, roles, reference points and leftovers, not only the same labels, on the
    brute-force, the screened and the numpy engine."""
    code = mdav_module.VARIANTS[variant]
    kernel = mdav_module.mdav_kernel
    for Z in benchmark_z.values():
        for k in (3, 7):
            steps = [run(Z, k, code, True, 1, None) for run in (kernel.compiled(brute), kernel.compiled(),
                                                                kernel.on_numpy())]
            for a, b, c in zip(*steps, strict=True):
                np.testing.assert_array_equal(a, b)
                np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("method", FAMILY)
def test_each_engine_runs_the_method_loop(method):
    """One loop, three engines: the compiled versions and the numpy one are the method's code with the name
    ``engine`` bound to ``brute.py``, ``engine.py`` and ``numpy_engine.py``; the brute-force version has its own
    file in numba's cache."""
    module = importlib.import_module(f"microagg.partition.{method}")
    kernel = getattr(module, f"{method}_kernel")
    versions = {brute: kernel.compiled(brute).py_func, engine: kernel.compiled().py_func,
                numpy_engine: kernel.on_numpy()}
    for on, func in versions.items():
        assert func.__code__ is kernel.py_func.__code__ and func.__globals__["engine"] is on
    assert versions[brute].__qualname__ == f"{method}_kernel_brute" and versions[engine].__qualname__ == kernel.__name__


def test_vmdav_calls_its_helper_on_the_same_engine():
    module = importlib.import_module("microagg.partition.vmdav")
    for on in (brute, engine):
        helper = module.vmdav_kernel.compiled(on).py_func.__globals__["_fill"]
        assert helper is module._fill.compiled(on) and helper.py_func.__globals__["engine"] is on
    assert module.vmdav_kernel.on_numpy().__globals__["_fill"].__globals__["engine"] is numpy_engine


@pytest.mark.parametrize("n,expected", [(brute.MAX - 1, "brute"), (brute.MAX, "screened")])
def test_mdav_picks_the_engine_by_size(monkeypatch, n, expected):
    used = []
    compiled = mdav_module.mdav_kernel.compiled

    def spy(on=None):
        used.append("brute" if on is brute else "screened")
        return compiled(on)

    monkeypatch.setattr(mdav_module.mdav_kernel, "compiled", spy)
    ma.partition.mdav(np.random.default_rng(0).standard_normal((n, 2)), 3)
    assert used == [expected]
