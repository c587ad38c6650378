"""Optimal univariate microaggregation (Hansen & Mukherjee 2003, cited by Abidi, Ben Yahia & Perera 2018;
docs/methods.md §2.11).

For one variable the SSE-optimal k-partition consists of groups of k..2k-1
*consecutive* values in sorted order, so it is a shortest path 0 -> n in the DAG
whose edges (i, j), k <= j - i <= 2k-1, cost the SSE of the sorted values i+1..j:

    F(0) = 0,   F(j) = min_{max(0, j-2k+1) <= i <= j-k} F(i) + W(i, j),
    W(i, j) = sum x^2 - (sum x)^2 / (j - i)   over the block (prefix sums of the
              values centred by their mean, to limit cancellation)

O(n k d) time, O(n d) memory (d = 1 here; the same program partitions a path of
d-dimensional records, docs/methods.md §2.16). Ties: values are sorted by (value, row index); among
equal-cost predecessors the smallest i wins (strict < in increasing i, no
tolerance). Used as ``grouping="optimal"`` by individual ranking (each attribute)
and by the single-axis projections (``univariate.py``).
"""

from __future__ import annotations

import numpy as np

from ..base.checks import as_matrix, check_finite, check_k, check_size
from ..base.errors import MicroaggError
from ..privacy.bounds import ranked_blocks
from .kernels import kernel
from .numpy_engine import row_sums


@kernel(cache=True, nogil=True)
def hm_breaks(xs, k):
    """Start of every group of the optimal partition of the records ``xs`` (n x d, n >= k) into groups of k..2k-1
    consecutive records: the sorted values of one variable (d = 1), or records in the order of a path (MHM,
    ``mhm.py``), a block costing the sum over the attributes of its SSE."""
    n, d = xs.shape
    m = np.zeros(d)
    for i in range(n):
        m += xs[i]
    m /= n
    p1 = np.zeros((n + 1, d))
    p2 = np.zeros(n + 1)
    for i in range(n):
        q = 0.0
        for t in range(d):
            v = xs[i, t] - m[t]
            p1[i + 1, t] = p1[i, t] + v
            q += v * v
        p2[i + 1] = p2[i] + q
    f = np.full(n + 1, np.inf)
    pred = np.full(n + 1, -1, np.int64)
    f[0] = 0.0
    for j in range(k, n + 1):
        for i in range(max(0, j - 2 * k + 1), j - k + 1):
            if f[i] == np.inf:
                continue
            s2 = 0.0
            for t in range(d):
                s1 = p1[j, t] - p1[i, t]
                s2 += s1 * s1
            c = f[i] + (p2[j] - p2[i]) - s2 / (j - i)
            if c < f[j]:
                f[j] = c
                pred[j] = i
    count = 0
    j = n
    while j > 0:
        j = pred[j]
        count += 1
    starts = np.empty(count, np.int64)
    j = n
    while j > 0:
        j = pred[j]
        count -= 1
        starts[count] = j
    return starts


@hm_breaks.numpy
def _hm_breaks_numpy(xs, k):
    """``hm_breaks`` vectorized: the costs of k consecutive end points at a time (their predecessors all lie before
    the first of them), with the same arithmetic (prefix sums added record by record, squares summed attribute by
    attribute) and the same choice (the smallest predecessor of least cost)."""
    n, d = xs.shape
    v = xs - row_sums(xs) / n
    p1 = np.zeros((n + 1, d))
    np.cumsum(v, axis=0, out=p1[1:])
    p2 = np.zeros(n + 1)
    np.cumsum(row_sums(np.ascontiguousarray((v * v).T)), out=p2[1:])
    f = np.full(n + 1, np.inf)
    pred = np.full(n + 1, -1, np.int64)
    f[0] = 0.0
    for j0 in range(k, n + 1, k):
        j = np.arange(j0, min(j0 + k, n + 1))[:, None]
        i = j + np.arange(1 - 2 * k, 1 - k)  # each row: the candidates j-2k+1..j-k, ascending
        ok = i >= 0
        i = np.where(ok, i, 0)
        s1 = p1[j] - p1[i]  # (ends, candidates, d)
        s2 = row_sums(np.ascontiguousarray(np.moveaxis(s1 * s1, 2, 0)).reshape(d, -1)).reshape(i.shape)
        c = f[i] + (p2[j] - p2[i]) - s2 / (j - i)
        c[~ok | (f[i] == np.inf) | np.isnan(c)] = np.inf
        best = np.argmin(c, axis=1)  # first minimum: the smallest candidate
        cost = c[np.arange(len(c)), best]
        found = cost < np.inf
        f[j[:, 0]] = cost
        pred[j[found, 0]] = i[found, best[found]]
    starts = [n]
    while starts[-1] > 0:
        starts.append(pred[starts[-1]])
    return np.array(starts[-1:0:-1], np.int64)


def sorted_groups(x: np.ndarray, k: int, grouping: str) -> np.ndarray:
    """Labels of consecutive groups of the values ``x`` sorted by (value, row index), numbered from the smallest.

    ``grouping="fixed"``: blocks of k, the last block absorbing the n mod k rest
    (sdcMicro's convention); ``"optimal"``: the Hansen-Mukherjee optimum.
    """
    if grouping == "fixed":
        return ranked_blocks(x, k)
    n = x.shape[0]
    order = np.argsort(x, kind="stable")
    if grouping == "fixed":
        block = np.minimum(np.arange(n) // k, n // k - 1)
    else:
        block = np.zeros(n, np.int64)
        block[hm_breaks(x[order].reshape(-1, 1), k)[1:]] = 1
        block = np.cumsum(block)
    labels = np.empty(n, np.int64)
    labels[order] = block
    return labels


def optimal_univariate(x, k: int) -> np.ndarray:
    """Labels 0..m-1 (from the smallest values) of the SSE-optimal k-partition of the 1-D values ``x``."""
    k = check_k(k)
    x = as_matrix(x, "x")
    if x.shape[1] != 1:
        raise MicroaggError(f"x must be 1-D (one value per record); got shape {x.shape}. "
                            "For several attributes use individual_ranking or projection.")
    check_finite(x, names=["x"], what="argument")
    check_size(x.shape[0], k, "x")
    return sorted_groups(x[:, 0], k, "optimal")
