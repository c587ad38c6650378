"""Input checks shared by every partitioner."""

from __future__ import annotations

import numpy as np

from ..checks import as_matrix, check_k, check_size
from ..preprocess import check_finite


def prepare(Z, k) -> tuple[np.ndarray, int]:
    """Validated C-contiguous float64 copy of ``Z`` (n x d, finite, n >= k) and ``k``."""
    k = check_k(k)
    Z = as_matrix(Z)
    check_finite(Z, what="attribute")
    check_size(Z.shape[0], k)
    return Z, k
