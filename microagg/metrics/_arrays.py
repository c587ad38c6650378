"""Shape checks shared by the metrics."""

from __future__ import annotations

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
