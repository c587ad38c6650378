"""Information loss on records: SSE, SST, IL, IL1s, ADM and the per-group SSE_i.

SSE / SST / IL: Mortazavi & Jalili 2017, Eq. 1-2, Chettri, Paul & Dutta, Eq. 1-4. IL1s: Abidi, Ben Yahia & Perera
2018, Eq. 1. ADM: Kabir & Wang, Eq. 1.
SSE_i: Abidi, Ben Yahia & Perera 2018, Eq. 2. Statistics-based losses live in ``probabilistic.py`` (PIL) and
``gil.py`` (G_IL).
"""

from __future__ import annotations

import numpy as np

from ..aggregate import mean, median
from ..checks import columns
from ..errors import MicroaggError
from ..labels import check_labels
from ._arrays import pair


def sse_by_attribute(Z, Zp) -> np.ndarray:
    """SSE_t = sum_i (z_i[t] - z'_i[t])^2 per attribute (Mortazavi & Jalili 2017, Eq. 1)."""
    Z, Zp = pair(Z, Zp)
    return ((Z - Zp) ** 2).sum(axis=0)


def sse(Z, Zp) -> float:
    """Sum of squared errors between original and masked data (Mortazavi & Jalili 2017, Eq. 1)."""
    return float(sse_by_attribute(Z, Zp).sum())


def sse_by_group(Z, Zp, labels, k: int | None = None) -> np.ndarray:
    """SSE of every group, sum_{i in G_j} ||z_i - z'_i||^2, indexed by group id 0..m-1 (Mortazavi & Jalili 2017, Eq. 1).

    With ``k``, every group must have at least k records.
    """
    Z, Zp = pair(Z, Zp)
    lab = check_labels(labels, Z.shape[0], k)
    return np.bincount(lab, weights=((Z - Zp) ** 2).sum(axis=1))


def sst(Z) -> float:
    """Total sum of squares around the attribute means (Mortazavi & Jalili 2017, Eq. 2: n d for z-scores)."""
    Z = np.asarray(Z, dtype=np.float64)
    return float(((Z - Z.mean(axis=0)) ** 2).sum())


def information_loss(Z, Zp) -> float:
    """IL = 100 SSE / SST in percent (Chettri, Paul & Dutta, Eq. 4), on standardized data."""
    Z, Zp = pair(Z, Zp)
    total = sst(Z)
    if total <= 0:
        raise MicroaggError("information loss is undefined: every record is identical (SST = 0).")
    return 100.0 * sse(Z, Zp) / total


def partition_information_loss(Z, labels) -> float:
    """IL of a partition: the SSE of its group means (Chettri, Paul & Dutta, Eq. 1, 4), whatever the release
    aggregator.
    """
    return information_loss(Z, mean(Z, labels))


def il1s(X, Xp) -> float:
    """IL1s in % (Abidi, Ben Yahia & Perera 2018, Eq. 1; Yancey, Winkler & Creecy 2002), 100/(n d) sum |x - x'| /
    (sqrt(2) S_t).

    S_t is the sample sd (n - 1) of original attribute t, so any per-attribute units give the same
    value. Abidi, Ben Yahia & Perera 2018 prints the sum over records without 1/n; its tables are the per-record
    average, which is what is computed here [docs/metrics.md §4.2]. Constant attributes are skipped and d counts the
    others. (sdcMicro's ``dUtility`` multiplies by sqrt(2) instead: twice this value.)
    """
    X, Xp = pair(X, Xp)
    if X.shape[0] < 2:
        raise MicroaggError("IL1s needs at least 2 records (it divides by the sample sd).")
    S = X.std(axis=0, ddof=1)
    varying = S > 0
    if not varying.any():
        raise MicroaggError("IL1s is undefined: every original attribute is constant.")
    dev = np.abs(X - Xp)[:, varying] / (np.sqrt(2.0) * S[varying])
    return 100.0 * float(dev.mean())


def adm(Z, labels, k: int | None = None) -> float:
    """ADM, the sum of absolute deviations from the group medians (Kabir & Wang, Eq. 1), in the units of ``Z``.

    Group medians as in median aggregation (the average of the two middle values for even sizes).
    ``labels`` may be (n,) or one labelling per attribute (n, d).

    Kabir & Wang (Eq. 6) claims ADM <= SSE (SSE of the same partition around the group means). It holds
    when every deviation from a group mean is 0 or at least 1 in absolute value: then
    sum |x - median| <= sum |x - mean| (Kabir & Wang, Theorem 2, true) <= sum (x - mean)^2. It fails when
    deviations are below 1, the usual case on z-scores: {0, 0.2, 0.4} gives ADM = 0.4 > SSE = 0.08
    (docs/metrics.md §4.4). ADM is linear and SSE squared in the units, so the comparison says nothing about
    which loses less information.
    """
    Z = np.asarray(Z, dtype=np.float64)
    Z = Z[:, None] if Z.ndim == 1 else Z
    medians = median(Z, labels)
    if k is not None:
        check_labels(labels, Z.shape[0], k, d=Z.shape[1])
    return float(np.abs(Z - medians).sum())


def sse_i(Z, labels, confidential=None, k: int | None = None, names=None) -> np.ndarray:
    """SSE_i per group (Abidi, Ben Yahia & Perera 2018, Eq. 2): sum_{j in G_i} sum_{p in S} (x_j[p] - c_i[p])^2,
    higher = more diverse.

    ``confidential`` lists the confidential attributes S, by position or (with ``names``) by name;
    default all. The centroid c_i is per attribute [decision, docs/metrics.md §4.11; Abidi, Ben Yahia & Perera 2018
    prints a scalar centroid mixing attributes]. Returns one value per group id 0..m-1; Abidi, Ben Yahia & Perera
    2018, Tables 10/12 report the minimum.
    """
    Z = np.asarray(Z, dtype=np.float64)
    Z = Z[:, None] if Z.ndim == 1 else Z
    lab = check_labels(labels, Z.shape[0], k)
    if confidential is not None:
        Z = Z[:, columns(confidential, Z.shape[1], names, "confidential")]
    return sse_by_group(Z, mean(Z, lab), lab)
