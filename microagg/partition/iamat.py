"""IAMAT, interactive-associative microaggregation (Oommen & Fayyoumi 2010, Algorithm 1, Eq. 1-5; docs/methods.md §2.8).

Literal reading of Algorithm 1: mu = centroid of the data set (step 1, never
updated); while at least k records are unassigned: r = the unassigned record least
associated with mu (step 8), s = the unassigned record most associated with r
(step 11), then add the unassigned record with the largest interaction
eta_p = prod_{i in G} a(i, p) (Eq. 5, step 22) until |G| = k; the fewer than k
records left at the end join the last group (step 29).

**Log domain.** With a(i, j) = exp(-|x_i - x_j|^2 / alpha) (Eq. 1) and alpha > 0
(Eq. 2), a product of k - 1 associations underflows (in float32 on Tarragona the
products of far candidates are all 0 and the argmax degenerates: IL 34.6 % instead
of 15.6 %). Taking logs changes no argmax:

    log eta_p = -(1/alpha) sum_{i in G} |x_i - x_p|^2
              = -(|G|/alpha) (|x_p - g|^2 + (1/|G|) sum_{i in G} |x_i - g|^2),   g = mean of G

so the most interactive record is the one with the smallest sum of squared
distances to the members, i.e. the candidate **nearest to the group's centroid**;
alpha drops out, and so do steps 3, 10, 13 and 25 (associations only feed these
comparisons). Likewise argmin a(mu, i) = the record farthest from mu, and argmax
a(r, i) = the record nearest to r. IAMAT is thus a one-group-per-iteration MDAV
with a fixed centroid whose groups grow towards their own centroid.

We therefore take the candidate with the smallest squared distance (summed
attribute by attribute) to g = (sum of the members in joining order) / |G|; the
lowest row index wins ties (docs/methods.md §0). The two arithmetics can disagree only
between candidates whose sums are equal up to rounding (g itself is rounded); the
tests find the same labels as a log-domain reference (summed squared distances) on
the benchmark sets, on random and on tie-heavy integer data. docs/reproductions.md §3:
within 1.02 % of Oommen & Fayyoumi 2010, Table II (tolerance 1.5 % relative); the residual is
unexplained (recomputed mu, leftovers to the nearest group or unsquared distances
fit no better).
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from . import kernels
from . import numpy_engine as engine
from .geometry import in_range
from .kernels import kernel


@kernel(cache=True, nogil=True)
def iamat_kernel(Z, k, chunks, pmin):
    """Labels of literal IAMAT on ``Z`` (groups in order of formation)."""
    n, d = Z.shape
    labels, alive, S, zmax2, cand = engine.start(Z, chunks)
    mu = S / n
    shells = np.int64(1)  # (one shell: its passes seek nearest records only)
    c0, pos, rid, rrho, screen = engine.build_index(Z, alive, mu, zmax2, chunks, cand, pmin, shells)
    ing = np.zeros(n, np.bool_)
    members = np.empty(k, np.int64)
    n_live = n
    dead = 0
    rstart = np.int64(0)
    g = np.int64(0)  # (np.int64, not a literal: numba would compile the callees once more for it)
    while n_live >= k:
        if 4 * dead > screen[3]:
            c0, pos, rid, rrho, screen = engine.build_index(Z, alive, mu, zmax2, chunks, cand, pmin, shells)
            dead = 0
            rstart = np.int64(0)
        r, rstart = engine.farthest_from_centroid(Z, alive, rid, rrho, rstart, mu, c0, zmax2)  # step 8
        zr = Z[r].copy()
        pid, pd2, complete = engine.prefix(Z, zr, min(n_live, engine.prefix_size(k)), screen, alive, n_live)
        members[0] = r
        members[1] = pid[1] if pid[0] == r else pid[0]  # step 11: nearest to r (ties: lowest index)
        ing[members[0]] = True
        ing[members[1]] = True
        nm = np.int64(2)
        total = Z[members[0]] + Z[members[1]]
        while nm < k:  # steps 15-26: the candidate nearest to the group's centroid
            gbar = total / nm
            best, _ = engine.outside(Z, gbar, np.sqrt(engine.sqdist(gbar.reshape(1, d), 0, zr)), 1, ing, nm, -1,
                                     pid, pd2, complete, screen, alive, n_live)
            members[nm] = best[0]
            ing[best[0]] = True
            total += Z[best[0]]
            nm += 1
        engine.close_group(Z, screen, pos, members[:nm], g, labels, alive, S, ing)
        n_live -= nm
        dead += nm
        g += 1
    for i in range(n):  # step 29: the fewer than k remaining records join the last group
        if alive[i]:
            labels[i] = g - 1
    return labels


@register(
    "partition", "iamat",
    bounded=True,
    quadratic=True,
    title="IAMAT",
    summary="Interactive-associative MAT: groups of k grown from the record farthest from the data centroid, "
            "adding the record with the largest product of associations (nearest to the group's centroid).",
    source="Oommen & Fayyoumi 2010, Algorithm 1, Eq. 1-5",
)
def iamat(Z, k: int) -> np.ndarray:
    """Group labels 0..m-1 of literal IAMAT on standardized ``Z``: groups of k, the last one up to 2k-1."""
    return kernels.run(iamat_kernel, in_range(Z), k, searches=True)
