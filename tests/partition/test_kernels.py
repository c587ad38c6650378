"""Which kernels run (numpy or compiled), numba optional, and the package without numba or threads."""

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import microagg as ma
from microagg.base import advice
from microagg.base.errors import MicroaggError
from microagg.partition import kernels
from microagg.partition.mdav import mdav_kernel

from . import fresh

ROOT = Path(__file__).resolve().parents[2]


def test_auto_takes_the_numpy_kernels_up_to_the_crossover_and_the_compiled_ones_above_it(monkeypatch):
    monkeypatch.delenv(kernels.ENV, raising=False)
    monkeypatch.setattr(kernels, "available", lambda: True)
    with kernels.use_backend(None):
        assert kernels.backend() == "auto"
        assert not kernels.compiled_for(mdav_kernel, kernels.CROSSOVER)  # (the bundled generators' 10 000 records)
        assert kernels.compiled_for(mdav_kernel, kernels.CROSSOVER + 1)
    with kernels.use_backend("numpy"):
        assert not kernels.compiled_for(mdav_kernel, 10 * kernels.CROSSOVER)
    with kernels.use_backend("compiled"):
        assert kernels.compiled_for(mdav_kernel, 10)


def test_blocks_choose_their_kernels_as_the_run_on_all_records(monkeypatch):
    """The block engine's blocks of at most B records are one run: above the crossover in all, every block takes the
    compiled kernels (a compile paid once; blocks of 10 000 on the numpy kernels took 10-15 times as long)."""
    monkeypatch.delenv(kernels.ENV, raising=False)
    monkeypatch.setattr(kernels, "available", lambda: True)
    monkeypatch.setattr(kernels, "numba_for", lambda n: None)  # (no numba threads to set: the kernels are spied)
    chose = []
    monkeypatch.setattr(kernels, "pick", lambda k, n, d=10: chose.append(kernels.compiled_for(k, n, d)) or
                        k.on_numpy())
    monkeypatch.setattr(kernels, "run", lambda k, Z, *args, **kw: chose.append(kernels.compiled_for(k, len(Z))) or
                        k.on_numpy()(Z, *args, 1, None))
    Z = np.random.default_rng(0).standard_normal((kernels.CROSSOVER + 2000, 2))
    with kernels.use_backend(None):
        ma.partition.block_partition(Z, 3, "mdav", block_size=2000, n_jobs=1)
        assert len(chose) > 1 and all(chose)
        chose.clear()
        ma.partition.block_partition(Z[:kernels.CROSSOVER], 3, "mdav", block_size=2000, n_jobs=1)
        assert len(chose) > 1 and not any(chose)
        with kernels.sized(kernels.CROSSOVER + 1):
            assert kernels.wants_compiled(10)
        assert not kernels.wants_compiled(10)


def test_the_setting_the_environment_variable_and_a_bad_value(monkeypatch):
    monkeypatch.setenv(kernels.ENV, " Numpy ")
    with kernels.use_backend(None):
        assert kernels.backend() == "numpy"
        with kernels.use_backend("compiled"):
            assert kernels.backend() == "compiled"
        assert kernels.get_backend() is None
        monkeypatch.setenv(kernels.ENV, "fast")
        with pytest.raises(MicroaggError, match="MICROAGG_BACKEND must be one of"):
            kernels.backend()
    with pytest.raises(MicroaggError, match="the backend must be one of"):
        kernels.set_backend("gpu")


def test_without_numba_a_large_run_warns_once_with_its_size_and_time_and_gives_the_same_labels(monkeypatch):
    Z = np.random.default_rng(0).standard_normal((90, 3))
    with kernels.use_backend("numpy"):
        expected = ma.partition.mdav(Z, 3)
        expected_v = ma.partition.vmdav(Z, 3)
    monkeypatch.setattr(kernels, "CROSSOVER", 50)
    monkeypatch.setattr(kernels, "available", lambda: False)
    monkeypatch.setattr(kernels, "_importable", lambda: False)
    monkeypatch.setattr(kernels, "_warned", [])
    with kernels.use_backend(None), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert np.array_equal(ma.partition.mdav(Z, 3), expected)
        assert np.array_equal(ma.partition.vmdav(Z, 3), expected_v)  # another method: not said again
    said = [str(w.message) for w in seen if w.category is RuntimeWarning]
    assert len(said) == 1, said
    assert said[0].startswith("numba is not installed: mdav on 90 records runs on the numpy kernels")
    assert advice.duration(advice.numpy_seconds(90, 3)) in said[0]


def test_the_compiled_kernels_asked_without_numba_is_one_message(monkeypatch):
    monkeypatch.setattr(kernels, "available", lambda: False)
    with kernels.use_backend("compiled"), pytest.raises(MicroaggError, match="need numba"):
        ma.partition.mdav(np.zeros((6, 2)), 2)
    with pytest.raises(MicroaggError, match="need numba"):
        ma.partition.threads.set_threads(1)


def test_without_threads_blocks_and_the_heartbeat_run_on_one(monkeypatch):
    def refuse(self):
        raise RuntimeError("can't start new thread")

    Z = np.random.default_rng(4).standard_normal((400, 3))
    expected = ma.partition.block_partition(Z, 3, block_size=100, n_jobs=1)
    advice.threads_available.cache_clear()
    monkeypatch.setattr("threading.Thread.start", refuse)
    try:
        assert not advice.threads_available()
        assert np.array_equal(ma.partition.block_partition(Z, 3, block_size=100, n_jobs=4), expected)
        with advice.heartbeat(every=0.01):
            pass
    finally:
        advice.threads_available.cache_clear()


def readme_quick_start() -> str:
    """The code of the README's "Ten lines of Python"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"## Ten lines of Python\s+```python\n(.*?)```", text, re.S).group(1)


NUMBA = ("numba", "llvmlite")
# What ``pip install --no-deps microagg`` plus numpy, scipy, pandas and plotly lacks (README, "Inside the compiled
# methods").
NO_DEPS = NUMBA + ("dask", "distributed", "streamlit", "ipywidgets", "jupyterlab")


def hiding(packages: tuple[str, ...]) -> str:
    """Python code that makes ``packages`` fail to import, as if they were not installed."""
    return f"""
import importlib.abc, sys

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {packages!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}")

sys.meta_path.insert(0, Hide())
"""

# The suite's fast part, run where numba cannot be imported (the compiled kernels' own tests are left out there).
FAST_PART = ["tests/partition/test_kernels.py", "tests/partition/test_numpy_engine.py", "tests/partition/test_mdav.py",
             "tests/partition/test_md.py", "tests/partition/test_vmdav.py", "tests/partition/test_gsms.py",
             "tests/partition/compiled", "tests/release/test_pipeline_survey.py"]


def run_hidden(code: str, tmp_path, hide: tuple[str, ...] = NUMBA) -> str:
    res = fresh.run(["-c", hiding(hide) + code], {**os.environ, "PYTHONPATH": str(ROOT)}, cpu=300,
                    cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res.stdout


def test_with_the_dependencies_of_no_deps_only_the_quick_start_and_every_method_run(tmp_path):
    out = run_hidden(readme_quick_start() + """
import numpy as np
Z = np.random.default_rng(0).standard_normal((300, 13))
for m in ma.registry.methods("partition"):
    roles = {"confidential": [10, 11, 12]} if m.caps.uses_roles else {}
    assert len(m.func(Z, 3, **roles)) == 300, m.name
print("numba" in sys.modules, "dask" in sys.modules, "plotly" in sys.modules)
""", tmp_path, NO_DEPS)
    assert "9.0884" in out
    assert out.split()[-3:] == ["False", "False", "False"]  # nothing of numba, and no dask or plotly for this


def test_the_suites_fast_part_passes_without_numba(tmp_path):
    run_hidden(f"""
import pytest
sys.exit(pytest.main({[str(ROOT / p) for p in FAST_PART]!r} + ["-q", "-n", "0", "-p", "no:cacheprovider",
                     "-k", "not quick_start and not fast_part", "--rootdir", {str(ROOT)!r}]))
""", tmp_path)


def test_numba_jit_disabled_runs_the_quick_start_on_the_numpy_kernels(tmp_path):
    res = fresh.run(["-c", readme_quick_start() + """
import numpy as np, warnings
from microagg.partition import kernels
assert not kernels.available()
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    kernels.CROSSOVER = 100
    ma.partition.md(np.random.default_rng(0).standard_normal((150, 2)), 3)
print([str(w.message)[:40] for w in seen])
"""], {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_DISABLE_JIT": "1"}, cpu=300, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "9.0884" in res.stdout and "numba's JIT is disabled (NUMBA_DISABLE" in res.stdout


def test_every_kernel_releases_the_gil_so_that_sessions_overlap():
    """A compiled kernel called while another session's runs (the dashboard's threads, the block engine's) must not
    hold the GIL: every kernel of the package is declared ``nogil`` (inlined ones have no call of their own)."""
    import importlib
    import pkgutil

    found = []
    for package in (ma.partition, ma.lab):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".compiled" in info.name:  # the numba runtime itself (the engine), not kernels
                continue
            module = importlib.import_module(info.name)
            found += [(info.name, name, k.options) for name, k in vars(module).items()
                      if isinstance(k, kernels.Kernel) and k.py_func.__module__ == info.name]
    assert len(found) > 30
    held = [f"{m}.{name}" for m, name, options in found
            if not options.get("nogil") and options.get("inline") != "always"]
    assert held == []
