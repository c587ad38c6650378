"""Group values of categorical quasi-identifiers (Domingo-Ferrer & Torra 2005; docs/methods.md §3.4).

Not registered aggregations: a categorical column has one group value by kind, whatever aggregation the
continuous columns get. Both return, for every record, the code of a category held by a member of its group, so a
released category is never invented.

* ``ordinal_median``: the lower median of the positions (with an even group, the lower of the two middle
  categories; docs/methods.md §5, decision 33);
* ``nominal_mode``: the most frequent category; among tied ones, the category of the group's lowest-indexed member
  holding one of them (docs/methods.md §5, decision 34).

A code of -1 (an unknown category, ``missing_categories="impute"``, docs/methods.md §8.8) is no category: both take
the members that have one, and give -1 to a group none of whose members has.
"""

from __future__ import annotations

import numpy as np


def ordinal_median(P: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The lower median of the positions ``P`` (n x d integers) in every group of ``labels``, for every record."""
    out = np.empty_like(P)
    sizes = np.bincount(labels)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for t in range(P.shape[1]):
        order = np.lexsort((P[:, t], labels))  # by group, then position: the unknown (-1) first
        known = np.bincount(labels, weights=P[:, t] >= 0, minlength=len(sizes)).astype(np.int64)
        at = starts + sizes - known + np.maximum(known - 1, 0) // 2
        median = np.where(known > 0, P[order, t][np.minimum(at, len(order) - 1)], -1)
        out[:, t] = median[labels]
    return out


def nominal_mode(N: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The mode of the codes ``N`` (n x d integers) in every group of ``labels`` (ties: the category of the
    lowest-indexed member among those holding a tied category), for every record."""
    out = np.empty_like(N)
    rows = np.arange(len(labels))
    for t in range(N.shape[1]):
        order = np.lexsort((rows, N[:, t], labels))  # runs of (group, category), rows ascending in each
        order = order[N[order, t] >= 0]
        if not len(order):
            out[:, t] = -1
            continue
        g, c = labels[order], N[order, t]
        first = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (c[1:] != c[:-1])])
        count = np.diff(np.r_[first, len(order)])
        lead = order[first]  # lowest row holding the category in the group
        best = np.lexsort((lead, -count, g[first]))  # per group: most frequent, then lowest row
        run_group = g[first][best]
        keep = best[np.r_[True, run_group[1:] != run_group[:-1]]]
        mode = np.full(labels.max() + 1, -1, dtype=N.dtype)
        mode[g[first][keep]] = c[first][keep]
        out[:, t] = mode[labels]
    return out
