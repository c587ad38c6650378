"""Personalized privacy (Mortazavi & Jalili 2017, §4): proximity breaches and the satisfaction level SL (Eq. 13).

The owners' wishes Δ and w, shared with P3M aggregation, take the forms of ``microagg.privacy.wishes``: ``delta``,
``relative``, ``w``, ``weights`` ("given" or "random") and ``w_seed``.
"""

from __future__ import annotations

import numpy as np

from ..base.rows import HIGHER
from ..privacy.wishes import NAMES as WISHES
from ..privacy.wishes import cells, resolve_delta
from ._arrays import pair
from .registry import Metric, register


def breaches(Z, Zp, delta=0.1, relative: bool = False) -> np.ndarray:
    """Proximity breaches (Mortazavi & Jalili 2017, §4): the n x d cells whose released value is closer than Δ to the
    original.

    The cells with sl = 0 in SL (Eq. 13): Δ > 0 and |x - x'| < Δ, with Δ as in :func:`satisfaction_level`
    (a scalar, per attribute, per cell, or relative to |x|), in z units.
    """
    Z, Zp = pair(Z, Zp)
    return _breached(Z, Zp, resolve_delta(delta, Z, relative))


def _breached(Z: np.ndarray, Zp: np.ndarray, D: np.ndarray) -> np.ndarray:
    return (D > 0) & (np.abs(Z - Zp) < D)


def satisfaction(Z, Zp, delta=0.1, w=0.001, *, relative: bool = False, weights: str = "given",
                 w_seed: int | None = 1) -> tuple[float, np.ndarray]:
    """SL in % over all cells and per attribute (Mortazavi & Jalili 2017, Eq. 13), Δ and w resolved once
    (``microagg.privacy.wishes.cells``).

    sl_i[t] = 1 iff the cell is not a breach (:func:`breaches`); SL = 100 Σ w sl / Σ w, with 0/0 := 100.
    """
    Z, Zp = pair(Z, Zp)
    D, W = cells(Z, delta, relative, w, weights, w_seed)
    met = W * ~_breached(Z, Zp, D)
    total, by_attribute = W.sum(), W.sum(axis=0)
    overall = 100.0 if total == 0 else float(100.0 * met.sum() / total)
    safe = np.where(by_attribute > 0, by_attribute, 1.0)
    return overall, np.where(by_attribute > 0, 100.0 * met.sum(axis=0) / safe, 100.0)


def satisfaction_level(Z, Zp, delta=0.1, w=0.001, *, relative: bool = False, weights: str = "given",
                       w_seed: int | None = 1) -> float:
    """SL, the weighted share of cells at least Δ away from their original (Mortazavi & Jalili 2017, Eq. 13), in %.

    Both arrays are in z units; for mean microaggregation Mortazavi & Jalili 2017 compares with the
    renormalized centroids C_j / σ_TC (Eq. 5), which reproduces its Tables 2-3 (docs/reproductions.md §6).
    """
    return satisfaction(Z, Zp, delta, w, relative=relative, weights=weights, w_seed=w_seed)[0]


def satisfaction_by_attribute(Z, Zp, delta=0.1, w=0.001, *, relative: bool = False, weights: str = "given",
                              w_seed: int | None = 1) -> np.ndarray:
    """SL of every attribute in % (Eq. 13 restricted to one column), same arguments as :func:`satisfaction_level`."""
    return satisfaction(Z, Zp, delta, w, relative=relative, weights=weights, w_seed=w_seed)[1]


@register(Metric("SL", "Satisfaction level", "privacy", "%", HIGHER, "Mortazavi & Jalili 2017, Eq. 13",
                 "Weighted share of values at least Δ away from their original (owners' wishes met).",
                 "docs/metrics.md §4.8", WISHES, per_attribute=True))
def _sl(ctx) -> dict:
    delta, relative, w, weights, w_seed = (ctx.params[name] for name in WISHES)
    return {"SL": satisfaction(ctx.Z, ctx.Zp, delta, w, relative=relative, weights=weights, w_seed=w_seed)}
