"""MDAV on heterogeneous quasi-identifiers: continuous, ordinal and nominal (Domingo-Ferrer & Torra 2005).

The loop is MDAV-generic (docs/methods.md §2.2): while at least 3k records remain, r is the record farthest from
the centroid of the remaining records, s the record farthest from r, and each takes its k-1 nearest; with 2k..3k-1
left one more group grows around r and the rest is the last group; k..2k-1 left form one group. What changes is the
distance and the centroid (docs/methods.md §2.15):

* squared distance = Σ (z − z')² over continuous attributes (z-scores)
  + Σ (a·(p − p'))² over ordinal attributes (p the category's position in its order; Domingo-Ferrer & Torra 2005's
  rank distance, rescaled by a = 1/sd of the positions)
  + Σ w·[c ≠ c'] over nominal attributes (Domingo-Ferrer & Torra 2005's 0/1 mismatch, weighted by
  w = 2 / (1 − Σ_c f_c²), f_c the category shares),
  so that every attribute, whatever its kind, has the same mean squared distance between two records as a z-scored
  continuous one (2; docs/methods.md §5, decision 32);
* the centroid is the mean (continuous), the lower median (ordinal) and the mode (nominal; among tied categories
  the one held by the lowest-indexed record) of the remaining records.

An ordinal or nominal cell may be unknown (code -1, ``missing_categories="impute"``, docs/methods.md §8.8): that
attribute then adds ``UNKNOWN`` to the distance, the mean squared distance of any attribute between two records,
whatever the other point; the centroid's lower median and mode are those of the records that have a category
(unknown when none has).

Continuous cells may be missing (NaN): the continuous part of the distance is
then the partial distance of ``partition.missing`` (Hathaway & Bezdek 2001), dz / |O| · Σ_{t∈O} (z − z')² over
the set O of continuous attributes observed in both points, 2·dz when they share none, plus ``mismatch`` per
continuous attribute observed in only one of them (docs/methods.md §8.2, §8.5), and the continuous centroid is,
per attribute, the mean of the remaining records that observe it (missing when none does). The distance from the
seed to itself is 0, as with complete data. With every cell observed the labels are those of the complete kernel
(tested).

Ties follow MDAV's rule: among equal distances the lowest row index wins, for "nearest" and "farthest". With no
ordinal and no nominal column this is MDAV-generic with the same running-sum centroid and the same decisions as
``mdav(Z, k, variant="generic")`` (tested). Memory is O(n·d); each query is one compiled pass over the remaining
records, O(n²·d/k) in all. Numeric releases never come here: ``microaggregate`` uses this kernel only when ordinal
or nominal quasi-identifiers are present.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register_data_kernel
from . import numpy_engine as engine
from .geometry import partial_distance, partial_distances
from .kernels import kernel
from .numpy_engine import row_sums, sqdists

UNKNOWN = 2.0  # an unknown category's term of the squared distance: every attribute's mean between two records


def weights(P: np.ndarray, N: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale ``a`` of every ordinal attribute (1 / sd of the positions ``P``; 0 for a constant one) and weight ``w``
    of every nominal attribute (2 / (1 − Σ f_c²) for the category shares f_c of ``N``; 0 for a constant one), over
    the known cells (code >= 0)."""
    if (P < 0).any():
        sd = np.array([P[P[:, t] >= 0, t].std() if (P[:, t] >= 0).any() else 0.0 for t in range(P.shape[1])])
    else:
        sd = P.std(axis=0) if P.shape[1] else np.zeros(0)
    a = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
    w = np.zeros(N.shape[1])
    for t in range(N.shape[1]):
        known = N[:, t][N[:, t] >= 0]
        f = np.bincount(known) / max(len(known), 1)
        gini = 1.0 - float((f * f).sum())
        w[t] = 2.0 / gini if gini > 0 else 0.0
    return a, w


def mdav_heterogeneous(Z: np.ndarray, P: np.ndarray, N: np.ndarray, k: int, mismatch: float = 0.0) -> np.ndarray:
    """Group labels (0..g-1, every group of k..2k-1 records) of MDAV-generic on continuous z-scores ``Z`` (n x dz,
    NaN where a cell is missing), ordinal positions ``P`` (n x dp, integers 0..C-1) and nominal codes ``N`` (n x dn,
    integers 0..C-1; -1 where unknown), n >= k; ``mismatch`` is added per continuous attribute observed in only one
    of two points."""
    Z = np.asarray(Z, dtype=np.float64)
    obs = np.ascontiguousarray(~np.isnan(Z))
    Z0 = np.ascontiguousarray(np.where(obs, Z, 0.0))
    obs = None if obs.all() else obs  # None: complete data, compiled without the partial distance's tests
    P = np.ascontiguousarray(P, dtype=np.int64)
    N = np.ascontiguousarray(N, dtype=np.int64)
    a, w = weights(P, N)
    cp = max(int(P.max()) + 1, 1) if P.size else 1
    cn = max(int(N.max()) + 1, 1) if N.size else 1
    return _kernel(Z0, obs, P, N, a, w, int(k), cp, cn, float(mismatch))


@kernel(cache=True, nogil=True)
def _dist(Z, obs, P, N, a, w, i, cz, seen, cpos, cnom, mismatch):
    """Squared heterogeneous distance from record i to the point (cz observed where ``seen``, cpos, cnom),
    attribute by attribute; the continuous part the partial distance (Hathaway & Bezdek 2001) plus ``mismatch``
    per attribute observed in only one of the two, or, when every cell is observed (``obs`` None), the squared
    Euclidean distance it then equals, summed without the partial distance's tests (the same rounding)."""
    if obs is None:
        s = 0.0
        for t in range(Z.shape[1]):
            diff = Z[i, t] - cz[t]
            s += diff * diff
    else:
        s = partial_distance(Z, obs, i, cz, seen, mismatch)
    for t in range(P.shape[1]):
        if P[i, t] < 0 or cpos[t] < 0:
            s += UNKNOWN
        else:
            diff = a[t] * (P[i, t] - cpos[t])
            s += diff * diff
    for t in range(N.shape[1]):
        if N[i, t] < 0 or cnom[t] < 0:
            s += UNKNOWN
        elif N[i, t] != cnom[t]:
            s += w[t]
    return s


@kernel(cache=True, nogil=True)
def _centroid(Z, P, N, S, countz, live, n_live, countp, countn):
    """Mean of the continuous attributes (running sum ``S`` over the running count ``countz`` of the records
    observing each; observed where that count is > 0), lower median of the ordinal positions and mode of the
    nominal codes (ties: the category of the lowest-indexed live record) of the live records that have a category
    (-1 when none has)."""
    seen = countz > 0
    cz = S / np.maximum(countz, 1)
    cpos = np.full(P.shape[1], -1, np.int64)
    for t in range(P.shape[1]):
        rank = (countp[t].sum() - 1) // 2 + 1  # the lower median is the rank-th smallest known position
        acc = 0
        for c in range(countp.shape[1]):
            acc += countp[t, c]
            if acc >= rank > 0:
                cpos[t] = c
                break
    cnom = np.full(N.shape[1], -1, np.int64)
    for t in range(N.shape[1]):
        top = countn[t].max()
        for i in live:
            if top > 0 and N[i, t] >= 0 and countn[t, N[i, t]] == top:
                cnom[t] = N[i, t]
                break
    return cz, seen, cpos, cnom


@kernel(cache=True, nogil=True)
def _around(Z, obs, P, N, a, w, live, r, k, mismatch):
    """The k live records nearest to record r (ascending (distance, index)) and the live record farthest from r."""
    bd = np.full(k, np.inf)
    bi = np.full(k, -1, np.int64)
    far, fard = -1, -1.0
    cz, cpos, cnom = Z[r].copy(), P[r].copy(), N[r].copy()
    if obs is None:
        seen = np.ones(Z.shape[1], np.bool_)
    else:
        seen = obs[r].copy()
    for i in live:
        d = 0.0 if i == r else _dist(Z, obs, P, N, a, w, i, cz, seen, cpos, cnom, mismatch)
        if d > fard:
            far, fard = i, d
        engine.insert_nearest(bd, bi, d, i)  # (the compiled engine's: this kernel runs compiled only)
    return bi, far


@kernel(cache=True, nogil=True)
def _kernel(Z, obs, P, N, a, w, k, cp, cn, mismatch):
    n = Z.shape[0]
    labels = np.full(n, -1, np.int64)
    alive = np.ones(n, np.bool_)
    S = np.zeros(Z.shape[1])
    countz = np.zeros(Z.shape[1], np.int64)
    for i in range(n):
        S += Z[i]
        if obs is None:
            countz += 1
        else:
            countz += obs[i]
    countp = np.zeros((P.shape[1], cp), np.int64)
    countn = np.zeros((N.shape[1], cn), np.int64)
    for i in range(n):
        for t in range(P.shape[1]):
            if P[i, t] >= 0:
                countp[t, P[i, t]] += 1
        for t in range(N.shape[1]):
            if N[i, t] >= 0:
                countn[t, N[i, t]] += 1
    n_live = n
    g = 0
    while n_live >= 2 * k:
        live = np.flatnonzero(alive)
        cz, seen, cpos, cnom = _centroid(Z, P, N, S, countz, live, n_live, countp, countn)
        r, rd = -1, -1.0
        for i in live:
            d = _dist(Z, obs, P, N, a, w, i, cz, seen, cpos, cnom, mismatch)
            if d > rd:
                r, rd = i, d
        members, s = _around(Z, obs, P, N, a, w, live, r, k, mismatch)
        n_live = _emit(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live)
        g += 1
        if n_live < 2 * k:  # MDAV-generic's ending: 2k..3k-1 records gave one group around r
            break
        if not alive[s]:  # only with massive ties: s fell into r's group
            _, s = _around(Z, obs, P, N, a, w, np.flatnonzero(alive), r, k, mismatch)
        members, _ = _around(Z, obs, P, N, a, w, np.flatnonzero(alive), s, k, mismatch)
        n_live = _emit(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live)
        g += 1
    for i in range(n):
        if alive[i]:
            labels[i] = g
    return labels


@kernel(cache=True, nogil=True)
def _emit(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live):
    """Make ``members`` group g: remove them (ascending row order) from the running sums and counts."""
    for i in np.sort(members):
        labels[i] = g
        alive[i] = False
        S -= Z[i]
        if obs is None:
            countz -= 1
        else:
            countz -= obs[i]
        for t in range(P.shape[1]):
            if P[i, t] >= 0:
                countp[t, P[i, t]] -= 1
        for t in range(N.shape[1]):
            if N[i, t] >= 0:
                countn[t, N[i, t]] -= 1
    return n_live - members.shape[0]


class _Points:
    """The numpy kernels' distances of this module: every live record to a point at once, with ``_dist``'s
    arithmetic (the continuous part, then each ordinal and each nominal term added in attribute order)."""

    def __init__(self, Z, obs, P, N, a, w, mismatch):
        self.Z, self.obs, self.P, self.N, self.a, self.w, self.mismatch = Z, obs, P, N, a, w, mismatch
        self.rows = None

    def live(self, rows):
        self.rows, self.Xt = rows, np.ascontiguousarray(self.Z[rows].T)

    def dist(self, cz, seen, cpos, cnom):
        rows = self.rows
        if self.obs is None:
            s = sqdists(self.Xt, cz)
        else:
            s = partial_distances.on_numpy()(self.Z, self.obs, rows, cz, seen, self.mismatch)
        for t in range(self.P.shape[1]):
            p = self.P[rows, t]
            s = s + (UNKNOWN if cpos[t] < 0 else np.where(p < 0, UNKNOWN, np.square(self.a[t] * (p - cpos[t]))))
        for t in range(self.N.shape[1]):
            c = self.N[rows, t]
            s = s + (UNKNOWN if cnom[t] < 0 else np.where(c < 0, UNKNOWN, np.where(c != cnom[t], self.w[t], 0.0)))
        return s

    def around(self, r, k):
        """``_around``: the k live records nearest to record r (ascending (distance, index)), the farthest one."""
        seen = np.ones(self.Z.shape[1], np.bool_) if self.obs is None else self.obs[r]
        d = self.dist(self.Z[r], seen, self.P[r], self.N[r])
        d[self.rows == r] = 0.0
        return engine.smallest(self.rows, d, k)[0], engine.first_max(self.rows, d)


@_kernel.numpy
def _kernel_numpy(Z, obs, P, N, a, w, k, cp, cn, mismatch):
    """``_kernel`` on the numpy kernels: the same loop, every query one vectorized pass over the live records."""
    n = Z.shape[0]
    labels = np.full(n, -1, np.int64)
    alive = np.ones(n, np.bool_)
    S = row_sums(Z)
    countz = np.full(Z.shape[1], n, np.int64) if obs is None else obs.sum(axis=0)
    countp = np.array([np.bincount(P[P[:, t] >= 0, t], minlength=cp) for t in range(P.shape[1])], np.int64)
    countn = np.array([np.bincount(N[N[:, t] >= 0, t], minlength=cn) for t in range(N.shape[1])], np.int64)
    countp, countn = countp.reshape(P.shape[1], cp), countn.reshape(N.shape[1], cn)
    points = _Points(Z, obs, P, N, a, w, mismatch)
    n_live, g = n, 0
    while n_live >= 2 * k:
        live = np.flatnonzero(alive)
        points.live(live)
        cz, seen, cpos, cnom = _centroid_numpy(P, N, S, countz, live, countp, countn)
        r = int(live[np.argmax(points.dist(cz, seen, cpos, cnom))])
        members, s = points.around(r, k)
        n_live = _emit_numpy(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live)
        g += 1
        if n_live < 2 * k:
            break
        points.live(np.flatnonzero(alive))
        if not alive[s]:
            _, s = points.around(r, k)
        members, _ = points.around(s, k)
        n_live = _emit_numpy(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live)
        g += 1
    labels[alive] = g
    return labels


def _centroid_numpy(P, N, S, countz, live, countp, countn):
    """``_centroid``, its counts read with numpy."""
    seen = countz > 0
    cz = S / np.maximum(countz, 1)
    rank = (countp.sum(axis=1) - 1) // 2 + 1
    cum = np.cumsum(countp, axis=1)
    cpos = np.where(rank > 0, np.argmax(cum >= rank[:, None], axis=1), -1) if countp.size else np.full(P.shape[1], -1)
    cnom = np.full(N.shape[1], -1, np.int64)
    for t in range(N.shape[1]):
        top = countn[t].max()
        if top > 0:
            codes = N[live, t]
            held = np.flatnonzero((codes >= 0) & (countn[t][np.maximum(codes, 0)] == top))
            cnom[t] = codes[held[0]]
    return cz, seen, cpos, cnom


def _emit_numpy(Z, obs, P, N, members, g, labels, alive, S, countz, countp, countn, n_live):
    """``_emit``: the running sum updated member by member in ascending row order, the counts at once."""
    members = np.sort(members)
    for i in members:
        S -= Z[i]
    labels[members] = g
    alive[members] = False
    countz -= members.shape[0] if obs is None else obs[members].sum(axis=0)
    for t in range(P.shape[1]):
        p = P[members, t]
        np.subtract.at(countp[t], p[p >= 0], 1)
    for t in range(N.shape[1]):
        c = N[members, t]
        np.subtract.at(countn[t], c[c >= 0], 1)
    return n_live - members.shape[0]


register_data_kernel(
    "partition", "mdav", "categorical", lambda Z, k, cats, penalty: mdav_heterogeneous(Z, *cats, k, penalty),
    requires={"variant": "generic"}, engines=("memory",),
    records={"distance": "heterogeneous (Domingo-Ferrer & Torra 2005)"},
    about="ordinal or nominal quasi-identifiers (heterogeneous MDAV groups them, Domingo-Ferrer & Torra 2005)",
    otherwise="Or release the categorical columns unmasked as keys, with strata.")
