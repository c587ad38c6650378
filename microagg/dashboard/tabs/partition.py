"""The Partition tab: the records and some of their groups, the group sizes, and MDAV step by step."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ...base.registry import get_method
from ...data.preprocess import standardize
from ...figures import plots
from ..cache import Result, figure, pcs, steps
from ..sidebar import Setup
from ..state import clamp, initial, moved_note, remember
from .common import looks_like_identifier


def tab_partition(s: Setup, r: Result) -> None:
    left, right = st.columns([3, 2])
    with left:
        partition_scatter(s.masked, r.Z, r.labels)
    with right:
        st.plotly_chart(figure("group_sizes", r.labels, s.k, bounded=s.part.caps.bounded), width="stretch")
        if s.part.caps.bounded:
            st.caption(f"{s.part.title} keeps every group between k = {s.k} and 2k−1 = {2 * s.k - 1} records.")
        else:
            st.caption(f"{s.part.title} does not bound group sizes by 2k−1: only the minimum k = {s.k} holds"
                       + ("" if s.part.record_level else " (for each attribute on its own)") + ".")
    demo = st.expander("MDAV step by step (a small sample, two attributes)", key="demo-open", on_change="rerun")
    if demo.open:  # built only while open
        with demo:
            mdav_demo(s.df, s.masked, s.k, s.mparams.get("variant") if s.part.name == "mdav" else None)


@st.fragment
def partition_scatter(masked: list, Z: np.ndarray, labels: np.ndarray) -> None:
    a, b, c = st.columns([2, 1, 1])
    axes = a.radio("Axes", ["first two principal components", "two attributes"], horizontal=True, key="axes")
    if axes == "two attributes" and len(masked) >= 2:
        x = b.selectbox("x", masked, index=0, key="axis-x")
        y = c.selectbox("y", masked, index=1, key="axis-y")
        xy, names = Z[:, [masked.index(x), masked.index(y)]], (f"{x} (z)", f"{y} (z)")
    else:
        xy = pcs(Z) if len(masked) >= 2 else np.column_stack([Z[:, 0], np.zeros(len(Z))])
        names = ("PC1", "PC2") if len(masked) >= 2 else (f"{masked[0]} (z)", "")
    lab = labels if labels.ndim == 1 else labels[:, 0]
    groups = int(lab.max()) + 1
    old = clamp("group-pick", -1, groups - 1)
    picked = remember("group-pick", st.number_input(
        "Outline one group (its number)", min_value=-1, max_value=groups - 1, step=1, key="group-pick",
        help="−1: six groups spread over the plot.", **initial("group-pick", "value", -1)))
    moved_note("Outline one group", old, -1, groups - 1)
    highlight = None if picked < 0 else [int(picked)]
    title = ("Records and six of their groups" if highlight is None else f"Records and group {picked}") + \
        ("" if labels.ndim == 1 else " (groups of the first attribute)")
    st.plotly_chart(figure("partition_scatter", xy, labels, names, title=title, highlight=highlight), width="stretch")


@st.fragment
def mdav_demo(df: pd.DataFrame, masked: list, k: int, variant: str | None) -> None:
    st.write("MDAV repeatedly takes the record **farthest from the centroid** of the records not yet grouped "
             "and groups it with its k−1 nearest neighbours; then the record farthest from that one, and the "
             "same again. Step through it on a sample of records.")
    n = len(df)
    low, high = min(n, max(2 * k, 10)), min(n, max(200, 2 * k))
    old = clamp("demo-size", low, high)
    s1, s2, s3 = st.columns(3)
    size = remember("demo-size", int(s1.number_input(
        "sample size", min_value=low, max_value=high, key="demo-size",
        help=f"At least 2k = {2 * k} records (when the data has them).",
        **initial("demo-size", "value", min(high, max(40, 2 * k))))))
    moved_note("Sample size", old, low, high)
    variants = get_method("partition", "mdav").param("variant").choices
    chosen = s2.selectbox("variant", variants, index=variants.index(variant or "generic"),
                          key=f"demo-variant:{variant}", help="The sidebar's MDAV variant when MDAV is the method.")
    plain = [c for c in masked if not looks_like_identifier(df[c])] or masked
    if any(c not in masked for c in st.session_state.get("demo-pair", [])):
        del st.session_state["demo-pair"]
    pair = s3.multiselect("attributes", masked, max_selections=2, key="demo-pair", **initial("demo-pair", "default",
                                                                                             plain[:2]),
                          help="Identifier-like columns (a name ending in 'id', or record numbers) are not "
                               "chosen by default.")
    if len(pair) != 2:
        st.info("Pick two attributes.")
        return
    rows = np.linspace(0, n - 1, min(size, n)).astype(int)
    sample = standardize(df[pair].iloc[rows])
    trace = steps(sample, k, chosen)
    clamp("demo-step", 0, max(1, len(trace.steps)))
    step = st.slider("groups formed", 0, max(1, len(trace.steps)), key="demo-step",
                     **initial("demo-step", "value", min(1, len(trace.steps))))
    title = f"MDAV ({chosen}), k = {k}, {len(rows)} records: {min(step, len(trace.steps))} of {len(trace.steps)} groups"
    st.plotly_chart(plots.mdav_step(sample, trace, step, (f"{pair[0]} (z)", f"{pair[1]} (z)"), title=title),
                    width="stretch")
    if 0 < step <= len(trace.steps):
        row = trace.steps.iloc[step - 1]
        if row.seed >= 0:
            st.caption(f"Step {step}: {row['remaining']} records left; record {rows[row.seed]} is the "
                       f"{row.role} (star) and takes its {k - 1} nearest neighbours.")
        else:
            st.caption(f"Step {step}: the last {row['remaining']} records form the final group.")
