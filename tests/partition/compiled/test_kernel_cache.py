"""Cached kernels compiled from other sources are removed before they can run (numba checks only the defining file)."""

import importlib.util
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from microagg.partition.compiled import kernel_cache

from .. import fresh

ROOT = Path(__file__).resolve().parents[3]


def _module(path: Path, monkeypatch):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, path.stem, module)
    spec.loader.exec_module(module)
    return module


def test_kernels_are_removed_when_and_only_when_a_kernel_source_changed(tmp_path, monkeypatch):
    src, other = tmp_path / "kernels_probe.py", tmp_path / "kernels_other.py"
    src.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef add(x):\n    return x + 1\n")
    other.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef sub(x):\n    return x - 1\n")
    module = _module(src, monkeypatch)
    assert module.add(1) == 2 and _module(other, monkeypatch).sub(1) == 0
    folder = kernel_cache._cache_folder(module)
    assert folder is not None and any(folder.glob("kernels_probe.*.nbi")) and any(folder.glob("kernels_other.*.nbi"))
    first = kernel_cache.refresh([module], [src])  # no fingerprint yet: the cache may be older than it
    assert first and not any(folder.glob("*.nb[ic]"))  # every kernel of the folder: the other's may call it
    assert (folder / kernel_cache.STAMP).exists()
    module = _module(src, monkeypatch)
    assert module.add(1) == 2  # compiled and cached again
    assert kernel_cache.refresh([module], [src]) == []  # same sources: kept
    assert any(folder.glob("kernels_probe.*.nbi"))
    src.write_text(src.read_text() + "# changed\n")
    assert kernel_cache.refresh([_module(src, monkeypatch)], [src])  # changed: removed
    assert not any(folder.glob("kernels_probe.*.nb[ic]"))


def test_the_package_fingerprint_covers_every_kernel_module():
    names = {f.name for f in kernel_cache.kernel_sources()}
    assert {"engine.py", "mdav.py", "vmdav.py", "baselines.py"} <= names and "cli.py" not in names
    assert "pairs.py" in names  # (no kernel of its own: its intrinsics are compiled into the engine's kernels)


def test_a_module_of_kernels_not_compiled_yet_has_its_cache_folder():
    mdav = importlib.import_module("microagg.partition.mdav")
    folder = kernel_cache._cache_folder(mdav)
    assert folder is not None and folder == kernel_cache._cache_folder(importlib.import_module(
        "microagg.partition.vmdav"))  # (one folder per source folder)
    assert kernel_cache._cache_folder(importlib.import_module("microagg.partition.univariate")) is None


_IMPORT_ONLY = """
import sys
import microagg
assert "numba" not in sys.modules, "importing microagg imported numba"
from numba.core import caching
from microagg.partition import kernels
from microagg.partition.mdav import mdav_kernel
rt = kernels.runtime()
assert caching.IndexDataCacheFile.save.__qualname__ == "IndexDataCacheFile.save", "numba's class patched"
sys.path.insert(0, sys.argv[1])
from other import plus
assert type(plus._cache) is caching.FunctionCache and plus(1) == 2, "another kernel's cache changed"
for kernel in (rt.engine.sqdist, mdav_kernel.compiled(), mdav_kernel.compiled(rt.brute)):
    assert type(kernel._cache._cache_file) is rt.kernel_cache.LockedCacheFile, kernel
"""


def test_only_microaggs_kernels_are_locked_when_the_compiled_runtime_loads(tmp_path):
    (tmp_path / "other.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef plus(x):\n"
                                       "    return x + 1\n")
    res = fresh.run(["-c", _IMPORT_ONLY, str(tmp_path)],
                    {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)})
    assert res.returncode == 0, res.stderr


def test_a_kernel_calling_another_file_runs_the_new_code_after_that_file_changed(tmp_path):
    """The case numba misses on its own: ``outer`` (a.py, unchanged) has ``inner`` (b.py) compiled into its cache."""
    (tmp_path / "b.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef inner(x):\n    return x + 1\n")
    (tmp_path / "a.py").write_text(textwrap.dedent("""
        from numba import njit

        import b


        @njit(cache=True)
        def outer(x):
            return b.inner(x)
    """))
    run = textwrap.dedent("""
        import sys
        from pathlib import Path
        import a
        import b
        from microagg.partition.compiled import kernel_cache
        if sys.argv[1] == "refresh":
            kernel_cache.refresh([a, b], [Path(a.__file__), Path(b.__file__)])
        print(a.outer(1))
    """)

    def outer(mode):
        res = fresh.run(["-c", run, mode], {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"},
                        cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        return int(res.stdout.split()[-1])

    assert outer("refresh") == 2
    (tmp_path / "b.py").write_text((tmp_path / "b.py").read_text().replace("x + 1", "x + 10"))
    assert outer("plain") == 2  # numba alone: the stale kernel (this is what the fingerprint is for)
    assert outer("refresh") == 11


_SAVER = """
import sys, time
from numba.core import caching
from microagg.partition.compiled.kernel_cache import LockedCacheFile

write_index = caching.IndexDataCacheFile._save_index
def slow(self, overloads):  # a wide window between reading the index and writing it back
    time.sleep(0.6)
    write_index(self, overloads)
caching.IndexDataCacheFile._save_index = slow
cache = LockedCacheFile(sys.argv[1], "probe", ("source", 1))
print("ready", flush=True)
sys.stdin.readline()
cache.save(sys.argv[2], "code of " + sys.argv[2])
"""


def test_two_processes_caching_two_versions_at_once_keep_both(tmp_path):
    """Two processes save two versions of one kernel into the same cache at once (the second starts while the first
    is between reading the index and writing it back). Unlocked, both would read an empty index and name their file
    alike: one version would be lost or, written in the other order, point at the other's code. Locked, each
    version keeps its own file."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    savers = [subprocess.Popen([sys.executable, "-c", _SAVER, str(tmp_path), key], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env) for key in ("int64", "float64")]
    assert [p.stdout.readline().strip() for p in savers] == ["ready", "ready"]
    for p in savers:
        p.stdin.write("go\n")
        p.stdin.flush()
        time.sleep(0.2)
    assert [p.wait(timeout=60) for p in savers] == [0, 0]
    from numba.core import caching
    cache = caching.IndexDataCacheFile(str(tmp_path), "probe", ("source", 1))
    assert [cache.load(key) for key in ("int64", "float64")] == ["code of int64", "code of float64"]
    assert len(list(tmp_path.glob("probe.*.nbc"))) == 2


def test_finding_the_cache_folder_never_wakes_a_lazy_object(tmp_path, monkeypatch):
    """A module's lazy stand-in (as ``figures.plots.go`` for plotly) is not asked for attributes: without the
    package it stands for, the kernels still run."""
    src = tmp_path / "kernels_lazy.py"
    src.write_text(textwrap.dedent("""
        from numba import njit

        class Lazy:
            def __getattr__(self, name):
                raise ModuleNotFoundError("No module named 'absent'")

        go = Lazy()

        @njit(cache=True)
        def add(x):
            return x + 1
    """))
    module = _module(src, monkeypatch)
    assert module.add(1) == 2
    assert kernel_cache._cache_folder(module) is not None
