"""The attribute bounds of the differentially private methods: one parameter, one validator, and the orders they fix
(docs/methods.md §7), shared by insensitive MDAV (``partition/insensitive.py``) and the Laplace
aggregation (``aggregate/dp.py``), which checks that its labels are the insensitive partition of the same bounds.

The bounds are the domain of every masked column, given by the user from knowledge of the domain: never read off
the data, whose extremes would then leak through the noise calibrated to them.
"""

from __future__ import annotations

import re

import numpy as np

from ..base.errors import MicroaggError
from ..base.names import column
from ..base.registry import Param

SOURCE = "Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2014"

BOUNDS = Param("bounds", "array", None, "the domain of every masked column, (lower, upper) in the data's units, "
               "e.g. '0:120,0:5e5'; it must come from knowledge of the domain, not from the data (docs/methods.md "
               "§7.3). Empty: the Laplace aggregation refuses; insensitive MDAV alone then orders by the data's own "
               "box, a k-anonymous partition that is not insensitive", source=SOURCE,
               label="attribute bounds (lower:upper per column, not from the data)",
               shared=True)


BOUNDS_RULE = ("give one (lower, upper) pair per masked column, in the data's units, as an array of shape (d, 2) or "
               "the text 'low:high,low:high,...'")


def check_bounds(bounds, d: int, who: str) -> np.ndarray:
    """Attribute bounds as a (d, 2) float array of finite (lower, upper) pairs with lower < upper; ``bounds`` is an
    array-like of d pairs or text: "low:high,low:high,..." (the command line's and the dashboard's form) or the
    pairs as Python writes them ("[(0, 1), (2, 3)]", as a recipe does). ``who`` names the method in the message."""
    if isinstance(bounds, str):
        text = re.sub(r"[\[\]():;,]", " ", bounds).split()
        try:
            numbers = [float(v) for v in text]
        except ValueError:
            raise MicroaggError(f"bounds of {who}: could not read {bounds!r} as numbers; {BOUNDS_RULE}.") from None
        bounds = np.array(numbers).reshape(-1, 2) if len(numbers) % 2 == 0 else numbers
    try:
        B = np.array(bounds, dtype=np.float64)
    except (TypeError, ValueError):
        raise MicroaggError(f"bounds of {who} must be numbers; {BOUNDS_RULE}.") from None
    if B.shape != (d, 2):
        raise MicroaggError(f"bounds of {who} must hold {d} (lower, upper) pairs, one per masked column; got shape "
                            f"{B.shape}. {BOUNDS_RULE[0].upper()}{BOUNDS_RULE[1:]}.")
    if not np.isfinite(B).all():
        raise MicroaggError(f"bounds of {who} must be finite numbers; got {B.tolist()}.")
    bad = np.flatnonzero(B[:, 0] >= B[:, 1])
    if bad.size:
        raise MicroaggError(f"bounds of {who}: the lower bound must be below the upper bound; "
                            f"{column(int(bad[0]))} has ({B[bad[0], 0]:g}, {B[bad[0], 1]:g}).")
    with np.errstate(over="ignore"):
        wide = np.flatnonzero(~np.isfinite(B[:, 1] - B[:, 0]))
    if wide.size:
        raise MicroaggError(f"bounds of {who}: the width upper − lower of {column(int(wide[0]))} overflows float64 "
                            f"({B[wide[0], 0]:g}, {B[wide[0], 1]:g}); give bounds less than 1.8e308 apart.")
    return B


def insensitive_keys(X: np.ndarray, bounds: np.ndarray | None) -> np.ndarray:
    """s(x) of every record: its squared distance to the corner of lower bounds, each attribute divided by the width
    of its bounds (the data's own range when ``bounds`` is None; a constant column then adds nothing)."""
    if bounds is None:
        lower, width = X.min(axis=0), np.ptp(X, axis=0)
        width = np.where(width > 0, width, 1.0)
    else:
        lower, width = bounds[:, 0], bounds[:, 1] - bounds[:, 0]
    U = (X - lower) / width
    return np.einsum("ij,ij->i", U, U)


def ranked_blocks(x: np.ndarray, k: int) -> np.ndarray:
    """Labels 0..m-1 of the values ``x`` sorted by (value, row index) and cut into blocks of k, the last block
    absorbing the n mod k rest: a partition that replacing one value changes by at most one member per block."""
    n = x.shape[0]
    labels = np.empty(n, np.int64)
    labels[np.argsort(x, kind="stable")] = np.minimum(np.arange(n) // k, n // k - 1)
    return labels
