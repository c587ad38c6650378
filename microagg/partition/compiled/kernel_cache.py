"""numba's disk cache of the compiled kernels, kept in step with their sources (loaded with the compiled runtime,
``kernels.runtime``), and locked against other processes, kernel by kernel: numba's own classes are left as they
are, so other numba code in the process caches as numba does.

numba reuses a kernel compiled on an earlier run (``cache=True``) while the file that defines it is unchanged; it
does not look at the files of the kernels it calls. MDAV's kernel (``partition/mdav.py``) carries the engine's
passes (``partition/compiled/engine.py``) compiled into it, so after an update that changed the engine alone it would
run the old passes — a wrong answer or a crash. :func:`refresh` keeps a fingerprint of every source file of the
package that defines kernels (or intrinsics compiled into them) beside the cache; when it differs (or is missing: a
cache from before it existed), every cached kernel in the package's cache folders is removed, and they compile again
on first use (``warmup`` says so when it happens).
Limit: a process still running the old code that compiles a new kernel after the refresh of a newer one writes it
under the new fingerprint; restarting such processes after an update avoids it.

:func:`lock_cache_files` (and :func:`lock`, for each kernel built later) guards another hazard: numba names the file
of a newly cached kernel after the index it has just read, so two processes that compile two versions of one kernel at
once (a notebook and the dashboard on first use, or test workers) can both take the same name, and the index then
points one version at the other's machine code: every later call of it crashes the interpreter until the cache is
cleared.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType

import numba
from numba.core import caching
from numba.core.dispatcher import Dispatcher

try:
    import fcntl
except ImportError:  # (not POSIX: numba's cache files are left as numba handles them)
    fcntl = None

STAMP = "microagg-kernels.sha256"  # the fingerprint, in each cache folder
PACKAGE = Path(__file__).resolve().parents[2]  # microagg/


def _cache_folder(module: ModuleType) -> Path | None:
    """The folder numba caches ``module``'s kernels in (None if it defines no cached kernel): that of a compiled
    function of the module, or of a kernel not compiled yet (a ``kernels.Kernel``, known by its numba ``options``;
    asked of a dispatcher made for the purpose, which compiles nothing). Attributes are read statically, so a lazy
    object of the module (``figures.plots.go``) never imports what it stands for."""
    for value in vars(module).values():
        options = inspect.getattr_static(value, "options", None)
        if isinstance(options, dict) and options.get("cache") and value.py_func.__module__ == module.__name__:
            value = numba.njit(cache=True)(value.py_func)
        if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
            path = value.stats.cache_path  # (None for a kernel without cache)
            if path:
                return Path(path)
    return None


def _imported() -> list[ModuleType]:
    """microagg's modules imported so far."""
    return [m for name, m in sorted(sys.modules.items()) if name.split(".")[0] == "microagg"]


def fingerprint(files: list[Path]) -> str:
    """sha256 of the files' names and contents, in name order."""
    digest = hashlib.sha256()
    for f in sorted(files):
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def kernel_sources(root: Path = PACKAGE) -> list[Path]:
    """The source files under ``root`` that define cached kernels or the intrinsics compiled into them (``@intrinsic``:
    ``compiled/pairs.py``), imported or not."""
    return [f for f in root.rglob("*.py") if any(mark in f.read_text(encoding="utf-8")
                                                  for mark in ("cache=True", "@intrinsic"))]


def refresh(modules: list[ModuleType] | None = None, sources: list[Path] | None = None) -> list[Path]:
    """Empty the cache folders of ``modules`` (default: microagg's modules imported so far) if ``sources`` (default:
    :func:`kernel_sources`) changed since the fingerprint in the folder was written; returns the files removed. A
    folder that cannot be written is left as it is (numba cannot cache there either)."""
    folders = {f for f in map(_cache_folder, _imported() if modules is None else modules) if f is not None}
    current = fingerprint(kernel_sources() if sources is None else sources)
    removed: list[Path] = []
    for folder in sorted(folders):
        stamp = folder / STAMP
        try:
            if stamp.read_text() == current:
                continue
        except OSError:
            pass  # no fingerprint yet: the cache may predate it
        try:
            for f in [*folder.glob("*.nbi"), *folder.glob("*.nbc")]:
                f.unlink(missing_ok=True)
                removed.append(f)
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f"{STAMP}.{os.getpid()}"
            tmp.write_text(current)
            os.replace(tmp, stamp)  # atomic: a process starting now reads the old fingerprint or the new one
        except OSError:
            pass
    return removed


def _one_at_a_time(method):
    """``method`` of numba's cache file run under an exclusive lock on a file beside its index (flock: it excludes
    other processes and other open files of this one). A folder where the lock cannot be made is one numba cannot
    write either: the method runs unlocked there, as it does if numba's cache file no longer names its index."""
    @functools.wraps(method)
    def locked(self, *args):
        index = getattr(self, "_index_path", None)  # (numba's own attribute: should a later numba drop it, unlocked)
        try:
            handle = open(f"{index}.lock", "a") if index else None
        except OSError:
            handle = None
        if handle is None:
            return method(self, *args)
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            return method(self, *args)
    return locked


class LockedCacheFile(caching.IndexDataCacheFile):
    """numba's cache file of one kernel, whose save (read the index, name the new file, write both) and load are
    each one step that no other process interleaves with."""

    save = _one_at_a_time(caching.IndexDataCacheFile.save)
    load = _one_at_a_time(caching.IndexDataCacheFile.load)


class LockedCache(caching.FunctionCache):
    """numba's disk cache of one kernel, in a :class:`LockedCacheFile`."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file.__class__ = LockedCacheFile


def lock(dispatcher: Dispatcher) -> Dispatcher:
    """Give the kernel ``dispatcher`` (compiled with ``cache=True``, not run yet) the locked cache; returns it. A
    kernel without cache, or a system without ``flock``, is left as numba made it."""
    cache = getattr(dispatcher, "_cache", None)  # (numba's own attribute: should a later numba drop it, unlocked)
    if fcntl is not None and isinstance(cache, caching.FunctionCache) and not isinstance(cache, LockedCache):
        dispatcher._cache = LockedCache(dispatcher.py_func)
    return dispatcher


def lock_cache_files() -> None:
    """:func:`lock` every cached kernel of microagg's modules imported so far, so concurrent compiles can no longer
    point an index at the wrong file. Idempotent."""
    for module in _imported():
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
                lock(value)
