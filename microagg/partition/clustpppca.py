"""Cluster-PP-PCA microaggregation: CLARA clusters, each sorted along its own projection-pursuit axis (Croux &
Ruiz-Gazen 2005), the sequence cut into groups of k (sdcMicro's ``clustpppca``, Templ, Kowarik & Meindl 2015;
docs/methods.md §2.23). The axis of a cluster is ``robust.pp_axis`` of its records, their scores measured from
its coordinatewise median (``robust.pp_scores``).
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .clusters import CLUSTERED, clustered_groups
from .robust import pp_scores


# quadratic: projection pursuit inside each cluster, about 25 times compiled MDAV's time (as for rmd)
@register("partition", "clustpppca", **CLUSTERED, quadratic=25.0, title="Clusters, then projection pursuit inside each",
          summary="CLARA clusters first; inside each cluster the records are sorted along the cluster's robust axis "
                  "found by projection pursuit; the sequence is cut into groups of k (k-anonymous).",
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's method 'clustpppca'); Croux & Ruiz-Gazen 2005; CLARA: "
                 "Kaufman & Rousseeuw 1990")
def clustpppca(Z, k: int, nc: int = 8, clara_seed: int = 0) -> np.ndarray:
    """Group labels 0..m-1 along the cluster-by-cluster projection-pursuit order of ``Z``."""
    return clustered_groups(Z, k, nc, clara_seed, lambda rows, medoid: pp_scores(Z[rows]))
