"""numba's disk cache of the compiled kernels, kept in step with their sources.

numba reuses a kernel compiled on an earlier run (``cache=True``) while the file that defines it is unchanged; it
does not look at the files of the kernels it calls. MDAV's kernel (``partition/mdav.py``) carries the engine's passes
(``partition/engine.py``) compiled into it, so after an update that changed the engine alone it would run the old
passes — a wrong answer or a crash. :func:`refresh` keeps a fingerprint of the sources of every module that defines
kernels beside the cache; when the fingerprint differs (or is missing: a cache from before it existed), the cached
kernels of those modules are removed and compile again on first use (``warmup`` says so when it happens).
"""

from __future__ import annotations

import hashlib
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

from numba.core.dispatcher import Dispatcher

STAMP = "microagg-kernels.sha256"  # the fingerprint, in each cache folder


def _cache_folder(module: ModuleType) -> Path | None:
    """The folder numba caches ``module``'s kernels in (None if it defines no cached kernel)."""
    for value in vars(module).values():
        if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
            path = getattr(value._cache, "_cache_path", None)  # (numba's cache of this kernel; none without cache)
            if path:
                return Path(path)
    return None


def refresh(modules: list[ModuleType] | None = None) -> list[Path]:
    """Remove the cached kernels of ``modules`` (default: microagg's modules imported so far) if their sources changed
    since the fingerprint was written; returns the files removed. A folder that cannot be written is left as it is."""
    if modules is None:
        modules = [m for name, m in sorted(sys.modules.items()) if name.split(".")[0] == "microagg"]
    folders: dict[Path, list[ModuleType]] = defaultdict(list)
    for m in modules:
        folder = _cache_folder(m)
        if folder is not None:
            folders[folder].append(m)
    digest = hashlib.sha256()
    for m in sorted((m for ms in folders.values() for m in ms), key=lambda m: m.__name__):
        digest.update(m.__name__.encode() + b"\0" + Path(m.__file__).read_bytes() + b"\0")
    fingerprint = digest.hexdigest()
    removed: list[Path] = []
    for folder, owners in folders.items():
        stamp = folder / STAMP
        try:
            if stamp.read_text() == fingerprint:
                continue
        except OSError:
            pass  # no fingerprint yet: the cache may predate it
        try:
            for m in owners:
                for pattern in ("*.nbi", "*.nbc"):
                    for f in folder.glob(f"{Path(m.__file__).stem}.{pattern}"):
                        f.unlink(missing_ok=True)
                        removed.append(f)
            folder.mkdir(parents=True, exist_ok=True)
            stamp.write_text(fingerprint)
        except OSError:
            pass  # a read-only installation: numba cannot cache there either
    return removed
