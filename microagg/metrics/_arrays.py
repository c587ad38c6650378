"""Shape checks shared by the metrics."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ..errors import MicroaggError
from ..preprocess import check_finite


def correlation(C: np.ndarray) -> np.ndarray:
    """Correlations from a covariance matrix; a pair with a constant attribute has correlation 0."""
    sd = np.sqrt(np.diag(C))
    safe = np.where(sd > 0, sd, 1.0)
    R = C / safe[:, None] / safe[None, :]
    R[(sd == 0)[:, None] | (sd == 0)[None, :]] = 0.0
    return R


def pair(Z, Zp, names=("original", "protected")) -> tuple[np.ndarray, np.ndarray]:
    """Two finite float arrays of the same n x d shape."""
    try:
        Z = np.asarray(Z, dtype=np.float64)
        Zp = np.asarray(Zp, dtype=np.float64)
    except (TypeError, ValueError):
        raise MicroaggError(f"{names[0]} and {names[1]} must be numeric n x d arrays.") from None
    if Z.ndim == 1:
        Z = Z[:, None]
    if Zp.ndim == 1:
        Zp = Zp[:, None]
    if Z.shape != Zp.shape or Z.ndim != 2:
        raise MicroaggError(f"{names[0]} and {names[1]} must have the same n x d shape; "
                            f"got {Z.shape} and {Zp.shape}.")
    if Z.shape[0] == 0 or Z.shape[1] == 0:
        raise MicroaggError(f"{names[0]} is empty (shape {Z.shape}): metrics need at least one record and attribute.")
    check_finite(Z, what=f"{names[0]} attribute")
    check_finite(Zp, what=f"{names[1]} attribute")
    return Z, Zp


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

