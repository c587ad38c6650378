"""Losses within the groups of a partition: ADM, the absolute deviation from the group medians (Kabir & Wang,
Eq. 1), and SSE_i, the diversity of the confidential attributes within a group (Abidi, Ben Yahia & Perera 2018,
Eq. 2).
"""

from __future__ import annotations

import numpy as np

from ..aggregate import mean, median
from ..base.checks import columns
from ..base.labels import check_labels
from ..base.rows import HIGHER, LOWER
from .registry import Metric, register
from .utility import sse_by_group


def adm(Z, labels, k: int | None = None) -> float:
    """ADM, the sum of absolute deviations from the group medians (Kabir & Wang, §5, Eq. 1), in the units of ``Z``.

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


@register(
    Metric("ADM", "Absolute deviation from the median", "utility", "z units", LOWER, "Kabir & Wang, §5, Eq. 1",
           "Sum of |x - group median| over cells: Kabir & Wang's distortion measure.", "docs/metrics.md §4.4",
           needs=("z-scores", "labels")),
    Metric("ADM / n", "ADM per record", "utility", "z units", LOWER, "Kabir & Wang, §5, Eq. 1", "ADM divided by n.",
           "docs/metrics.md §4.4", needs=("z-scores", "labels")),
)
def _adm(ctx) -> dict:
    a = adm(ctx.Z, ctx.labels)
    return {"ADM": a, "ADM / n": a / ctx.n}


_SSE_I = "Abidi, Ben Yahia & Perera 2018, Eq. 2"


@register(
    Metric("SSE_i min", "Smallest group diversity SSE_i", "utility", "z units²", HIGHER, _SSE_I,
           "Least spread of the confidential attributes within a group (attribute-disclosure protection).",
           "docs/metrics.md §4.11", ("confidential",), ("z-scores", "one labelling")),
    Metric("SSE_i mean", "Mean group diversity SSE_i", "utility", "z units²", HIGHER, _SSE_I,
           "Mean over groups of the spread of the confidential attributes.", "docs/metrics.md §4.11",
           ("confidential",), ("z-scores", "one labelling")),
)
def _sse_i(ctx) -> dict:
    """On the confidential columns released unchanged (``ctx.Zc``) if any, else on ``confidential``."""
    div = sse_i(ctx.Z, ctx.labels, ctx.params["confidential"], names=ctx.names) if ctx.Zc is None else \
        sse_i(ctx.Zc, ctx.labels)
    return {"SSE_i min": float(div.min()), "SSE_i mean": float(div.mean())}
