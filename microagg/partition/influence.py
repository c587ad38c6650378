"""Influence microaggregation: CLARA clusters, each sorted by its most influential attribute, the sequence cut into
groups of k (sdcMicro's ``influence``, Templ, Kowarik & Meindl 2015; docs/methods.md §2.23).

The most influential attribute of a cluster is the one on which its medoid is largest (the first among equal
ones): on z-scores, the attribute on which the cluster stands farthest above the whole data set's mean.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .clusters import CLUSTERED, clustered_groups


@register("partition", "influence", **CLUSTERED, title="Clusters, then the most influential attribute",
          summary="CLARA clusters first; inside each cluster the records are sorted by the attribute on which the "
                  "cluster's medoid is largest; the sequence is cut into groups of k (k-anonymous).",
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's method 'influence'); CLARA: Kaufman & Rousseeuw 1990")
def influence(Z, k: int, nc: int = 8, clara_seed: int = 0) -> np.ndarray:
    """Group labels 0..m-1 along the cluster-by-cluster order of ``Z`` by each cluster's largest medoid attribute."""
    return clustered_groups(Z, k, nc, clara_seed, lambda rows, medoid: Z[rows, np.argmax(Z[medoid])], projected=False)
