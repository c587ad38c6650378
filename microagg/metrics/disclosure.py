"""Record linkage beside the nearest-record rules of ``risk.py``: one-to-one (global) distance-based linkage and
interval disclosure with intervals from a robust scale. Definitions: docs/metrics.md §4.16 and §4.17.

**One-to-one linkage.** The nearest-record rules let many original records link to the same masked record. An
intruder who knows that the release holds each respondent once links the two files as a whole: the assignment
(a permutation) that minimises the total Euclidean distance between the original records and the masked records
they are matched with, solved exactly by ``scipy.optimize.linear_sum_assignment`` on the n x n distance matrix
(Domingo-Ferrer & Torra 2003 for distance-based record linkage as a risk measure; the one-to-one constraint is the
assignment problem). Masked rows that coincide cannot be told apart, so a record matched with a row equal to its
own scores 1/(number of equal rows), the expected share of correct matches under random tie-breaking, as the DLD
default (docs/metrics.md §4.6b). The matrix has n² entries and the solver is cubic in the worst case: above
``one_to_one_max`` records (default 2000) the metric is not computed and the table says so.

**Robust interval disclosure (RID).** SDID (Mortazavi & Jalili 2017, Eq. 8) with the interval's half-width a share
p of a robust scale of the original attribute, 1.4826 x its median absolute deviation (the sd where that is 0),
instead of its sd: outliers, which inflate the sd and with it every interval, do not set the scale.
"""

from __future__ import annotations

import numpy as np

from ..base.checks import columns, percent
from ..base.errors import MicroaggError
from ..base.rows import LOWER
from ._arrays import pair
from .registry import PARAMS, Metric, not_computed, register
from .risk import Linkage, interval_disclosure, shared_linkage

MAD_TO_SD = 1.4826  # 1 / Φ⁻¹(3/4): the MAD of a normal sample times this estimates its sd


def one_to_one_credit(Z, Zp, keys=None, names=None, max_records: int | None = None) -> np.ndarray:
    """Per record, the expected credit of a correct link under one-to-one linkage (see module doc): 1/(number of
    masked rows equal to its own) if the optimal assignment matches it with such a row, else 0. ``keys``: the
    columns in the distance (positions, or names with ``names``; default all). Refuses more than ``max_records``
    records (default ``PARAMS["one_to_one_max"]``)."""
    Z, Zp = pair(Z, Zp)
    limit = PARAMS["one_to_one_max"].default if max_records is None else max_records
    if len(Z) > limit:
        raise MicroaggError(f"one-to-one linkage builds an n x n distance matrix: {len(Z)} records is above the "
                            f"limit of {limit}; raise one_to_one_max if the time and memory are acceptable.")
    keys = columns(keys, Z.shape[1], names, "keys")
    Z, Zp = Z[:, keys], Zp[:, keys]
    _, own, counts = np.unique(Zp, axis=0, return_inverse=True, return_counts=True)
    own = own.reshape(-1)
    from scipy.optimize import linear_sum_assignment  # (scipy's modules are imported by the calls that need them)
    from scipy.spatial.distance import cdist

    _, matched = linear_sum_assignment(cdist(Z, Zp))
    return np.where(own[matched] == own, 1.0 / counts[own], 0.0)


def dld_one_to_one(Z, Zp, keys=None, names=None, max_records: int | None = None) -> float:
    """Share of records correctly linked by one-to-one linkage, in % (expected over equal masked rows)."""
    return float(100.0 * one_to_one_credit(Z, Zp, keys, names, max_records).mean())


def robust_scale(Z: np.ndarray) -> np.ndarray:
    """Per attribute, 1.4826 x the median absolute deviation from the median; the population sd where that is 0."""
    Z = np.asarray(Z, dtype=np.float64)
    mad = MAD_TO_SD * np.median(np.abs(Z - np.median(Z, axis=0)), axis=0)
    return np.where(mad > 0, mad, Z.std(axis=0))


def rid(Z, Zp, p: float = 5.0, by_attribute: bool = False):
    """Robust interval disclosure in %: SDID (lowest-index nearest masked record, Mortazavi & Jalili 2017, Eq. 8)
    with half-width p % of :func:`robust_scale` instead of the sd (docs/metrics.md §4.17)."""
    Z, Zp = pair(Z, Zp)
    return interval_disclosure(Z, Zp, Linkage(Z, Zp).nearest, percent(p), by_attribute, robust_scale(Z))


@register(Metric("DLD one-to-one", "One-to-one record linkage", "risk", "%", LOWER,
                 "Domingo-Ferrer & Torra 2003 (distance-based linkage), as an assignment problem",
                 "Expected share of records matched with their own masked record when the files are linked as a "
                 "whole, each masked record used once (minimum total distance).", "docs/metrics.md §4.16",
                 ("one_to_one_max",)))
def _one_to_one(ctx) -> dict:
    limit = ctx.params["one_to_one_max"]
    if ctx.n > limit:
        return {"DLD one-to-one": not_computed(f"{ctx.n:,} records, above one_to_one_max = {limit:,} (an n x n "
                                               "distance matrix and a cubic assignment solver)")}
    return {"DLD one-to-one": dld_one_to_one(ctx.Z, ctx.Zp, max_records=limit)}


@register(Metric("RID", "Robust interval disclosure (linked record)", "risk", "%", LOWER,
                 "Mortazavi & Jalili 2017, Eq. 8, with a robust scale (docs/metrics.md §4.17)",
                 "Share of original values within p % of a robust scale (1.4826·MAD) of the masked value of the "
                 "linked record.", "docs/metrics.md §4.17", ("p",), ("z-scores", "linkage"), per_attribute=True))
def _rid(ctx) -> dict:
    p, scale = percent(ctx.params["p"]), robust_scale(ctx.Z)
    nearest = shared_linkage(ctx).nearest
    return {"RID": (interval_disclosure(ctx.Z, ctx.Zp, nearest, p, scale=scale),
                    interval_disclosure(ctx.Z, ctx.Zp, nearest, p, True, scale))}
