"""Information loss on categorical quasi-identifiers (docs/metrics.md §4.25).

Distances in z-scores mean nothing for categories, so the numeric metrics see the continuous quasi-identifiers only;
these two see the ordinal and nominal ones (Domingo-Ferrer & Torra 2005 mask them by median and mode):

* **changed categories**: the share of records whose released category differs from their own, per column and over
  all categorical cells;
* **ordinal shift**: the mean distance between a record's category and the released one, in positions of the order
  divided by the number of steps of the scale (C − 1), per ordinal column and over all ordinal cells.

Both are over the cells whose original category is known: an unknown one (code -1, ``missing_categories="impute"``,
docs/methods.md §8.8) has no category to change.
"""

from __future__ import annotations

import numpy as np

from ..base.rows import LOWER
from ..data.categories import ORDINAL
from .registry import Metric, register


def _known_mean(values: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Per column, the mean of ``values`` over the records whose original code in ``C`` is known (>= 0)."""
    known = C >= 0
    return np.where(known, values, 0).sum(axis=0) / np.maximum(known.sum(axis=0), 1)


def changed_categories(C: np.ndarray, Cp: np.ndarray) -> np.ndarray:
    """Percentage of records whose category changed, per column of the n x c codes ``C`` (original), ``Cp``."""
    C, Cp = np.asarray(C), np.asarray(Cp)
    return 100.0 * _known_mean(C != Cp, C)


def ordinal_shift(P: np.ndarray, Pp: np.ndarray, sizes) -> np.ndarray:
    """Mean |p − p'| / (C − 1) per ordinal column, in % of the scale (positions ``P``, ``Pp``; C = ``sizes``)."""
    steps = np.maximum(np.asarray(sizes, dtype=np.float64) - 1, 1)
    P, Pp = np.asarray(P), np.asarray(Pp)
    return 100.0 * _known_mean(np.abs(P - Pp), P) / steps


@register(Metric("changed categories", "Changed categories", "utility", "% of records", LOWER,
                 "Domingo-Ferrer & Torra 2005 (median and mode masking); docs/metrics.md §4.25",
                 "Share of records whose released category of an ordinal or nominal quasi-identifier differs from "
                 "their own.", "docs/metrics.md §4.25", needs=("categories",), per_attribute=True),
          Metric("ordinal shift", "Ordinal shift", "utility", "% of the scale", LOWER,
                 "Domingo-Ferrer & Torra 2005 (rank distance); docs/metrics.md §4.25",
                 "Mean distance between a record's ordinal category and the released one, in steps of the order "
                 "over the number of steps.", "docs/metrics.md §4.25", needs=("categories",), per_attribute=True))
def _categorical(ctx) -> dict:
    return category_metrics(ctx.categories)


def category_metrics(categories: tuple) -> dict:
    """{metric: (value over all cells, {column: value})} of changed categories and, with an ordinal column, ordinal
    shift, for ``categories`` = (names, kinds, original codes, released codes, number of categories)."""
    names, kinds, C, Cp, sizes = categories
    changed = changed_categories(C, Cp)
    out = {"changed categories": (float(changed.mean()), dict(zip(names, changed)))}
    ordinal = [j for j, kind in enumerate(kinds) if kind == ORDINAL]
    if ordinal:
        shift = ordinal_shift(C[:, ordinal], Cp[:, ordinal], [sizes[j] for j in ordinal])
        out["ordinal shift"] = (float(shift.mean()), dict(zip([names[j] for j in ordinal], shift)))
    return out


def category_rows(categories: tuple) -> list[tuple]:
    """(metric, attribute, value, unit, direction, source) rows of ``category_metrics``: over all columns, then
    per column; for reports that cannot run ``evaluate`` (a release with missing numeric cells)."""
    units = {"changed categories": "% of records", "ordinal shift": "% of the scale"}
    return [(name, attribute, value, units[name], LOWER, "docs/metrics.md §4.25")
            for name, (total, per) in category_metrics(categories).items()
            for attribute, value in [("all", total), *per.items()]]
