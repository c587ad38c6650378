"""Input checks shared by every partitioner."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import MicroaggError
from ..preprocess import check_finite


def check_k(k) -> int:
    """``k`` must be an integer >= 2 (k = 1 would publish the data unprotected)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        if isinstance(k, numbers.Real) and float(k).is_integer():
            k = int(k)
        else:
            raise MicroaggError(f"k must be an integer >= 2 (the minimum group size); got {k!r}.")
    if k < 2:
        raise MicroaggError(f"k must be an integer >= 2 (the minimum group size); got {k}. "
                            "k = 1 would release every record unchanged.")
    return int(k)


def prepare(Z, k) -> tuple[np.ndarray, int]:
    """Validated C-contiguous float64 copy of ``Z`` (n x d, finite, n >= k) and ``k``."""
    k = check_k(k)
    try:
        Z = np.array(Z, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError) as exc:
        raise MicroaggError(f"Z must be a numeric n x d array: {exc}") from None
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[1] == 0:
        raise MicroaggError(f"Z must be a 2-D array (records x attributes); got shape {Z.shape}.")
    if Z.shape[0] == 0:
        raise MicroaggError("Z is empty (0 records).")
    check_finite(Z, what="attribute")
    if Z.shape[0] < k:
        raise MicroaggError(f"Z has {Z.shape[0]} records but k = {k}: no partition into groups of "
                            "at least k records exists. Lower k or supply more records.")
    return Z, k
