"""The Aggregation tab: the same partition aggregated by every registered aggregation, compared, with the cells
that breach Δ."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ...base.errors import MicroaggError
from ...base.registry import methods
from ...figures import plots
from ...metrics.privacy import breaches
from ..cache import Result, overall, release
from ..sidebar import Setup
from .common import looks_like_identifier, table_height


def tab_aggregation(s: Setup, r: Result) -> None:
    st.write("The same partition, aggregated by every registered aggregation (default parameters for the ones not "
             "selected in the sidebar). A **breach** is a released value closer than Δ to its original: the "
             "owner's wish not met, which P3M tries to avoid.")
    rows, released, left_out = [], {}, []
    for m in methods("aggregate"):
        try:
            # the same specification as the main release for the selected aggregation: a cache hit
            held = release(s.df, s.spec_for(m), r.labels)
            summary, _ = held.summary(s.ekey)
        except MicroaggError as exc:
            if m.name == s.agg.name:  # what the user chose: a warning; another one's defaults: a note below
                st.warning(f"{m.title}: {exc.shown}")
            else:
                left_out.append(m.title)
            continue
        breach = breaches(r.Z, held.rel.Zp, s.privacy["delta"], s.privacy["relative"])
        released[m.title] = (held.in_order, breach)
        v = overall(summary)
        rows.append({"aggregation": m.title, "IL (%)": float(v["IL"]), "IL of the group means (%)":
                     float(v["partition IL"]), "cells breaching Δ (%)": 100.0 * breach.mean(), "SL (%)": float(v["SL"]),
                     "cells published exactly (%)": float(v["exact cells"]),
                     "records with an exact cell (%)": float(v["exact records"]),
                     "k-anonymous": bool(v["k-anonymous"])})
    percent = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=table_height(len(rows)),
                 column_config={c: percent for c in rows[0] if c.endswith("(%)")} if rows else None)
    if left_out:
        st.caption(f"Not compared: {', '.join(left_out)}; with its defaults it cannot aggregate this partition "
                   "(e.g. it needs bounds typed by you, or a partition of its own). Choose it in the sidebar to set "
                   "it up.")
    privacy = s.privacy
    where = ("from the sidebar" if s.privacy_source is s.agg
             else f"{s.privacy_source.title} default; choose it to change Δ")
    relative = " × |x|" if privacy.get("relative") else ""
    aggregation_plot(r.released.rel.original, s.masked, r.Z, released,  # the records released (docs/methods.md §8.8)
                     f"Δ = {privacy['delta']}{relative} in z units ({where}); "
                     "breaching cells are drawn with a dark outline.")


@st.fragment
def aggregation_plot(df: pd.DataFrame, masked: list, Z: np.ndarray, released: dict, caption: str) -> None:
    if st.session_state.get("agg-attr", masked[0]) not in masked:
        del st.session_state["agg-attr"]
    plain = [c for c in masked if not looks_like_identifier(df[c])] or masked
    attr = st.selectbox("attribute", masked, key="agg-attr", index=masked.index(plain[0]))
    t = masked.index(attr)
    st.plotly_chart(plots.masked_vs_original(df[attr], {title: p[attr] for title, (p, _) in released.items()}, attr,
                                             breaches={title: b[:, t] for title, (_, b) in released.items()}),
                    width="stretch")
    st.caption(caption)
