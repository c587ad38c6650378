"""Combined scores: disclosure risk and scoring indices from their components (all in %, lower is better).

Mortazavi & Jalili 2017 (Eq. 12, §2.3): DR = (DLD + SDID) / 2 with DLD by the lowest-index rule (Eq. 7) and SDID
at 5 % of the sd (Eq. 8); IL = PIL (Eq. 11); SI = (DR + IL) / 2.
Oommen & Fayyoumi 2010 (Eq. 7-8): G_DR = (RLD + ID) / 2 with RLD a record linkage on the key variables and ID
interval disclosure of the record's own masked values; SI = x G_IL + (1 - x) G_DR, x = 0.5
(docs/metrics.md §4.9-4.10).
"""

from __future__ import annotations

import numbers

from ..base.errors import MicroaggError
from ..base.rows import LOWER
from .registry import Metric, register


def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise MicroaggError(f"'{name}' must be a number; got {value!r}.")
    return float(value)


def dr_mortazavi(dld: float, sdid: float) -> float:
    """DR = (DLD + SDID) / 2 (Mortazavi & Jalili 2017, §2.3, used in Eq. 12)."""
    return (_number(dld, "dld") + _number(sdid, "sdid")) / 2.0


def si_mortazavi(dr: float, il: float) -> float:
    """SI = (DR + IL) / 2 (Mortazavi & Jalili 2017, Eq. 12), IL being PIL."""
    return (_number(dr, "dr") + _number(il, "il")) / 2.0


def g_dr(rld: float, id_: float) -> float:
    """G_DR = (RLD + ID) / 2 (Oommen & Fayyoumi 2010, Eq. 7)."""
    return (_number(rld, "rld") + _number(id_, "id_")) / 2.0


def si_oommen(g_il: float, g_dr: float, x: float = 0.5) -> float:
    """SI = x G_IL + (1 - x) G_DR (Oommen & Fayyoumi 2010, Eq. 8), x in [0, 1]."""
    x = _number(x, "x")
    if not 0 <= x <= 1:
        raise MicroaggError(f"'x' (weight of G_IL in SI) must lie in [0, 1]; got {x!r}.")
    return x * _number(g_il, "g_il") + (1 - x) * _number(g_dr, "g_dr")


_MJ, _OF = "docs/metrics.md §4.9", "docs/metrics.md §4.10"
_NEEDS = ("metrics",)


@register(
    Metric("DR (Mortazavi & Jalili 2017)", "Disclosure risk", "combined", "%", LOWER, "Mortazavi & Jalili 2017, §2.3",
           "(DLD lowest index + SDID)/2.", _MJ, ("p",), _NEEDS),
    Metric("SI (Mortazavi & Jalili 2017)", "Scoring index", "combined", "%", LOWER, "Mortazavi & Jalili 2017, Eq. 12",
           "(DR (Mortazavi & Jalili 2017) + PIL)/2.", _MJ, ("p",), _NEEDS),
)
def _mortazavi(ctx) -> dict:
    dr = _defined(dr_mortazavi, ctx.value("DLD lowest index"), ctx.value("SDID"))
    si = float("nan") if ctx.constant else _defined(si_mortazavi, dr, ctx.value("PIL"))
    return {"DR (Mortazavi & Jalili 2017)": dr, "SI (Mortazavi & Jalili 2017)": si}


def _defined(score, *parts) -> float:
    """``score(*parts)``, or NaN when a part is NaN (a component the report could not compute: its row says why)."""
    return float("nan") if any(p != p for p in parts) else score(*parts)


@register(
    Metric("G_DR", "Global disclosure risk", "combined", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 7", "(RLD + ID)/2.",
           _OF, ("keys", "p"), _NEEDS),
    Metric("SI (Oommen & Fayyoumi 2010)", "Scoring index", "combined", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 8",
           "x·G_IL + (1 - x)·G_DR.", _OF, ("keys", "p", "si_weight"), _NEEDS),
)
def _oommen(ctx) -> dict:
    gdr = _defined(g_dr, ctx.value("RLD"), ctx.value("ID"))
    return {"G_DR": gdr,
            "SI (Oommen & Fayyoumi 2010)": _defined(si_oommen, ctx.value("G_IL"), gdr, ctx.params["si_weight"])}
