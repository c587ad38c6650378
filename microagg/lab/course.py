"""Helpers of the course notebooks: data without identifiers, widgets for k, α, Δ and w, the comparisons the lessons
tabulate, and the course's figures (definitions in docs/methods.md and docs/metrics.md).

The notebooks write the ideas out in numpy; the widget plumbing and the figure code live here, so the cells that
students read stay short.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import aggregate, metrics, partition
from ..base import controls, registry
from ..base.errors import MicroaggError
from ..data import datasets
from ..data.preprocess import Standardizer, as_frame, numeric_matrix, renormalize, standardize
from ..figures import plots
from ..figures.plots import PALETTE
from ..metrics.risk import exact_cells
from ..partition.compiled.warmup import announce_always
from ..privacy.safety import identifiers
from ..release.stages import release_values

DATASETS = ("tarragona", "census", "eia")

# the first call that compiles a partitioning kernel on a machine says so in its cell's output, and when it is done
announce_always(print)


def load(name: str) -> pd.DataFrame:
    """A benchmark data set without the identifiers it declares (EIA's UTILITYID; ``safety.identifiers``), ready
    to mask, plot and compare."""
    df = datasets.load_dataset(name)
    return df.drop(columns=list(identifiers(df)))


# ---------------------------------------------------------------------------------------------------- widgets

def control(name: str, value=None, **options):
    """One widget for a course parameter: ``k``, ``data`` (the benchmark sets), a parameter of P3M or of
    ``evaluate`` (``alpha``, ``delta``, ``w``, SDID's ``p``, ...: drawn from its control, ``base.controls``, with the
    kind, range, step and default of the dashboard's widget), a list of choices (a dropdown) or a bool (a checkbox).
    Sliders and boxes report their value when released (``continuous_update=False``): a dragged slider would
    recompute at every step. ``options`` override the widget's settings."""
    import ipywidgets as widgets

    if isinstance(value, bool):
        return widgets.Checkbox(value=value, description=name.replace("_", " "), **options)
    if isinstance(value, (list, tuple)):
        return widgets.Dropdown(options=list(value), value=value[0], description=name, **options)
    if name == "k":
        spec = dict(value=3, min=2, max=20, description="k", continuous_update=False)
        return widgets.IntSlider(**{**spec, **({} if value is None else {"value": value}), **options})
    if name == "data":
        spec = dict(options=list(DATASETS), value="census", description="data")
        return widgets.Dropdown(**{**spec, **({} if value is None else {"value": value}), **options})
    params = {**metrics.registry.PARAMS, **{p.name: p for p in registry.get_method("aggregate", "p3m").params}}
    if name not in params:
        raise MicroaggError(f"no course control named {name!r}; use k, data, a parameter of P3M or of evaluate "
                            f"({', '.join(sorted(params))}), a list of choices or a bool.")
    return ipywidget(controls.control(params[name]), value, **options)


def ipywidget(c: controls.Control, value=None, **options):
    """The ipywidget of control ``c`` (``base.controls``) at ``value`` (default: the control's); a number outside
    the control's range is refused rather than moved into it."""
    import ipywidgets as widgets

    value = c.default if value is None else value
    spec = dict(description=c.label, tooltip=c.help, style={"description_width": "initial"})
    if c.kind == "choice":
        return widgets.Dropdown(**{**spec, "options": list(c.options), "value": value, **options})
    if c.kind == "bool":
        return widgets.Checkbox(**{**spec, "value": value, "indent": False, **options})
    if c.kind == "text":
        return widgets.Text(**{**spec, "value": value or "", "continuous_update": False, **options})
    if not c.low <= value <= c.high:
        raise MicroaggError(f"{c.label}: {value!r} is outside the control's range {c.low:g}…{c.high:g}.")
    spec |= dict(value=c.clip(value), min=c.low, max=c.high, step=c.step, continuous_update=False)
    if c.kind == "slider":
        kind = widgets.IntSlider if c.integer else widgets.FloatSlider
        return kind(**{**spec, **({} if c.integer else {"readout_format": f".{c.digits}f"}), **options})
    kind = widgets.BoundedIntText if c.integer else widgets.BoundedFloatText
    return kind(**{**spec, **options})


def interact(func, **controls):
    """``ipywidgets.interact`` with the course's controls: every keyword is a parameter of ``func`` and its value
    the initial value (or a list of choices, or a ready widget)."""
    import ipywidgets as widgets

    built = {name: value if isinstance(value, widgets.Widget) else control(name, value)
             for name, value in controls.items()}
    return widgets.interact(func, **built)


# ---------------------------------------------------------------------------------------------------- lessons

def releases(Z, labels, alpha: float = 0.5, delta: float = 0.1, w: float = 0.001) -> dict[str, np.ndarray]:
    """The four aggregations of one partition, in z-scores: mean, renormalized mean (Mortazavi & Jalili 2017,
    Eq. 5), median (Kabir & Wang) and P3M (Mortazavi & Jalili 2017, Eq. 14-18)."""
    mean = aggregate.mean(Z, labels)
    return {"mean": mean, "mean, renormalized": renormalize(mean), "median": aggregate.median(Z, labels),
            "P3M": aggregate.p3m(Z, labels, alpha=alpha, delta=delta, w=w)}


def compare_aggregations(data, labels, alpha: float = 0.5, delta: float = 0.1, w: float = 0.001) -> pd.DataFrame:
    """IL, PIL, DLD (expected value), SDID, SL and the exact cells of the four aggregations of ``data`` (its numeric
    columns, in their own units) on ``labels``, one row each. The loss and risk are on z-scores, as in the report;
    the exact cells on the values as published, in the data's units (docs/metrics.md §4.14), so they are the
    report's and the dashboard's: on z-scores a group mean that equals a member's value can miss it by the last
    bit (Census, MDAV, k = 5: 0.15 % of the cells instead of 0.19 %)."""
    X = numeric_matrix(as_frame(data))
    std = Standardizer.fit(X)
    Z = std.transform(X)
    rows = {}
    for name, Zp in releases(Z, labels, alpha, delta, w).items():
        kind = "p3m" if name == "P3M" else name.split(",")[0]
        published = release_values(X, Zp, labels, registry.get_method("aggregate", kind), {}, std,
                                   exact=name != "mean, renormalized")
        cells, records = exact_cells(X, published)
        rows[name] = {"IL (%)": metrics.information_loss(Z, Zp), "PIL (%)": metrics.pil(Z, Zp),
                      "DLD (%)": metrics.dld(Z, Zp), "SDID (%)": metrics.sdid(Z, Zp),
                      "SL (%)": metrics.satisfaction_level(Z, Zp, delta=delta, w=w),
                      "cells published exactly (%)": cells, "records with an exact cell (%)": records}
    return pd.DataFrame(rows).T


def p3m_objective_split(Z, labels, Zp, alpha: float = 0.5, delta: float = 0.1, w: float = 0.001) -> pd.Series:
    """P3M's objective (Mortazavi & Jalili 2017, Eq. 14) split into its γ term over breaching cells (closer than
    Δ), its γ term over far cells (farther than Δ) and the shift term; γ = (Δ² − (x' − x)²) / (1 − w)."""
    Z, Zp = np.asarray(Z, float), np.asarray(Zp, float)
    gamma = (delta ** 2 - (Zp - Z) ** 2) / (1 - np.asarray(w, float))
    breach = np.abs(Zp - Z) < delta
    shift = Zp - aggregate.mean(Z, labels)  # δ_j, repeated for each of the n_j members
    return pd.Series({"α·Σγ², breaching cells": alpha * (gamma[breach] ** 2).sum(),
                      "α·Σγ², far cells": alpha * (gamma[~breach] ** 2).sum(),
                      "(1 − α)·Σ n_j δ_j²": (1 - alpha) * (shift ** 2).sum()})


def p3m_risk_utility(names=("tarragona", "census", "eia"), ks=(3, 5, 10), alpha: float = 0.5, delta: float = 0.1,
                     w: float = 0.001) -> pd.DataFrame:
    """Renormalized mean against P3M on MDAV (classic) partitions: PIL, DLD (lowest index), SDID, DR and SI
    (Mortazavi & Jalili 2017, Eq. 7-12) and SL, per data set and k."""
    rows = []
    for name in names:
        Z = standardize(load(name))
        for k in ks:
            labels = partition.mdav(Z, k, "classic")
            both = releases(Z, labels, alpha, delta, w)
            for agg in ("mean, renormalized", "P3M"):
                Zp = both[agg]
                dld, sdid, pil = metrics.dld(Z, Zp, rule="lowest_index"), metrics.sdid(Z, Zp), metrics.pil(Z, Zp)
                dr = metrics.dr_mortazavi(dld, sdid)
                rows.append({"data": name, "k": k, "aggregation": agg, "PIL": pil, "DLD": dld, "SDID": sdid,
                             "DR": dr, "SI": metrics.si_mortazavi(dr, pil),
                             "SL": metrics.satisfaction_level(Z, Zp, delta=delta, w=w)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------- figures

def _layout(fig: go.Figure, title: str, height: int = 440) -> go.Figure:
    fig.update_layout(title=title, height=height, margin=dict(l=60, r=20, t=60, b=50), template="plotly_white")
    return fig


def mdav_step(xy: np.ndarray, trace, step: int, names=("x", "y")) -> go.Figure:
    """One step of an MDAV trace (``partition.mdav_steps``): every group formed so far in its own colour (legend
    colours match), the reference point as an open star drawn under the records, record r ringed, its group joined.
    """
    steps, leftovers = trace.steps, set(trace.leftovers.tolist())
    done = np.full(len(xy), -1)
    for g in range(min(step, len(steps))):
        done[[i for i in steps.members[g] if i not in leftovers]] = g
    fig = go.Figure()
    row = steps.iloc[step - 1] if 0 < step <= len(steps) else None
    if row is not None and row.seed >= 0:  # first, so that no record is hidden under the star
        ref = np.asarray(row.reference, dtype=float)
        what = "centroid of the records left" if row.role == "farthest from centroid" else "previous record r"
        fig.add_trace(go.Scatter(x=[ref[0]], y=[ref[1]], mode="markers", name=f"reference: {what}",
                                 marker=dict(size=22, symbol="star-open", color="black", line=dict(width=2))))
    free = done < 0
    fig.add_trace(go.Scatter(x=xy[free, 0], y=xy[free, 1], mode="markers", name="not yet grouped",
                             marker=dict(size=8, color="#bdbdbd")))
    for g in range(done.max() + 1):
        hit = done == g
        fig.add_trace(go.Scatter(x=xy[hit, 0], y=xy[hit, 1], mode="markers", name=f"group {g + 1}",
                                 marker=dict(size=9, color=PALETTE[g % len(PALETTE)])))
    if row is not None and row.seed >= 0:
        seed = row.seed
        for i in row.members:
            if i not in leftovers and i != seed:
                fig.add_trace(go.Scatter(x=[xy[seed, 0], xy[i, 0]], y=[xy[seed, 1], xy[i, 1]], mode="lines",
                                         line=dict(color="#444", width=1), showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=[xy[seed, 0]], y=[xy[seed, 1]], mode="markers", name=f"record {seed}: {row.role}",
                                 marker=dict(size=20, color="rgba(0,0,0,0)", line=dict(color="black", width=2.5))))
    _layout(fig, f"MDAV after {min(step, len(steps))} groups", 480)
    fig.update_layout(xaxis_title=names[0], yaxis_title=names[1], legend=dict(x=1.02, y=1))
    fig.update_yaxes(scaleanchor="x", scaleratio=1)  # equal units: distances look like distances
    return fig


def projection_scatter(xy: np.ndarray, labels, names=("x", "y"), title: str = "Single-axis projection"
                       ) -> go.Figure:
    """The records coloured by group with the projection axis drawn (first principal axis through the centroid,
    Domingo-Ferrer & Mateo-Sanz 2002): the groups are consecutive blocks of the records' positions on it."""
    labels = np.asarray(labels)
    u = partition.univariate.principal_axis(xy)
    c = xy.mean(axis=0)
    s = (xy - c) @ u
    ends = c + np.outer([s.min() - 0.3, s.max() + 0.3], u)
    fig = go.Figure(go.Scatter(x=ends[:, 0], y=ends[:, 1], mode="lines", name="projection axis",
                               line=dict(color="black", dash="dash")))
    feet = c + np.outer(s, u)
    for i in range(len(xy)):  # each record's projection onto the axis
        fig.add_trace(go.Scatter(x=[xy[i, 0], feet[i, 0]], y=[xy[i, 1], feet[i, 1]], mode="lines",
                                 line=dict(color="#ccc", width=1), showlegend=False, hoverinfo="skip"))
    for g in range(labels.max() + 1):
        hit = labels == g
        fig.add_trace(go.Scatter(x=xy[hit, 0], y=xy[hit, 1], mode="markers", name=f"group {g + 1}",
                                 marker=dict(size=9, color=PALETTE[g % len(PALETTE)])))
    _layout(fig, title, 480)
    fig.update_layout(xaxis_title=names[0], yaxis_title=names[1], legend=dict(x=1.02, y=1))
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig


def breach_plot(Z, released: dict[str, np.ndarray], column: int, delta: float, name: str = "") -> go.Figure:
    """Released − original of one attribute in z units against the original, one panel per release, with the
    band ±Δ shaded: the points inside the band are proximity breaches (Mortazavi & Jalili 2017, §4)."""
    x = np.asarray(Z, float)[:, column]
    diffs = [np.asarray(Zp, float)[:, column] - x for Zp in released.values()]
    top = 1.15 * max(3 * delta, *(np.quantile(np.abs(d), 0.95) for d in diffs))  # outliers must not squash the band
    xs = np.quantile(x, [0.01, 0.99])
    xs = xs + np.array([-0.1, 0.1]) * (xs[1] - xs[0])
    fig = make_subplots(rows=1, cols=len(released), shared_yaxes=True, subplot_titles=list(released))
    for i, diff in enumerate(diffs, start=1):
        hit = np.abs(diff) < delta
        for mask, label, colour in ((~hit, "at least Δ away", PALETTE[0]), (hit, "breach: closer than Δ", "#c00")):
            fig.add_trace(go.Scattergl(x=x[mask], y=diff[mask], mode="markers", name=label, legendgroup=label,
                                       showlegend=i == 1, marker=dict(size=5, color=colour, opacity=0.7)),
                          row=1, col=i)
        fig.add_hrect(y0=-delta, y1=delta, fillcolor="#e45756", opacity=0.2, line_width=0, layer="below", row=1,
                      col=i)  # after the traces: plotly skips shapes of a subplot that has no data yet
        fig.update_xaxes(title_text=f"original {name} (z)", range=list(xs), row=1, col=i)
    outside = sum(int(np.sum((np.abs(d) > top) | (x < xs[0]) | (x > xs[1]))) for d in diffs)
    fig.update_yaxes(range=[-top, top])
    fig.update_yaxes(title_text="released − original (z)", row=1, col=1)
    _layout(fig, f"{name}: released − original, the band ±Δ = ±{delta:g} shaded "
                 f"({outside} outlying points beyond the axes)", 420)
    fig.update_layout(legend=dict(orientation="h", y=-0.25))
    return fig


def _label_ends(k_values) -> list[str]:
    """k labels on the first and last point of a line only, so that labels do not overprint."""
    ks = list(k_values)
    return [f"k={k}" if i in (0, len(ks) - 1) else "" for i, k in enumerate(ks)]


def _grow(n: int) -> list[int]:
    """Marker sizes growing along a line: the direction of k without a label on every point."""
    return [6 + 3 * i for i in range(n)]


def ru_map(frame: pd.DataFrame, risk: str = "DLD", utility: str = "IL", series: str = "method",
           panels: str | None = None) -> go.Figure:
    """Risk-utility map (Duncan et al. 2001): one line per ``series`` through k (markers grow with k; the first
    series is labelled at its ends; every point in the hover text), one panel per value of ``panels``; lower-left is
    better."""
    keys = list(dict.fromkeys(frame[panels])) if panels else [None]
    fig = make_subplots(rows=1, cols=len(keys), subplot_titles=[str(p) for p in keys] if panels else None)
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(dict.fromkeys(frame[series]))}
    for col, key in enumerate(keys, start=1):
        part = frame if key is None else frame[frame[panels] == key]
        for j, (name, rows) in enumerate(part.groupby(series, sort=False)):
            rows = rows.sort_values("k")
            fig.add_trace(go.Scatter(x=rows[risk], y=rows[utility], mode="lines+markers+text", name=str(name),
                                     legendgroup=str(name), showlegend=col == 1, cliponaxis=False,
                                     text=_label_ends(rows["k"]) if j == 0 else None, textposition="top right",
                                     customdata=rows["k"], marker=dict(size=_grow(len(rows)), color=colours[name]),
                                     line=dict(color=colours[name]),
                                     hovertemplate=f"{name}, k=%{{customdata}}<br>{risk} %{{x:.2f}} %<br>"
                                                   f"{utility} %{{y:.2f}} %<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text=f"{risk} (%) — risk", row=1, col=col)
    fig.update_yaxes(title_text=f"{utility} (%) — loss", row=1, col=1)
    _layout(fig, f"Risk-utility map: {utility} against {risk} (lower-left is better; markers grow with k)", 460)
    fig.update_layout(legend=dict(orientation="h", y=-0.22))
    return fig


def heatmap(grid: pd.DataFrame, value: str = "SL", rows: str = "k", columns: str = "alpha") -> go.Figure:
    """A value over two parameters (``explore.satisfaction_grid`` output) with the value written in every cell."""
    table = grid.pivot(index=rows, columns=columns, values=value)
    fig = go.Figure(go.Heatmap(z=table.to_numpy(), x=[f"{a:g}" for a in table.columns],
                               y=[str(k) for k in table.index], colorscale="Viridis", colorbar=dict(title=f"{value}"),
                               texttemplate="%{z:.1f}", textfont=dict(size=13),
                               hovertemplate=f"{rows} = %{{y}}, {columns} = %{{x}}: %{{z:.2f}}<extra></extra>"))
    across = "α" if columns == "alpha" else columns
    _layout(fig, f"{value} (%) over {rows} and {across}", 400)
    fig.update_layout(xaxis_title=across, yaxis_title=rows)
    return fig


def gaps(table: pd.DataFrame) -> go.Figure:
    """Ours − published for every cell of a reproduction table (``reproduce.reproduce_*``): one labelled row per cell,
    the difference written next to its dot, green where the cell is reproduced."""
    diff = table["ours"].astype(float) - table["published"].astype(float)
    keys = [c for c in ("table", "row", "data", "k", "w") if c in table and table[c].nunique() > 1]
    label = [" · ".join(str(v) for v in r) for r in table[keys].itertuples(index=False)]
    fig = go.Figure()
    for match, name, colour in ((True, "reproduced", PALETTE[2]), (False, "not reproduced", PALETTE[3])):
        hit = (table["match"] == match).to_numpy()
        if hit.any():
            fig.add_trace(go.Scatter(x=diff[hit], y=np.array(label)[hit], mode="markers+text", name=name,
                                     text=[f"{v:+.4g}" for v in diff[hit]], textposition="middle right",
                                     marker=dict(size=9, color=colour), cliponaxis=False,
                                     customdata=table["published"][hit],
                                     hovertemplate="%{y}: published %{customdata}, ours − published %{x:.4g}"
                                                   "<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="#888")
    _layout(fig, "Ours − published, cell by cell (" + " · ".join(keys) + ")", max(300, 22 * len(table) + 120))
    fig.update_layout(xaxis_title="ours − published (units of the table)", showlegend=True,
                      legend=dict(orientation="h", y=1.02, x=0, yanchor="bottom"),
                      margin=dict(l=60, r=80, t=90, b=50))
    fig.update_yaxes(categoryorder="array", categoryarray=label[::-1], automargin=True)
    return fig


def certificate(result, names=None) -> go.Figure:
    """``plots.p3m_certificate`` with its legend above the plot, clear of the slanted attribute names."""
    fig = plots.p3m_certificate(result, names)
    fig.update_layout(legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"), margin=dict(t=90, b=40))
    return fig
