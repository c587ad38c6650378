"""The Risk & utility tab: every metric of the report by family, and the risk-utility map over k."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ...base.errors import MicroaggError
from ...base.registry import DIFFERENTIAL_PRIVACY, methods
from ...base.said import caught
from ...figures import plots, tables
from ...lab.baselines import BASELINES
from ...lab.explore import pareto_frontier, risk_utility
from ...metrics import registry as metric_registry
from ...metrics.risk import RULE_TITLES
from ..cache import Result
from ..sidebar import Setup
from ..state import initial, inside, remember
from .common import stale_note, table_height


def metric_tables(report: pd.DataFrame) -> None:
    described = metric_registry.metric_table().set_index("metric")
    shown = tables.formatted(report[report["attribute"] == "all"]).set_index("metric")
    names = [m for m in shown.index if m in described.index]
    table = pd.DataFrame({
        "family": described.loc[names, "family"].to_numpy(),
        "metric": [described.loc[m, "title"] + (f" ({m})" if m != described.loc[m, "title"] else "") for m in names],
        "value": shown.loc[names, "value"].to_numpy(),
        "unit": shown.loc[names, "unit"].to_numpy(),
        "better": shown.loc[names, "direction"].str.replace(" is better", "").to_numpy(),
        "what it measures": described.loc[names, "summary"].to_numpy(),
        "source": described.loc[names, "source"].to_numpy(),
    })
    config = {"value": st.column_config.TextColumn(width="small"), "unit": st.column_config.TextColumn(width="small"),
              "better": st.column_config.TextColumn(width="small"),
              "metric": st.column_config.TextColumn(width="medium")}
    for family in [f for f in metric_registry.FAMILIES if f in set(table["family"])]:
        part = table[table["family"] == family]
        st.markdown(f"**{family.capitalize()}**")
        st.dataframe(part[["metric", "value", "unit", "better"]], hide_index=True, width="stretch",
                     height=table_height(len(part), cap=24), column_config=config)
    about = st.expander("What each metric measures, and where it comes from", key="about-open", on_change="rerun")
    if about.open:
        about.dataframe(table[["metric", "what it measures", "source"]], hide_index=True, width="stretch",
                     height=table_height(len(table)))


def tab_risk(s: Setup, r: Result) -> None:
    metric_tables(r.report())
    st.subheader("Risk-utility map")
    st.write("How information loss and disclosure risk move together as k grows: each point is one release; "
             "lower-left is better. Computed when you press the button. Noise addition and rank swapping, masking "
             "methods that are not microaggregation (their releases are not k-anonymous), are drawn dashed for "
             "comparison; the ringed points are the Pareto frontier, the releases no other beats on both axes "
             "(docs/metrics.md §4.24).")
    if s.cats:
        st.caption("The map masks the numeric columns only: the categorical ones go through heterogeneous MDAV "
                   "alone, whose release is the one above (its changed categories are in the utility table).")
    if s.agg.caps.privacy == DIFFERENTIAL_PRIVACY:
        st.info(f"The map compares partitioning methods under one aggregation; '{s.agg.title}' adds noise calibrated "
                "to insensitive partitions only (docs/methods.md §7), so it has no map here. Notebook 4 draws IL and "
                "DLD against ε for it; choose another aggregation to see the map.")
        return
    ru_map(s)


def ru_sweep(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, runs: tuple, aggregation: str,
             p: float, rule: str, baselines: tuple = ()):
    """``runs``: (method, its parameters as a sorted tuple) pairs; ``baselines``: names of comparison methods. The
    map and what its runs said (warnings), for this session only."""
    bar = st.progress(0.0, text="Computing the risk-utility map…")
    titles = {m.name: m.title for m in methods("partition")}  # (the map's legend and table name each by its title)
    labelled = {titles[m]: (m, dict(mp)) for m, mp in runs}
    frame, notes = caught(risk_utility, df, ks, labelled, aggregation, list(columns), p=p,
                          dld_rule=rule, confidential=list(confidential) or None, baselines=list(baselines),
                          progress=lambda f, msg: bar.progress(f, text=f"Computing the risk-utility map: {msg}"),
                          own=True)
    bar.empty()
    return frame, notes


@st.fragment
def ru_map(s: Setup) -> None:
    r1, r2, r3 = st.columns([2, 2, 1])
    titles = {m.name: m.title for m in methods("partition")}
    ru_methods = r1.multiselect("methods", list(titles), key="ru-methods", format_func=titles.get,
                                **initial("ru-methods", "default", [s.part.name]))
    remember("ru-methods", ru_methods)
    compare = remember("ru-baselines", r1.multiselect(
        "comparison methods (not microaggregation)", list(BASELINES), key="ru-baselines",
        format_func=lambda b: BASELINES[b].title,
        **initial("ru-baselines", "default", list(BASELINES))))
    top = min(30, len(s.df))
    inside("ru-k", top)
    k_lo, k_hi = remember("ru-k", r2.slider("k from … to", 2, max(3, top), key="ru-k",
                                            **initial("ru-k", "value", (2, min(15, top)))))
    k_hi = min(k_hi, top)
    axes_pair = r3.selectbox("axes", ["IL vs DLD", "PIL vs DLD", "IL vs SDID", "PIL vs SDID"], key="ru-axes")
    ks = tuple(sorted({k_lo, k_hi, *range(k_lo, k_hi + 1, max(1, (k_hi - k_lo) // 7))}))
    runs = tuple((m, s.mkey if m == s.part.name else ()) for m in ru_methods)  # the sidebar's parameters
    now = (s.data_expr, len(s.df), tuple(s.masked), tuple(s.confidential), ks, runs, s.agg.name,
           float(s.eparams["p"]), s.dld_rule, tuple(compare))
    if st.button("Compute the map", key="ru-go", disabled=not ru_methods):
        try:
            frame, notes = ru_sweep(s.df, tuple(s.masked), tuple(s.confidential), ks, runs, s.agg.name,
                                    float(s.eparams["p"]), s.dld_rule, tuple(compare))
        except MicroaggError as exc:
            st.error(exc.shown)
            return
        st.session_state["ru-result"] = (now, frame, s.part.title, RULE_TITLES[s.dld_rule], float(s.eparams["p"]),
                                         notes)
    if "ru-result" not in st.session_state:
        return
    shown_for, frame, method, rule, p, notes = st.session_state["ru-result"]
    stale_note("map", shown_for, now)
    utility_name, risk_name = axes_pair.split(" vs ")
    st.plotly_chart(plots.ru_map(frame, risk=risk_name, utility=utility_name,
                                 frontier=pareto_frontier(frame, risk_name, utility_name)), width="stretch")
    number = st.column_config.NumberColumn(format="%.2f")
    shown = frame.assign(k=frame["k"].astype("string").fillna("—"))  # comparison methods have no k
    st.dataframe(shown, hide_index=True, width="stretch", height=table_height(len(frame)),
                 column_config={c: number for c in ("IL", "PIL", "DLD", "SDID")} |
                 {"seconds": st.column_config.NumberColumn(format="%.3f"),
                  "setting": st.column_config.TextColumn(width="medium")})
    st.caption(f"DLD rule: {rule}; SDID interval p = {p:g} % of the sd (sidebar, Metrics); {method} with the "
               "sidebar's parameters. Comparison methods (no k; 'setting' is their level, docs/methods.md §6) are "
               "drawn with seed 0 and are never k-anonymous.")
    if notes:
        with st.expander(f"What the map's runs said ({len(notes)})"):
            st.markdown("\n".join(f"- {note}" for note in notes))
