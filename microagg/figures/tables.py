"""A release report as people read it: values formatted by unit, and a short headline of it.

Shared by the dashboard and the command line (``python -m microagg run`` prints the compact form).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

# the report's overall rows a reader looks at first, in this order (docs/metrics.md defines them)
HEADLINE = ("IL", "IL (observed cells)", "IL (weighted)", "PIL", "DLD", "DLD (partial distances)", "ID", "RLD", "SL",
            "exact cells", "changed categories", "ordinal shift", "groups", "smallest group", "largest group",
            "smallest equivalence class", "k-anonymous")
COUNTS = {"groups", "pairs", "cells"}  # units whose values are counts
# divided by the total variance: NaN when every record is identical (SST = 0)
OVER_SST = {"IL", "partition IL", "IL1s", "PIL"}
UNDEFINED = "undefined (every record identical)"
NOT_COMPUTED = "not computed"  # begins the source of a metric's row that float64 could not compute (NaN value)
HUGE = 1e15  # from here on a number is written with an exponent (its digits would not be significant)


def format_value(value, unit: str = "") -> str:
    """``value`` as text for its ``unit``: counts as integers with thousands separators, percentages to two
    decimals, whole numbers as integers, other numbers to four significant digits without an exponent unless
    tiny or huge (from 1e15 on); infinities as ``inf``; text unchanged."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, int):  # exact, however large
        return f"{value:,}"
    v = float(value)
    if v != v:
        return "n/a"
    if not np.isfinite(v):
        return "inf" if v > 0 else "-inf"
    if abs(v) >= HUGE:
        return f"{v:.4g}"
    if unit in COUNTS or isinstance(value, numbers.Integral) or (unit != "%" and v.is_integer()):
        return f"{round(v):,}"
    if unit == "%":
        return f"{v:.2f}"
    if v == 0:
        return "0"
    if abs(v) < 1e-4:
        return f"{v:.1e}"
    decimals = max(0, 3 - int(np.floor(np.log10(abs(v)))))
    text = f"{v:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def formatted(report: pd.DataFrame) -> pd.DataFrame:
    """``report`` with its ``value`` column as text formatted by unit; IL and the measures divided by the total
    variance read "undefined" when every record is identical, a metric float64 could not compute "not computed"
    (the reason is in its ``source``), and these two have no unit."""
    out = report.copy()
    out["value"] = [NOT_COMPUTED if v != v and str(s).startswith(NOT_COMPUTED) else
                    UNDEFINED if m in OVER_SST and v != v else format_value(v, u)
                    for m, v, u, s in zip(report["metric"], report["value"], report["unit"],
                                          report.get("source", pd.Series("", index=report.index)))]
    out["unit"] = out["unit"].where(~out["value"].isin([NOT_COMPUTED, UNDEFINED]), "")
    return out


def overall(report: pd.DataFrame) -> pd.DataFrame:
    """The report's rows over all attributes (``attribute == "all"``): metric, value, unit, formatted."""
    rows = formatted(report[report["attribute"] == "all"])
    return rows[["metric", "value", "unit"]].reset_index(drop=True)


def headline(report: pd.DataFrame) -> pd.DataFrame:
    """The ``HEADLINE`` metrics of ``report`` that it has, formatted: metric, value, unit, direction."""
    rows = formatted(report[report["attribute"] == "all"]).set_index("metric")
    shown = [m for m in HEADLINE if m in rows.index]
    return rows.loc[shown, ["value", "unit", "direction"]].reset_index()


def overall_text(report: pd.DataFrame, width: int = 100) -> str:
    """The overall rows as aligned lines of at most ``width`` characters (long text values are shortened)."""
    rows = overall(report)
    name = max(len(m) for m in rows["metric"])
    room = width - name - 12
    lines = []
    for metric, value, unit in rows.itertuples(index=False):
        text = value if len(value) <= room else value[:room - 1] + "…"
        lines.append(f"{metric:<{name}}  {text:>9} {unit}".rstrip())
    return "\n".join(lines)
