"""Information loss on records: SSE, SST, IL, the IL of the partition and IL1s.

SSE / SST / IL: Mortazavi & Jalili 2017, Eq. 1-2, Chettri, Paul & Dutta, Eq. 1-4. IL1s: Abidi, Ben Yahia & Perera
2018, Eq. 1. Statistics-based losses live in ``probabilistic.py`` (PIL) and ``gil.py`` (G_IL), losses within
the groups in ``groups.py`` (ADM, SSE_i).
"""

from __future__ import annotations

import numpy as np

from ..aggregate import mean
from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..base.rows import LOWER, NEUTRAL
from ._arrays import pair
from .registry import Metric, register

_IL = "docs/metrics.md §4.1"


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
    others. (sdcMicro's ``dUtility(method = "IL1s")`` is the sum over cells, 100/(n d) times smaller than this
    value; before sdcMicro 5.2.0 its "IL1" multiplied by sqrt(2): twice this value over 100.)
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


@register(
    Metric("IL", "Information loss", "utility", "%", LOWER, "Chettri, Paul & Dutta, Eq. 4; Mortazavi & Jalili 2017, "
           "Eq. 1-2", "100·SSE/SST on z-scores: the share of the total variance the masking removed.", _IL),
    Metric("SSE", "Sum of squared errors", "utility", "z units²", LOWER, "Mortazavi & Jalili 2017, Eq. 1",
           "Squared distance between original and masked values, in total and per attribute.", _IL,
           per_attribute=True),
    Metric("SST", "Total sum of squares", "utility", "z units²", NEUTRAL, "Mortazavi & Jalili 2017, Eq. 2",
           "Squared distance of the original values from their means (n·d for z-scores): IL's denominator.", _IL),
)
def _sums(ctx) -> dict:
    by_attribute, total = sse_by_attribute(ctx.Z, ctx.Zp), sst(ctx.Z)
    return {"IL": float("nan") if total == 0 else information_loss(ctx.Z, ctx.Zp),
            "SSE": (float(by_attribute.sum()), by_attribute), "SST": total}


@register(Metric("partition IL", "Information loss of the partition", "utility", "%", LOWER,
                 "Chettri, Paul & Dutta, Eq. 1-4",
                 "IL if every record were replaced by its group mean: the loss due to the grouping alone.", _IL,
                 needs=("z-scores", "labels")))
def _partition_il(ctx) -> dict:
    return {"partition IL": float("nan") if ctx.constant else partition_information_loss(ctx.Z, ctx.labels)}


@register(Metric("IL1s", "Mean absolute deviation IL1s", "utility", "%", LOWER,
                 "Abidi, Ben Yahia & Perera 2018, Eq. 1 (Yancey et al. 2002)",
                 "Mean over cells of |x - x'| / (√2 S_t), S_t the sample sd: the IL of Abidi, Ben Yahia & Perera "
                 "2018.", "docs/metrics.md §4.2", needs=("original units",)))
def _il1s(ctx) -> dict:
    return {"IL1s": float("nan") if ctx.constant else il1s(ctx.X, ctx.Xp)}
