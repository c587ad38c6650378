"""Distances and axes shared by the partitioners (and by the metrics that measure as they do): overflow-safe
scaling for squared distances, the first principal axis with R's sign convention, and the partial distance over
the attributes two records both observe."""

from __future__ import annotations

import numpy as np

from .kernels import kernel
from .numpy_engine import row_sums

LARGE = 2.0 ** 255  # above this magnitude a sum of squared differences could overflow


def in_range(Z: np.ndarray) -> np.ndarray:
    """``Z``, or ``Z`` times a power of two when its largest magnitude exceeds ``LARGE``: squared distances then
    cannot overflow. The product is exact unless it takes a value below the smallest normal float64, so every
    comparison is the one of the same data at a representable scale."""
    top = float(np.abs(Z).max()) if Z.size else 0.0
    return Z if top <= LARGE else Z * 2.0 ** -np.frexp(top)[1]


def principal_axis(Z: np.ndarray) -> np.ndarray:
    """Unit first principal axis of the rows of ``Z``: the eigenvector of the largest eigenvalue of their covariance
    matrix, signed so that its first nonzero component is positive (R's ``princomp``, docs/methods.md §5, decision
    10)."""
    centred = Z - Z.mean(axis=0)
    return signed(np.linalg.eigh(centred.T @ centred / Z.shape[0])[1][:, -1])


def signed(u: np.ndarray) -> np.ndarray:
    """``u`` or ``-u``, whichever has its first nonzero component positive: the sign convention of R's ``princomp``
    (first loading non-negative, R 3.5.0) and of Croux & Ruiz-Gazen 2005's projection-pursuit axes, which does not
    depend on the eigensolver's build."""
    nonzero = np.flatnonzero(u)
    return -u if len(nonzero) and u[nonzero[0]] < 0 else u


@kernel(cache=True, nogil=True)
def partial_distance(Z0, observed, i, y, seen, mismatch):
    """The squared distance of record i (``Z0``: z-scores with missing cells 0, ``observed`` their mask) to the
    point ``y`` (observed where ``seen``) over the attributes observed in both, summed attribute by attribute and
    rescaled to all d: d / |O| · Σ_{t∈O} (z_t − y_t)² (the partial distance of Hathaway & Bezdek 2001); 2d when
    they share none (docs/methods.md §8.2); plus ``mismatch`` per attribute observed in only one of the two. With
    no missing cell and no mismatch, the squared Euclidean distance."""
    d = Z0.shape[1]
    sq, shared, differ = 0.0, 0, 0
    for t in range(d):
        if observed[i, t] and seen[t]:
            diff = Z0[i, t] - y[t]
            sq += diff * diff
            shared += 1
        elif observed[i, t] != seen[t]:
            differ += 1
    return (sq * (d / shared) if shared > 0 else 2.0 * d) + mismatch * differ


@kernel(cache=True, nogil=True)
def partial_distances(Z0, observed, rows, y, seen, mismatch):
    """``partial_distance`` of every record of ``rows`` to the point ``y``."""
    out = np.empty(len(rows))
    for a in range(len(rows)):
        out[a] = partial_distance(Z0, observed, rows[a], y, seen, mismatch)
    return out


@partial_distances.numpy
def _partial_distances_numpy(Z0, observed, rows, y, seen, mismatch):
    """``partial_distances`` vectorized, with the same arithmetic (a term for every attribute, 0 where unshared)."""
    d = Z0.shape[1]
    obs = observed[rows]
    both = obs & seen
    diff = np.where(both, Z0[rows] - y, 0.0)
    sq = row_sums(np.ascontiguousarray((diff * diff).T))
    shared = both.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.where(shared > 0, sq * (d / np.maximum(shared, 1)), 2.0 * d)
    return part + mismatch * (obs != seen).sum(axis=1)
