"""k-anonymous t-closeness by microaggregation (Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2015).

The columns have roles, as for HM-pfsom: the quasi-identifiers (QIs) are masked, the confidential attributes are
released unchanged and only shape the groups. A release is t-close (Li, Li & Venkatasubramanian 2007) when, in
every group, the distribution of every confidential attribute is within Earth Mover's Distance t of its
distribution in the whole table (:func:`ordered_emd`; docs/methods.md §2.13).

Two constructions of the paper (variant):

* ``"tfirst"`` (t-closeness first, Soria-Comas et al. 2015): the records are sorted by the confidential
  attribute and cut into k' subsets of consecutive records, k' = max(k, ⌈n / (2(n−1)t + 1)⌉); every group takes
  the record farthest (QIs) from the centroid of the records left and, from every subset, the record left
  nearest to it (QIs). One record of every subset keeps a group's EMD ≤ (n/k' − 1) / (2(n − 1)) ≤ t when the
  values are distinct and k' divides n (the bound the paper sizes k' by; derived in docs/methods.md §2.13).
* ``"kfirst"`` (k-anonymity first): MDAV groups of k on the QIs.

Both then merge groups until every group is t-close for every confidential attribute (the guarantee on the
released file, whatever the ties, the remainder of n / k' or the number of confidential attributes): while some
group's largest EMD exceeds t, the group with the largest EMD joins, among the 8 groups with the nearest QI
centroids, the one that leaves the merged group closest to the table. A single group is 0-close, so the loop
ends.

Decisions (docs/methods.md §2.13, §5 decision 29): with several confidential attributes t must hold for each one
separately, and ``"tfirst"`` orders the records by the mean of their ranks in the confidential attributes (for one
attribute, its order); ties of every choice go to the lowest row index; the records left over when k' does not
divide n join the group with the nearest QI centroid.
"""

from __future__ import annotations

import math

import numpy as np

from ..base.checks import as_matrix, check_finite, check_k, check_size
from ..base.errors import MicroaggError
from ..base.registry import T_CLOSENESS, Param, confidential_positions, get_method, register
from .compiled import engine

VARIANTS = ("tfirst", "kfirst")
_SOURCE = "Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2015"
_CHUNK = 1 << 22  # cells of the (groups x distinct values) table computed at once by ordered_emd
NEIGHBOURS = 8  # a group that is not t-close joins the one of its 8 QI-nearest groups that leaves it closest


def _codes(values) -> tuple[np.ndarray, int]:
    """Position of every value among the m sorted distinct values, and m."""
    distinct, codes = np.unique(np.asarray(values, dtype=np.float64).reshape(-1), return_inverse=True)
    return codes.reshape(-1), len(distinct)


def _emd_of(codes: np.ndarray, rows: np.ndarray, cq: np.ndarray, m: int) -> float:
    """Ordered EMD of the records ``rows`` (codes of one attribute) to the table's cumulative distribution ``cq``."""
    if m == 1:
        return 0.0
    cp = np.cumsum(np.bincount(codes[rows], minlength=m)) / len(rows)
    return float(np.abs(cp - cq)[:-1].sum() / (m - 1))


def _cumulative(codes: np.ndarray, m: int) -> np.ndarray:
    return np.cumsum(np.bincount(codes, minlength=m)) / len(codes)


def ordered_emd(values, labels) -> np.ndarray:
    """The Earth Mover's Distance of every group's distribution of one numeric attribute to the whole table's,
    with the ordered distance (Li, Li & Venkatasubramanian 2007; docs/methods.md §2.13).

    Over the m sorted distinct values of ``values``, with p and q the group's and the table's distributions,
    EMD = (1 / (m − 1)) Σ_i |Σ_{j ≤ i} (p_j − q_j)|, in [0, 1]; 0 for a constant attribute. ``labels`` are group
    ids 0..g−1, one per value; returns the g distances. A release is t-close on the attribute when their
    largest is at most t.
    """
    codes, m = _codes(values)
    labels = np.asarray(labels)
    if labels.shape != codes.shape or labels.size == 0 or not np.issubdtype(labels.dtype, np.integer) \
            or labels.min() < 0:
        raise MicroaggError(f"labels must be one non-negative integer group id per value ({codes.size}); got "
                            f"shape {labels.shape}.")
    g = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=g)
    if (sizes == 0).any():
        raise MicroaggError("labels must number the groups 0..g-1 with no empty group.")
    if m == 1:
        return np.zeros(g)
    cq = _cumulative(codes, m)
    out = np.empty(g)
    step = max(1, _CHUNK // m)
    for lo in range(0, g, step):  # a (groups x m) table at a time
        hi = min(g, lo + step)
        inside = (labels >= lo) & (labels < hi)
        counts = np.bincount((labels[inside] - lo) * m + codes[inside], minlength=(hi - lo) * m)
        cp = np.cumsum(counts.reshape(hi - lo, m), axis=1) / sizes[lo:hi, None]
        out[lo:hi] = np.abs(cp - cq)[:, :-1].sum(axis=1) / (m - 1)
    return out


def k_prime(n: int, k: int, t: float) -> int:
    """Records per group of the t-closeness-first construction: max(k, ⌈n / (2(n−1)t + 1)⌉), at most n
    (Soria-Comas et al. 2015; docs/methods.md §2.13)."""
    return min(n, max(k, math.ceil(n / (2 * (n - 1) * t + 1))))


def _t_first(Q: np.ndarray, key: np.ndarray, k: int, t: float) -> np.ndarray:
    """Groups of k' records, one from each of k' subsets of consecutive records in the order of ``key``."""
    n = Q.shape[0]
    kp = k_prime(n, k, t)
    g = n // kp
    if g <= 1:
        return np.zeros(n, dtype=np.int64)
    order = np.lexsort((np.arange(n), key))  # the confidential order; ties by row
    starts = (np.arange(kp) * n) // kp  # kp subsets of n // kp or n // kp + 1 consecutive records
    sizes = np.diff(np.append(starts, n))
    labels = np.full(n, -1, dtype=np.int64)
    left = np.ones(n, dtype=bool)
    for c in range(g):
        rows = np.flatnonzero(left)
        centroid = Q[rows].mean(axis=0)
        far = ((Q[rows] - centroid) ** 2).sum(axis=1)
        x0 = rows[np.flatnonzero(far == far.max())[0]]
        dist = np.where(left, ((Q - Q[x0]) ** 2).sum(axis=1), np.inf)
        dist[x0] = -1.0  # x0 is its own subset's record
        d_sorted = dist[order]
        nearest = np.minimum.reduceat(d_sorted, starts)
        candidate = np.where(d_sorted == np.repeat(nearest, sizes), order, n)
        chosen = np.minimum.reduceat(candidate, starts)  # lowest row index among the nearest of every subset
        labels[chosen] = c
        left[chosen] = False
    engine.assign_rest(Q, labels, left, g)  # fewer than k' records: the nearest group's centroid
    return labels


def merge_until_close(Q, C, labels, t: float) -> np.ndarray:
    """Merge groups until every group's EMD is at most ``t`` on every column of ``C`` (docs/methods.md §2.13):
    the group with the largest EMD (lowest id among ties) joins, among the :data:`NEIGHBOURS` groups whose
    QI centroids (``Q``) are nearest to its own, the one giving the merged group the smallest EMD (the nearer
    among ties). Returns labels 0..m−1 numbered by first record."""
    Q = np.asarray(Q, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64).copy()
    g = int(labels.max()) + 1
    coded = [_codes(C[:, j]) for j in range(C.shape[1])]
    cqs = [_cumulative(codes, m) for codes, m in coded]
    emd = np.max([ordered_emd(C[:, j], labels) for j in range(C.shape[1])], axis=0)
    sums = np.zeros((g, Q.shape[1]))
    np.add.at(sums, labels, Q)
    sizes = np.bincount(labels, minlength=g).astype(np.float64)
    alive = np.ones(g, dtype=bool)
    while alive.sum() > 1:
        live = np.flatnonzero(alive)
        worst = live[np.argmax(emd[live])]
        if emd[worst] <= t:
            break
        others = live[live != worst]
        dist = ((sums[others] / sizes[others, None] - sums[worst] / sizes[worst]) ** 2).sum(axis=1)
        near = others[np.lexsort((others, dist))[:NEIGHBOURS]]  # nearest first, lowest id among ties
        members = np.flatnonzero(labels == worst)
        merged = [max(_emd_of(codes, np.concatenate([members, np.flatnonzero(labels == h)]), cq, m)
                      for (codes, m), cq in zip(coded, cqs)) for h in near]
        into = near[int(np.argmin(merged))]
        labels[members] = into
        sums[into] += sums[worst]
        sizes[into] += sizes[worst]
        alive[worst] = False
        emd[into] = min(merged)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def _mean_rank(C: np.ndarray) -> np.ndarray:
    """Every record's mean over the confidential attributes of its rank among their distinct values, in [0, 1]."""
    out = np.zeros(C.shape[0])
    for j in range(C.shape[1]):
        codes, m = _codes(C[:, j])
        out += codes / max(m - 1, 1)
    return out / C.shape[1]


def _inputs(Z, k, confidential=None) -> tuple[np.ndarray, int, dict]:
    """The method's input, checked: k >= 2, ``Z`` 2-D, finite, n >= k, at least one confidential column and one
    quasi-identifier."""
    k = check_k(k)
    Z = as_matrix(Z, vector=False)
    check_finite(Z, what="attribute")
    conf = confidential_positions(Z, confidential, "t-closeness")
    check_size(Z.shape[0], k)
    return Z, k, {"confidential": conf}


@register(
    "partition", "tcloseness",
    title="k-anonymous t-closeness",
    summary="Groups of at least k records in which every confidential attribute is distributed within EMD t of "
            "the whole table (t-closeness), by microaggregation; groups are merged until t holds.",
    source=f"{_SOURCE} (t-closeness: Li, Li & Venkatasubramanian 2007)",
    params=(
        Param("t", "float", 0.2, "largest Earth Mover's Distance of a group's confidential distribution to the "
              "table's (ordered distance), for every confidential attribute",
              f"{_SOURCE}; Li, Li & Venkatasubramanian 2007", low=0, high=1, low_open=True,
              label="t, largest EMD of a group"),
        Param("variant", "choice", "tfirst", "tfirst: groups of k' records, one from each confidential stratum; "
              "kfirst: MDAV groups of k, then merged", _SOURCE, choices=VARIANTS,
              label="construction"),
    ),
    uses_roles=True,
    whole_table=True,
    privacy=T_CLOSENESS,
    inputs=_inputs,
)
def t_closeness(Z, k: int, confidential, t: float = 0.2, variant: str = "tfirst") -> np.ndarray:
    """Group labels 0..m−1 on ``Z`` whose ``confidential`` columns (positions) shape the groups and whose other
    columns are the quasi-identifiers: every group has at least k records and, for every confidential column,
    an ordered EMD (:func:`ordered_emd`) of at most ``t``. ``Z`` is not modified."""
    conf = np.asarray(confidential, dtype=np.int64)
    Q = np.ascontiguousarray(Z[:, np.setdiff1d(np.arange(Z.shape[1]), conf)])
    C = Z[:, conf]
    if variant == "tfirst":
        labels = _t_first(Q, _mean_rank(C), k, t)
    else:
        labels = get_method("partition", "mdav").kernel(Q, k, variant="generic")
    return merge_until_close(Q, C, labels, t)
