"""The first compilation of the partitioning kernels on a machine: said while it happens, and done ahead of time.

Runs on up to ``kernels.CROSSOVER`` records take the numpy kernels and compile nothing. Larger runs take the
compiled kernels: numba compiles a kernel the first time it runs and keeps the machine code on disk
(``cache=True``); later processes load it in about a second. The first such call on a new machine (or after the
kernels' source changed) therefore takes 15-25 s of CPU for MDAV (benchmarks/README.md). :class:`Compiles` says so
when, and only when, numba really compiles one of microagg's kernels: it listens to numba's ``numba:compile``
event, which numba raises on a cache miss only, so a warm cache says nothing; it starts listening when the compiled
runtime loads (``kernels.runtime``), so nothing imports numba for it. The command line (``with
Compiles(print_to_stderr):``) and the course notebooks (:func:`announce_always`) say it; the dashboard compiles ahead
with :func:`warm_up` in a background thread, only once data of a size that needs the compiled kernels is chosen, and
shows a note while ``Compiles.running`` is set.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

import numpy as np

from ..base.advice import duration
from ..base.registry import get_method, methods
from . import kernels

ESTIMATE = "seconds to a minute"  # MDAV on larger data, the longest: 16-22 s of CPU measured (benchmarks/README.md)
STARTED = f"compiling the partitioning kernels for this machine (once: numba keeps them on disk; {ESTIMATE}) ..."
OWN = ("microagg.",)  # the modules whose kernels are announced
SMALL = 40  # records of a warm-up run below ``brute.MAX``
FAMILY = ("mdav", "vmdav", "cvmdav", "md", "iamat")  # the methods of the engine (``engine.py``): kernels by size


class Compiles:
    """Inside ``with Compiles(said):``, calls ``said(STARTED)`` when numba starts compiling a kernel of the modules
    ``own`` and ``said(...)`` with the time taken when it is done (a kernel's compile includes the kernels it calls:
    one message for all). ``running`` is set while a compile runs; ``seconds`` sums the compiles seen. It listens
    from the moment numba is imported (at once if it already is, else when the compiled runtime loads)."""

    def __init__(self, said: Callable[[str], object] | None = None, own: tuple[str, ...] = OWN):
        self.said, self.own = said, own
        self.running = threading.Event()
        self.seconds = 0.0
        self._depth, self._t0 = 0, 0.0
        self._listener = None

    def _ours(self, ev) -> bool:
        func = getattr(ev.data["dispatcher"], "py_func", None)
        return getattr(func, "__module__", "").startswith(self.own)

    def on_start(self, ev) -> None:  # numba holds its compiler lock: compiles do not interleave
        if not self._ours(ev):
            return
        self._depth += 1
        if self._depth == 1:
            self._t0 = time.perf_counter()
            self.running.set()
            if self.said is not None:
                self.said(STARTED)

    def on_end(self, ev) -> None:
        if not self._ours(ev) or self._depth == 0:  # (a compile already running when the listening began)
            return
        self._depth -= 1
        if self._depth == 0:
            spent = time.perf_counter() - self._t0
            self.seconds += spent
            self.running.clear()
            if self.said is not None:
                self.said(f"... compiled in {duration(spent)}; later runs load them from disk.")

    def _listen(self) -> None:
        """Register with numba's compile events (numba imported by now)."""
        from numba.core import event

        outer = self

        class Listener(event.Listener):
            def on_start(self, ev):
                outer.on_start(ev)

            def on_end(self, ev):
                outer.on_end(ev)

        self._listener = Listener()
        event.register("numba:compile", self._listener)

    def __enter__(self) -> Compiles:
        if "numba" in sys.modules or kernels.loaded():
            self._listen()
        else:
            kernels.on_load.append(self._listen)
        return self

    def __exit__(self, *exc) -> None:
        if self._listen in kernels.on_load:
            kernels.on_load.remove(self._listen)
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None


_ALWAYS: list[Compiles] = []


def announce_always(said: Callable[[str], object]) -> None:
    """From now on in this process, tell ``said`` when a kernel compiles (once per process: a notebook calls it
    when its helpers are imported, and the first call that compiles says so in its cell's output)."""
    if not _ALWAYS:
        _ALWAYS.append(Compiles(said).__enter__())


def compiles_for(n: int) -> bool:
    """Whether a run on ``n`` records takes the compiled kernels (so a first run may compile them)."""
    return kernels.wants_compiled(n) and kernels.available()


def sample_size(n: int) -> int:
    """Records of a warm-up run of the MDAV family that compiles the kernels a run on ``n`` records takes: the
    brute-force engine's below ``brute.MAX``, the screened engine's small-run kernel below ``engine.GRID_MIN``, else
    the one with the integer copy."""
    rt = kernels.runtime()
    return SMALL if n < rt.brute.MAX else 2 * rt.brute.MAX if n < rt.engine.GRID_MIN else rt.engine.GRID_MIN


def warm_up(first: str = "mdav", ready: Callable[[str], object] | None = None, n: int = kernels.CROSSOVER) -> None:
    """Compile (or load from disk) the kernels that runs on ``n`` records take, in this thread: the partitioner
    ``first``, then every other one that takes no roles, each run compiled on a sample (:func:`sample_size` records
    for the MDAV family, whose engines depend on the size; at most ``2 brute.MAX`` for the others, whose kernels do
    not); ``ready(name)`` is called as soon as a method's kernels are ready."""
    size = sample_size(n)
    rng = np.random.default_rng(0)
    names = [first] + [m.name for m in methods("partition") if m.name != first and not m.caps.uses_roles]
    with kernels.compiled_here():
        brute = kernels.runtime().brute
        for name in names:
            rows = size if name in FAMILY else min(size, 2 * brute.MAX)
            get_method("partition", name).func(rng.standard_normal((rows, 2)), 3)
            if ready is not None:
                ready(name)
