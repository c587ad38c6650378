"""The labels contract between the stages: a partition is one group id per record (or per record and
attribute), checked and renumbered here for the aggregators, the metrics and the release."""

from __future__ import annotations

import numpy as np

from .errors import MicroaggError

GIVEN = "given labels"  # the method a release records when its partition was given (``labels=`` without a method)


def check_labels(labels, n: int, k: int | None = None, d: int | None = None) -> np.ndarray:
    """Labels as consecutive group ids 0..m-1: shape (n,) or, if ``d`` is given, (n, d).

    Any integer ids are accepted and renumbered in increasing order of their value;
    with ``k``, every group must have at least ``k`` records.
    """
    lab = np.asarray(labels)
    if lab.ndim == 2 and d is not None and lab.shape == (n, d):
        return np.column_stack([check_labels(lab[:, t], n, k) for t in range(d)])
    if lab.ndim != 1 or lab.shape[0] != n:
        raise MicroaggError(f"labels must have one entry per record (shape ({n},)); got shape {lab.shape}.")
    if n and not np.issubdtype(lab.dtype, np.integer):
        if not (np.issubdtype(lab.dtype, np.floating) and np.all(np.isfinite(lab)) and np.all(lab == np.round(lab))):
            raise MicroaggError(f"labels must be integers; got dtype {lab.dtype}.")
    _, inverse, counts = np.unique(lab, return_inverse=True, return_counts=True)
    if k is not None and counts.size and counts.min() < k:
        small = int((counts < k).sum())
        raise MicroaggError(f"labels: {small} group(s) have fewer than k = {k} records "
                            f"(smallest: {counts.min()}); a k-anonymous partition is required.")
    return inverse.astype(np.int64).reshape(n)


def pooled_labels(labels: np.ndarray) -> np.ndarray:
    """One label per group: (n,) labels as they are; n x d per-attribute labels as one id per (attribute, group)."""
    if labels.ndim == 1:
        return labels
    offsets = np.concatenate([[0], np.cumsum(labels.max(axis=0) + 1)[:-1]])
    return (labels + offsets).ravel()
