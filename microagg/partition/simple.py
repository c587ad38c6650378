"""Simple microaggregation: the records cut into consecutive groups of k in the order given (sdcMicro's ``simple``,
Templ, Kowarik & Meindl 2015; docs/methods.md §2.19).

No sorting at all: the groups are rows 0..k-1, k..2k-1, ..., the last group taking the n mod k rest. sdcMicro offers
it as a benchmark, the answer to "how much does sorting the records before grouping them gain?". The partition
depends only on the row order, never on the values; the release shuffles its rows as any other.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register


def consecutive_groups(order: np.ndarray, k: int) -> np.ndarray:
    """Labels that cut the records in ``order`` (a permutation) into groups of k, numbered from the first; the last
    group takes the n mod k rest (sdcMicro's blocks, docs/methods.md §5, decision 9)."""
    n = len(order)
    labels = np.empty(n, np.int64)
    labels[order] = np.minimum(np.arange(n) // k, n // k - 1)
    return labels


@register("partition", "simple", bounded=True, title="Simple (unsorted)",
          summary="The records cut into consecutive groups of k in the order given, without sorting: sdcMicro's "
                  "benchmark for what sorting gains. k-anonymous, high information loss.",
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's method 'simple')")
def simple(Z, k: int) -> np.ndarray:
    """Labels 0..m-1 of consecutive rows: row i in group min(i // k, n // k - 1)."""
    return consecutive_groups(np.arange(len(Z)), k)
