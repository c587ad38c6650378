"""numba's disk cache of the compiled kernels, kept in step with their sources.

numba reuses a kernel compiled on an earlier run (``cache=True``) while the file that defines it is unchanged; it
does not look at the files of the kernels it calls. MDAV's kernel (``partition/mdav.py``) carries the engine's passes
(``partition/engine.py``) compiled into it, so after an update that changed the engine alone it would run the old
passes — a wrong answer or a crash. :func:`refresh` keeps a fingerprint of every source file of the package that
defines kernels beside the cache; when it differs (or is missing: a cache from before it existed), every cached kernel
in the package's cache folders is removed, and they compile again on first use (``warmup`` says so when it happens).
Limit: a process still running the old code that compiles a new kernel after the refresh of a newer one writes it
under the new fingerprint; restarting such processes after an update avoids it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from types import ModuleType

from numba.core.dispatcher import Dispatcher

STAMP = "microagg-kernels.sha256"  # the fingerprint, in each cache folder
PACKAGE = Path(__file__).resolve().parent


def _cache_folder(module: ModuleType) -> Path | None:
    """The folder numba caches ``module``'s kernels in (None if it defines no cached kernel)."""
    for value in vars(module).values():
        if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
            path = value.stats.cache_path  # (None for a kernel without cache)
            if path:
                return Path(path)
    return None


def fingerprint(files: list[Path]) -> str:
    """sha256 of the files' names and contents, in name order."""
    digest = hashlib.sha256()
    for f in sorted(files):
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def kernel_sources(root: Path = PACKAGE) -> list[Path]:
    """The source files under ``root`` that define cached kernels (imported or not)."""
    return [f for f in root.rglob("*.py") if "cache=True" in f.read_text(encoding="utf-8")]


def refresh(modules: list[ModuleType] | None = None, sources: list[Path] | None = None) -> list[Path]:
    """Empty the cache folders of ``modules`` (default: microagg's modules imported so far) if ``sources`` (default:
    :func:`kernel_sources`) changed since the fingerprint in the folder was written; returns the files removed. A
    folder that cannot be written is left as it is (numba cannot cache there either)."""
    if modules is None:
        modules = [m for name, m in sorted(sys.modules.items()) if name.split(".")[0] == "microagg"]
    folders = {f for f in map(_cache_folder, modules) if f is not None}
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
