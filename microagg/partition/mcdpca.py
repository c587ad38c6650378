"""MCD-PCA microaggregation: the records sorted along the first principal axis of their minimum covariance
determinant scatter (Rousseeuw & Van Driessen 1999) and cut into consecutive groups (sdcMicro's ``mcdpca``, Templ,
Kowarik & Meindl 2015; docs/methods.md §2.21).

The axis is the eigenvector of the largest eigenvalue of the reweighted MCD scatter matrix (``robust.mcd``):
the principal component of the majority of the records, which outliers cannot turn. Scores s_i = (z_i − c) · u
with c the MCD centre, sorted by (score, row index); grouping as in ``projection``. The MCD's random starts come
from ``mcd_seed``: the same data and seed give the same groups.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .optimal import sorted_groups
from .robust import MCD_SEED, mcd_scores
from .univariate import GROUPING


@register("partition", "mcdpca", bounded=True, title="Robust PCA projection (MCD)",
          summary="Records sorted along the first principal axis of the minimum covariance determinant scatter and "
                  "cut into consecutive groups; k-anonymous, the axis of the majority of the records.",
          source="Rousseeuw & Van Driessen 1999; Templ, Kowarik & Meindl 2015 (sdcMicro's method 'mcdpca')",
          params=(MCD_SEED, GROUPING))
def mcdpca(Z, k: int, mcd_seed: int = 0, grouping: str = "fixed") -> np.ndarray:
    """Group labels 0..m-1 (from the lowest score) along the first MCD principal axis of ``Z``."""
    return sorted_groups(mcd_scores(Z, mcd_seed), k, grouping)
