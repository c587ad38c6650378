"""Shape checks shared by the metrics."""

from __future__ import annotations

import numpy as np

from ..base.checks import check_finite
from ..base.errors import MicroaggError


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


# a column whose largest magnitude lies in [2^-400, 2^400] is left as it is: its squares and products, summed over
# any number of records, neither overflow nor underflow
SAFE_EXPONENT = 400


def rescaled(X: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """``X`` (n x d) and the ``others`` of its shape with every column whose largest magnitude in ``X`` lies outside
    [2^-400, 2^400] divided by the power of two of that magnitude: exact, and every metric in original units is
    invariant to a column's scale (a ratio, a correlation, a rank, an equality), so it is computed as exactly at
    1e-300 or 1e300 as at 1 rather than on sums of squares that underflowed or overflowed. The scale is the
    original's, so that a release far larger than it (noise of 1e300) cannot push the original into underflow."""
    with np.errstate(invalid="ignore"):
        top = np.nanmax(np.abs(X), axis=0) if len(X) else np.zeros(X.shape[1])
    e = np.frexp(np.nan_to_num(top))[1]
    e = np.where(np.abs(e) > SAFE_EXPONENT, e, 0)
    return [np.ldexp(a, -e) for a in (X, *others)]
