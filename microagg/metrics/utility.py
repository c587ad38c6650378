"""Information loss: SSE, SST and IL = 100 SSE / SST (seed 000 Eq. 1-2; seed 003 Eq. 1-4)."""

from __future__ import annotations

import numpy as np

from ..aggregate import mean
from ..errors import MicroaggError
from ._arrays import pair


def sse_by_attribute(Z, Zp) -> np.ndarray:
    """SSE_t = sum_i (z_i[t] - z'_i[t])^2 per attribute (seed 000 Eq. 1)."""
    Z, Zp = pair(Z, Zp)
    return ((Z - Zp) ** 2).sum(axis=0)


def sse(Z, Zp) -> float:
    """Sum of squared errors between original and masked data (seed 000 Eq. 1)."""
    return float(sse_by_attribute(Z, Zp).sum())


def sst(Z) -> float:
    """Total sum of squares around the attribute means (seed 000 Eq. 2: n d for z-scores)."""
    Z = np.asarray(Z, dtype=np.float64)
    return float(((Z - Z.mean(axis=0)) ** 2).sum())


def information_loss(Z, Zp) -> float:
    """IL = 100 SSE / SST in percent (seed 003 Eq. 4), on standardized data."""
    Z, Zp = pair(Z, Zp)
    total = sst(Z)
    if total <= 0:
        raise MicroaggError("information loss is undefined: every record is identical (SST = 0).")
    return 100.0 * sse(Z, Zp) / total


def partition_information_loss(Z, labels) -> float:
    """IL of a partition: the SSE of its group means (seed 003 Eq. 1, 4), whatever the release aggregator."""
    return information_loss(Z, mean(Z, labels))
