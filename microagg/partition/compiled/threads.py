"""Threads of the compiled partitioners (MDAV and its family): one setting, "auto" unless given.

The screened passes of the engine (``engine.py``) split over numba's threads. The number of threads is

1. the value given to :func:`set_threads` (or, for a block of code, :func:`use_threads`), else
2. the environment variable ``MICROAGG_THREADS`` (an integer >= 1, or ``auto``), else
3. "auto" (:func:`auto_threads`): numba's thread count lowered to the cores other processes leave free.

"auto" matters: a pass split over threads waits for its slowest thread, and when another process holds a
core the operating system parks one thread for a time slice on every pass, so the thousands of short passes
of MDAV become slower than on one thread (10^5 records, 2 cores, one busy: 49 s on two threads, 6.6 s on
one). A given number is never more than numba's thread count in the calling thread (``NUMBA_NUM_THREADS``,
or ``numba.set_num_threads`` there: the block engine sets 1 in its worker threads). The labels do not depend
on the thread count.

    from microagg.partition import threads
    threads.set_threads(1)          # every later call on one thread; set_threads(None) is "auto" again
    with threads.use_threads(2):    # two threads inside the block only
        ...

numba's thread pool is not re-entrant across Python threads: :func:`run` serializes only the calls that can
reach it; the others run in parallel from Python threads (the kernels release the GIL).
"""

from __future__ import annotations

import os
import threading

import numba

from ...base.checks import check_int
from ...base.errors import MicroaggError
from ...base.setting import Setting
from . import engine

ENV = "MICROAGG_THREADS"
_RULE = "the number of threads must be an integer >= 1, or None (auto)"
_SETTING = Setting(lambda n: check_int(n, 1, _RULE))  # set_threads's value; None: the environment variable, else auto
_POOL_LOCK = threading.Lock()  # numba's default thread pool is not re-entrant across Python threads
set_threads = _SETTING.set  # use n threads in the compiled passes from now on; None: MICROAGG_THREADS or auto again
get_threads = _SETTING.get  # the number given to set_threads, or None (the environment variable or auto decides)
use_threads = _SETTING.use  # set_threads for the duration of a with block; the previous setting is restored


def thread_count() -> int:
    """Threads a compiled partitioner called now would use (module docstring: setting, environment, auto)."""
    n = _SETTING.given if _SETTING.given is not None else _from_env()
    pool = numba.get_num_threads()  # thread-local
    return auto_threads() if n is None else min(n, pool)


def _from_env() -> int | None:
    value = os.environ.get(ENV, "auto").strip()
    if value.lower() in ("", "auto"):
        return None
    try:
        return check_int(int(value), 1, _RULE)
    except (ValueError, MicroaggError):
        raise MicroaggError(f"{ENV} must be an integer >= 1 or 'auto'; got {value!r}.") from None


def auto_threads() -> int:
    """numba's thread count lowered to the cores other processes leave free (:func:`spare_threads`).

    Busy cores: the smaller of the 1-minute load average and the processes runnable right now besides this
    one (Linux ``/proc/loadavg``), so neither this process's own recent work nor a passing blip alone takes
    the threads away.
    """
    threads = numba.get_num_threads()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return threads
    runnable = None
    try:
        with open("/proc/loadavg") as f:
            runnable = int(f.read().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        pass
    return spare_threads(threads, os.cpu_count() or threads, load, runnable)


def spare_threads(threads: int, cores: int, load: float, runnable: int | None = None) -> int:
    """The rule of :func:`auto_threads`: at most ``threads``, at least 1, the ``cores`` minus the busy ones.

    Busy: the 1-minute ``load`` average, or fewer if only ``runnable`` - 1 other processes are runnable now.
    """
    busy = load if runnable is None else min(load, runnable - 1)
    return max(1, min(threads, round(cores - busy)))


def run(kernel, Z, *args, parallel_min: int, grid_min: int | None = None, threads: int | None = None):
    """``kernel(Z, *args, threads, parallel_min)`` for a compiled partitioner, serialized only when it must be.

    ``threads`` defaults to :func:`thread_count`. A pass over at least ``parallel_min`` live records splits
    over numba's thread pool, which is not re-entrant across Python threads: calls that can reach it hold a
    lock. A call on fewer records than ``grid_min`` (default ``engine.GRID_MIN``, read at the call; at most
    ``parallel_min``) runs as ``kernel(Z, *args, 1, None)``: that specialization of the kernel leaves the
    parallel pass and the integer screening copy out (numba prunes them when it compiles, ``engine._screen`` and
    ``engine._around``), so it compiles fastest, and the other one is compiled only on the first larger call. A
    call that cannot split (one thread, or fewer records than ``parallel_min``) needs no lock. Since the kernels
    are compiled with ``nogil=True`` calls without the lock run in parallel from Python threads (the block engine).
    """
    threads = threads or thread_count()
    n = Z.shape[0]
    if n < min(engine.GRID_MIN if grid_min is None else grid_min, parallel_min):  # (a run that may split has the copy)
        return kernel(Z, *args, 1, None)
    if threads == 1 or n < parallel_min:  # never splits: no lock needed
        return kernel(Z, *args, 1, parallel_min)
    with _POOL_LOCK:
        return kernel(Z, *args, threads, parallel_min)
