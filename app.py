"""microagg dashboard: pick data, k, a partitioning method and an aggregation; see what it costs.

Run with ``streamlit run app.py``. UI only: every computation is a call into ``microagg``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import microagg as ma
from microagg import plots
from microagg.registry import Param, methods

st.set_page_config(page_title="microagg", layout="wide")


@st.cache_resource(show_spinner="Compiling the MDAV kernel (first start only, about 20 s)…")
def warm_up() -> bool:
    ma.partition.mdav(np.arange(12.0).reshape(6, 2), 2)
    return True


@st.cache_data(show_spinner=False)
def load(name: str) -> pd.DataFrame:
    return ma.load_dataset(name)


@st.cache_data(show_spinner="Microaggregating…")
def run(df: pd.DataFrame, k: int, method: str, aggregation: str, columns: tuple, params: tuple):
    rel = ma.microaggregate(df, k, method=method, aggregation=aggregation, columns=list(columns), **dict(params))
    return rel.protected, rel.labels, rel.report()


def widget(p: Param, key: str):
    """A widget for one registered parameter."""
    label = f"{p.name}"
    if p.type == "choice":
        return st.selectbox(label, p.choices, index=p.choices.index(p.default), help=p.help, key=key)
    if p.type == "bool":
        return st.checkbox(label, value=p.default, help=p.help, key=key)
    if p.type == "int":
        return int(st.number_input(label, value=int(p.default), step=1, help=p.help, key=key,
                                   min_value=None if p.low is None else int(p.low),
                                   max_value=None if p.high is None else int(p.high)))
    if p.type == "float":
        return float(st.number_input(label, value=float(p.default), help=p.help, key=key, format="%g",
                                     min_value=None if p.low is None else float(p.low),
                                     max_value=None if p.high is None else float(p.high)))
    return p.default  # array-valued parameters keep their default here


warm_up()
st.title("microagg — microaggregation lab")
st.caption("Partition numeric records into groups of at least k, publish a group value instead of each "
           "record, and see what it costs in information loss.")

with st.sidebar:
    st.header("Data")
    info = ma.list_datasets()
    bundled = info[info.kind == "benchmark"].name.tolist()
    source = st.radio("Source", ["bundled data set", "upload a CSV"], horizontal=True)
    if source == "bundled data set":
        name = st.selectbox("Data set", bundled, index=bundled.index("census"))
        df = load(name)
        st.caption(info.set_index("name").loc[name, "description"])
    else:
        up = st.file_uploader("CSV file with a header row", type="csv")
        if up is None:
            st.info("Upload a CSV file to start.")
            st.stop()
        try:
            df = pd.read_csv(up)
        except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
            st.error(f"Cannot read this file: {exc}")
            st.stop()
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
    columns = st.multiselect("Columns to mask", numeric, default=numeric,
                             help="Only numeric columns can be microaggregated; the others are dropped.")

    st.header("Microaggregation")
    k = int(st.number_input("k (minimum group size)", min_value=2, max_value=max(2, len(df)), value=min(5, len(df)),
                            step=1))
    parts = {m.title: m for m in methods("partition")}
    part = parts[st.selectbox("Partitioning method", list(parts))]
    st.caption(f"{part.summary} — {part.source}")
    params = {p.name: widget(p, f"p-{part.name}-{p.name}") for p in part.params}
    aggs = {m.title: m for m in methods("aggregate")}
    agg = aggs[st.selectbox("Aggregation", list(aggs))]
    st.caption(f"{agg.summary} — {agg.source}")
    params.update({p.name: widget(p, f"a-{agg.name}-{p.name}") for p in agg.params})

if not columns:
    st.warning("Select at least one numeric column to mask.")
    st.stop()
try:
    protected, labels, report = run(df, k, part.name, agg.name, tuple(columns), tuple(sorted(params.items())))
except ma.MicroaggError as exc:
    st.error(str(exc))
    st.stop()

values = report.set_index("metric")["value"]
c1, c2, c3, c4 = st.columns(4)
c1.metric("Information loss (IL)", f"{float(values['IL']):.3f} %", help="100·SSE/SST on z-scores (seed 003 Eq. 4)")
c2.metric("Groups", int(values["groups"]))
c3.metric("Smallest group", int(values["smallest group"]))
c4.metric("k-anonymous", "yes" if bool(values["k-anonymous"]) else "NO")

left, right = st.columns(2)
with left:
    st.plotly_chart(plots.group_sizes(labels, k), width="stretch")
with right:
    if len(columns) >= 2:
        x = st.selectbox("x attribute", columns, index=0)
        y = st.selectbox("y attribute", columns, index=1)
        st.plotly_chart(plots.original_vs_protected(df, protected, x, y), width="stretch")
    else:
        st.info("Select two or more columns to see original and released values side by side.")

st.subheader("Protected data")
st.dataframe(protected, height=300)
st.download_button("Download the release (CSV)", protected.to_csv(index=False).encode(), file_name="release.csv",
                   mime="text/csv")
with st.expander("Full report"):
    st.dataframe(report.astype({"value": str}), hide_index=True)
