"""MDAV, maximum distance to average vector, and its variants.

Exact implementations on standardized data: squared Euclidean distances; among
equal distances the lowest row index wins, both for "nearest" (k-1 nearest
neighbours) and for "farthest". The centroid of the remaining records is a
running sum of the records (initially summed in row order) from which every
group's members are subtracted in ascending row order, divided by the count.

Variants (docs/methods.md §2.1-2.4):

``"generic"`` MDAV-generic (Domingo-Ferrer & Torra 2005), the default and the
    algorithm of sdcMicro's ``mdav``: two groups per iteration (r = farthest from
    the centroid, s = farthest from r, each with its k-1 nearest) while >= 3k
    records remain; with 2k..3k-1 left one more group around r, the rest is the
    last group; with k..2k-1 left they form one group.
``"classic"`` Mortazavi & Jalili 2017, Algorithm 1 / Chettri, Paul & Dutta, §3: the two-group step while >= 2k
    remain; k..2k-1 remaining form a group, fewer than k join the group with the
    nearest centroid. Reproduces Chettri, Paul & Dutta, Tables 1-3 "MDAV".
``"mdav1"`` MDAV-1 (Lin et al. 2010, Chettri, Paul & Dutta, §3): the classic loop, then with
    k..2k-1 left one group of k around r and the rest (< k) to the nearest centroid.
``"single"`` one group per iteration (the MDAV of Oommen & Fayyoumi 2010; CBFS in Mortazavi & Jalili 2017, §3):
    a different loop, not only a different ending: r farthest from the centroid, recomputed after
    every group, plus its k-1 nearest while >= 2k remain (no second group around s);
    the rest forms the last group. Reproduces Oommen & Fayyoumi 2010, Table II (Census).

If s falls into r's group (possible only when many records tie), s is re-chosen
as the farthest remaining record from r.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from ..errors import MicroaggError
from ..registry import Param, register
from . import _mdav_kernel as kernel
from ._validate import prepare

VARIANTS = {"generic": kernel.GENERIC, "classic": kernel.CLASSIC, "mdav1": kernel.MDAV1, "single": kernel.SINGLE}
ROLES = {kernel.ROLE_CENTROID: "farthest from centroid", kernel.ROLE_OPPOSITE: "farthest from r",
         kernel.ROLE_REST: "remaining records"}


_KERNEL_LOCK = threading.Lock()  # numba's default thread pool is not re-entrant across Python threads


def kernel_threads() -> int:
    """Threads for the compiled passes: numba's count, lowered to the cores other processes leave free.

    A pass split over threads waits for its slowest thread; when another process holds a core, the
    operating system parks one thread for a time slice on every pass, and the thousands of short passes
    of MDAV become slower than on one thread (10^5 records, 2 cores, one busy: 49 s on two threads,
    6.6 s on one). Busy cores: the smaller of the 1-minute load average and the processes runnable right
    now besides this one (Linux ``/proc/loadavg``), so neither this process's own recent work nor a
    passing blip alone takes the threads away. The labels do not depend on the thread count.
    """
    threads = numba.get_num_threads()
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        return threads
    try:
        with open("/proc/loadavg") as f:
            busy = min(busy, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        pass
    return max(1, min(threads, round((os.cpu_count() or threads) - busy)))


def call_kernel(func, Z, *args, parallel_min: int, threads: int | None = None):
    """``func(Z, *args, threads, parallel_min)`` for a compiled partitioner, serialized only when it must be.

    ``threads`` defaults to :func:`kernel_threads`. A pass over at least ``parallel_min`` live records splits
    over numba's thread pool, which is not re-entrant across Python threads: calls that can reach it hold
    ``_KERNEL_LOCK``. A call that cannot (fewer records than ``parallel_min``, or one thread) runs without the
    lock, and since the kernels are compiled with ``nogil=True`` such calls run in parallel from Python
    threads (the block engine).
    """
    threads = threads or kernel_threads()
    if threads == 1 or Z.shape[0] < parallel_min:
        return func(Z, *args, threads, parallel_min)
    with _KERNEL_LOCK:
        return func(Z, *args, threads, parallel_min)


def _run(Z, k: int, code: int, trace: bool, parallel_min: int = kernel.PARALLEL_MIN, threads: int | None = None):
    return call_kernel(kernel.mdav_kernel, Z, k, code, trace, parallel_min=parallel_min, threads=threads)


def _variant_code(variant: str) -> int:
    if variant not in VARIANTS:
        raise MicroaggError(f"unknown MDAV variant {variant!r}; choose one of {list(VARIANTS)}.")
    return VARIANTS[variant]


@register(
    "partition", "mdav",
    bounded=True,
    title="MDAV",
    summary="Maximum distance to average vector: groups of k grown from the records farthest "
            "from the centroid (and farthest from those).",
    source="Domingo-Ferrer & Torra 2005; Mortazavi & Jalili 2017, Algorithm 1; Chettri, Paul & Dutta, §3; Oommen & "
           "Fayyoumi 2010, §IV",
    params=(
        Param("variant", "choice", "generic", "which MDAV: generic (sdcMicro), classic (Mortazavi & Jalili 2017; "
                                              "Chettri, Paul & Dutta), "
              "mdav1 (Chettri, Paul & Dutta), single (one group per iteration, Oommen & Fayyoumi 2010)",
              source="Chettri, Paul & Dutta, §3; Oommen & Fayyoumi 2010, §IV-C", choices=tuple(VARIANTS),
              label="MDAV variant"),
    ),
)
def mdav(Z, k: int, variant: str = "generic") -> np.ndarray:
    """Group labels 0..m-1 (in order of formation) of MDAV ``variant`` on standardized ``Z``.

    Every group has at least ``k`` records. ``Z`` is not modified.
    """
    code = _variant_code(variant)
    Z, k = prepare(Z, k)
    labels, *_ = _run(Z, k, code, False)
    return labels


@dataclass(frozen=True)
class MdavTrace:
    """The steps of one MDAV run, for teaching.

    ``steps`` has one row per group in order of formation: ``group``, ``seed`` (the
    record the group was grown from, -1 for the final group of remaining records),
    ``role`` ("farthest from centroid", "farthest from r", "remaining records"),
    ``reference`` (the point the seed was farthest from: the centroid of the records
    still unassigned, or the record r), ``members`` (row indices, including any
    leftover that joined later) and ``remaining`` (records unassigned before the step).
    ``leftovers`` lists the records that joined the group with the nearest centroid.
    """

    labels: np.ndarray
    steps: pd.DataFrame
    leftovers: np.ndarray


def mdav_steps(Z, k: int, variant: str = "generic") -> MdavTrace:
    """Run MDAV recording every step; the labels are identical to :func:`mdav`'s."""
    code = _variant_code(variant)
    Z, k = prepare(Z, k)
    labels, seeds, roles, refs, leftovers = _run(Z, k, code, True)
    members = [np.flatnonzero(labels == g) for g in range(len(seeds))]
    before = Z.shape[0] - np.concatenate([[0], np.cumsum([len(m) - np.isin(m, leftovers).sum() for m in members])])
    steps = pd.DataFrame({
        "group": np.arange(len(seeds)),
        "seed": seeds,
        "role": [ROLES[int(r)] for r in roles],
        "reference": list(refs),
        "members": members,
        "remaining": before[:-1],
    })
    return MdavTrace(labels=labels, steps=steps, leftovers=leftovers)
