"""CV-MDAV, centroid-based variable-size MDAV (Chettri, Paul & Dutta, §4; docs/methods.md §2.7), read literally.

    while |R| >= 3k:
        x_r = farthest unassigned record from the centroid of the unassigned records
        y_1..y_2k = the 2k nearest unassigned records to x_r, x_r itself excluded
        G = {x_r, y_1..y_{k-1}};  remove G;  c = centroid of G
        for j = k, k+1, ..., J  while |G| < cap:
            d2 = |y_j - c|
            z_1..z_k = the k nearest unassigned records to y_j;  d3 = |y_j - mean(z)|
            if d2 < gamma d3:  move y_j into G;  recompute c
    step 4: if |R| > 2k: one more group of x_r (farthest from the centroid) and its k-1 nearest
    step 6: the rest (k..3k-1 records) is the last group

The printed algorithm is ambiguous; every reading is an option (docs/reproductions.md §5),
the literal one being the default:

* ``cap``: the loop guard says |c_i| < 2k ("2k", groups up to 2k); the prose says
  "less than 2k-1" ("2k-1").
* ``last``: the guard j < 2k tests y_k..y_{2k-1} ("2k-1"); "2k" also tests y_2k.
* ``step4``: the test n > 2k (">") or n >= 2k (">=").
* ``zself``: whether y_j, still unassigned, counts among its own k nearest
  neighbours (literal: no).
* Fixed by necessity: d1 (step 2.8.i) is never used; the missing j <- j+1 is added;
  x_r is removed with its group and is not its own neighbour in step 2.3 (otherwise
  groups of k-1 would form).

Every group has at least k records. Chettri, Paul & Dutta, Tables 1-3 are not reproduced by any
reading (the closest is off by up to 0.56 IL); ``microagg.lab.reproduce.published`` lists our
figures beside the printed ones. Centroids are member sums in joining order divided
by the count; other arithmetic and tie rules are MDAV's.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import Param, register
from . import kernels
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel


@kernel(cache=True, nogil=True)
def _mean_of(Z, ids, m):
    c = np.zeros(Z.shape[1])
    for a in range(m):
        for t in range(Z.shape[1]):
            c[t] += Z[ids[a], t]
    return c / m


@_mean_of.numpy
def _mean_of_numpy(Z, ids, m):
    """``_mean_of`` on the numpy kernels: the same sums, row after row."""
    return engine.row_sums(Z[ids[:m]]) / m


@kernel(cache=True, nogil=True)
def _dist(a, b):
    return np.sqrt(engine.sqdist(a.reshape(1, a.shape[0]), 0, b))


@kernel(cache=True, nogil=True)
def cvmdav_kernel(Z, k, gamma, cap, last, strict4, zself, chunks, pmin):
    """Labels of CV-MDAV on ``Z`` (groups in order of formation); ``cap``/``last`` are 2k or 2k-1."""
    n, d = Z.shape
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    shells = np.int64(1)  # (one shell: its passes seek nearest records only)
    c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n, zmax2, chunks, cand, pmin, shells)
    ing = np.zeros(n, np.bool_)
    members = np.empty(2 * k, np.int64)
    y = np.empty(2 * k, np.int64)
    n_live = n
    dead = 0
    rstart = np.int64(0)
    g = np.int64(0)  # (np.int64, not a literal: numba would compile the callees once more for it)
    while n_live >= 3 * k:
        if 4 * dead > screen[3]:
            c0, pos, rid, rrho, screen = engine.build_index(Z, alive, S / n_live, zmax2, chunks, cand, pmin, shells)
            dead = 0
            rstart = np.int64(0)
        r, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, S / n_live, c0, zmax2)
        zr = Z[r].copy()
        pid, pd2, complete = engine.prefix(Z, zr, min(n_live, engine.prefix_size(k)), screen, alive, n_live)
        a = 0
        for j in range(pid.shape[0]):  # step 2.3: the 2k nearest to x_r, x_r excluded
            if pid[j] != r and a < 2 * k:
                y[a] = pid[j]
                a += 1
        members[0] = r
        ing[r] = True
        for a in range(k - 1):
            members[a + 1] = y[a]
            ing[y[a]] = True
        nm = k
        cbar = _mean_of(Z, members, nm)
        for j in range(k - 1, last):  # y_k .. y_last (0-based)
            if nm >= cap:
                break
            yj = y[j]
            zy = Z[yj]
            near, _ = engine.outside(Z, zy, np.sqrt(engine.sqdist(Z, yj, zr)), k, ing, nm, -1 if zself else yj,
                                     pid, pd2, complete, screen, alive, n_live)
            if _dist(cbar, zy) < gamma * _dist(_mean_of(Z, near, k), zy):
                members[nm] = yj
                ing[yj] = True
                nm += 1
                cbar = _mean_of(Z, members, nm)
        engine.close_group(Z, screen, pos, members[:nm], g, labels, alive, S, ing)
        n_live -= nm
        dead += nm
        g += 1
    if n_live > 2 * k or (not strict4 and n_live == 2 * k):  # step 4
        r, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, S / n_live, c0, zmax2)
        _, near = engine.around(Z, Z[r].copy(), k, False, screen)
        engine.emit(Z, screen, pos, near, g, labels, alive, S)
        n_live -= k
        g += 1
    if n_live > 0:  # step 6
        for i in range(n):
            if alive[i]:
                labels[i] = g
    return labels


@register(
    "partition", "cvmdav",
    title="CV-MDAV",
    summary="Centroid-based variable-size MDAV: a group of k around the farthest record, extended by those of "
            "its next k neighbours that are closer to the group's centroid than to their own neighbourhood.",
    source="Chettri, Paul & Dutta, §4",
    params=(
        Param("gamma", "float", 1.1, "gain factor of the test d2 < gamma·d3 (Chettri, Paul & Dutta fixes 1.1)",
              source="Chettri, Paul & Dutta, §4", low=0.0, label="gain factor γ"),
        Param("cap", "choice", "2k", "largest group: 2k (loop guard |c_i| < 2k, literal) or 2k-1 (the prose)",
              source="Chettri, Paul & Dutta, §4 step 2.8", choices=("2k", "2k-1"),
              label="largest group", advanced=True),
        Param("last", "choice", "2k-1", "last candidate tested: y_{2k-1} (guard j < 2k, literal) or y_{2k}",
              source="Chettri, Paul & Dutta, §4 step 2.8", choices=("2k-1", "2k"),
              label="last candidate tested", advanced=True),
        Param("step4", "choice", ">", "extra group of k when n > 2k (literal) or n >= 2k records remain",
              source="Chettri, Paul & Dutta, §4 step 4", choices=(">", ">="),
              label="extra group when n … 2k", advanced=True),
        Param("zself", "bool", False, "y_j counts among its own k nearest neighbours (literal: no)",
              source="Chettri, Paul & Dutta, §4 step 2.8.iii", label="y_j among its own neighbours", advanced=True),
    ),
    quadratic=True,
)
def cvmdav(Z, k: int, gamma: float = 1.1, cap: str = "2k", last: str = "2k-1", step4: str = ">",
           zself: bool = False) -> np.ndarray:
    """Group labels 0..m-1 of CV-MDAV on standardized ``Z``; every group has at least k records."""
    return kernels.run(cvmdav_kernel, in_range(Z), k, gamma, 2 * k if cap == "2k" else 2 * k - 1,
                       2 * k if last == "2k" else 2 * k - 1, step4 == ">", zself, searches=True)
