"""MDAV-generic on records with missing cells (docs/methods.md §8.2).

The loop of MDAV-generic (Domingo-Ferrer & Torra 2005; ``mdav.py``, docs/methods.md §2.2) with two changes:
distances are partial distances over the attributes observed in both points, rescaled to all attributes
(Hathaway & Bezdek 2001; ``geometry.partial_distances``), and the centroid of the remaining records is, per
attribute, the mean of the records that observe it. Ties go to the lowest row index, as in ``mdav.py``. With
``mismatch`` > 0 every attribute observed in one point and missing in the other adds ``mismatch`` to the
distance, so that records missing the same attributes are grouped together (fewer cells to suppress for
k-anonymity, docs/methods.md §8.5). Used by the pipeline only when a masked cell is missing: complete data go
through the compiled engine of ``mdav.py`` unchanged. Vectorized numpy, O(n·d) per query, O(n²·d/k) in all,
O(n·d) memory.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register_data_kernel
from .geometry import partial_distances

PATTERN_PENALTY = 10.0  # the mismatch used when missing cells are released missing (docs/methods.md §8.5)


def mdav_missing(Z: np.ndarray, k: int, mismatch: float = 0.0) -> np.ndarray:
    """Group labels (0..m-1, every group of k..2k-1 records) of MDAV-generic on z-scores ``Z`` with NaN cells:
    while at least 3k records remain, a group around r (farthest from the centroid) and one around s (farthest
    from r), each with its k-1 nearest; with 2k..3k-1 left one more group around r and the rest; with k..2k-1
    left, one group. The centroid is a running sum per attribute (the records summed in row order, every
    group's members subtracted in ascending row order) over a running count of the records observing it."""
    Z = np.asarray(Z, dtype=np.float64)
    n = len(Z)
    observed = ~np.isnan(Z)
    Z0 = np.where(observed, Z, 0.0)
    labels = np.full(n, -1, dtype=np.int64)
    left = np.arange(n)
    total, count = Z0.sum(axis=0), observed.sum(axis=0)
    group = 0

    def distance(point):
        seen = ~np.isnan(point)
        return partial_distances(Z0, observed, left, np.where(seen, point, 0.0), seen, float(mismatch))

    def farthest(point):
        return left[int(np.argmax(distance(point)))]

    def take(r):
        nonlocal left, group
        dist = distance(Z[r])
        dist[left == r] = -1.0  # the seed is in its own group even when it shares no attribute with itself
        near = np.flatnonzero(dist <= np.partition(dist, k - 1)[k - 1])  # the k nearest and their ties, O(n)
        members = np.sort(left[near[np.argsort(dist[near], kind="stable")[:k]]])
        labels[members] = group
        group += 1
        left = left[labels[left] < 0]
        for i in members:
            total[:] -= Z0[i]
            count[:] -= observed[i]

    def centroid():
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    while len(left) >= 3 * k:
        r = farthest(centroid())
        take(r)
        take(farthest(Z[r]))
    if len(left) >= 2 * k:
        take(farthest(centroid()))
    labels[left] = group
    return labels


register_data_kernel(
    "partition", "mdav", "missing", lambda Z, k, cats, penalty: mdav_missing(Z, k, penalty),
    requires={"variant": "generic"}, engines=("memory",),
    about="records with missing cells in the masked columns (MDAV-generic groups them by distances over their "
          "observed cells, docs/methods.md §8.2)",
    otherwise="Or fill the cells yourself, or leave the columns with missing cells out of the masked ones.")
