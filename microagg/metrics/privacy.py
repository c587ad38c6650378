"""Personalized privacy (Mortazavi & Jalili 2017, §4): thresholds Δ, weights w and the satisfaction level SL (Eq. 13).

Δ and w are shared by SL and by P3M aggregation, so their accepted forms live here:

* ``delta``: a scalar, one value per attribute (d,), or one per cell (n, d), in z units,
  all >= 0; with ``relative=True`` the cell threshold is ``delta * |x|`` (Mortazavi & Jalili 2017, §5.1).
* ``w``: a scalar, one value per record (n,), or one per cell (n, d), in [0, 1) — or
  ``"random"``: our reconstruction of ``w = rand`` of Mortazavi & Jalili 2017, Table 3, which says only
  that MATLAB's generator was seeded with 1: MATLAB ``rng(seed); rand(n, d)``, i.e.
  ``numpy.random.RandomState(seed).rand(d, n).T`` (column-major fill; docs/methods.md §5, decision 14).
  w = 1, which the paper allows as a hard constraint, is excluded (docs/methods.md §5, decision 17).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import MicroaggError
from ._arrays import pair


def random_weights(n: int, d: int, seed: int = 1) -> np.ndarray:
    """Random weights as in Mortazavi & Jalili 2017, Table 3, reconstructed as MATLAB ``rng(seed); rand(n, d)``
    = ``RandomState(seed).rand(d, n).T`` (the paper says only that the generator was seeded with 1).
    """
    return np.random.RandomState(seed).rand(d, n).T


def _cells(value, n: int, d: int, name: str) -> np.ndarray:
    """Broadcast a scalar, a (d,) or (1, d) vector (per attribute), an (n,) or (n, 1) vector (per record) or an
    (n, d) array to n x d floats. A 1-D vector of length n = d is refused as ambiguous."""
    if isinstance(value, (bool, np.bool_)):
        raise MicroaggError(f"'{name}' must be a number or an array of numbers; got {value!r}.")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise MicroaggError(f"'{name}' must be a number or an array of numbers; got {value!r}.") from None
    if arr.ndim == 1 and n == d != 1 and arr.shape[0] == n:
        raise MicroaggError(f"'{name}' has {n} values and the data have {n} records and {d} attributes, so it could be "
                            f"one per record or one per attribute: give an ({n}, 1) column (per record) or a (1, {d}) "
                            "row (per attribute).")
    if arr.ndim == 0:
        out = np.full((n, d), float(arr))
    elif arr.shape == (n, 1):
        out = np.repeat(arr, d, axis=1)
    elif arr.shape == (1, d):
        out = np.repeat(arr, n, axis=0)
    elif arr.ndim == 1 and arr.shape[0] == d:
        out = np.broadcast_to(arr, (n, d)).copy()
    elif arr.ndim == 1 and arr.shape[0] == n:
        out = np.repeat(arr[:, None], d, axis=1)
    elif arr.shape == (n, d):
        out = arr.copy()
    else:
        raise MicroaggError(f"'{name}' must be a scalar, one value per attribute ({d},), per record ({n},) "
                            f"or per cell ({n}, {d}); got shape {arr.shape}.")
    if not np.isfinite(out).all():
        raise MicroaggError(f"'{name}' contains NaN or infinite values.")
    return out


def resolve_delta(delta, Z: np.ndarray, relative: bool = False) -> np.ndarray:
    """Cell thresholds Δ (n x d, z units) from a scalar / per-attribute / per-cell ``delta``.

    With ``relative``, Δ_i[t] = delta · |x_i[t]| (Mortazavi & Jalili 2017, §5.1; Δ enters only as Δ², so the
    sign of x is irrelevant).
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    out = _cells(delta, n, d, "delta")
    if (out < 0).any():
        raise MicroaggError(f"'delta' must be >= 0 (a distance in z units); got a minimum of {out.min():g}.")
    return out * np.abs(Z) if relative else out


def resolve_weights(w, n: int, d: int, seed: int | None = 1) -> np.ndarray:
    """Cell weights w (n x d) in [0, 1) from a scalar, per-record, per-cell array or ``"random"`` (with ``seed``).

    The upper bound is open because P3M eliminates γ by dividing by 1 - w (the paper's w = 1 is a hard
    constraint, generally infeasible for a group value shared by several records).
    """
    if isinstance(w, str):
        if w != "random":
            raise MicroaggError(f"'w' must be a number, an array, or \"random\"; got {w!r}.")
        if seed is None or isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise MicroaggError(f"'w_seed' must be a non-negative integer for w=\"random\"; got {seed!r}.")
        return random_weights(n, d, int(seed))
    out = _cells(w, n, d, "w")
    if (out < 0).any() or not (out < 1).all():
        raise MicroaggError(f"'w' must lie in [0, 1); got values from {out.min():g} to {out.max():g}.")
    return out


PRIVACY_KEYS = ("delta", "relative", "w", "weights", "w_seed")


def sl_arguments(privacy: dict) -> dict:
    """SL's Δ/w arguments from P3M-style settings ``privacy`` (its ``weights="random"`` means ``w="random"``).

    Missing settings take SL's defaults; keys other than :data:`PRIVACY_KEYS` are ignored.
    """
    w = "random" if privacy.get("weights") == "random" else privacy.get("w", 0.001)
    return {"delta": privacy.get("delta", 0.1), "relative": privacy.get("relative", False), "w": w,
            "w_seed": privacy.get("w_seed", 1)}


def breaches(Z, Zp, delta=0.1, relative: bool = False) -> np.ndarray:
    """Proximity breaches (Mortazavi & Jalili 2017, §4): the n x d cells whose released value is closer than Δ to the
    original.

    The cells with sl = 0 in SL (Eq. 13): Δ > 0 and |x - x'| < Δ, with Δ as in :func:`satisfaction_level`
    (a scalar, per attribute, per cell, or relative to |x|), in z units.
    """
    Z, Zp = pair(Z, Zp)
    D = resolve_delta(delta, Z, relative)
    return (D > 0) & (np.abs(Z - Zp) < D)


def satisfaction(Z, Zp, delta=0.1, w=0.001, relative: bool = False, w_seed: int | None = 1) -> tuple[float, np.ndarray]:
    """SL in % over all cells and per attribute (Mortazavi & Jalili 2017, Eq. 13), Δ and w resolved once.

    sl_i[t] = 1 iff the cell is not a breach (:func:`breaches`); SL = 100 Σ w sl / Σ w, with 0/0 := 100.
    """
    Z, Zp = pair(Z, Zp)
    W = resolve_weights(w, *Z.shape, w_seed)
    met = W * ~breaches(Z, Zp, delta, relative)
    total, by_attribute = W.sum(), W.sum(axis=0)
    overall = 100.0 if total == 0 else float(100.0 * met.sum() / total)
    safe = np.where(by_attribute > 0, by_attribute, 1.0)
    return overall, np.where(by_attribute > 0, 100.0 * met.sum(axis=0) / safe, 100.0)


def satisfaction_level(Z, Zp, delta=0.1, w=0.001, relative: bool = False, w_seed: int | None = 1) -> float:
    """SL, the weighted share of cells at least Δ away from their original (Mortazavi & Jalili 2017, Eq. 13), in %.

    Both arrays are in z units; for mean microaggregation Mortazavi & Jalili 2017 compares with the
    renormalized centroids C_j / σ_TC (Eq. 5), which reproduces its Tables 2-3 (docs/reproductions.md §6).
    """
    return satisfaction(Z, Zp, delta, w, relative, w_seed)[0]


def satisfaction_by_attribute(Z, Zp, delta=0.1, w=0.001, relative: bool = False,
                              w_seed: int | None = 1) -> np.ndarray:
    """SL of every attribute in % (Eq. 13 restricted to one column), same arguments as :func:`satisfaction_level`."""
    return satisfaction(Z, Zp, delta, w, relative, w_seed)[1]
