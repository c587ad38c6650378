"""The partitioning kernels: one loop each, run on the numpy kernels below a size and compiled by numba above it.

A kernel is Python source written for numba (``@kernel(cache=True, ...)`` in place of ``@numba.njit``). Nothing is
compiled, and numba is not even imported, until a run needs it:

* :meth:`Kernel.compiled` is numba's dispatcher of the kernel, built on first use with the name ``engine`` bound to
  the compiled engine of the MDAV family (``compiled/engine.py``, or ``compiled/brute.py`` for small runs) and every
  kernel it calls compiled the same way (numba compiles it, or loads it from its disk cache, on the first call);
* :meth:`Kernel.on_numpy` is the same kernel on the numpy kernels: its vectorized version where the method has one
  (``@k.numpy``, beside the kernel in the method's module), else its own loop run as Python, with ``engine`` the
  numpy engine (``partition/numpy_engine.py``) and every kernel it calls on the numpy kernels too. Both give the
  same labels (every decision on the same float64 values, ties to the lowest index; tests/partition run each
  method on both).

Which one runs (:func:`compiled_for`): the value given to :func:`set_backend` (or :func:`use_backend` for a block of
code), else the environment variable ``MICROAGG_BACKEND``, else "auto": the numpy kernels on up to ``CROSSOVER``
records (the bundled data and generators' defaults), where they answer in about a second or less with nothing to
compile (a first compile costs seconds to a minute of CPU), the compiled ones above. Without numba, or with
``NUMBA_DISABLE_JIT=1``, "auto" takes the numpy kernels at every size and says once, in a warning, what that costs
above the crossover.

The compiled runtime is the package ``compiled/`` (numba, the engines, the threads; importing it first makes numba's
disk cache safe, ``compiled/kernel_cache.py``): the first run that needs it imports it (:func:`runtime`), and the
``on_load`` callbacks (the compile announcements of ``warmup.py``) run then.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from ..base.advice import duration, numpy_seconds
from ..base.errors import MicroaggError
from ..base.said import say
from ..base.setting import Setting
from . import numpy_engine

CROSSOVER = 10_000  # records above which "auto" runs the compiled kernels (benchmarks/README.md, "Crossover")
ENV = "MICROAGG_BACKEND"
BACKENDS = ("auto", "numpy", "compiled")
_SETTING = Setting(lambda which: _check(which, "the backend"))  # set_backend's value; None: the environment, else auto
set_backend = _SETTING.set  # run the kernels on "numpy", "compiled" or "auto" from now on; None: the environment, auto
get_backend = _SETTING.get  # the value given to set_backend, or None
use_backend = _SETTING.use  # set_backend for the duration of a with block; the previous setting is restored
_here = threading.local()  # compiled_here: this thread's runs compiled (the warm-up), whatever the setting
_warned: list[str] = []  # the numba-less warning, once per process
on_load: list[Callable[[], object]] = []  # called once the compiled runtime is loaded (by ``runtime``)
_loading = threading.Lock()


class Kernel:
    """A kernel written for numba (module docstring): ``compiled()`` is it compiled, ``on_numpy()`` on the numpy
    kernels, and calling it runs the one :func:`compiled_for` chooses for the size of its first argument (an array
    of records, or their number)."""

    def __init__(self, func: Callable, options: dict):
        functools.update_wrapper(self, func)
        self.py_func, self.options = func, options
        self.vectorized: Callable | None = None
        self._builds: dict[str, Callable] = {}

    def numpy(self, func: Callable) -> Callable:
        """Decorator: ``func`` is this kernel on the numpy kernels (vectorized, with the same results)."""
        self.vectorized = func
        return func

    def compiled(self, engine: types.ModuleType | None = None):
        """numba's dispatcher of this kernel with its loop on the compiled ``engine`` (default ``engine.py``)."""
        engine = engine or runtime().engine
        if engine.__name__ not in self._builds:
            self._builds[engine.__name__] = _build(self, engine)
        return self._builds[engine.__name__]

    def on_numpy(self) -> Callable:
        """This kernel on the numpy kernels: its vectorized version, else its loop as Python on the numpy engine."""
        if self.vectorized is not None:
            return self.vectorized
        if "numpy" not in self._builds:
            self._builds["numpy"] = _build(self, None)
        return self._builds["numpy"]

    def uses_engine(self) -> bool:
        """Whether the kernel, or a kernel it calls, asks the engine of the MDAV family."""
        names = _names(self.py_func.__code__)
        scope = self.py_func.__globals__
        return "engine" in names or any(isinstance(scope.get(n), Kernel) and scope[n].uses_engine()
                                        for n in names if n != self.__name__)

    def __call__(self, *args):
        shape = np.shape(args[0])
        n, d = (int(args[0]), 1) if shape == () else (shape[0], shape[1] if len(shape) > 1 else 1)
        return pick(self, n, d)(*args)

    @property
    def method(self) -> str:
        """The name of the module defining the kernel (``mdav``), for messages."""
        return self.__module__.rsplit(".")[-1]


def kernel(**options) -> Callable[[Callable], Kernel]:
    """``@kernel(cache=True, nogil=True)``: the function as a :class:`Kernel` (``options`` go to ``numba.njit``)."""
    return lambda func: Kernel(func, options)


def _names(code: types.CodeType) -> set[str]:
    """Global names read by ``code`` and the functions defined inside it."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names(const)
    return out


def _build(k: Kernel, engine: types.ModuleType | None):
    """``k``'s code with ``engine`` bound to the compiled ``engine`` module (jitted; the kernels it calls compiled
    too, on that engine where they use it) or, with ``engine`` None, to the numpy engine (plain Python; the kernels
    it calls on the numpy kernels). A version on another engine than ``engine.py`` is cached under its own name
    (``mdav_kernel_brute``)."""
    f = k.py_func
    scope = dict(f.__globals__)
    names = _names(f.__code__)
    if "engine" in names:
        scope["engine"] = numpy_engine if engine is None else engine
    for name in names:
        helper = scope.get(name)
        if isinstance(helper, Kernel) and helper is not k:
            scope[name] = helper.on_numpy() if engine is None else helper.compiled(
                engine if helper.uses_engine() else None)
    suffix = "" if engine is None or engine.__name__.endswith(".engine") else "_" + engine.__name__.rsplit(".")[-1]
    g = types.FunctionType(f.__code__, scope, f.__name__ + suffix, f.__defaults__, f.__closure__)
    g.__qualname__, g.__module__, g.__doc__ = f.__qualname__ + suffix, f.__module__, f.__doc__
    if engine is None:
        return g
    import numba

    from .compiled import kernel_cache

    return kernel_cache.lock(numba.njit(**k.options)(g))


def available() -> bool:
    """Whether numba can compile here: it imports, and its JIT is not disabled (``NUMBA_DISABLE_JIT``)."""
    if not _importable():
        return False
    import numba

    return not numba.config.DISABLE_JIT


def runtime() -> types.ModuleType:
    """The compiled runtime (the package ``compiled``: ``engine``, ``brute``, ``threads``), imported on first use,
    which makes numba's disk cache safe before any kernel compiles or loads. Raises MicroaggError without numba."""
    if not available():
        raise MicroaggError(f"the compiled kernels need numba (pip install numba) and numba's JIT (NUMBA_DISABLE_JIT "
                            f"unset); the numpy kernels run without them ({ENV}=auto or numpy).")
    from . import compiled

    with _loading:
        while on_load:  # (each waiting callback once, whoever imported the runtime first)
            on_load.pop(0)()
    return compiled


def loaded() -> bool:
    """Whether the compiled runtime is loaded in this process."""
    return "microagg.partition.compiled" in sys.modules


@contextmanager
def compiled_here() -> Iterator[None]:
    """Inside the block, the runs made by this thread take the compiled kernels at every size, whatever the setting
    (``warmup.warm_up`` compiles them in a background thread while other threads go on as set)."""
    _here.compiled = True
    try:
        yield
    finally:
        _here.compiled = False


@contextmanager
def sized(n: int) -> Iterator[None]:
    """Inside the block, this thread's runs choose their kernels as a run on at least ``n`` records would: the block
    engine's blocks, each at most B records, are one run on all of them (a compile paid once serves every block;
    on the numpy kernels blocks of 10 000 records took 10-15 times as long)."""
    before = getattr(_here, "at_least", 0)
    _here.at_least = n
    try:
        yield
    finally:
        _here.at_least = before


def backend() -> str:
    """The setting in force: "compiled" inside :func:`compiled_here`, else the value given, else
    ``MICROAGG_BACKEND``, else "auto"."""
    if getattr(_here, "compiled", False):
        return "compiled"
    return _SETTING.given or _check(os.environ.get(ENV, "").strip().lower() or "auto", ENV)


def _check(which, what: str) -> str:
    if which not in BACKENDS:
        raise MicroaggError(f"{what} must be one of {', '.join(map(repr, BACKENDS))}; got {which!r}.")
    return which


def wants_compiled(n: int) -> bool:
    """Whether the setting asks for the compiled kernels on ``n`` records (where numba can compile)."""
    which = backend()
    return which == "compiled" or which == "auto" and max(n, getattr(_here, "at_least", 0)) > CROSSOVER


def compiled_for(k: Kernel, n: int, d: int = 10) -> bool:
    """Whether a run of ``k`` on ``n`` records of ``d`` attributes takes the compiled kernels (module docstring)."""
    if not wants_compiled(n):
        return False
    if backend() == "compiled" or available():
        return True
    if not _warned:
        _warned.append(k.method)
        why = "numba is not installed" if not _importable() else "numba's JIT is disabled (NUMBA_DISABLE_JIT)"
        say(f"{why}: {k.method} on {n:,} records runs on the numpy kernels, which "
            f"take about {duration(numpy_seconds(n, d))} or more for an MDAV-type method at this size "
            "(the compiled ones take a small fraction of that). Install numba for them; said once.",
            RuntimeWarning)
    return False


def _importable() -> bool:
    """Whether numba imports here."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def numba_for(n: int):
    """numba, its runtime loaded, when a run on ``n`` records takes the compiled kernels; else None (nothing
    imported)."""
    if not wants_compiled(n) or backend() == "auto" and not available():
        return None
    runtime()
    import numba

    return numba


def pick(k: Kernel, n: int, d: int = 10) -> Callable:
    """The kernel ``k`` for a run on ``n`` records: compiled or on the numpy kernels (:func:`compiled_for`)."""
    return k.compiled() if compiled_for(k, n, d) else k.on_numpy()


def run(k: Kernel, Z, *args, searches: bool = False, small: bool = True):
    """``k(Z, *args, threads, pass threshold)`` for a kernel of the MDAV family: on the numpy engine, or compiled on
    the compiled engine (on ``brute.py`` below ``brute.MAX`` records where ``small``) on the threads of
    ``threads.run``, which split its passes from ``engine.PARALLEL_MIN`` remaining records
    (``engine.SEARCH_PARALLEL_MIN`` for the methods that grow groups by ``searches``)."""
    n, d = Z.shape
    if not compiled_for(k, n, d):
        return k.on_numpy()(Z, *args, 1, None)
    rt = runtime()
    on = rt.brute if small and n < rt.brute.MAX else rt.engine
    pmin = rt.engine.SEARCH_PARALLEL_MIN if searches else rt.engine.PARALLEL_MIN
    return rt.threads.run(k.compiled(on), Z, *args, parallel_min=pmin)
