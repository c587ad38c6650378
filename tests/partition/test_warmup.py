"""The first compilation of a kernel is said when, and only when, numba compiles: on the command line (stderr), in a
notebook (the cell's output) and to the dashboard (``Compiles.running``)."""

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import microagg as ma
from microagg.partition import kernels, warmup

from . import fresh

ROOT = Path(__file__).resolve().parents[2]


def fresh_kernel(module: str):
    """A new jitted function of ``module``: its first call compiles (no disk cache), later calls do not."""
    njit = pytest.importorskip("numba").njit

    def add_one(x):
        return x + 1.0

    add_one.__module__ = module
    return njit(add_one)


def test_a_compile_is_said_once_with_its_time_and_a_compiled_kernel_says_nothing(compiled):
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


def test_the_course_says_it_in_the_notebook_cell(capsys, compiled):
    from microagg.lab import course  # noqa: F401  (importing the notebooks' helpers starts listening)

    fresh_kernel("microagg.probe")(np.zeros(2))
    out = capsys.readouterr().out
    assert warmup.STARTED in out and "compiled in" in out
    warmup.announce_always(print)  # a second call adds no second listener
    fresh_kernel("microagg.probe")(np.zeros(2))
    assert capsys.readouterr().out.count(warmup.STARTED) == 1


def test_the_command_line_says_it_on_a_cold_cache_and_not_on_a_warm_one(tmp_path, compiled):
    """Two runs with an empty numba cache folder of their own (the shared cache is not touched), the compiled
    kernels asked for: the first compiles the optimal univariate kernel (a few seconds; MDAV's would take half a
    minute) and says so on stderr, the second loads it from that folder and says nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), kernels.ENV: "compiled"}
    run = ["-m", "microagg", "run", "--dataset", "synthetic", "--data-param", "n=60", "--k", "3", "--method",
           "projection", "--param", "grouping=optimal"]
    cold, warm = (fresh.run(run, env) for _ in range(2))
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert warmup.STARTED in cold.stderr and "compiled in" in cold.stderr
    assert "compil" not in warm.stderr and "compil" not in cold.stdout + warm.stdout
    assert any(tmp_path.rglob("*.nbi"))  # the kernel went to the test's own folder


def test_the_command_line_on_the_bundled_data_compiles_nothing(tmp_path):
    """The default: below the crossover the numpy kernels answer; numba is not even imported."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop(kernels.ENV, None)
    probe = ("import sys\nfrom microagg.cli import main\n"
             "code = main(['run', '--dataset', 'eia', '--k', '3', '--method', 'md'])\n"
             "print('numba' in sys.modules, file=sys.stderr)\nsys.exit(code)")
    res = fresh.run(["-c", probe], env)
    assert res.returncode == 0, res.stderr
    assert "compil" not in res.stderr and res.stderr.strip().splitlines()[-1] == "False"
    assert not any(tmp_path.rglob("*.nbi"))


def test_the_warm_up_compiles_what_the_size_takes_the_first_method_first(compiled):
    """``ready`` is called for ``first`` and then for every other partitioner without roles; the MDAV family runs
    on a sample whose size takes the engine of the given size (brute force, screened, with the integer copy)."""
    rt = compiled
    assert warmup.sample_size(rt.brute.MAX - 1) < rt.brute.MAX <= warmup.sample_size(kernels.CROSSOVER)
    assert warmup.sample_size(kernels.CROSSOVER) < rt.engine.GRID_MIN <= warmup.sample_size(rt.engine.GRID_MIN)
    ready = []
    warmup.warm_up("vmdav", ready.append, n=100)
    others = [m.name for m in ma.registry.methods("partition") if m.name != "vmdav" and not m.caps.uses_roles]
    assert ready == ["vmdav", *others]


def test_the_warm_up_forces_the_compiled_kernels_in_its_own_thread_only():
    seen = {}

    def background():
        with kernels.compiled_here():
            seen["warm-up"] = kernels.backend()
            worker = threading.Thread(target=lambda: seen.setdefault("other", kernels.backend()))
            worker.start()
            worker.join()

    with kernels.use_backend(None):
        thread = threading.Thread(target=background)
        thread.start()
        thread.join()
        assert seen == {"warm-up": "compiled", "other": "auto"} and kernels.backend() == "auto"
