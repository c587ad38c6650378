"""Cluster-MCD-PCA microaggregation: CLARA clusters, each sorted along the first principal axis of its own MCD
scatter (Rousseeuw & Van Driessen 1999), the sequence cut into groups of k (sdcMicro's ``clustmcdpca``, Templ,
Kowarik & Meindl 2015; docs/methods.md §2.23). The scores of a cluster are measured from its MCD centre
(``robust.mcd_scores``); ``clara_seed`` seeds CLARA's samples,
``mcd_seed`` the MCD's starts.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .clusters import CLARA_SEED, NC, clustered_groups
from .robust import MCD_SEED, mcd_scores


@register("partition", "clustmcdpca", bounded=True, params=(NC, CLARA_SEED, MCD_SEED),
          title="Clusters, then MCD-PCA inside each",
          summary="CLARA clusters first; inside each cluster the records are sorted along the first principal axis "
                  "of the cluster's minimum covariance determinant scatter; the sequence is cut into groups of k.",
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's method 'clustmcdpca'); Rousseeuw & Van Driessen 1999; "
                 "CLARA: Kaufman & Rousseeuw 1990")
def clustmcdpca(Z, k: int, nc: int = 8, clara_seed: int = 0, mcd_seed: int = 0) -> np.ndarray:
    """Group labels 0..m-1 along the cluster-by-cluster MCD-PCA order of ``Z``."""
    return clustered_groups(Z, k, nc, clara_seed, lambda rows, medoid: mcd_scores(Z[rows], mcd_seed))
