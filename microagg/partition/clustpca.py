"""Cluster-PCA microaggregation: CLARA clusters, each sorted along its own first principal component, the sequence
cut into groups of k (sdcMicro's ``clustpca``, Templ, Kowarik & Meindl 2015; docs/methods.md §2.23).

Inside a cluster the records are standardized by the cluster's own means and standard deviations (an attribute
constant in the cluster contributes 0) and projected on the first principal axis of the cluster's correlation
matrix (``univariate.principal_axis``, signed as R's ``princomp``), as sdcMicro projects ``scale(x[cluster, ])``.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .clusters import CLUSTERED, clustered_groups
from .univariate import principal_axis


def within_pca(Z: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``Z`` on the first principal component of their own z-scores."""
    sd = Z.std(axis=0)
    W = np.where(sd > 0, (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0), 0.0)
    return W @ principal_axis(W)


@register("partition", "clustpca", **CLUSTERED, title="Clusters, then PCA inside each",
          summary="CLARA clusters first; inside each cluster the records are sorted along the cluster's own first "
                  "principal component; the sequence is cut into groups of k (k-anonymous).",
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's method 'clustpca'); CLARA: Kaufman & Rousseeuw 1990")
def clustpca(Z, k: int, nc: int = 8, clara_seed: int = 0) -> np.ndarray:
    """Group labels 0..m-1 along the cluster-by-cluster PCA order of ``Z``."""
    return clustered_groups(Z, k, nc, clara_seed, lambda rows, medoid: within_pca(Z[rows]))
