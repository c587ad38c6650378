"""Trimmed-mean aggregation: every group's mean after dropping its ⌊g·trim⌋ smallest and largest values per attribute
(sdcMicro's ``measure = "trim"``, Templ, Kowarik & Meindl 2015; docs/methods.md §3.5).

A group of g records keeps, on every attribute, its values of rank ⌊g·trim⌋ + 1 to g − ⌊g·trim⌋ (ties in row order)
and publishes their mean; ``trim = 0.5`` publishes the median (``basic.median``), as R's ``mean(x, trim)`` does.
Trimming removes nothing until g·trim reaches 1: with groups of 3 a trim below 1/3 is the plain mean, from 1/3 on
the median. Where one value is kept (an odd group trimmed to its middle) a member's exact value is published.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import Param, register
from .basic import median_1d, per_column


def trimmed_mean_1d(x: np.ndarray, lab: np.ndarray, trim: float) -> np.ndarray:
    """Every record's group trimmed mean of ``x`` (module docstring)."""
    if trim >= 0.5:
        return median_1d(x, lab)
    order = np.lexsort((x, lab))
    counts = np.bincount(lab)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    g = lab[order]
    rank = np.arange(len(x)) - starts[g]
    cut = np.floor(counts * trim).astype(np.int64)[g]
    kept = (rank >= cut) & (rank < counts[g] - cut)
    total = np.bincount(g[kept], weights=x[order][kept], minlength=len(counts))
    return (total / np.bincount(g[kept], minlength=len(counts)))[lab]


@register("aggregate", "trim", title="Trimmed mean", group_local=True, member_values=True,
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's measure 'trim')",
          summary="Replace every record by its group's trimmed mean: per attribute, the mean of the group's values "
                  "after dropping the ⌊g·trim⌋ smallest and largest (robust to one outlier in a group of 4 or more).",
          params=(Param("trim", "float", 0.2, "share of each group's values dropped at each end before the mean "
                        "(⌊g·trim⌋ values; 0: the mean, 0.5: the median)", source="docs/methods.md §3.5", low=0.0,
                        high=0.5, label="trimmed share", unit="per end"),))
def trim(Z, labels, trim: float = 0.2) -> np.ndarray:
    """Every record replaced by its group's trimmed mean on every attribute."""
    return per_column(Z, labels, lambda x, lab: trimmed_mean_1d(x, lab, trim))
