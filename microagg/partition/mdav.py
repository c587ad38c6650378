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

The loop asks its queries of an engine (``kernels.py``): up to ``kernels.CROSSOVER`` records the numpy
engine (``numpy_engine.py``, nothing to compile), above it the compiled engine of the family (``compiled/engine.py``),
on the threads of ``compiled/threads.py``. The labels are the same on either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.registry import Param, get_method, register
from . import kernels
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel

GENERIC, CLASSIC, MDAV1, SINGLE = 0, 1, 2, 3
ROLE_CENTROID, ROLE_OPPOSITE, ROLE_REST = 0, 1, 2
VARIANTS = {"generic": GENERIC, "classic": CLASSIC, "mdav1": MDAV1, "single": SINGLE}
ROLES = {ROLE_CENTROID: "farthest from centroid", ROLE_OPPOSITE: "farthest from r", ROLE_REST: "remaining records"}


@kernel(cache=True, nogil=True)
def mdav_kernel(Z, k, variant, trace, chunks, pmin):
    """Labels of MDAV ``variant`` on standardized ``Z``; with ``trace``, also the steps.

    Returns (labels, seeds, roles, refs, leftovers): for every group in order of
    formation the record it was grown from (-1 for a final "remaining records"
    group), the role of that record, and the point it was farthest from (centroid
    of the remaining records for ROLE_CENTROID, the record r for ROLE_OPPOSITE);
    without ``trace`` these three are empty. ``leftovers`` are the records (< k)
    that joined the group with the nearest centroid at the end. Passes over at
    least ``pmin`` remaining records are split over ``chunks`` threads (never if ``pmin`` is None).
    """
    n, d = Z.shape
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    n_live = n
    cap = n // k + 2 if trace else 0
    seeds = np.empty(cap, np.int64)
    roles = np.empty(cap, np.int64)
    refs = np.empty((cap, d))

    shells = np.int64(engine.SHELLS)  # (radial shells: its passes seek farthest records)
    c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n_live, zmax2, chunks, cand, pmin, shells)
    dead = 0
    rstart = np.int64(0)

    g = np.int64(0)  # (np.int64, not a literal: numba would compile the callees once more for it)
    loop_min = 3 * k if variant == GENERIC else 2 * k
    while n_live >= loop_min:
        if 4 * dead > screen[3]:  # compact once a quarter of the copy is dead
            c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n_live, zmax2, chunks, cand, pmin, shells)
            dead = 0
            rstart = np.int64(0)
        c = S / n_live
        r, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, c, c0, zmax2)
        zr = Z[r].copy()
        s, members = engine.around(Z, zr, k, variant != SINGLE, screen)
        engine.emit(Z, screen, pos, members, g, labels, alive, S)
        _record(trace, seeds, roles, refs, g, r, ROLE_CENTROID, c)
        g += 1
        n_live -= k
        dead += k
        if variant == SINGLE:
            continue
        if not alive[s]:  # only with massive ties: s fell into r's group
            s, _ = engine.around(Z, zr, k, True, screen)
        _, members = engine.around(Z, Z[s].copy(), k, False, screen)
        engine.emit(Z, screen, pos, members, g, labels, alive, S)
        _record(trace, seeds, roles, refs, g, s, ROLE_OPPOSITE, zr)
        g += 1
        n_live -= k
        dead += k

    if (variant == GENERIC and n_live >= 2 * k) or (variant == MDAV1 and n_live >= k):
        c = S / n_live
        r, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, c, c0, zmax2)
        _, members = engine.around(Z, Z[r].copy(), k, False, screen)
        engine.emit(Z, screen, pos, members, g, labels, alive, S)
        _record(trace, seeds, roles, refs, g, r, ROLE_CENTROID, c)
        g += 1
        n_live -= k
    if n_live >= k:
        for i in range(n):
            if alive[i]:
                labels[i] = g
                alive[i] = False
        _record(trace, seeds, roles, refs, g, -1, ROLE_REST, np.full(d, np.nan))
        g += 1
        n_live = 0
    return labels, seeds[:g], roles[:g], refs[:g], engine.assign_rest(Z, labels, alive, g)


@kernel(cache=True, inline="always")  # (inlined: its literal role arguments would each compile a version)
def _record(trace, seeds, roles, refs, g, seed, role, ref):
    """Trace of step ``g``: the seed record, its role and the point it was farthest from."""
    if trace:
        seeds[g] = seed
        roles[g] = role
        for t in range(ref.shape[0]):  # (element by element: a row assignment compiles a shape check)
            refs[g, t] = ref[t]


def _run(Z, k: int, variant: str, trace: bool):
    """``mdav_kernel`` on ``Z``, scaled by a power of two where its squared distances could overflow
    (``geometry.in_range``); the trace's reference points in the units of ``Z``."""
    W = in_range(Z)
    labels, seeds, roles, refs, leftovers = kernels.run(mdav_kernel, W, k, VARIANTS[variant], trace)
    if W is not Z:
        refs = refs * (np.abs(Z).max() / np.abs(W).max())  # (a power of two: exact)
    return labels, seeds, roles, refs, leftovers


@register(
    "partition", "mdav",
    bounded=True,
    quadratic=True,
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
    labels, *_ = _run(Z, k, variant, False)
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
    Z, k, params = get_method("partition", "mdav").check(Z, k, variant=variant)
    labels, seeds, roles, refs, leftovers = _run(Z, k, params["variant"], True)
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
