"""The first compilation of a kernel is said when, and only when, numba compiles: on the command line (stderr), in a
notebook (the cell's output) and to the dashboard (``Compiles.running``)."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import njit

from microagg.partition.compiled import brute, warmup

ROOT = Path(__file__).resolve().parents[3]


def fresh_kernel(module: str):
    """A new jitted function of ``module``: its first call compiles (no disk cache), later calls do not."""

    def add_one(x):
        return x + 1.0

    add_one.__module__ = module
    return njit(add_one)


def test_a_compile_is_said_once_with_its_time_and_a_compiled_kernel_says_nothing():
    said = []
    kernel = fresh_kernel("microagg.probe")
    with warmup.Compiles(said.append) as compiles:
        assert not compiles.running.is_set()
        kernel(np.zeros(3))
        assert said[0] == warmup.STARTED and said[1].startswith("... compiled in ") and len(said) == 2
        assert compiles.seconds > 0 and not compiles.running.is_set()
        kernel(np.ones(3))  # compiled already: nothing to say
        fresh_kernel("elsewhere")(np.zeros(3))  # not one of microagg's kernels
    assert len(said) == 2
    fresh_kernel("microagg.probe")(np.zeros(3))  # after the block: no longer listening
    assert len(said) == 2


def test_the_course_says_it_in_the_notebook_cell(capsys):
    from microagg.lab import course  # noqa: F401  (importing the notebooks' helpers starts listening)

    fresh_kernel("microagg.probe")(np.zeros(2))
    out = capsys.readouterr().out
    assert warmup.STARTED in out and "compiled in" in out
    warmup.announce_always(print)  # a second call adds no second listener
    fresh_kernel("microagg.probe")(np.zeros(2))
    assert capsys.readouterr().out.count(warmup.STARTED) == 1


def test_the_command_line_says_it_on_a_cold_cache_and_not_on_a_warm_one(tmp_path):
    """Two runs with an empty numba cache folder of their own (the shared cache is not touched): the first compiles
    the optimal univariate kernel (a few seconds; MDAV's would take half a minute) and says so on stderr, the
    second loads it from that folder and says nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-m", "microagg", "run", "--dataset", "synthetic", "--data-param", "n=60", "--k", "3",
           "--method", "projection", "--param", "grouping=optimal"]
    cold, warm = (subprocess.run(run, env=env, capture_output=True, text=True, timeout=300) for _ in range(2))
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert warmup.STARTED in cold.stderr and "compiled in" in cold.stderr
    assert "compil" not in warm.stderr and "compil" not in cold.stdout + warm.stdout
    assert any(tmp_path.rglob("*.nbi"))  # the kernel went to the test's own folder


def test_the_warm_up_has_mdav_ready_on_small_data_first_then_every_kernel_on_larger(monkeypatch):
    """MDAV runs on the brute-force engine below ``brute.MAX`` records (its kernel compiles first and fastest), on
    the screened engine above: ``ready`` comes between the two; V-MDAV, CV-MDAV and IAMAT then run on both."""
    used = []
    for method in ("mdav", "vmdav", "cvmdav", "iamat"):
        module = importlib.import_module(f"microagg.partition.{method}")
        for name, tag in ((f"{method}_kernel_brute", "brute"), (f"{method}_kernel", "screened")):
            kernel = getattr(module, name)
            monkeypatch.setattr(module, name, lambda *a, k=kernel, t=f"{method} {tag}": used.append(t) or k(*a))
    warmup.warm_up("mdav", ready=lambda: used.append("ready"))
    assert warmup.SCREENED >= brute.MAX
    assert used[:3] == ["mdav brute", "ready", "mdav screened"]
    assert {f"{m} {tag}" for m in ("vmdav", "cvmdav", "iamat") for tag in ("brute", "screened")} <= set(used[3:])
