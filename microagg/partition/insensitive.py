"""Insensitive MDAV: groups cut from a total order of the records that the attribute bounds fix (Soria-Comas,
Domingo-Ferrer, Sánchez & Martínez 2014; docs/methods.md §7.1).

MDAV measures distances to the centroid of the records left, so replacing one record can reshuffle every group.
A partition is *insensitive* when replacing one record changes at most one member of each group; then each
group's centroid moves by at most range_j / |G| on attribute j, which is what the Laplace aggregation
(``microagg.aggregate.dp``) calibrates its noise to. Here the reference of MDAV's distances is a fixed point
derived from the bounds, the corner of the box of lower bounds: every record gets the key

    s(x) = Σ_j ((x_j − lower_j) / (upper_j − lower_j))²      (squared distance to the corner, in box units)

which depends on that record alone, the records are sorted by (s, row index) and cut into consecutive groups of
k from the corner outwards, the last group taking the n mod k rest (k..2k−1 records). Replacing one record moves
that record alone in the order, so each group loses at most one member and gains at most one.

``bounds=None`` uses the data's own box (each column's minimum and maximum): the partition is then k-anonymous
but no longer insensitive, and the Laplace aggregation refuses it (its bounds must be the partition's).
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from ..privacy.bounds import BOUNDS, SOURCE, check_bounds, insensitive_keys, ranked_blocks


@register("partition", "insensitive_mdav", title="Insensitive MDAV (for differential privacy)",
          summary="Records sorted by their distance to a corner fixed by the attribute bounds and cut into groups "
                  "of k: replacing one record changes at most one member of each group, so the Laplace aggregation "
                  "can make the release ε-differentially private.",
          source=SOURCE, params=(BOUNDS,), bounded=True, units="original", insensitive={})
def insensitive_mdav(X, k: int, bounds=None) -> np.ndarray:
    """Labels 0..m-1 from the corner outwards of the insensitive partition of ``X`` (original units; docs/methods.md
    §7.1)."""
    B = None if bounds is None else check_bounds(bounds, X.shape[1], "partition method 'insensitive_mdav'")
    return ranked_blocks(insensitive_keys(X, B), k)
