"""The first compilation of the partitioning kernels on a machine: said while it happens, and done ahead of time.

numba compiles a kernel the first time it runs and keeps the machine code on disk (``cache=True``); later processes
load it in about a second. The first MDAV call on a new machine (or after the kernels' source changed) therefore
takes about 7 s of CPU on fewer than ``brute.MAX`` records and 15-25 s on more (benchmarks/README.md).
:class:`Compiles` says so when, and only when, numba really compiles one of microagg's kernels: it listens to
numba's ``numba:compile`` event, which numba raises on a cache miss only, so a warm cache says nothing. The
command line (``with Compiles(print_to_stderr):``) and the course notebooks (:func:`announce_always`) say it; the
dashboard compiles ahead with :func:`warm_up` in a background thread and shows a note while ``Compiles.running``
is set.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
from numba.core import event

from ...base.advice import duration
from ...base.registry import get_method, methods

SCREENED = 2000  # records of the warm-up's second MDAV run: at least ``brute.MAX`` (the screened engine)
ESTIMATE = "seconds to a minute"  # MDAV on larger data, the longest: 16-22 s of CPU measured (benchmarks/README.md)
STARTED = f"compiling the partitioning kernels for this machine (once: numba keeps them on disk; {ESTIMATE}) ..."
OWN = ("microagg.",)  # the modules whose kernels are announced


class Compiles(event.Listener):
    """Inside ``with Compiles(said):``, calls ``said(STARTED)`` when numba starts compiling a kernel of the modules
    ``own`` and ``said(...)`` with the time taken when it is done (a kernel's compile includes the kernels it calls:
    one message for all). ``running`` is set while a compile runs; ``seconds`` sums the compiles seen."""

    def __init__(self, said: Callable[[str], object] | None = None, own: tuple[str, ...] = OWN):
        self.said, self.own = said, own
        self.running = threading.Event()
        self.seconds = 0.0
        self._depth, self._t0 = 0, 0.0

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

    def __enter__(self) -> Compiles:
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc) -> None:
        event.unregister("numba:compile", self)


_ALWAYS: list[Compiles] = []


def announce_always(said: Callable[[str], object]) -> None:
    """From now on in this process, tell ``said`` when a kernel compiles (once per process: a notebook calls it
    when its helpers are imported, and the first call that compiles says so in its cell's output)."""
    if not _ALWAYS:
        _ALWAYS.append(Compiles(said).__enter__())


def warm_up(first: str = "mdav", ready: Callable[[], object] | None = None) -> None:
    """Run the partitioner ``first`` and then every other one that takes no roles on a small sample and on one of
    ``SCREENED`` records, so that their kernels are compiled (or loaded from disk) before a real call needs them:
    MDAV, V-MDAV, CV-MDAV and IAMAT compile one kernel for runs on fewer than ``brute.MAX`` records and
    another for larger ones. ``ready()`` is called as soon as ``first`` can run on small data; ``first`` on larger
    data comes next, then the others on small data, then on larger."""
    rng = np.random.default_rng(0)
    small, large = rng.standard_normal((40, 3)), rng.standard_normal((SCREENED, 2))
    get_method("partition", first).func(np.arange(12.0).reshape(6, 2), 2)
    if ready is not None:
        ready()
    get_method("partition", first).func(large, 2)
    others = [m for m in methods("partition") if m.name != first and not m.caps.uses_roles]
    for Z in (small, large):
        for m in others:
            m.func(Z, 3)
