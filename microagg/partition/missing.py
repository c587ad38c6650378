"""MDAV-generic on records with missing cells (docs/methods.md §7.2).

The loop of MDAV-generic (Domingo-Ferrer & Torra 2005; ``mdav.py``, docs/methods.md §2.2) with two changes:
distances are partial distances over the attributes observed in both points, rescaled to all attributes
(Hathaway & Bezdek 2001; ``preprocess.partial_sqdist``), and the centroid of the remaining records is, per
attribute, the mean of the records that observe it. Ties go to the lowest row index, as in ``mdav.py``. With
``mismatch`` > 0 every attribute observed in one point and missing in the other adds ``mismatch`` to the
distance, so that records missing the same attributes are grouped together (fewer cells to suppress for
k-anonymity, docs/methods.md §7.5). Used by the pipeline only when a masked cell is missing: complete data go
through the compiled engine of ``mdav.py`` unchanged. Vectorized numpy, O(n·d) per query, O(n²·d/k) in all,
O(n·d) memory.
"""

from __future__ import annotations

import numpy as np

from ..preprocess import partial_sqdist

PATTERN_PENALTY = 10.0  # the mismatch used when missing cells are released missing (docs/methods.md §7.5)


def mdav_missing(Z: np.ndarray, k: int, mismatch: float = 0.0) -> np.ndarray:
    """Group labels (0..m-1, every group of k..2k-1 records) of MDAV-generic on z-scores ``Z`` with NaN cells:
    while at least 3k records remain, a group around r (farthest from the centroid) and one around s (farthest
    from r), each with its k-1 nearest; with 2k..3k-1 left one more group around r and the rest; with k..2k-1
    left, one group."""
    Z = np.asarray(Z, dtype=np.float64)
    n = len(Z)
    observed = ~np.isnan(Z)
    Z0 = np.where(observed, Z, 0.0)
    obs = observed.astype(np.float64)
    labels = np.full(n, -1, dtype=np.int64)
    left = np.arange(n)
    group = 0

    def distance(point):
        dist = partial_sqdist(Z0[left], obs[left], point)
        return dist + mismatch * (observed[left] != ~np.isnan(point)).sum(axis=1) if mismatch else dist

    def farthest(point):
        return left[int(np.argmax(distance(point)))]

    def take(r):
        nonlocal left, group
        dist = distance(Z[r])
        dist[left == r] = -1.0  # the seed is in its own group even when it shares no attribute with itself
        members = left[np.argsort(dist, kind="stable")[:k]]
        labels[members] = group
        group += 1
        left = left[labels[left] < 0]

    def centroid():
        counts = obs[left].sum(axis=0)
        return np.where(counts > 0, Z0[left].sum(axis=0) / np.maximum(counts, 1), np.nan)

    while len(left) >= 3 * k:
        r = farthest(centroid())
        take(r)
        take(farthest(Z[r]))
    if len(left) >= 2 * k:
        take(farthest(centroid()))
    labels[left] = group
    return labels
