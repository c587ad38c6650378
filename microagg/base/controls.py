"""How a registered parameter is shown to people: one description of its control (the kind of widget, its range,
step, default, label and help), drawn by the dashboard as Streamlit widgets and by the course as ipywidgets, so
that both offer the same values.

The range is the registry's (``Param.low``/``high``), closed (an open bound moves in by one step of the type), with
a cap where the registry leaves it open: the number of masked columns for a column position, else
:data:`INT_CAP` for an integer and 100 times the default (at least 10) for a float.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .registry import Param

INT_CAP = 10_000  # the upper end of an integer parameter the registry leaves unbounded
FLOAT_STEP = 0.01  # a float's step, finer where the default needs it (w = 0.001, a tolerance of 1e-5)


@dataclass(frozen=True)
class Control:
    """The control of one parameter: ``kind`` is "choice" (``options``), "bool", "text" (an array typed as text
    the method reads), "slider" (a float with both ends closed in the registry) or "number" (a box, for integers
    and for floats with an open or missing end), the last two with ``low``, ``high`` and ``step``."""

    kind: str
    label: str
    help: str
    default: Any
    options: tuple = ()
    low: float | None = None
    high: float | None = None
    step: float | None = None
    integer: bool = False

    def clip(self, value):
        """``value`` moved into [low, high] and cast to the control's type; None (an empty box) stays None."""
        if value is None:
            return None
        return (int if self.integer else float)(min(max(value, self.low), self.high))

    @property
    def digits(self) -> int:
        """The decimals that show every value on the step's grid (0 for an integer)."""
        return 0 if self.integer else max(0, -math.floor(math.log10(self.step)))


def float_step(default) -> float:
    """:data:`FLOAT_STEP`, or the power of ten of a smaller default, so that the default lies on the grid."""
    if not default:
        return FLOAT_STEP
    return min(FLOAT_STEP, 10.0 ** math.floor(math.log10(abs(float(default)))))


def control(p: Param, d: int | None = None) -> Control:
    """The control of parameter ``p``; ``d``, the number of masked columns, caps a column position (None: not
    known, the integer cap)."""
    tip = f"{p.help} — {p.source} (parameter `{p.name}`)" if p.source else f"{p.help} (`{p.name}`)"
    if p.type == "choice":
        return Control("choice", p.title, tip, p.default, options=tuple(p.choices))
    if p.type == "bool":
        return Control("bool", p.title, tip, p.default)
    if p.type == "array":
        return Control("text", p.title, tip, p.default)
    if p.type not in ("int", "float"):  # pragma: no cover - programming error in a registration
        raise TypeError(f"unknown parameter type {p.type!r}")
    integer = p.type == "int"
    low = None if p.low is None else p.low + (1 if integer else 1e-6) * p.low_open
    high = None if p.high is None else p.high - (1 if integer else 1e-3) * p.high_open
    if p.unit == "position" and d is not None:  # a position among the masked columns
        high = d - 1
    if high is None:
        high = INT_CAP if integer else max(10.0, 100 * abs(float(p.default)))
    cast = int if integer else float
    closed = p.low is not None and p.high is not None and not p.low_open and not p.high_open
    return Control("number" if integer or not closed else "slider", p.title, tip, p.default,
                   low=cast(low if low is not None else -high), high=cast(high),
                   step=1 if integer else float_step(p.default), integer=integer)
