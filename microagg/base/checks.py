"""Argument checks shared by every stage: integers such as k, matrices, column selections, percentages."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .errors import MicroaggError


def is_numeric(values: pd.Series) -> bool:
    """A column of real numbers (integers or floats): neither True/False values nor complex numbers."""
    types = pd.api.types
    return types.is_numeric_dtype(values) and not types.is_bool_dtype(values) and not types.is_complex_dtype(values)


K_RULE = "k must be an integer >= 2 (the minimum group size)"


def check_int(value, low: int, rule: str, too_small=None) -> int:
    """``value`` as an int: an integer, or a float with an integer value (not a bool), of at least ``low``.

    Otherwise raises "``rule``; got value.", or, for an integer below ``low``, ``too_small(value)`` if given.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, bool) or not (isinstance(value, numbers.Real) and float(value).is_integer()):
            raise MicroaggError(f"{rule}; got {value!r}.")
        value = int(value)
    if value < low:
        raise MicroaggError(too_small(value) if too_small else f"{rule}; got {value}.")
    return int(value)


def check_k(k) -> int:
    """``k`` must be an integer >= 2 (k = 1 would publish the data unprotected)."""
    return check_int(k, 2, K_RULE, lambda k: f"{K_RULE}; got {k}. k = 1 would release every record unchanged.")


def as_matrix(Z, name: str = "Z", vector: bool = True, order: str = "C") -> np.ndarray:
    """Float64 copy of ``Z`` (in memory ``order``) as a non-empty records x attributes matrix; a 1-D ``Z`` is one
    attribute if ``vector``. Raises naming ``name`` if ``Z`` is not numeric, of another shape or empty."""
    try:
        Z = np.array(Z, dtype=np.float64, order=order, copy=True)
    except (TypeError, ValueError) as exc:
        raise MicroaggError(f"{name} must be a numeric n x d array: {exc}") from None
    if Z.ndim == 1 and vector:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[1] == 0:
        raise MicroaggError(f"{name} must be a 2-D array (records x attributes); got shape {Z.shape}.")
    if Z.shape[0] == 0:
        raise MicroaggError(f"{name} is empty (0 records).")
    return Z


def check_size(n: int, k: int, name: str = "Z") -> None:
    """``n`` records can be split into groups of at least ``k`` only if n >= k."""
    if n < k:
        raise MicroaggError(f"{name} has {n} records but k = {k}: no partition into groups of at least k records "
                            "exists. Lower k or supply more records.")


def columns(spec, d: int, names: Sequence[str] | None = None, what: str = "keys") -> np.ndarray:
    """Column indices selected by ``spec``: None (all), names (with ``names``) or integer positions."""
    if spec is None:
        return np.arange(d)
    if isinstance(spec, (str, numbers.Integral)) and not isinstance(spec, bool):
        spec = [spec]
    out = []
    for item in spec:
        if isinstance(item, str):
            if names is None or item not in list(names):
                known = list(names) if names is not None else f"positions 0..{d - 1}"
                raise MicroaggError(f"'{what}': unknown column {item!r}; choose from {known}.")
            out.append(list(names).index(item))
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) and 0 <= int(item) < d:
            out.append(int(item))
        else:
            raise MicroaggError(f"'{what}' must list column names or positions 0..{d - 1}; got {item!r}.")
    if not out:
        raise MicroaggError(f"'{what}' is empty: select at least one column (or pass None for all).")
    if len(set(out)) != len(out):
        raise MicroaggError(f"'{what}' lists a column more than once: {list(spec)}.")
    return np.array(out)


def percent(p, name: str = "p") -> float:
    """A percentage strictly between 0 and 100."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (0 < float(p) < 100):
        raise MicroaggError(f"'{name}' must be a percentage in (0, 100), e.g. 5 for 5 %; got {p!r}.")
    return float(p)


def plain(value) -> str:
    """``repr`` of ``value`` as Python writes it (a numpy scalar as its number: ``7``, not ``np.int64(7)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def check_finite(X: np.ndarray, names: Sequence[str] | None = None, index=None, what: str = "column") -> None:
    """Raise a ``MicroaggError`` naming every column holding NaN or infinity, and where the first of each is: its
    ``index`` label, and its record counted from 1 (a file's data line) where the rows are all the input's, in order
    (no ``index``, or the default 0, 1, ..., n-1)."""
    bad = ~np.isfinite(X)
    if not bad.any():
        return
    whole = index is None or isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    said = []
    for j in np.flatnonzero(bad.any(axis=0)):
        rows = np.flatnonzero(bad[:, j])
        name = names[j] if names is not None else j
        label = index[rows[0]] if index is not None else rows[0]
        at = f"in record {rows[0] + 1} (index {plain(label)})" if whole else f"at index {plain(label)}"
        kind = "missing (NaN)" if np.isnan(X[rows[0], j]) else "infinite"
        said.append(f"{what} '{name}' has {len(rows)} non-finite value(s); the first, {at}, is {kind}")
    raise MicroaggError("; ".join(said) + ". Remove or impute them before microaggregating.")
