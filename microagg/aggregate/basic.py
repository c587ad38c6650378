"""Mean (Mortazavi & Jalili 2017; Chettri, Paul & Dutta; Oommen & Fayyoumi 2010) and median (Kabir & Wang, §4)
aggregation.

``labels`` may be one labelling (n,) applied to all attributes, or one labelling
per attribute (n, d), as univariate methods produce. Both are checked once by the registry
(``registry.aggregate_input``) before the functions below run.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register


def per_column(Z, lab, one):
    out = np.empty_like(Z)
    for t in range(Z.shape[1]):
        out[:, t] = one(Z[:, t], lab[:, t] if lab.ndim == 2 else lab)
    return out


def mean_1d(x, lab):
    counts = np.bincount(lab)
    return (np.bincount(lab, weights=x) / counts)[lab]


def median_1d(x, lab):
    order = np.lexsort((x, lab))
    counts = np.bincount(lab)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    xs = x[order]
    med = (xs[starts + (counts - 1) // 2] + xs[starts + counts // 2]) / 2.0
    return med[lab]


@register("aggregate", "mean", title="Mean", source="Mortazavi & Jalili 2017, §2.1; Chettri, Paul & Dutta, §2.1",
          group_local=True,
          summary="Replace every record by its group's mean vector (minimizes SSE for a fixed partition).")
def mean(Z, labels) -> np.ndarray:
    """Every record replaced by its group centroid C_j (Mortazavi & Jalili 2017, §2.1)."""
    return per_column(Z, labels, mean_1d)


@register("aggregate", "median", title="Median", source="Kabir & Wang, §4; ADM §5, Eq. 1", group_local=True,
          member_values=True,
          summary="Replace every record by its group's component-wise median (robust to outliers; with an odd "
                  "group size it publishes a member's exact value on every attribute).")
def median(Z, labels) -> np.ndarray:
    """Every record replaced by its group's component-wise median (Kabir & Wang, §4).

    Even group sizes take the average of the two middle values, the reading that
    Kabir & Wang's worked example requires (medians 45.5, 5.5, 25.5; 12 untied pairs). Odd group
    sizes release the middle member's exact value on every attribute (35 % of the cells of Census
    with MDAV at k = 3; docs/methods.md §3.2).
    """
    return per_column(Z, labels, median_1d)
