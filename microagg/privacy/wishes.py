"""The owners' privacy wishes (Mortazavi & Jalili 2017, §4): the minimum distance Δ each owner asks for and the
importance w of that wish, shared by P3M aggregation and by the satisfaction level SL.

One encoding, the parameters :data:`PARAMS` (used by P3M's registration and by ``evaluate``):

* ``delta``: a scalar, one value per attribute (d,), or one per cell (n, d), in z units, all >= 0; with
  ``relative=True`` the cell threshold is ``delta * |x|`` (Mortazavi & Jalili 2017, §5.1).
* ``weights="given"``: ``w`` is a scalar, one value per record (n,), or one per cell (n, d), in [0, 1).
  w = 1, which the paper allows as a hard constraint, is excluded (docs/methods.md §5, decision 17).
* ``weights="random"``: our reconstruction of ``w = rand`` of Mortazavi & Jalili 2017, Table 3, which says only
  that MATLAB's generator was seeded with 1: MATLAB ``rng(w_seed); rand(n, d)``, i.e.
  ``numpy.random.RandomState(w_seed).rand(d, n).T`` (column-major fill; docs/methods.md §5, decision 14).

:func:`cells` checks them and returns the n x d cells of Δ and w.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..base.errors import MicroaggError
from ..base.registry import Param

WEIGHTS = ("given", "random")
SOURCE = "Mortazavi & Jalili 2017, §4"

PARAMS: tuple[Param, ...] = (
    Param("delta", "float", 0.1, "minimum desired distance Δ between original and released value, in z units "
          "(an (n, d) or (d,) array through the Python API)", "Mortazavi & Jalili 2017, §5 (Δ = 0.1)", low=0.0,
          array_ok=True, label="Δ, minimum distance wished", unit="z units"),
    Param("relative", "bool", False, "read delta as the factor r of a relative threshold Δ = r·|x|",
          "Mortazavi & Jalili 2017, §5.1", label="Δ relative to the value (Δ·|x|)"),
    Param("w", "float", 0.001, "importance of meeting Δ for each cell, in [0, 1): the paper's w = 1 (a hard "
          "constraint) is excluded, γ being eliminated through 1/(1 - w) (through the Python API also an (n, d) "
          "array, (n, 1) per record or (1, d) per attribute)", "Mortazavi & Jalili 2017, §4 (w), Table 2 (w = 0.001)",
          low=0.0, high=1.0, high_open=True, array_ok=True, only_with=(("weights", ("given",)),),
          label="w, importance of each wish"),
    Param("weights", "choice", "given", "'given': use w; 'random': uniform random weights as in Mortazavi & "
          "Jalili 2017, Table 3, reconstructed as MATLAB rng(w_seed); rand(n, d) (the paper says only that the "
          "generator was seeded with 1)", "Mortazavi & Jalili 2017, Table 3", choices=WEIGHTS,
          label="privacy weights w"),
    Param("w_seed", "int", 1, "seed of the random weights", "Mortazavi & Jalili 2017, Table 3 (seeded with 1)", low=0,
          only_with=(("weights", ("random",)),), label="seed of the random weights"),
)
NAMES = tuple(p.name for p in PARAMS)


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
        hint = " (random weights are weights=\"random\")" if name == "w" and value == "random" else ""
        raise MicroaggError(f"'{name}' must be a number or an array of numbers; got {value!r}{hint}.") from None
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
    sign of x is irrelevant), and the factor must be > 0: a factor of 0 would ask every cell to stay exact.
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    out = _cells(delta, n, d, "delta")
    if relative and (out <= 0).any():
        raise MicroaggError("'delta' is the factor r of the relative threshold Δ = r·|x| and must be > 0; "
                            f"got a minimum of {out.min():g}. Use relative=False for absolute thresholds.")
    if (out < 0).any():
        raise MicroaggError(f"'delta' must be >= 0 (a distance in z units); got a minimum of {out.min():g}.")
    return out * np.abs(Z) if relative else out


def resolve_weights(w, n: int, d: int, weights: str = "given", seed: int | None = 1) -> np.ndarray:
    """Cell weights w (n x d) in [0, 1): ``w`` (a scalar, per-record or per-cell array) for ``weights="given"``,
    :func:`random_weights` with ``seed`` for ``weights="random"`` (``w`` is then not used).

    The upper bound is open because P3M eliminates γ by dividing by 1 - w (the paper's w = 1 is a hard
    constraint, generally infeasible for a group value shared by several records).
    """
    if weights not in WEIGHTS:
        raise MicroaggError(f"'weights' must be one of {WEIGHTS}; got {weights!r}.")
    if weights == "random":
        if seed is None or isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise MicroaggError(f"'w_seed' must be a non-negative integer for weights=\"random\"; got {seed!r}.")
        return random_weights(n, d, int(seed))
    out = _cells(w, n, d, "w")
    if (out < 0).any() or not (out < 1).all():
        raise MicroaggError(f"'w' must lie in [0, 1); got values from {out.min():g} to {out.max():g}.")
    return out


def cells(Z, delta=0.1, relative: bool = False, w=0.001, weights: str = "given",
          w_seed: int | None = 1) -> tuple[np.ndarray, np.ndarray]:
    """The wishes of every cell of ``Z`` (n x d): thresholds Δ and weights w, each n x d, checked (a ``w`` other
    than the default with ``weights="random"`` is refused rather than ignored, as ``Param.only_with`` says)."""
    if not isinstance(relative, (bool, np.bool_)):
        raise MicroaggError(f"'relative' must be True or False; got {relative!r}.")
    if weights == "random" and not PARAMS[NAMES.index("w")].is_default(w):
        raise MicroaggError("'w' has an effect only with weights='given', not with weights='random': leave it out "
                            "or set weights='given'.")
    Z = np.asarray(Z, dtype=np.float64)
    return resolve_delta(delta, Z, bool(relative)), resolve_weights(w, *Z.shape, weights, w_seed)
