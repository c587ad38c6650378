"""Plotly figure builders shared by the dashboard and the notebooks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def group_sizes(labels, k: int | None = None, bounded: bool = False, max_bars: int = 40) -> go.Figure:
    """Histogram of group sizes: one bar per size while at most ``max_bars`` sizes span the range, else bins of
    equal width. ``k`` is marked, and 2k−1 too when ``bounded`` (the partitioner guarantees sizes k..2k−1,
    ``Method.caps.bounded``).

    Per-attribute labels (n x d, individual ranking) count the groups of every attribute.
    """
    lab = np.asarray(labels)
    per_attribute = lab.ndim == 2
    sizes = np.concatenate([np.bincount(col) for col in (lab.T if per_attribute else [lab])])
    sizes = sizes[sizes > 0]
    width = max(1, int(np.ceil((sizes.max() - sizes.min() + 1) / max_bars)))
    start = sizes.min() - (sizes.min() % width if width > 1 else 0)
    values, counts = np.unique(start + (sizes - start) // width * width, return_counts=True)
    lo = min(sizes.min(), k or sizes.min())
    hi = max(sizes.max(), 2 * k - 1 if k and bounded else sizes.max())
    visible = max(width * 0.9, (hi - lo) / 60)  # a bar stays visible however wide the axis
    if width == 1:
        bar = go.Bar(x=values, y=counts, width=max(0.8, visible), marker_color=PALETTE[0],
                     hovertemplate="size %{x}: %{y} groups<extra></extra>")
    else:
        bar = go.Bar(x=values + (width - 1) / 2, y=counts, width=visible, marker_color=PALETTE[0],
                     customdata=np.column_stack([values, values + width - 1]),
                     hovertemplate="sizes %{customdata[0]}–%{customdata[1]}: %{y} groups<extra></extra>")
    fig = go.Figure(bar)
    marks = [] if k is None else [(k, "k")] + ([(2 * k - 1, "2k−1")] if bounded else [])
    for x, text in marks:
        fig.add_vline(x=x, line_dash="dot", line_color="#555", annotation_text=text,
                      annotation_position="top", annotation_yshift=4)
    title = "Group sizes (the groups of every attribute)" if per_attribute else "Group sizes"
    fig.update_layout(title=title, xaxis_title="records in the group" + ("" if width == 1 else f" (bins of {width})"),
                      yaxis_title="groups", bargap=0.15, height=360)
    fig.update_xaxes(tickformat="d", **({"dtick": 1} if hi - lo <= 15 else {}))
    fig.update_yaxes(tickformat="d", rangemode="tozero", **({"dtick": 1} if counts.max() <= 10 else {}))
    return readable(fig)


def original_vs_protected(original: pd.DataFrame, protected: pd.DataFrame, x: str, y: str,
                          labels=None, max_points: int = 5000) -> go.Figure:
    """Scatter of two attributes: original records (small) and their released group values (large)."""
    n = len(original)
    take = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(int)
    fig = go.Figure()
    fig.add_trace(go.Scattergl(x=original[x].to_numpy()[take], y=original[y].to_numpy()[take], mode="markers",
                               name="original", marker=dict(size=4, color="#9ecae1", opacity=0.7)))
    rel = protected[[x, y]].to_numpy()[take]
    uniq = np.unique(rel, axis=0)
    fig.add_trace(go.Scattergl(x=uniq[:, 0], y=uniq[:, 1], mode="markers", name="released (group values)",
                               marker=dict(size=7, color="#d62728", symbol="x")))
    fig.update_layout(title=f"{y} against {x}", xaxis_title=x, yaxis_title=y, height=420,
                      margin=dict(l=40, r=20, t=50, b=40), legend=dict(orientation="h", y=-0.2))
    return fig


PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d",
           "#79706e"]


def group_colours(groups: np.ndarray) -> dict:
    """Marker colours of ``groups`` as PALETTE indices on a stepped colour scale (group g gets PALETTE[g mod 10]).

    Numeric colours keep a figure of thousands of points fast to build: plotly validates an array of
    colour strings one by one.
    """
    m = len(PALETTE)
    scale = [[edge, c] for i, c in enumerate(PALETTE) for edge in (i / m, (i + 1) / m)]
    return dict(color=np.asarray(groups) % m, colorscale=scale, cmin=-0.5, cmax=m - 0.5, showscale=False)


def readable(fig: go.Figure) -> go.Figure:
    """Room above the plot for its title and a vertical toolbar at the right, so that neither covers the other;
    room below for a horizontal legend."""
    below = 100 if fig.layout.legend.orientation == "h" else 40
    fig.update_layout(title=dict(x=0, xanchor="left", y=0.98, yanchor="top", font=dict(size=16)),
                      modebar=dict(orientation="v"), margin=dict(l=50, r=40, t=60, b=below))
    return fig


def principal_components(Z: np.ndarray, n: int = 2) -> np.ndarray:
    """Scores of the first ``n`` principal components of standardized ``Z`` (sign: largest loading positive)."""
    Zc = Z - Z.mean(axis=0)
    _, _, vt = np.linalg.svd(Zc, full_matrices=False)
    vt = vt[:n] * np.sign(vt[:n][np.arange(min(n, len(vt))), np.abs(vt[:n]).argmax(axis=1)])[:, None]
    return Zc @ vt.T


def spread_groups(xy: np.ndarray, labels: np.ndarray, n: int = 6) -> list[int]:
    """``n`` groups spread over the plot: the ones at evenly spaced ranks of their centroid's x coordinate."""
    counts = np.bincount(labels)
    present = np.flatnonzero(counts)
    cx = np.bincount(labels, weights=xy[:, 0])[present] / counts[present]
    order = present[np.argsort(cx, kind="stable")]
    return sorted({int(order[i]) for i in np.linspace(0, len(order) - 1, min(n, len(order))).astype(int)})


def _outline(points: np.ndarray) -> np.ndarray:
    """Closed convex hull of 2-D ``points`` (the points themselves when fewer than 3 or collinear)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        ring = points[ConvexHull(points).vertices]
    except (QhullError, ValueError):
        ring = points[np.lexsort(points.T[::-1])]
    return np.vstack([ring, ring[:1]])


def partition_scatter(xy: np.ndarray, labels, names=("x", "y"), max_points: int = 4000,
                      title: str = "Records and a few of their groups", highlight=None) -> go.Figure:
    """2-D scatter of records in grey with a handful of groups drawn in colour inside their convex hulls.

    ``highlight`` lists the groups to draw (default: six spread over the plot, ``spread_groups``); colouring
    hundreds of groups with a cycling palette would show nothing. The groups' centroids are small crosses
    (hidden until clicked in the legend when there are more than 50).
    """
    labels = np.asarray(labels)
    lab = labels if labels.ndim == 1 else labels[:, 0]
    n = len(lab)
    take = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(int)
    counts = np.bincount(lab)
    present = counts > 0
    cx = np.bincount(lab, weights=xy[:, 0])[present] / counts[present]
    cy = np.bincount(lab, weights=xy[:, 1])[present] / counts[present]
    groups = spread_groups(xy, lab) if highlight is None else [int(g) for g in highlight]
    fig = go.Figure()
    fig.add_trace(go.Scattergl(x=xy[take, 0], y=xy[take, 1], mode="markers", name="records",
                               marker=dict(size=5, color="#b0b0b0", opacity=0.6),
                               customdata=lab[take], hovertemplate="group %{customdata}<extra></extra>"))
    fig.add_trace(go.Scattergl(x=cx, y=cy, mode="markers", name=f"group centroids ({int(present.sum())})",
                               marker=dict(size=4, color="#777", symbol="x-thin", line=dict(width=1, color="#777")),
                               hoverinfo="skip", visible="legendonly" if len(cx) > 50 else True))
    for i, g in enumerate(groups):
        members = xy[lab == g]
        if not len(members):
            continue
        colour = PALETTE[i % len(PALETTE)]
        ring = _outline(members)
        fig.add_trace(go.Scatter(x=ring[:, 0], y=ring[:, 1], mode="lines", fill="toself",
                                 line=dict(color=colour, width=2), opacity=0.4, showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=members[:, 0], y=members[:, 1], mode="markers", name=f"group {g} ({len(members)})",
                                 marker=dict(size=9, color=colour, line=dict(color="black", width=1))))
    fig.update_layout(title=title, xaxis_title=names[0], yaxis_title=names[1], height=480,
                      legend=dict(orientation="h", y=-0.15))
    readable(fig)
    return fig


def mdav_step(xy: np.ndarray, trace, step: int, names=("x", "y"), title: str = "") -> go.Figure:
    """One step of an MDAV trace on 2-D data: groups formed so far, the reference point, the seed and its group.

    ``trace`` is ``microagg.partition.mdav_steps(xy, k, ...)``; ``step`` counts groups formed (0..m).
    """
    steps = trace.steps
    leftovers = set(trace.leftovers.tolist())
    done = np.full(len(xy), -1)
    for g in range(min(step, len(steps))):
        members = [i for i in steps.members[g] if i not in leftovers]
        done[members] = g
    fig = go.Figure()
    free = done < 0
    fig.add_trace(go.Scatter(x=xy[free, 0], y=xy[free, 1], mode="markers", name="not yet grouped",
                             marker=dict(size=8, color="#c7c7c7")))
    formed = ~free
    fig.add_trace(go.Scatter(x=xy[formed, 0], y=xy[formed, 1], mode="markers", name="grouped",
                             marker=dict(size=8, **group_colours(done[formed])),
                             customdata=done[formed], hovertemplate="group %{customdata}<extra></extra>"))
    if 0 < step <= len(steps):
        row = steps.iloc[step - 1]
        members = [i for i in row.members if i not in leftovers]
        seed = row.seed
        if seed >= 0:
            ref = np.asarray(row.reference, dtype=float)
            what = "centroid of the records left" if row.role == "farthest from centroid" else "previous record r"
            fig.add_trace(go.Scatter(x=[ref[0]], y=[ref[1]], mode="markers", name=f"{what} (reference)",
                                     marker=dict(size=16, color="black", symbol="star")))
            for i in members:
                fig.add_trace(go.Scatter(x=[xy[seed, 0], xy[i, 0]], y=[xy[seed, 1], xy[i, 1]], mode="lines",
                                         line=dict(color="#555", width=1), showlegend=False, hoverinfo="skip"))
            fig.add_trace(go.Scatter(x=[xy[seed, 0]], y=[xy[seed, 1]], mode="markers", name="farthest record",
                                     marker=dict(size=18, color="rgba(0,0,0,0)", line=dict(color="black", width=2))))
    fig.update_layout(title=title or f"MDAV after {step} group(s)", xaxis_title=names[0], yaxis_title=names[1],
                      height=480, legend=dict(orientation="h", y=-0.15))
    readable(fig)
    fig.update_yaxes(scaleanchor="x", scaleratio=1)  # equal units: distances look like distances
    return fig


def masked_vs_original(original: pd.Series, masked: dict[str, pd.Series], attribute: str,
                       breaches: dict[str, np.ndarray] | None = None, max_points: int = 4000) -> go.Figure:
    """Released value against original value of one attribute, one trace per aggregation; y = x is no change.

    ``breaches`` marks, per aggregation, the records whose released value is closer than Δ to the original
    (drawn with a dark outline)."""
    x = original.to_numpy(dtype=float)
    take = np.arange(len(x)) if len(x) <= max_points else np.linspace(0, len(x) - 1, max_points).astype(int)
    fig = go.Figure()
    lo, hi = float(np.min(x)), float(np.max(x))
    fig.add_trace(go.Scattergl(x=[lo, hi], y=[lo, hi], mode="lines", name="unchanged (y = x)",
                               line=dict(color="#999", dash="dot")))
    for i, (title, values) in enumerate(masked.items()):
        hit = np.zeros(len(x), bool) if breaches is None else np.asarray(breaches[title], bool)
        fig.add_trace(go.Scattergl(x=x[take], y=values.to_numpy(dtype=float)[take], mode="markers", name=title,
                                   marker=dict(size=np.where(hit[take], 8, 5), opacity=0.7,
                                               color=PALETTE[i % len(PALETTE)],
                                               line=dict(width=np.where(hit[take], 1.5, 0), color="#222"))))
    fig.update_layout(title=f"{attribute}: released against original", xaxis_title=f"original {attribute}",
                      yaxis_title=f"released {attribute}", height=440, legend=dict(orientation="h", y=-0.18))
    return readable(fig)


def ru_map(frame: pd.DataFrame, risk: str = "DLD", utility: str = "IL",
           frontier: pd.DataFrame | None = None) -> go.Figure:
    """Risk-utility map: one line per method through its k values (``microagg.lab.explore.risk_utility`` output); the
    comparison methods that are not microaggregation (rows without k) dashed through their levels with open
    markers; ``frontier`` (``microagg.lab.explore.pareto_frontier``'s rows) drawn as a grey step line with its points
    ringed (docs/metrics.md §4.24)."""
    fig = go.Figure()
    frame = frame.assign(setting=frame["setting"] if "setting" in frame else [f"k={k}" for k in frame["k"]])
    for i, (method, rows) in enumerate(frame.groupby("method", sort=False)):
        baseline = bool(rows["k"].isna().all())
        rows = rows if baseline else rows.sort_values("k")
        n = len(rows)
        ends = [s.replace(" ", "") if j in (0, n - 1) else "" for j, s in enumerate(rows["setting"])]  # ends only
        colour = PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Scatter(
            x=rows[risk], y=rows[utility], mode="lines+markers+text", cliponaxis=False,
            name=f"{method} (not k-anonymous)" if baseline else method, text=ends,
            textposition=["bottom right" if j == 0 else "top left" for j in range(n)], customdata=rows["setting"],
            marker=dict(size=8, color=colour, symbol="diamond-open" if baseline else "circle"),
            line=dict(color=colour, dash="dash" if baseline else "solid"),
            hovertemplate=f"{method}, %{{customdata}}<br>{risk} %{{x:.2f}} %<br>{utility} %{{y:.2f}} %<extra></extra>"))
    if frontier is not None and len(frontier):
        front = frontier.sort_values([risk, utility])
        fig.add_trace(go.Scatter(x=front[risk], y=front[utility], mode="lines+markers", name="Pareto frontier",
                                 line=dict(color="#444", width=1, shape="hv"),
                                 marker=dict(size=15, symbol="circle-open", color="#444", line=dict(width=2)),
                                 customdata=front["method"] + ", " + front["setting"],
                                 hovertemplate="on the frontier: %{customdata}<extra></extra>"))
    fig.update_layout(title=f"Risk-utility map: {utility} against {risk} (lower-left is better)",
                      xaxis_title=f"{risk} (%) — disclosure risk", yaxis_title=f"{utility} (%) — information loss",
                      height=460, legend=dict(orientation="h", y=-0.18))
    readable(fig)
    return fig


def satisfaction_over_alpha(frame: pd.DataFrame) -> go.Figure:
    """SL of P3M against α, with the renormalized mean's SL as a reference line (``explore`` output)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=frame["alpha"], y=frame["SL P3M"], mode="lines+markers", name="P3M",
                             line=dict(color=PALETTE[3])))
    fig.add_trace(go.Scatter(x=frame["alpha"], y=frame["SL mean (renormalized)"], mode="lines",
                             name="mean (renormalized)", line=dict(color=PALETTE[0], dash="dash")))
    fig.update_layout(title="Satisfaction level SL against α", xaxis_title="α (weight of the owners' Δ wishes)",
                      yaxis_title="SL (%) — higher is better", height=400, legend=dict(orientation="h", y=-0.2))
    return readable(fig)


def satisfaction_heatmap(grid: pd.DataFrame) -> go.Figure:
    """SL of P3M over k (rows) and α (columns) (``explore.satisfaction_grid`` output)."""
    table = grid.pivot(index="k", columns="alpha", values="SL")
    fig = go.Figure(go.Heatmap(z=table.to_numpy(), x=[f"{a:g}" for a in table.columns], y=[str(k) for k in table.index],
                               colorscale="Viridis", colorbar=dict(title="SL (%)"),
                               hovertemplate="k = %{y}, α = %{x}: SL %{z:.2f} %<extra></extra>"))
    fig.update_layout(title="SL of P3M over k and α", xaxis_title="α", yaxis_title="k", height=420,
                      )
    return readable(fig)


def weights_histogram(W: np.ndarray) -> go.Figure:
    """Distribution of the privacy weights w over all cells."""
    fig = go.Figure(go.Histogram(x=np.ravel(W), xbins=dict(start=0, end=1, size=0.025), marker_color=PALETTE[6]))
    fig.update_layout(title="Privacy weights w of the cells", xaxis_title="w", yaxis_title="cells", height=300,
                      bargap=0.05)
    return readable(fig)


def tradeoff_over_k(frame: pd.DataFrame, utility: str = "IL", risk: str = "DLD") -> go.Figure:
    """Information loss (top panel) and disclosure risk (bottom panel) against k, on one k axis: the privacy/utility
    tension, each measure from zero on its own panel (two y axes on one plot would invite comparing heights whose
    scales were chosen apart).

    ``frame`` is ``microagg.lab.explore.risk_utility`` output; one line per method in both panels (rows without k, the
    comparison methods, are left out). With ``risk="DLD"`` (expected value over ties, docs/metrics.md §4.6 b) the
    risk panel draws 100/k, the most a k-anonymous release allows: a record's own row is one of at least k equal
    rows, so a linked intruder picks it with probability at most 1/k. IL is Chettri, Paul & Dutta, Eq. 4.
    """
    frame = frame[frame["k"].notna()]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    for i, (method, rows) in enumerate(frame.groupby("method", sort=False)):
        rows = rows.sort_values("k")
        colour = PALETTE[i % len(PALETTE)]
        for row, value in ((1, utility), (2, risk)):
            fig.add_trace(go.Scatter(x=rows["k"], y=rows[value], mode="lines+markers", name=str(method),
                                     legendgroup=str(method), showlegend=row == 1, line=dict(color=colour),
                                     hovertemplate=f"{method}, k=%{{x}}: {value} %{{y:.2f}} %<extra></extra>"),
                          row=row, col=1)
    if risk == "DLD" and len(frame):
        ks = np.arange(frame["k"].min(), frame["k"].max() + 1)
        fig.add_trace(go.Scatter(x=ks, y=100.0 / ks, mode="lines", name="100/k: the most a k-anonymous release allows",
                                 line=dict(color="#888", dash="dash")), row=2, col=1)
    fig.update_layout(title=f"Larger k: more loss ({utility}, top), less risk ({risk}, bottom)", height=520,
                      margin=dict(l=60, r=20, t=50, b=40), legend=dict(orientation="h", y=-0.15),
                      template="plotly_white")
    fig.update_yaxes(title_text=f"{utility} (%) — loss", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=f"{risk} (%) — risk", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="k", row=2, col=1)
    return fig


def method_comparison(frame: pd.DataFrame, value: str = "IL") -> go.Figure:
    """One bar per run of ``microagg.lab.explore.compare_methods``: ``value`` (e.g. IL, Chettri, Paul & Dutta,
    Tables 1-3)
    with the run time written on the bar; runs whose release is not k-anonymous as whole records are hatched."""
    frame = frame.reset_index(drop=True)
    methods = list(dict.fromkeys(frame["method"]))
    colours = [PALETTE[methods.index(m) % len(PALETTE)] for m in frame["method"]]
    hatch = ["" if ok else "/" for ok in frame["k-anonymous"]]
    text = [f"{s * 1000:.0f} ms" if s < 1 else f"{s:.1f} s" for s in frame["seconds"]]
    fig = go.Figure(go.Bar(x=frame[value], y=frame["run"], orientation="h", text=text, textposition="outside",
                           marker=dict(color=colours, pattern=dict(shape=hatch)),
                           hovertemplate="%{y}: " + value + " %{x:.4f}<br>%{text}<extra></extra>"))
    ks = sorted(set(frame["k"]))
    fig.update_layout(title=f"{value} by method, k = {', '.join(map(str, ks))} (time on the bars; hatched: not "
                            "k-anonymous as whole records)", xaxis_title=value, yaxis=dict(autorange="reversed"),
                      height=max(260, 40 * len(frame) + 100), margin=dict(l=40, r=40, t=50, b=40))
    return fig


def p3m_certificate(result, names=None) -> go.Figure:
    """Relative gap between P3M's objective and its Lagrangian dual bound, per attribute (Mortazavi & Jalili 2017,
    Eq. 14-17).

    ``result`` is ``microagg.aggregate.p3m_solve`` output. Every dual value is a lower bound on the optimum, so a
    gap of (numerically) zero certifies a global optimum; gaps are drawn on a log axis, floored at 1e-16.
    """
    names = [str(t) for t in (range(len(result.status)) if names is None else names)]
    rel = np.maximum(result.gap / np.maximum(np.abs(result.objective), 1.0), 1e-16)
    colour = {"optimal": PALETTE[2], "local": PALETTE[1], "infeasible": PALETTE[3]}
    fig = go.Figure()
    for status in ("optimal", "local", "infeasible"):
        hit = np.array([s == status for s in result.status])
        if hit.any():
            fig.add_trace(go.Bar(x=np.array(names)[hit], y=rel[hit], name=status, marker_color=colour[status],
                                 customdata=np.column_stack([result.objective[hit], result.dual_bound[hit]]),
                                 hovertemplate="%{x}: relative gap %{y:.1e}<br>objective %{customdata[0]:.6f}<br>"
                                               "dual bound %{customdata[1]:.6f}<extra>" + status + "</extra>"))
    fig.update_layout(title="P3M certificate: (objective − dual bound) / objective per attribute",
                      xaxis_title="attribute", yaxis_title="relative gap", yaxis_type="log",
                      yaxis_exponentformat="power", height=380,
                      margin=dict(l=50, r=20, t=50, b=40), legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(categoryorder="array", categoryarray=names)
    return fig
