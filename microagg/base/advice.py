"""Time estimates for the exact (in-memory) engine and the hint to use blocks on large data.

MDAV-type partitioners compare every group's seed with every record left: O(n² d) work. The constants
are benchmarks/README.md's measurements of exact MDAV (k = 3, d = 10, N(0, I) data): 10⁶ records in
145 s on two idle threads and 400 s on one loaded thread, i.e. about 1.45e-10 to 4e-10 s per n² d / 10.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time

SECONDS_PER_N2 = (1.45e-10, 4e-10)  # per n² at d = 10: fastest and slowest measured (benchmarks/README.md)
HINT_SECONDS = 60.0  # the slowest estimate above which the hint is shown
NUMPY_SECONDS_PER_N2 = 1.2e-9  # the numpy kernels' MDAV, per n² at d = 10 (benchmarks/README.md, bench_engines.py)


def exact_seconds(n: int, d: int) -> tuple[float, float]:
    """(fast, slow) estimate in seconds of exact MDAV on ``n`` records of ``d`` masked columns."""
    work = float(n) ** 2 * max(d, 1) / 10
    return SECONDS_PER_N2[0] * work, SECONDS_PER_N2[1] * work


def numpy_seconds(n: int, d: int) -> float:
    """Estimate in seconds of MDAV on the numpy kernels (no numba) on ``n`` records of ``d`` columns."""
    return NUMPY_SECONDS_PER_N2 * float(n) ** 2 * max(d, 1) / 10


def duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min" if seconds < 5400 else \
        f"{seconds / 3600:.1f} h"


def scale_hint(n: int, d: int, method, engine: str = "memory") -> str | None:
    """A sentence estimating the exact engine's time and suggesting the block engine, or None when the run is
    expected to take less than a minute (or does not use the exact engine with an MDAV-type method: a registered
    ``method`` whose capabilities say ``quadratic``)."""
    if engine != "memory" or not method.caps.quadratic:
        return None
    fast, slow = (float(method.caps.quadratic) * t for t in exact_seconds(n, d))  # True: MDAV's own time
    if slow < HINT_SECONDS:
        return None
    return (f"{method.name} on {n:,} records x {d} columns on the exact engine takes about {duration(fast)} to "
            f"{duration(slow)} or more (it grows as n²); the block engine (--engine blocks, engine='blocks') "
            "runs it inside blocks of about 10,000 records in seconds to minutes, for a small rise in information "
            "loss (README, Scaling out).")


@functools.cache
def threads_available() -> bool:
    """Whether this Python can start a thread (not where threads are missing, such as Pyodide in a browser)."""
    try:
        thread = threading.Thread(target=lambda: None, daemon=True)
        thread.start()
    except RuntimeError:
        return False
    thread.join()
    return True


@contextlib.contextmanager
def heartbeat(every: float = 15.0, stream=None, estimate: str = ""):
    """While the block runs, print the elapsed time to ``stream`` (stderr) every ``every`` seconds (nothing where
    threads cannot start)."""
    if not threads_available():
        yield
        return
    stream = stream or sys.stderr
    done = threading.Event()
    t0 = time.perf_counter()

    def beat():
        while not done.wait(every):
            print(f"... still running: {duration(time.perf_counter() - t0)} elapsed{estimate}", file=stream,
                  flush=True)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
