"""microagg dashboard: pick data, k, a partitioning method and an aggregation; see what it costs.

Run with ``streamlit run app.py``. UI only: every computation is a call into ``microagg``,
every figure comes from ``microagg.plots``, and every widget for a method parameter is
built from the registry.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import streamlit as st

import microagg as ma
from microagg import plots, recipe
from microagg.advice import scale_hint
from microagg.explore import risk_utility, satisfaction_grid, satisfaction_over_alpha
from microagg.io import read_csv, write_csv
from microagg.metrics import registry as metric_registry
from microagg.metrics.privacy import PRIVACY_KEYS, breaches, resolve_weights, sl_arguments
from microagg.metrics.risk import RULE_TITLES, RULES
from microagg.registry import Param, get_method, methods

MAX_UPLOAD_MB = 50  # also set as server.maxUploadSize in .streamlit/config.toml
MAX_RECORDS = 200_000

st.set_page_config(page_title="microagg", layout="wide")


# --------------------------------------------------------------------------- cached stages


@st.cache_resource(show_spinner="Preparing the MDAV kernel (compiled once per machine, then cached)…")
def warm_up() -> bool:
    """Compile MDAV before the first page, then the other methods in the background (numba caches them on disk),
    so that choosing one later does not pause on its compilation."""
    ma.partition.mdav(np.arange(12.0).reshape(6, 2), 2)
    threading.Thread(target=compile_the_others, daemon=True).start()
    return True


def compile_the_others() -> None:
    Z = np.random.default_rng(0).standard_normal((40, 3))
    for m in methods("partition"):
        if m.name != "mdav" and not m.uses_roles:
            m.func(Z, 3)


@st.cache_data(show_spinner=False)
def load(name: str, **kwargs) -> pd.DataFrame:
    return ma.load_dataset(name, **kwargs)


@st.cache_data(show_spinner="Partitioning…")
def partition(df: pd.DataFrame, columns: tuple, confidential: tuple, k: int, method: str, params: tuple,
              strata: tuple = ()) -> np.ndarray:
    return ma.microaggregate(df, k, method=method, columns=list(columns), confidential=list(confidential) or None,
                             strata=list(strata), method_params=dict(params)).labels


@st.cache_data(show_spinner="Aggregating and evaluating…")
def release(df: pd.DataFrame, columns: tuple, confidential: tuple, keep: tuple, k: int, method: str, mparams: tuple,
            aggregation: str, aparams: tuple, labels: np.ndarray, eparams: tuple = (), keys: tuple = (),
            strata: tuple = ()):
    """The published table, the same in input order (for the plots), the report, Z, Z' and the parameters."""
    import warnings

    with warnings.catch_warnings():  # the dashboard shows these facts from the report instead
        warnings.simplefilter("ignore", UserWarning)
        rel = ma.microaggregate(df, k, method=method, aggregation=aggregation, columns=list(columns),
                                confidential=list(confidential) or None, keep=list(keep), keys=list(keys),
                                strata=list(strata), method_params=dict(mparams), aggregation_params=dict(aparams),
                                labels=labels)
    return rel.protected, rel.in_input_order(), rel.report(**dict(eparams)), rel.Z, rel.Zp, rel.params


@st.cache_data(show_spinner="Solving P3M over α…")
def sl_alpha(Z: np.ndarray, labels: np.ndarray, alphas: tuple, privacy: tuple):
    return satisfaction_over_alpha(Z, labels, alphas, **dict(privacy))


@st.cache_data(show_spinner=False)
def sl_grid(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, alphas: tuple, method: str,
            mparams: tuple, privacy: tuple):
    bar = st.progress(0.0, text="Computing SL over k and α…")
    grid = satisfaction_grid(df, ks, alphas, method, list(columns), dict(mparams),
                             progress=lambda f, msg: bar.progress(f, text=f"Computing SL over k and α: {msg}"),
                             confidential=list(confidential) or None, **dict(privacy))
    bar.empty()
    return grid


@st.cache_data(show_spinner=False)
def ru_sweep(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, runs: tuple, aggregation: str,
             p: float, rule: str):
    """``runs``: (method, its parameters as a sorted tuple) pairs."""
    bar = st.progress(0.0, text="Computing the risk-utility map…")
    frame = risk_utility(df, ks, {m: (m, dict(mp)) for m, mp in runs}, aggregation, list(columns), p=p, dld_rule=rule,
                         confidential=list(confidential) or None,
                         progress=lambda f, msg: bar.progress(f, text=f"Computing the risk-utility map: {msg}"))
    bar.empty()
    return frame


@st.cache_data(show_spinner=False)
def pcs(Z: np.ndarray) -> np.ndarray:
    return plots.principal_components(Z)


@st.cache_data(show_spinner=False)
def steps(xy: np.ndarray, k: int, variant: str):
    return ma.partition.mdav_steps(xy, k, variant)


# --------------------------------------------------------------------------- widgets


def widget(p: Param, key: str, method=None):
    """A widget for one registered parameter (array-valued parameters keep their default here); greyed out when it
    has no effect under the values of the method's other widgets (``Param.only_with``)."""
    prefix = key.rsplit("-", 1)[0]
    values = {q.name: st.session_state.get(f"{prefix}-{q.name}", q.default) for q in method.params} if method else {}
    disabled = bool(p.only_with) and not p.active(values)
    help_ = p.help + "".join(f" (only with {o}={' or '.join(map(repr, v))})" for o, v in p.only_with)
    if p.type == "choice":
        return st.selectbox(p.name, p.choices, index=p.choices.index(p.default), help=help_, key=key,
                            disabled=disabled)
    if p.type == "bool":
        return st.checkbox(p.name, value=p.default, help=help_, key=key, disabled=disabled)
    if p.type == "int":
        return int(st.number_input(p.name, value=int(p.default), step=1, help=help_, key=key, disabled=disabled,
                                   min_value=None if p.low is None else int(p.low),
                                   max_value=None if p.high is None else int(p.high)))
    if p.type == "float":
        bounded = p.low is not None and p.high is not None
        if bounded and not p.low_open and not p.high_open:
            return st.slider(p.name, float(p.low), float(p.high), float(p.default), help=help_, key=key,
                             disabled=disabled)
        return float(st.number_input(p.name, value=float(p.default), help=help_, key=key, format="%g",
                                     disabled=disabled,
                                     min_value=None if p.low is None else float(p.low),
                                     max_value=None if p.high is None else float(p.high)))
    return p.default


def data_sidebar() -> tuple[pd.DataFrame, str, list[str]]:
    """The data source widgets; returns the data, a Python expression and CLI arguments that load it."""
    info = ma.list_datasets().set_index("name")
    source = st.radio("Source", ["benchmark", "generated", "upload"], horizontal=True, key="source",
                      format_func={"benchmark": "benchmark", "generated": "generated", "upload": "your CSV"}.get)
    if source == "benchmark":
        names = [n for n in info.index if info.loc[n, "kind"] == "benchmark"]
        name = st.selectbox("Data set", names, index=names.index("census"), key="dataset")
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        return load(name), f"ma.load_dataset({name!r})", ["--dataset", name]
    if source == "generated":
        names = [n for n in info.index if info.loc[n, "kind"] == "generator"]
        name = st.selectbox("Generator", names, key="generator")
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        n = int(st.number_input("records", min_value=10, max_value=MAX_RECORDS, value=2000, step=500, key="n"))
        seed = int(st.number_input("seed", min_value=0, value=0, step=1, key="seed"))
        return (load(name, n=n, seed=seed), f"ma.load_dataset({name!r}, n={n}, seed={seed})",
                ["--dataset", name, "--data-param", f"n={n}", "--data-param", f"seed={seed}"])
    up = st.file_uploader(f"CSV with a header row (at most {MAX_UPLOAD_MB} MB, {MAX_RECORDS:,} records)", type="csv")
    if up is None:
        st.info("Upload a CSV file to start, or pick a benchmark data set.")
        st.stop()
    if up.size > MAX_UPLOAD_MB * 2**20:
        st.error(f"The file is {up.size / 2**20:.0f} MB; the dashboard accepts at most {MAX_UPLOAD_MB} MB. "
                 "Use the command line (python -m microagg run --input ...) for larger files.")
        st.stop()
    encoding = st.selectbox("Encoding", ["utf-8", "latin-1", "cp1252"], key="encoding",
                            help="UTF-8 files with or without a byte-order mark; latin-1 or cp1252 for older "
                                 "spreadsheet exports.")
    try:
        table = read_csv(up, encoding=encoding, name=up.name)
    except ma.MicroaggError as exc:
        st.error(str(exc))
        st.stop()
    df = table.data
    text = [note for note in table.notes if "is text" in note]
    for note in table.notes:
        if note not in text:
            st.info(note)
    if text:
        st.warning(" ".join(text) + " Text columns cannot be masked: they are dropped from the release unless you "
                   "list them under 'Columns to release unmasked'.")
    if len(df) > MAX_RECORDS:
        st.error(f"{up.name} has {len(df):,} records; the dashboard handles at most {MAX_RECORDS:,}. "
                 "Use the command line for larger files.")
        st.stop()
    if encoding == "utf-8":
        return df, f"ma.read_csv({up.name!r}).data", ["--input", up.name]
    return df, f"ma.read_csv({up.name!r}, encoding={encoding!r}).data", ["--input", up.name, "--encoding", encoding]


def per_record(upload, n: int, d: int) -> np.ndarray:
    """Values of an uploaded CSV (header row) as an (n, 1) (one per record) or (n, d) float array; ValueError says
    what is wrong."""
    try:
        values = read_csv(upload, name=upload.name).data.to_numpy(dtype=float)
    except (ma.MicroaggError, ValueError) as exc:
        raise ValueError(f"cannot read {upload.name} as numbers: {exc}") from None
    if values.shape[0] != n or values.shape[1] not in (1, d):
        raise ValueError(f"{upload.name} has {values.shape[0]} rows and {values.shape[1]} columns; expected {n} rows "
                         f"and 1 or {d} columns (one value per record, or one per masked attribute).")
    return values


def overall(table: pd.DataFrame) -> pd.Series:
    """The report's values over all attributes, by metric."""
    return table[table["attribute"] == "all"].set_index("metric")["value"]


# --------------------------------------------------------------------------- page

warm_up()
st.title("microagg — microaggregation lab")
st.caption("Partition numeric records into groups of at least k, publish a group value instead of each record, "
           "and see what it costs in information loss.")

with st.sidebar:
    st.header("Data")
    df, data_expr, data_args = data_sidebar()
    numeric = [str(c) for c in df.columns
               if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
    if not numeric:
        st.error("This data has no numeric column: microaggregation needs numbers.")
        st.stop()
    ids = ma.identifiers(df)  # the same rule as the API and the command line
    columns = st.multiselect("Columns to mask", numeric, default=[c for c in numeric if c not in ids],
                             key=f"columns:{data_expr}",
                             help="Numeric columns replaced by group values. Identifiers (record numbers, IDs) are "
                                  "left out by default and dropped: a group value of an ID is often a real ID.")
    if ids:
        st.caption("Identifiers, neither masked nor released unless you select them: "
                   + "; ".join(f"**{c}** ({why})" for c, why in ids.items()))
    others = [str(c) for c in df.columns if str(c) not in columns]
    keep_col, key_col = st.columns(2)
    keep = keep_col.multiselect("Columns to release unmasked", others, default=[], key=f"keep:{data_expr}",
                                help="Released as they are. Every other column not masked is dropped from the "
                                     "release. A kept column an intruder may know should be declared a key.")
    keys = key_col.multiselect("Key columns (an intruder may know them)", others, default=[],
                               key=f"keys:{data_expr}",
                               help="Released unmasked like kept columns, and counted in the k-anonymity check: "
                                    "a row is protected only if k rows share its keys and masked values.")
    stratify = st.checkbox("Microaggregate inside each combination of the keys (strata)", value=True,
                           key="stratify", disabled=not keys,
                           help="Groups never mix records with different keys, so the release stays k-anonymous "
                                "with the keys released. Each combination needs at least k records.")
    strata = keys if keys and stratify else []
    keep = [c for c in keep if c not in keys]

    st.header("Microaggregation")
    k = int(st.number_input("k (minimum group size)", min_value=2, value=5, step=1, key="k",
                            help="Every released value is shared by at least k records."))
    parts = {m.title: m for m in methods("partition")}
    part = parts[st.selectbox("Partitioning method", list(parts), key="method")]
    st.caption(f"{part.summary} — {part.source}")
    confidential: list[str] = []
    if part.uses_roles:
        default_conf = [c for c in df.attrs.get("roles", {}).get("confidential", []) if c in columns]
        confidential = st.multiselect("Confidential columns", columns, default=default_conf,
                                      key=f"conf:{data_expr}",
                                      help="Sensitive attributes: released unchanged, and used by this method to "
                                           "keep every group diverse. The other masked columns are the "
                                           "quasi-identifiers.")
    mparams = part.active({p.name: widget(p, f"p-{part.name}-{p.name}", part) for p in part.params})
    aggs = {m.title: m for m in methods("aggregate")}
    agg = aggs[st.selectbox("Aggregation", list(aggs), key="aggregation")]
    st.caption(f"{agg.summary} — {agg.source}")
    aparams = agg.active({p.name: widget(p, f"a-{agg.name}-{p.name}", agg) for p in agg.params})
    for p in agg.params:
        if p.array_ok:
            upload = st.file_uploader(f"{p.name} per record (optional CSV, one value per record, or one column per "
                                      "masked attribute)", type="csv", key=f"u-{agg.name}-{p.name}")
            if upload is not None:
                try:
                    aparams[p.name] = per_record(upload, len(df), len(columns))
                except ValueError as exc:
                    st.error(f"{p.name}: {exc}")
                    st.stop()

    st.header("Metrics")
    eparams = {"p": widget(metric_registry.PARAMS["p"], "m-p")}
    dld_rule = st.selectbox("DLD rule (risk-utility map)", RULES, key="m-dld", format_func=RULE_TITLES.get,
                            help="When an intruder's nearest-neighbour link counts as a disclosure (docs/metrics.md "
                                 "§4.6; "
                                 "the report lists every rule).")

if not columns:
    st.warning("Select at least one numeric column to mask.")
    st.stop()
hint = scale_hint(len(df), len(columns) - len(confidential), part.name)
if hint:
    st.info(f"This may take long: {hint}")
if k > len(df):
    st.error(f"k = {k} is larger than the number of records ({len(df)}): no group of {k} records can be formed. "
             "Lower k.")
    st.stop()
# Δ and w of every SL and breach shown: the sidebar's when the aggregation takes them, else the defaults of the
# first one that does (P3M); the report of every aggregation uses them, so they are comparable
privacy_source = agg if agg.personalized else next(m for m in methods("aggregate") if m.personalized)
privacy = {n: v for n, v in (aparams if privacy_source is agg else privacy_source.defaults()).items()
           if n in PRIVACY_KEYS}
sl_args = sl_arguments(privacy)
ekey = tuple(sorted({**eparams, **sl_args}.items()))
try:
    masked = [c for c in columns if c not in confidential]
    mkey, akey = tuple(sorted(mparams.items())), tuple(sorted(aparams.items()))
    labels = partition(df, tuple(masked), tuple(confidential), k, part.name, mkey, tuple(strata))
    protected, _, report, Z, Zp, params = release(df, tuple(masked), tuple(confidential), tuple(keep), k,
                                                  part.name, mkey, agg.name, akey, labels, ekey, tuple(keys),
                                                  tuple(strata))
except ma.MicroaggError as exc:
    st.error(str(exc))
    st.stop()


values = overall(report)
c1, c2, c3, c4 = st.columns(4)
il = float(values["IL"])
c1.metric("Information loss (IL)", "undefined" if np.isnan(il) else f"{il:.3f} %",
          help="100·SSE/SST on z-scores (Chettri, Paul & Dutta, Eq. 4); undefined when every record is identical "
               "(SST = 0).")
c2.metric("Groups", int(report.loc[report["metric"] == "groups", "value"].iloc[0]))
c3.metric("Smallest equivalence class", int(values["smallest equivalence class"]),
          help="Released rows identical on all masked columns; k-anonymity needs at least k.")
c4.metric("k-anonymous", "yes" if bool(values["k-anonymous"]) else "NO",
          help="On the masked columns and the key columns, for the file as published.")
if keys and not bool(values["k-anonymous"]):
    st.warning(f"The key columns {', '.join(keys)} break k-anonymity: "
               f"{int(values['records in classes < k'])} released rows share their keys and masked values with "
               "fewer than k others. Tick 'Microaggregate inside each combination of the keys'.")
uncovered = report[report["metric"].str.startswith("kept column not in the k-anonymity check")]
for row in uncovered.itertuples():
    st.info(f"Kept column **{row.attribute}** is not in the k-anonymity check: if an intruder knows it, "
            f"{row.value} released rows become unique. Declare it a key if it may be known.")
if float(values["exact cells"]) > 0:
    st.caption(f"{float(values['exact cells']):.1f} % of the masked cells are published exactly as in the original "
               f"({float(values['exact records']):.1f} % of the records have one)"
               + (" — the median of a group of odd size is one member's own value." if agg.name == "median"
                  else "."))

tab_partition, tab_aggregation, tab_risk, tab_privacy, tab_release = st.tabs(
    ["Partition", "Aggregation", "Risk & utility", "Personalized privacy", "Release"])

with tab_partition:
    left, right = st.columns([3, 2])
    with left:
        axes = st.radio("Axes", ["first two principal components", "two attributes"], horizontal=True)
        if axes == "two attributes" and len(masked) >= 2:
            a, b = st.columns(2)
            x = a.selectbox("x", masked, index=0)
            y = b.selectbox("y", masked, index=1)
            xy, names = Z[:, [masked.index(x), masked.index(y)]], (f"{x} (z)", f"{y} (z)")
        else:
            xy = pcs(Z) if len(masked) >= 2 else np.column_stack([Z[:, 0], np.zeros(len(Z))])
            names = ("PC1", "PC2") if len(masked) >= 2 else (f"{masked[0]} (z)", "")
        st.plotly_chart(plots.partition_scatter(xy, labels, names), width="stretch")
    with right:
        st.plotly_chart(plots.group_sizes(labels, k), width="stretch")
        st.caption("MDAV-type methods make groups of exactly k except at the end; variable-size methods "
                   "use sizes between k and 2k−1.")

    with st.expander("MDAV step by step (a small sample, two attributes)", expanded=False):
        st.write("MDAV repeatedly takes the record **farthest from the centroid** of the records not yet grouped "
                 "and groups it with its k−1 nearest neighbours; then the record farthest from that one, and the "
                 "same again. Step through it on a sample of records.")
        s1, s2, s3 = st.columns(3)
        size = int(s1.number_input("sample size", min_value=max(2 * k, 10), max_value=200, value=max(40, 2 * k)))
        variant = s2.selectbox("variant", get_method("partition", "mdav").param("variant").choices,
                               index=1)
        pair = s3.multiselect("attributes", masked, default=masked[:2], max_selections=2)
        if len(pair) == 2:
            rows = np.linspace(0, len(df) - 1, min(size, len(df))).astype(int)
            sample = ma.standardize(df[pair].iloc[rows])
            trace = steps(sample, k, variant)
            step = st.slider("groups formed", 0, len(trace.steps), min(1, len(trace.steps)))
            st.plotly_chart(plots.mdav_step(sample, trace, step, (f"{pair[0]} (z)", f"{pair[1]} (z)")),
                            width="stretch")
            if 0 < step <= len(trace.steps):
                row = trace.steps.iloc[step - 1]
                if row.seed >= 0:
                    st.caption(f"Step {step}: {row['remaining']} records left; record {rows[row.seed]} is the "
                               f"{row.role} (star) and takes its {k - 1} nearest neighbours.")
                else:
                    st.caption(f"Step {step}: the last {row['remaining']} records form the final group.")
        else:
            st.info("Pick two attributes.")

with tab_aggregation:
    st.write("The same partition, aggregated by every registered aggregation (default parameters for the ones not "
             "selected in the sidebar). A **breach** is a released value closer than Δ to its original: the "
             "owner's wish not met, which P3M tries to avoid.")
    rows, released = [], {}
    for m in methods("aggregate"):
        ap = akey if m.name == agg.name else tuple(sorted(m.defaults().items()))
        try:
            # the same arguments as the main release for the selected aggregation: a cache hit
            _, prot_m, rep_m, _, Zp_m, _ = release(df, tuple(masked), tuple(confidential), tuple(keep), k,
                                                   part.name, mkey, m.name, ap, labels, ekey, tuple(keys),
                                                   tuple(strata))
        except ma.MicroaggError as exc:
            st.warning(f"{m.title}: {exc}")
            continue
        breach = breaches(Z, Zp_m, sl_args["delta"], sl_args["relative"])
        released[m.title] = (prot_m, breach)
        r = overall(rep_m)
        rows.append({"aggregation": m.title, "IL (%)": float(r["IL"]),
                     "IL of the group means (%)": float(r["partition IL"]),
                     "cells breaching Δ (%)": 100.0 * breach.mean(), "SL (%)": float(r["SL"]),
                     "cells published exactly (%)": float(r["exact cells"]),
                     "records with an exact cell (%)": float(r["exact records"]),
                     "k-anonymous": bool(r["k-anonymous"])})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    attr = st.selectbox("attribute", masked, key="agg-attr")
    t = masked.index(attr)
    st.plotly_chart(plots.masked_vs_original(df[attr], {title: p[attr] for title, (p, _) in released.items()}, attr,
                                             breaches={title: b[:, t] for title, (_, b) in released.items()}),
                    width="stretch")
    where = "from the sidebar" if privacy_source is agg else f"{privacy_source.title} default; choose it to change Δ"
    st.caption(f"Δ = {privacy['delta']}{' × |x|' if privacy.get('relative') else ''} in z units ({where}); "
               "breaching cells are drawn with a dark outline.")

with tab_risk:
    described = metric_registry.metric_table().set_index("metric")
    shown = report[report["attribute"] == "all"].set_index("metric")
    shown_rows = [m for m in shown.index if m in described.index]
    table = pd.DataFrame({
        "family": described.loc[shown_rows, "family"],
        "metric": [described.loc[m, "title"] + (f" ({m})" if m != described.loc[m, "title"] else "")
                   for m in shown_rows],
        "value": [f"{v:.4g}" if isinstance(v, float) else str(v) for v in shown.loc[shown_rows, "value"]],
        "unit": shown.loc[shown_rows, "unit"],
        "better": shown.loc[shown_rows, "direction"].str.replace(" is better", ""),
        "what it measures": described.loc[shown_rows, "summary"],
        "source": described.loc[shown_rows, "source"],
    })
    families = [f for f in metric_registry.FAMILIES if f in set(table["family"])]
    for family in families:
        st.markdown(f"**{family.capitalize()}**")
        st.dataframe(table[table["family"] == family].drop(columns="family"), hide_index=True, width="stretch")

    st.subheader("Risk-utility map")
    st.write("How information loss and disclosure risk move together as k grows: each point is one release; "
             "lower-left is better. Computed on demand.")
    r1, r2, r3 = st.columns([2, 2, 1])
    ru_methods = r1.multiselect("methods", [m.name for m in methods("partition")], default=[part.name],
                                key="ru-methods")
    k_lo, k_hi = r2.slider("k from … to", 2, 30, (2, 15), key="ru-k")
    axes_pair = r3.selectbox("axes", ["IL vs DLD", "PIL vs DLD", "IL vs SDID", "PIL vs SDID"], key="ru-axes")
    if st.button("Compute the map", key="ru-go") or st.session_state.get("ru-done"):
        st.session_state["ru-done"] = True
        ks = tuple(sorted({k_lo, k_hi, *range(k_lo, k_hi + 1, max(1, (k_hi - k_lo) // 7))}))
        try:
            runs = tuple((m, mkey if m == part.name else ()) for m in ru_methods)  # the sidebar's parameters
            frame = ru_sweep(df, tuple(masked), tuple(confidential), ks, runs, agg.name, float(eparams["p"]), dld_rule)
        except ma.MicroaggError as exc:
            st.error(str(exc))
        else:
            utility_name, risk_name = axes_pair.split(" vs ")
            st.plotly_chart(plots.ru_map(frame, risk=risk_name, utility=utility_name), width="stretch")
            st.dataframe(frame.round(3), hide_index=True, width="stretch")
            st.caption(f"DLD rule: {RULE_TITLES[dld_rule]}; SDID interval p = {eparams['p']:g} % of the sd "
                       f"(sidebar, Metrics); {part.name} with the sidebar's parameters.")

with tab_privacy:
    st.write("Mortazavi & Jalili's (2017) model: each owner asks that the released value stay at least **Δ** away "
             "from theirs, with "
             "importance **w**; P3M shifts every group's value to satisfy as many wishes as it can, trading them "
             "against information loss with **α**, while keeping every mean and variance. The satisfaction level "
             "SL is the weighted share of wishes met.")
    alphas = tuple(np.round(np.linspace(0, 1, 11), 2))
    try:
        frame = sl_alpha(Z, labels, alphas, tuple(sorted(privacy.items())))
    except ma.MicroaggError as exc:
        st.error(str(exc))
    else:
        left, right = st.columns([3, 2])
        left.plotly_chart(plots.satisfaction_over_alpha(frame), width="stretch")
        W = resolve_weights(sl_args["w"], *Z.shape, sl_args["w_seed"])
        if np.ptp(W) > 0:
            right.plotly_chart(plots.weights_histogram(W), width="stretch")
        else:
            right.metric("Privacy weight of every cell", f"w = {W.flat[0]:g}",
                         help="Choose P3M with weights = random (or upload per-record weights) to vary it.")
        st.dataframe(frame.round(3), hide_index=True, width="stretch")
        st.caption("status per attribute: 'optimal' = certified global optimum (the dual bound closes the gap); "
                   "'local' = a feasible local optimum, its gap to the bound is reported in the release report.")
    st.subheader("SL over k and α")
    h1, h2 = st.columns(2)
    hk = h1.slider("k from … to", 2, 20, (3, 10), key="sl-k")
    ha = h2.select_slider("α values", options=[3, 5, 6, 11], value=6, key="sl-alpha")
    if st.button("Compute the heat-map", key="sl-go") or st.session_state.get("sl-done"):
        st.session_state["sl-done"] = True
        ks = tuple(sorted({hk[0], hk[1], *range(hk[0], hk[1] + 1, max(1, (hk[1] - hk[0]) // 6))}))
        try:
            grid = sl_grid(df, tuple(masked), tuple(confidential), ks, tuple(np.round(np.linspace(0, 1, ha), 2)),
                           part.name, mkey, tuple(sorted(privacy.items())))
        except ma.MicroaggError as exc:
            st.error(str(exc))
        else:
            st.plotly_chart(plots.satisfaction_heatmap(grid), width="stretch")

with tab_release:
    st.caption("The release as published: identifiers and the input's row labels left out, rows in a random order "
               "(the commands below carry its seed: keep them private).")
    st.dataframe(protected, height=320, width="stretch")
    d1, d2 = st.columns(2)
    # the files are written when a button is clicked, not on every re-run
    # text cells a spreadsheet would run as formulas get a leading quote (microagg.io.neutralise)
    d1.download_button("Download the release (CSV)", lambda: write_csv(protected, index=False).encode(),
                       file_name="release.csv", mime="text/csv")
    d2.download_button("Download the report (CSV)", lambda: write_csv(report, index=False).encode(),
                       file_name="report.csv", mime="text/csv")
    st.subheader("Report")
    st.dataframe(report.astype({"value": str}), hide_index=True, width="stretch")
    st.subheader("Reproduce this release")
    st.code(recipe.python_snippet(params, data_expr), language="python")
    st.code(recipe.cli_command(params, data_args), language="bash")
