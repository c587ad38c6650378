"""Group values of survey data: the mean and the median with sampling weights, over the observed members of a
group (docs/methods.md §8.3-8.4). Not registered: the pipeline uses them in place of ``basic.mean`` and
``basic.median`` when a release has sampling weights or missing cells, so complete unweighted data are
aggregated by ``basic.py`` unchanged."""

from __future__ import annotations

import numpy as np


def weighted_group_values(Z: np.ndarray, labels: np.ndarray, how: str, weights: np.ndarray | None = None
                          ) -> np.ndarray:
    """Every record's group value (n x d), per attribute over the group's members that observe it: the
    weighted mean Σ w z / Σ w, or the weighted median (``weighted_median_1d``); NaN where no member of the
    group observes the attribute. ``weights`` None means every weight 1; ``labels`` is one labelling (n,)."""
    Z = np.asarray(Z, dtype=np.float64)
    w = np.ones(len(Z)) if weights is None else np.asarray(weights, dtype=np.float64)
    one = weighted_mean_1d if how == "mean" else weighted_median_1d
    return np.column_stack([one(Z[:, t], labels, w) for t in range(Z.shape[1])]) if Z.shape[1] else Z.copy()


def relative_weights(w: np.ndarray, groups: np.ndarray, seen: np.ndarray, m: int) -> np.ndarray:
    """Every weight relative to its group's observed weights: 1 where they are all equal (the unweighted mean and
    median, bit for bit), else divided by the power of two of the group's largest (exact, so integer weights stay
    integers in its units and a group's ties stay ties). Then no sum over a group overflows or loses its smallest
    weights, whatever their magnitude (all 1e308, all 5e-324). A group's weighted mean and median depend only on the
    ratios of its weights, which this keeps."""
    top, low = np.zeros(m), np.full(m, np.inf)
    np.maximum.at(top, groups[seen], w[seen])
    np.minimum.at(low, groups[seen], w[seen])
    return np.where((low == top)[groups], 1.0, np.ldexp(w, -np.frexp(top)[1][groups]))


def weighted_mean_1d(x: np.ndarray, labels: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_{i∈g, observed} w_i x_i / Σ_{i∈g, observed} w_i for the group g of every record (NaN if none observed), on
    the weights relative to each group's largest (:func:`relative_weights`)."""
    seen = ~np.isnan(x)
    m = labels.max() + 1 if len(labels) else 0
    w = relative_weights(w, labels, seen, m)
    total = np.bincount(labels[seen], weights=w[seen], minlength=m)
    value = np.bincount(labels[seen], weights=(w * x)[seen], minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, value / np.where(total > 0, total, 1.0), np.nan)[labels]


def weighted_median_1d(x: np.ndarray, labels: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted median of every record's group over its observed members (docs/methods.md §8.4).

    Members sorted by value (equal values in row order), S_i the weight of the first i of them and W the group's
    total: the median is the first value with 2·S_i ≥ W; when 2·S_i = W exactly, the mean of that value and the
    next. With equal weights this is the ordinary median (the middle value, or the mean of the two middle
    values), as in ``basic.median`` (Kabir & Wang, §4). The weights are taken relative to each group's largest
    (:func:`relative_weights`), so that 2·S_i never overflows.
    """
    seen = np.flatnonzero(~np.isnan(x))
    m = labels.max() + 1 if len(labels) else 0
    out = np.full(m, np.nan)
    if len(seen) == 0:
        return out[labels]
    w = relative_weights(w, labels, ~np.isnan(x), m)
    order = seen[np.lexsort((seen, x[seen], labels[seen]))]
    g, xs, ws = labels[order], x[order], w[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    csum = np.cumsum(ws)
    before = np.repeat(np.r_[0.0, csum[starts[1:] - 1]], np.diff(np.r_[starts, len(g)]))
    S = csum - before  # weight of the members up to and including this one, in its group
    W = np.repeat(np.add.reduceat(ws, starts), np.diff(np.r_[starts, len(g)]))
    reached = np.flatnonzero(2.0 * S >= W)
    first = reached[np.unique(g[reached], return_index=True)[1]]
    balanced = 2.0 * S[first] == W[first]
    value = np.where(balanced, (xs[first] + xs[np.minimum(first + 1, len(xs) - 1)]) / 2.0, xs[first])
    out[g[first]] = value
    return out[labels]
