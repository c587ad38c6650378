"""Plotly figure builders shared by the dashboard and the notebooks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go


def group_sizes(labels, k: int | None = None) -> go.Figure:
    """Bar chart: how many groups have each size (k and 2k-1 marked).

    Per-attribute labels (n x d, individual ranking) count the groups of every attribute.
    """
    lab = np.asarray(labels)
    per_attribute = lab.ndim == 2
    sizes = np.concatenate([np.bincount(col) for col in (lab.T if per_attribute else [lab])])
    values, counts = np.unique(sizes, return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=counts, marker_color="#4c78a8",
                           hovertemplate="size %{x}: %{y} groups<extra></extra>"))
    if k is not None:
        for x, text in ((k, "k"), (2 * k - 1, "2k−1")):
            fig.add_vline(x=x, line_dash="dot", line_color="#888", annotation_text=text)
    title = "Group sizes (the groups of every attribute)" if per_attribute else "Group sizes"
    fig.update_layout(title=title, xaxis_title="records in the group", yaxis_title="groups",
                      bargap=0.2, height=320, margin=dict(l=40, r=20, t=50, b=40))
    fig.update_xaxes(dtick=1)
    return fig


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
