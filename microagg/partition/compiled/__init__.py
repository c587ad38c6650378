"""The compiled runtime of the partitioning kernels: numba, the engines of the MDAV family (``engine.py``, whose
passes sum two attributes at a time with ``pairs.py``; ``brute.py``), their threads (``threads.py``) and numba's disk
cache (``kernel_cache.py``).

Imported by the first run that takes the compiled kernels (``partition/kernels.py``), never by ``import microagg``.
Importing it makes numba's disk cache safe before any kernel compiles or loads: saves and loads of cache files
locked against other processes, and the kernels cached from other sources removed.
"""

from . import brute, engine, kernel_cache, threads  # (their kernels are defined; none compiles or loads yet)

kernel_cache.lock_cache_files()
kernel_cache.refresh()  # every kernel module of the package is imported by now

__all__ = ["brute", "engine", "kernel_cache", "threads"]
