"""V-MDAV, variable-size MDAV (Solanas & Martínez-Ballesté 2006; Chettri, Paul & Dutta, §3; docs/methods.md §2.6).

    c = centroid                      (of the whole data set, once: centroid="fixed")
    while |R| >= k:
        e = farthest unassigned record from c;  G = e + its k-1 nearest unassigned
        while |G| < 2k-1 and |R| > 0:
            e_min = unassigned record nearest to any member   (distance d_in)
            d_out = distance from e_min to its nearest other unassigned record (inf if none)
            if d_in < gamma * d_out: move e_min into G  else: stop
    fewer than k leftovers join the group with the nearest centroid

Choices (docs/methods.md §2.6; docs/methods.md §5, decisions 5-6): ``centroid="fixed"`` (computed once, the
default) reproduces Chettri, Paul & Dutta's V-MDAV row (docs/reproductions.md §4: gamma 0.2 for Tarragona
and Census, 1.1 for EIA); ``centroid="remaining"`` recomputes it over the
unassigned records every iteration, as MDAV does, and fits the table worse. The
papers are silent about leftovers: they join the nearest group centroid, as in MDAV.
The test is strict and on unsquared distances; gamma = 0 never extends a group.
Arithmetic and tie rules are the engine's (``engine.py``): squared distances summed
attribute by attribute, lowest row index wins every tie.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import Param, register
from . import kernels
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel

CENTROIDS = ("fixed", "remaining")


LIST = 32  # nearest outsiders kept per member (refetched if they all join the group)


@kernel(cache=True, nogil=True)
def _fill(Z, a, i, ze, lists, ldist, lcount, ing, nm, pid, pd2, complete, screen, alive, n_live):
    """Row ``a`` of the outsider lists: the nearest records of ``i`` outside the group (``i`` excluded)."""
    li, ld = engine.outside(Z, Z[i], np.sqrt(engine.sqdist(Z, i, ze)), lists.shape[1], ing, nm, i, pid, pd2,
                            complete, screen, alive, n_live)
    lcount[a] = li.shape[0]
    lists[a, :li.shape[0]] = li
    ldist[a, :li.shape[0]] = ld


@kernel(cache=True, nogil=True)
def vmdav_kernel(Z, k, gamma, fixed, chunks, pmin):
    """Labels of V-MDAV on ``Z`` (groups in order of formation).

    Each member keeps its nearest records outside the group (a short sorted list,
    valid for the whole group since no record leaves the live set before the group
    is emitted): e_min is the best first outsider over the members (lowest index
    among equal distances), and the list fetched for e_min's d_out becomes its own
    when it joins.
    """
    n, d = Z.shape
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    mu = S / n
    shells = np.int64(1)  # (one shell: its passes seek nearest records only)
    c0, pos, rid, rrho, screen = engine.build_index(Z, alive, mu, zmax2, chunks, cand, pmin, shells)
    ing = np.zeros(n, np.bool_)
    cap = 2 * k - 1
    members = np.empty(cap + 1, np.int64)
    width = min(LIST, cap + 1)
    lists = np.empty((cap + 1, width), np.int64)
    ldist = np.empty((cap + 1, width))
    lcount = np.zeros(cap + 1, np.int64)
    n_live = n
    dead = 0
    rstart = np.int64(0)
    g = np.int64(0)  # (np.int64, not a literal: numba would compile the callees once more for it)
    while n_live >= k:
        if 4 * dead > screen[3]:
            anchor = mu if fixed else S / n_live
            c0, pos, rid, rrho, screen = engine.build_index(Z, alive, anchor, zmax2, chunks, cand, pmin, shells)
            dead = 0
            rstart = np.int64(0)
        c = mu if fixed else S / n_live
        e, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, c, c0, zmax2)
        ze = Z[e].copy()
        pid, pd2, complete = engine.prefix(Z, ze, min(n_live, engine.prefix_size(k)), screen, alive, n_live)
        for a in range(k):
            members[a] = pid[a]
            ing[pid[a]] = True
        nm = k
        for a in range(nm):
            _fill(Z, a, members[a], ze, lists, ldist, lcount, ing, nm, pid, pd2, complete, screen, alive, n_live)
        while nm < cap and n_live > nm:
            best = np.inf
            emin = engine.NONE
            for a in range(nm):
                j = 0
                while j < lcount[a] and ing[lists[a, j]]:
                    j += 1
                if j == lcount[a]:  # every listed outsider joined: fetch the next ones
                    _fill(Z, a, members[a], ze, lists, ldist, lcount, ing, nm, pid, pd2, complete, screen, alive,
                          n_live)
                    j = 0
                if ldist[a, j] < best or (ldist[a, j] == best and lists[a, j] < emin):
                    best = ldist[a, j]
                    emin = lists[a, j]
            _fill(Z, nm, emin, ze, lists, ldist, lcount, ing, nm, pid, pd2, complete, screen, alive, n_live)
            dout = np.sqrt(ldist[nm, 0]) if lcount[nm] > 0 else np.inf
            if not np.sqrt(best) < gamma * dout:  # gamma = 0 with d_out = inf gives NaN: no extension
                break
            members[nm] = emin
            ing[emin] = True
            nm += 1
        engine.close_group(Z, screen, pos, members[:nm], g, labels, alive, S, ing)
        n_live -= nm
        dead += nm
        g += 1
    engine.assign_rest(Z, labels, alive, g)
    return labels


@register(
    "partition", "vmdav",
    bounded=True,
    quadratic=True,
    title="V-MDAV",
    summary="Variable-size MDAV: each group of k grows up to 2k-1 while the nearest outsider is much closer "
            "to the group than to the rest (gain factor gamma).",
    source="Solanas & Martínez-Ballesté 2006; Chettri, Paul & Dutta, §3",
    params=(
        Param("gamma", "float", 0.2, "gain factor: extend while d_in < gamma·d_out (about 0.2 for scattered "
              "data, 1.1 for clustered data; 0 gives fixed-size groups)", source="Chettri, Paul & Dutta, §3", low=0.0,
              label="gain factor γ"),
        Param("centroid", "choice", "fixed", "fixed: centroid of the whole data set, computed once (reproduces "
              "Chettri, Paul & Dutta); remaining: recomputed over the unassigned records",
              source="docs/reproductions.md §4",
              choices=CENTROIDS, label="centroid"),
    ),
)
def vmdav(Z, k: int, gamma: float = 0.2, centroid: str = "fixed") -> np.ndarray:
    """Group labels 0..m-1 of V-MDAV on standardized ``Z``; groups of k..2k-1 (larger only by leftovers)."""
    return kernels.run(vmdav_kernel, in_range(Z), k, gamma, centroid == "fixed", searches=True)
