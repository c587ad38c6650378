"""Group statistics and the k-anonymity check of a release (docs/metrics.md §4.12-4.13)."""

from __future__ import annotations

import numpy as np

from ..base.labels import check_labels


def group_sizes(labels) -> np.ndarray:
    """Size of every group, indexed by group id."""
    lab = check_labels(labels, len(np.asarray(labels)))
    return np.bincount(lab)


def group_stats(labels, k: int | None = None) -> dict:
    """Number of groups and min / max / mean group size; with ``k``, groups larger than 2k-1."""
    return size_stats(group_sizes(labels), k)


def size_stats(sizes, k: int | None = None) -> dict:
    """:func:`group_stats` from the size of every group."""
    sizes = np.asarray(sizes)
    out = {"groups": int(sizes.size), "min_size": int(sizes.min()), "max_size": int(sizes.max()),
           "mean_size": float(sizes.mean())}
    if k is not None:
        out["oversized"] = int((sizes > 2 * k - 1).sum())
    return out


def k_anonymity(values, k: int) -> dict:
    """Equivalence classes of the released rows on the key columns ``values`` (exact equality).

    A missing cell (NaN) matches only a missing cell (docs/metrics.md §4.13): rows are in one class when they
    are equal on every observed cell and missing on the same columns.

    Returns the smallest class size, the number of classes, the number and share
    of records in classes smaller than ``k``, and whether the release is k-anonymous.
    """
    V = np.asarray(values)
    if V.ndim == 1:
        V = V[:, None]
    if V.dtype.kind == "f" and np.isnan(V).any():
        V = np.column_stack([np.where(np.isnan(V), 0.0, V), np.isnan(V)])
    _, counts = np.unique(V, axis=0, return_counts=True)
    small = counts < k
    at_risk = int(counts[small].sum())
    return {"k": int(k), "min_class": int(counts.min()), "classes": int(counts.size),
            "records_in_small_classes": at_risk, "share_in_small_classes": at_risk / V.shape[0],
            "k_anonymous": bool(not small.any())}
