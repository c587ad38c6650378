"""Shape checks shared by the metrics."""

from __future__ import annotations

import numpy as np

from ..errors import MicroaggError
from ..preprocess import check_finite


def pair(Z, Zp, names=("original", "protected")) -> tuple[np.ndarray, np.ndarray]:
    """Two finite float arrays of the same n x d shape."""
    Z = np.asarray(Z, dtype=np.float64)
    Zp = np.asarray(Zp, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Zp.ndim == 1:
        Zp = Zp[:, None]
    if Z.shape != Zp.shape or Z.ndim != 2:
        raise MicroaggError(f"{names[0]} and {names[1]} must have the same n x d shape; "
                            f"got {Z.shape} and {Zp.shape}.")
    check_finite(Z, what=f"{names[0]} attribute")
    check_finite(Zp, what=f"{names[1]} attribute")
    return Z, Zp
