"""microagg dashboard: pick data, k, a partitioning method and an aggregation; see what it costs.

Run with ``streamlit run app.py``. UI only: every computation is a call into ``microagg``, every figure
comes from ``microagg.figures.plots``, and every widget for a method parameter is built from the registry (label,
unit, range, help). One function per sidebar section and per tab; the tabs run lazily (only the open one),
and the widgets local to a tab are fragments that re-run alone.
"""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

import microagg as ma
from microagg.base.advice import scale_hint
from microagg.base.registry import DIFFERENTIAL_PRIVACY, Method, Param, get_method, methods
from microagg.base.rows import public
from microagg.data.categories import MISSING as CATEGORIES_MISSING
from microagg.data.categories import natural_order
from microagg.data.io import read_csv, write_csv
from microagg.figures import plots, tables
from microagg.lab.baselines import BASELINES
from microagg.lab.explore import pareto_frontier, risk_utility, satisfaction_grid, satisfaction_over_alpha
from microagg.metrics import registry as metric_registry
from microagg.metrics.privacy import breaches
from microagg.metrics.risk import RULE_TITLES, RULES
from microagg.partition.compiled import warmup
from microagg.partition.igd import REFINEMENTS, check_refine
from microagg.privacy.safety import sampling_weight_columns
from microagg.privacy.wishes import NAMES as WISHES
from microagg.privacy.wishes import cells
from microagg.release import recipe, stages
from microagg.release.engines import MEMORY
from microagg.release.spec import ReleaseSpec

DOCS = Path(__file__).resolve().parent / "docs"
MAX_UPLOAD_MB = 50  # also set as server.maxUploadSize in .streamlit/config.toml
MAX_RECORDS = 200_000
K_SLIDER_MAX = 300  # the k slider's range (the box beside it goes up to the number of records)
INT_CAP = 10_000  # widget bound of an integer parameter the registry leaves unbounded

st.set_page_config(page_title="microagg", layout="wide")


# --------------------------------------------------------------------------- numba kernels


@dataclass
class Kernels:
    """The background warm-up of the numba kernels (``microagg.partition.compiled.warmup``): ``mdav`` is set when
    MDAV can run;
    ``compiles.running`` while numba compiles (the first start on a machine; loading them from disk is quick)."""

    mdav: threading.Event = field(default_factory=threading.Event)
    compiles: warmup.Compiles = field(default_factory=warmup.Compiles)
    started: float = field(default_factory=time.monotonic)


def compile_kernels(state: Kernels) -> None:
    """MDAV first (the default method), then every other partitioner, on a small sample."""
    with state.compiles:
        warmup.warm_up("mdav", ready=state.mdav.set)


@st.cache_resource(show_spinner=False)
def kernels() -> Kernels:
    state = Kernels()
    threading.Thread(target=compile_kernels, args=(state,), daemon=True).start()
    return state


def wait_for_mdav() -> None:
    """Say what the first start is waiting for while numba compiles, with the time spent, instead of a bare
    spinner; a wait for kernels loaded from disk is not announced."""
    state = kernels()
    if state.mdav.is_set():
        return
    note = st.empty()
    while not state.mdav.wait(0.25):
        if state.compiles.running.is_set():
            note.info(f"Compiling the MDAV kernel for this machine: {time.monotonic() - state.started:.0f} s so far. "
                      "This happens once (numba keeps the compiled code on disk); it takes about a minute on a "
                      "small machine, then every page is immediate.", icon="⏳")
    note.empty()


# --------------------------------------------------------------------------- cached stages


def _caught(call):
    """``call()`` and the texts of the warnings it raised (shown on the page, not in the server's terminal)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = call()
    return out, tuple(dict.fromkeys(str(w.message) for w in seen))


@st.cache_data(show_spinner=False)
def datasets() -> pd.DataFrame:
    """The data sets and generators by name (``ma.list_datasets`` reads every bundled file: 45 ms a run)."""
    return ma.list_datasets().set_index("name")


@st.cache_data(show_spinner=False)
def load(name: str, **kwargs) -> pd.DataFrame:
    return ma.load_dataset(name, **kwargs)


def spec_of(k: int, method: str = "mdav", aggregation: str = "mean", mparams: tuple = (), aparams: tuple = (),
            columns: tuple = (), confidential: tuple = (), keep: tuple = (), keys: tuple = (), strata: tuple = (),
            cats: tuple = (), weight: str | None = None, missing: str = "keep", refine: str = "none",
            mcats: str = "refuse") -> ReleaseSpec:
    """The release specification of the sidebar's choices (``release.spec``, validated like every door's); ``cats``
    the categorical quasi-identifiers as (column, kind, order or None) triples, ``weight`` the sampling-weight
    column, ``missing`` what to do with missing cells and ``mcats`` with missing categories (docs/methods.md §8)."""
    return ReleaseSpec.of(k, method, aggregation, dict(mparams), dict(aparams), columns=columns, keep=keep,
                          confidential=confidential, keys=keys, strata=strata,
                          ordinal={c: list(o) for c, kind, o in cats if kind == "ordinal"},
                          nominal=[c for c, kind, _ in cats if kind == "nominal"], sampling_weights=weight,
                          missing=missing, refine=refine, missing_categories=mcats)


def prepared(df: pd.DataFrame, spec: ReleaseSpec) -> stages.Prepared:
    """The roles and standardize stages of the release ``spec`` on ``df``."""
    return stages.standardize(df, stages.roles_of(df, spec), spec)


@st.cache_data(show_spinner="Partitioning…", max_entries=64)
def partition(df: pd.DataFrame, columns: tuple, confidential: tuple, k: int, method: str, params: tuple,
              strata: tuple = (), cats: tuple = (), missing: str = "keep", refine: str = "none", mcats: str = "refuse"):
    """The partition stage alone (no aggregation, no report): its labels are then aggregated by :func:`release`."""
    def run():
        spec = spec_of(k, method, mparams=params, columns=columns, confidential=confidential, strata=strata,
                       cats=cats, missing=missing, refine=refine, mcats=mcats)
        return stages.partition(prepared(df, spec), spec)[0]

    return _caught(run)


# the report's metrics on every page (the headline, its caveats) and in the Aggregation tab's table; the others are
# computed only by the tabs that show them (Risk & utility, Release)
SUMMARY = ("IL", "partition IL", "SL", "exact cells", "exact records")


@dataclass(eq=False)
class Released:
    """A release of the page (the aggregate and release stages on a cached partition: one shuffle, kept), the same
    rows in input order (for the plots), the warnings said on the way, and its reports, each computed once, when a
    part of the page first asks for it. Shared by the runs and sessions that show it: nothing modifies it."""

    rel: ma.Release
    in_order: pd.DataFrame
    notes: tuple
    reports: dict = field(default_factory=dict, repr=False)

    def report(self, eparams: tuple, metrics: tuple | None = None) -> pd.DataFrame:
        """``Release.report`` with the evaluation parameters ``eparams`` (a sorted tuple of pairs), of the
        ``metrics`` named (default: every one)."""
        key = (eparams, metrics)
        if key not in self.reports:  # with missing cells the report's two metrics take no options (metrics §4.27)
            self.reports[key] = self.rel.report(metrics=metrics, **({} if self.rel.missing_cells else dict(eparams)))
        return self.reports[key]

    def summary(self, eparams: tuple) -> tuple[pd.DataFrame, tuple]:
        """The report of the :data:`SUMMARY` metrics and the warnings said computing it."""
        return _caught(lambda: self.report(eparams, SUMMARY))


@st.cache_resource(show_spinner="Aggregating…", max_entries=64)
def release(df: pd.DataFrame, columns: tuple, confidential: tuple, keep: tuple, k: int, method: str, mparams: tuple,
            aggregation: str, aparams: tuple, labels: np.ndarray, keys: tuple = (), strata: tuple = (),
            cats: tuple = (), weight: str | None = None, missing: str = "keep", refine: str = "none",
            mcats: str = "refuse") -> Released:
    """The aggregate and release stages on a cached partition, kept as one object for every run that shows it (a
    change of α re-solves P3M and evaluates the headline metrics only; going back to an earlier value is a cache
    hit). MicroaggError propagates. ``refine``: the refinement the partition had, recorded."""

    def run():
        spec = spec_of(k, method, aggregation, mparams, aparams, columns, confidential, keep, keys, strata, cats,
                       weight, missing, refine, mcats)
        prep = prepared(df, spec)
        rel = stages.release(prep, labels, stages.aggregate(prep, labels, spec), spec,
                             {**MEMORY.info(k), "refine": refine})
        return rel, rel.in_input_order()

    (rel, in_order), notes = _caught(run)
    return Released(rel, in_order, notes)


def release_html(s: Setup, r: Result) -> bytes:
    """The HTML report of the release shown (the same object: its shuffle), for the download button."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # said on the page already
        return ma.html_report(r.released.rel, data=s.data_expr, data_args=s.data_args).encode()


@st.cache_data(show_spinner="Solving P3M over α…")
def sl_alpha(Z: np.ndarray, labels: np.ndarray, alphas: tuple, privacy: tuple):
    return satisfaction_over_alpha(Z, labels, alphas, **dict(privacy))


def sl_grid(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, alphas: tuple, method: str,
            mparams: tuple, privacy: tuple):
    bar = st.progress(0.0, text="Computing SL over k and α…")
    grid = satisfaction_grid(df, ks, alphas, method, list(columns), dict(mparams),
                             progress=lambda f, msg: bar.progress(f, text=f"Computing SL over k and α: {msg}"),
                             confidential=list(confidential) or None, **dict(privacy))
    bar.empty()
    return grid


def ru_sweep(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, runs: tuple, aggregation: str,
             p: float, rule: str, baselines: tuple = ()):
    """``runs``: (method, its parameters as a sorted tuple) pairs; ``baselines``: names of comparison methods."""
    bar = st.progress(0.0, text="Computing the risk-utility map…")
    frame = risk_utility(df, ks, {m: (m, dict(mp)) for m, mp in runs}, aggregation, list(columns), p=p, dld_rule=rule,
                         confidential=list(confidential) or None, baselines=list(baselines),
                         progress=lambda f, msg: bar.progress(f, text=f"Computing the risk-utility map: {msg}"))
    bar.empty()
    return frame


@st.cache_data(show_spinner=False)
def pcs(Z: np.ndarray) -> np.ndarray:
    return plots.principal_components(Z)


@st.cache_resource(show_spinner=False, max_entries=16)
def figure(name: str, *args, **kwargs):
    """``plots.<name>(*args, **kwargs)``, built once for these arguments (20–25 ms each for the Partition tab's
    figures on EIA) and then only sent again: Streamlit copies a figure to send it, so nothing modifies it."""
    return getattr(plots, name)(*args, **kwargs)


@st.cache_data(show_spinner=False)
def steps(xy: np.ndarray, k: int, variant: str):
    return ma.partition.mdav_steps(xy, k, variant)


@st.cache_data(show_spinner=False, max_entries=8)
def release_csv(protected: pd.DataFrame) -> bytes:
    """The file the download button offers: the writer of ``Release.to_csv`` and the CLI (no index, text cells a
    spreadsheet would run as a formula quoted), so the recipe's command and snippet write the same bytes."""
    return write_csv(protected, index=False).encode()


# --------------------------------------------------------------------------- widgets


def keep_state(key: str) -> bool:
    """Set widget ``key`` (k and its slider, kept in step through Session State) to its current value, or to its
    last one if Streamlit dropped it because the widget was not drawn in a run: a value set by the script is sent
    to the browser, which otherwise draws a widget it lost (a run that stopped before it, e.g. a data source
    waiting for its file) at the widget's default while the server still uses the value. True if it has one."""
    kept = st.session_state.setdefault("_kept", {})
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
    elif key in kept:
        st.session_state[key] = kept[key]
    return key in st.session_state


def last(key: str, default):
    """The value widget ``key`` had when last drawn, else ``default``. Passed as the widget's value, it brings a
    widget back as it was after runs that did not draw it (another aggregation or tab was chosen)."""
    return st.session_state.setdefault("_kept", {}).get(key, default)


def remember(key: str, value):
    st.session_state.setdefault("_kept", {})[key] = value
    return value


def initial(key: str, name: str, value) -> dict:
    """``{name: value}``: a widget's default, its last value if it had one."""
    return {name: last(key, value)}


def choose(draw, label: str, options: list, key: str, default, **kwargs):
    """``draw`` (``st.selectbox`` or ``st.radio``, of the sidebar or a column) drawn at the value it had when last
    drawn, in the browser as on the server, across runs that did not draw it (another data source, a file not
    uploaded yet, data without missing cells). A value that is no longer one of ``options`` gives way to
    ``default``, said in a caption."""
    value = last(key, default)
    if value not in options or st.session_state.get(key, value) not in options:
        st.session_state.pop(key, None)
        if value != default:
            show = kwargs.get("format_func", str)
            st.caption(f"{label}: '{show(value)}' is not available here; '{show(default)}' is used.")
        value = default
    return remember(key, draw(label, options, index=options.index(value), key=key, **kwargs))


def choose_many(draw, label: str, options: list, key: str, default: list, **kwargs) -> list:
    """``draw`` (a multiselect) as :func:`choose`: its last selection kept; the chosen values that are no longer
    options (a column not in new data uploaded under the same name) are dropped, said in a caption."""
    value = list(last(key, default))
    gone = [v for v in dict.fromkeys([*value, *st.session_state.get(key, [])]) if v not in options]
    if gone:
        st.session_state.pop(key, None)
        st.caption(f"{label}: {', '.join(map(str, gone))} {'is' if len(gone) == 1 else 'are'} not in this data, "
                   "so no longer selected.")
    return remember(key, draw(label, options, default=[v for v in value if v in options], key=key, **kwargs))


def clamp(key: str, low, high):
    """Bring a widget's value into [low, high] (the data changed under it) instead of letting it raise: an
    out-of-range state is dropped and its remembered value moved into the range. An empty box (None) stays empty.
    Returns the value it had if it was moved (for the caller to say so), else None."""
    kept = st.session_state.setdefault("_kept", {})
    moved = None
    if kept.get(key) is not None and not low <= kept[key] <= high:
        moved = kept[key]
        kept[key] = type(low)(min(max(kept[key], low), high))
    if st.session_state.get(key) is not None and not low <= st.session_state[key] <= high:
        moved = st.session_state[key]
        if key in ("k", "k-slider"):
            st.session_state[key] = type(low)(min(max(st.session_state[key], low), high))
        else:
            del st.session_state[key]
    return moved


def moved_note(label: str, old, low, high) -> None:
    """Say that a setting changed because the data no longer allows its value (:func:`clamp`)."""
    if old is not None:
        new = min(max(old, low), high)
        st.caption(f"{label}: {old:g} is outside {low:g}…{high:g} here, so it is now {new:g}.")


def bounds(p: Param, d: int) -> tuple:
    """The widget's range of a number parameter: the registry's, closed, with data-driven or finite caps."""
    step = 1 if p.type == "int" else 0.0
    low = None if p.low is None else (p.low + (1 if p.type == "int" else 1e-6) * p.low_open)
    high = None if p.high is None else p.high - (1 if p.type == "int" else 1e-3) * p.high_open
    if p.unit == "position":  # a position among the masked columns
        high = d - 1
    if high is None:
        high = INT_CAP if p.type == "int" else max(10.0, 100 * abs(float(p.default)))
    cast = int if p.type == "int" else float
    return cast(low if low is not None else -high), cast(high), step


def widget(p: Param, key: str, d: int, disabled: bool = False):
    """A widget for one registered parameter, labelled for people with the code name in its tooltip."""
    label, tip = p.title, f"{p.help} — {p.source} (parameter `{p.name}`)" if p.source else f"{p.help} (`{p.name}`)"
    if p.type == "choice":
        value = st.selectbox(label, p.choices, help=tip, key=key, disabled=disabled,
                             index=p.choices.index(last(key, p.default)))
    elif p.type == "bool":
        value = st.checkbox(label, help=tip, key=key, disabled=disabled, value=last(key, p.default))
    elif p.type == "array":  # a value per masked column, typed as text the method reads (e.g. DP bounds)
        value = st.text_input(label, help=tip, key=key, disabled=disabled, value=last(key, p.default or "")) or None
    elif p.type in ("int", "float"):
        low, high, _ = bounds(p, d)
        old = clamp(key, low, high)
        cast = int if p.type == "int" else float
        kept = last(key, p.default)
        start = {"value": None if kept is None else cast(min(max(kept, low), high))}  # None: an empty box
        if p.type == "float" and p.low is not None and p.high is not None and not p.low_open and not p.high_open:
            value = st.slider(label, low, high, help=tip, key=key, disabled=disabled, **start)
        else:
            value = st.number_input(label, min_value=low, max_value=high, help=tip, key=key, disabled=disabled,
                                    **({"step": 1} if p.type == "int" else {"format": "%g"}), **start)
        moved_note(label, old, low, high)
        value = None if value is None else cast(value)
    else:
        return p.default
    return remember(key, value)


def parameter_widgets(m: Method, prefix: str, d: int, overridden=(), shared: str | None = None) -> dict:
    """Widgets of ``m``'s parameters, the advanced ones in an expander; a parameter without effect under the others'
    values (``Param.only_with``), or ``overridden`` by an upload, is shown disabled and not passed on. A partitioner's
    parameter that the aggregation titled ``shared`` declares ``shared`` too (``Param.shared``) gets no widget here:
    it is typed once, under the aggregation."""
    values = {}
    agg = next((a for a in methods("aggregate") if a.title == shared), None)
    common = {p.name for p in agg.params if p.shared} if agg is not None else set()

    def current(name):
        key = f"{prefix}-{name}"
        return st.session_state.get(key, last(key, m.param(name).default))

    for group in (False, True):
        chosen = [p for p in m.params if p.advanced == group]
        if not chosen:
            continue
        box = st.expander("Advanced") if group else st.container()
        with box:
            for p in chosen:
                if p.shared and p.name in common:
                    values[p.name] = p.default
                    continue
                off = p.name in overridden or not p.active({o: current(o) for o, _ in p.only_with})
                values[p.name] = widget(p, f"{prefix}-{p.name}", d, disabled=off)
    return m.active({p.name: values[p.name] for p in m.params})


def k_widgets(n: int) -> int:
    """k as a slider plus a box kept in step; the box reaches n, the slider min(n, K_SLIDER_MAX). k keeps its value
    across data changes while the data has that many records, and says so when it must come down to n."""
    top = min(n, K_SLIDER_MAX)
    for key in ("k", "k-slider"):
        keep_state(key)
    st.session_state.setdefault("k", min(5, n))
    old = clamp("k", 2, n)
    st.session_state["k-slider"] = min(st.session_state["k"], top)

    def from_slider():
        st.session_state["k"] = st.session_state["k-slider"]

    help_k = "Every released value is shared by at least k records (k-anonymity when whole records are grouped)."
    if top > 2:
        st.slider("k (minimum group size)", 2, top, key="k-slider", on_change=from_slider, help=help_k,
                  label_visibility="visible")
    k = int(st.number_input("k (minimum group size)", min_value=2, max_value=n, step=1, key="k", help=help_k,
                            label_visibility="collapsed" if top > 2 else "visible"))
    if old is not None:
        st.info(f"k = {old:,} is more than the {n:,} records of this data: k is {k:,} now.")
    remember("k-slider", st.session_state["k-slider"])
    return remember("k", k)


# --------------------------------------------------------------------------- sidebar


@dataclass
class Setup:
    """Everything the sidebar chose, passed to the tabs."""

    df: pd.DataFrame
    data_expr: str
    data_args: list
    columns: list
    keep: list
    keys: list
    strata: list
    k: int
    part: Method
    confidential: list
    mparams: dict
    agg: Method
    aparams: dict
    eparams: dict
    dld_rule: str
    cats: tuple = ()  # categorical quasi-identifiers: (column, "ordinal" or "nominal", order or None)
    weight: str | None = None  # the sampling-weight column (docs/methods.md §8.6)
    missing: str = "keep"      # missing cells: keep, impute or refuse (docs/methods.md §8.1)
    missing_categories: str = "refuse"  # missing categories: refuse, impute, category or drop (docs/methods.md §8.8)

    @property
    def survey(self) -> bool:
        """Sampling weights or missing cells in the masked columns: the survey release of docs/methods.md §8."""
        return self.weight is not None or bool(self.df[self.masked].isna().to_numpy().any())
    refine: str = "none"

    @property
    def masked(self) -> list:
        return [c for c in self.columns if c not in self.confidential]

    @property
    def mkey(self) -> tuple:
        return tuple(sorted(self.mparams.items()))

    @property
    def akey(self) -> tuple:
        return tuple(sorted(self.aparams.items()))

    @property
    def ekey(self) -> tuple:
        """The evaluation parameters of the reports: the sidebar's metric options and the wishes Δ and w."""
        return tuple(sorted({**self.eparams, **self.privacy}.items()))

    @property
    def privacy_source(self) -> Method:
        """The aggregation whose Δ and w every SL and breach uses: the sidebar's when it takes them, else the
        first one that does (P3M) with its defaults, so that all aggregations are compared alike."""
        return self.agg if self.agg.caps.personalized else next(m for m in methods("aggregate") if m.caps.personalized)

    @property
    def privacy(self) -> dict:
        src = self.privacy_source
        values = self.aparams if src is self.agg else src.defaults()
        return {n: v for n, v in values.items() if n in WISHES}


def data_section() -> tuple[pd.DataFrame, str, list[str]]:
    """The data source widgets; returns the data, a Python expression and CLI arguments that load it."""
    info = datasets()
    source = st.radio("Source", ["benchmark", "generated", "upload"], horizontal=True, key="source",
                      format_func={"benchmark": "benchmark", "generated": "generated", "upload": "your CSV"}.get)
    if source == "benchmark":
        names = [n for n in info.index if info.loc[n, "kind"] == "benchmark"] + ["survey"]
        name = choose(st.selectbox, "Data set", names, "dataset", "census")
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        return load(name), f"ma.load_dataset({name!r})", ["--dataset", name]
    if source == "generated":
        names = [n for n in info.index if info.loc[n, "kind"] == "generator"]
        name = choose(st.selectbox, "Generator", names, "generator", names[0])
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        n = remember("n", int(st.number_input("records", min_value=10, max_value=MAX_RECORDS, step=500, key="n",
                                              value=last("n", 2000))))
        seed = remember("seed", int(st.number_input("seed", min_value=0, max_value=2**31 - 1, step=1, key="seed",
                                                    value=last("seed", 0))))
        return (load(name, n=n, seed=seed), f"ma.load_dataset({name!r}, n={n}, seed={seed})",
                ["--dataset", name, "--data-param", f"n={n}", "--data-param", f"seed={seed}"])
    up = st.file_uploader(f"CSV with a header row (at most {MAX_UPLOAD_MB} MB, {MAX_RECORDS:,} records)", type="csv",
                          key="upload")
    if up is None:
        st.info("Upload a CSV file to start, or pick a benchmark data set.")
        st.stop()
    if up.size > MAX_UPLOAD_MB * 2**20:
        st.error(f"The file is {up.size / 2**20:.0f} MB; the dashboard accepts at most {MAX_UPLOAD_MB} MB. "
                 "Use the command line (python -m microagg run --input ...) for larger files.")
        st.stop()
    encoding = choose(st.selectbox, "Encoding", ["utf-8", "latin-1", "cp1252"], "encoding", "utf-8",
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
        st.warning(" ".join(text) + " Text columns are dropped from the release unless you mask them as categories "
                   "('Categorical columns to mask') or list them under 'Columns to release unmasked' or 'Key columns'.")
    if len(df) > MAX_RECORDS:
        st.error(f"{up.name} has {len(df):,} records; the dashboard handles at most {MAX_RECORDS:,}. "
                 "Use the command line for larger files.")
        st.stop()
    if len(df) < 2:
        st.error(f"{up.name} has {len(df)} record(s): microaggregation needs at least 2.")
        st.stop()
    if encoding == "utf-8":
        return df, f"ma.read_csv({up.name!r}).data", ["--input", up.name]
    return df, f"ma.read_csv({up.name!r}, encoding={encoding!r}).data", ["--input", up.name, "--encoding", encoding]


def columns_section(df: pd.DataFrame, data_expr: str):
    """Which columns are masked (numeric, and categorical with their kind), released unmasked, known to an intruder
    (keys) and stratified on, the sampling weights and what to do with missing cells; the rest are dropped.
    Identifiers (``ma.identifiers``, the rule of the API and the command line) are not selected."""
    numeric = [str(c) for c in df.columns
               if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
    if not numeric:
        st.error("This data has no numeric column: microaggregation needs numbers.")
        st.stop()
    ids = ma.identifiers(df)
    weights = sampling_weight_columns(df)  # named like a sampling weight: proposed, never masked by default
    weight = choose(st.selectbox, "Sampling weights", [None, *numeric], f"weight:{data_expr}",
                    weights[0] if weights else None,
                    format_func=lambda c: "none" if c is None else c,
                    help="A survey's design weights (positive numbers): the mean and median become weighted "
                         "and the report adds weighted metrics. Never masked; released only if you keep it "
                         "(an exact weight can single a respondent out). A column named like a weight "
                         "(weight, wgt, pw…) is proposed. docs/methods.md §8.")
    if weights and weight == weights[0]:
        st.caption(f"**{weight}** is named like a sampling weight, so it is proposed here; choose none to leave the "
                   "release unweighted (it is then withheld, unless you mask or keep it).")
    columns = choose_many(st.multiselect, "Columns to mask", numeric, f"columns:{data_expr}",
                          [c for c in numeric if c not in ids and c not in weights and c != weight],
                          help="Numeric columns replaced by group values. Identifiers (record numbers, IDs) are "
                               "left out by default and dropped: a group value of an ID is often a real ID.")
    if weight in columns:
        columns = [c for c in columns if c != weight]
        st.caption(f"**{weight}** is the sampling-weight column: never masked, released only if kept.")
    missing = "keep"
    holes = int(df[columns].isna().to_numpy().sum()) if columns else 0
    if holes:
        missing = choose(st.radio, f"Missing cells ({holes:,} in the masked columns)", ["keep", "impute", "refuse"],
                         "missing", "keep", horizontal=True,
                         format_func={"keep": "release missing", "impute": "impute group value",
                                      "refuse": "refuse"}.get,
                         help="The records are microaggregated with distances over their observed attributes. "
                              "'release missing' leaves a missing cell missing (and hides a few observed cells "
                              "so that k rows share each missingness pattern); 'impute' releases the group "
                              "value there. docs/methods.md §8.")
    if ids:
        st.caption("Identifiers, neither masked nor released unless you select them: "
                   + "; ".join(f"**{c}** ({why})" for c, why in ids.items()))
    cats = categories_section(df, data_expr, columns, ids)
    missing_categories = "refuse"
    blanks = int(df[[c for c, _, _ in cats]].isna().to_numpy().sum()) if cats else 0
    if blanks:
        missing_categories = choose(
            st.radio, f"Missing categories ({blanks:,} in the categorical columns)", list(CATEGORIES_MISSING),
            "missing-categories", "refuse", horizontal=True,
            format_func={"refuse": "refuse", "impute": "impute group category", "category": "own category",
                         "drop": "drop records"}.get,
            help="'impute': the records are grouped by their other attributes and a missing category shows its "
                 "group's category; 'own category': missing is a nominal column's category like any other; 'drop': "
                 "the records with a missing category are left out of the release. The report says what was done. "
                 "docs/methods.md §8.8.")
    others = [str(c) for c in df.columns if str(c) not in columns and str(c) not in {c for c, _, _ in cats}]
    keep_col, key_col = st.columns(2)
    keep = choose_many(keep_col.multiselect, "Columns to release unmasked", others, f"keep:{data_expr}", [],
                       help="Released exactly as they are. Every other column not masked is dropped from "
                            "the release. A kept column an intruder may know should be declared a key.")
    keys = choose_many(key_col.multiselect, "Key columns (an intruder may know them)", others, f"keys:{data_expr}",
                       [], help="Released unmasked like kept columns, and counted in the k-anonymity check: "
                                "a row is protected only if k rows share its keys and masked values.")
    stratify = remember("stratify", st.checkbox(
        "Microaggregate inside each combination of the keys (strata)", value=last("stratify", True), key="stratify",
        disabled=not keys, help="Groups never mix records with different keys, so the release stays k-anonymous "
                                "with the keys released. Each combination needs at least k records."))
    return columns, [c for c in keep if c not in keys], keys, (keys if keys and stratify else []), cats, weight, \
        missing, missing_categories


def categories_section(df: pd.DataFrame, data_expr: str, columns: list[str], ids: dict) -> tuple:
    """Categorical quasi-identifiers (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15): a kind per column and,
    for an ordinal one, its order, shown pre-filled with the natural sort for the user to correct."""
    candidates = [str(c) for c in df.columns if str(c) not in columns and str(c) not in ids]
    chosen = choose_many(st.multiselect, "Categorical columns to mask (ordinal or nominal)", candidates,
                         f"cats:{data_expr}", [],
                         help="Text or numbers with few values, such as region or education: each group publishes "
                              "the median (ordinal) or most frequent (nominal) category of its members, so no "
                              "category is invented (heterogeneous MDAV, Domingo-Ferrer & Torra 2005).")
    out = []
    for c in chosen:
        kind = choose(st.radio, f"Kind of {c}", ["nominal", "ordinal"], f"kind:{data_expr}:{c}", "nominal",
                      horizontal=True, help="Nominal: categories without order (region). Ordinal: ordered "
                                            "categories (education); the group value is the lower median.")
        if kind == "nominal":
            out.append((c, kind, None))
            continue
        natural = " < ".join(map(str, natural_order(df[c])))
        text = remember(f"order:{data_expr}:{c}", st.text_input(
            f"Order of {c}, lowest first", value=last(f"order:{data_expr}:{c}", natural), key=f"order:{data_expr}:{c}",
            help="Every category, separated by '<'. Pre-filled with the natural sort (numbers by value, text "
                 "alphabetically with numbers inside compared as numbers): correct it if that is not the order."))
        out.append((c, kind, tuple(v.strip() for v in text.split("<"))))
        if text == natural and not pd.api.types.is_numeric_dtype(df[c]):
            st.caption(f"The order of **{c}** is the natural sort of its text: check it.")
    return tuple(out)


def method_section(df: pd.DataFrame, data_expr: str, columns: list[str]):
    k = k_widgets(len(df))
    parts = {m.title: m for m in methods("partition")}
    part = parts[choose(st.selectbox, "Partitioning method", list(parts), "method", list(parts)[0])]
    st.caption(f"{part.summary} — {part.source}")
    confidential: list[str] = []
    if part.caps.uses_roles:
        default_conf = [c for c in df.attrs.get("roles", {}).get("confidential", []) if c in columns]
        confidential = choose_many(st.multiselect, "Confidential columns", columns, f"conf:{data_expr}", default_conf,
                                   help="Sensitive attributes: released unchanged, and used by this method to "
                                        "shape the groups (diverse, or t-close). The other masked columns are "
                                        "the quasi-identifiers.")
    mparams = parameter_widgets(part, f"p-{part.name}", max(1, len(columns) - len(confidential)),
                                shared=st.session_state.get("aggregation"))
    try:
        refinable, why = check_refine("igd", part) == "igd", ""
    except ma.MicroaggError as exc:
        refinable, why = False, f" Not available here: {exc}"
    refine = choose(st.selectbox, "Refinement", list(REFINEMENTS) if refinable else ["none"], "refine", "none",
                    format_func={"none": "none", "igd": "IGD (iterative group decomposition)"}.get,
                    help="IGD moves records between the method's groups wherever the SSE falls and splits "
                         "groups of 2k or more; never worse, every group k..2k−1 (Khomnotai, Lin, Peng & "
                         "Samanta 2018; docs/methods.md §2.18)." + why)
    return k, part, confidential, mparams, refine


def aggregation_section(n: int, d: int):
    aggs = {m.title: m for m in methods("aggregate")}
    agg = aggs[choose(st.selectbox, "Aggregation", list(aggs), "aggregation", list(aggs)[0])]
    st.caption(f"{agg.summary} — {agg.source}")
    uploads = {p.name: st.session_state.get(f"u-{agg.name}-{p.name}") for p in agg.params if p.array_ok}
    aparams = parameter_widgets(agg, f"a-{agg.name}", d, overridden=[n_ for n_, u in uploads.items() if u is not None])
    for name in uploads:
        p = agg.param(name)
        upload = st.file_uploader(f"{p.label or name} per record (optional CSV: one value per record, or one column "
                                  "per masked attribute)", type="csv", key=f"u-{agg.name}-{name}",
                                  help="When given, it replaces the value in the box above.")
        if upload is not None:
            try:
                aparams[name] = per_record(upload, n, d)
            except ValueError as exc:
                st.error(f"{p.label or name}: {exc}")
                st.stop()
    return agg, aparams


def metrics_section() -> tuple[dict, str]:
    eparams = {"p": widget(metric_registry.PARAMS["p"], "m-p", 1)}
    dld_rule = choose(st.selectbox, "DLD rule (risk-utility map)", list(RULES), "m-dld", RULES[0],
                      format_func=RULE_TITLES.get,
                      help="When an intruder's nearest-neighbour link counts as a disclosure (docs/metrics.md "
                           "§4.6; the report lists every rule).")
    return eparams, dld_rule


def per_record(upload, n: int, d: int) -> np.ndarray:
    """Values of an uploaded CSV (header row) as an (n,) or (n, d) float array; ValueError says what is wrong."""
    try:
        values = pd.read_csv(upload).to_numpy(dtype=float)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"cannot read {upload.name} as numbers: {exc}") from None
    if values.shape[0] != n or values.shape[1] not in (1, d):
        raise ValueError(f"{upload.name} has {values.shape[0]} rows and {values.shape[1]} columns; expected {n} rows "
                         f"and 1 or {d} columns (one value per record, or one per masked attribute).")
    return values[:, 0] if values.shape[1] == 1 else values


def sidebar() -> Setup:
    with st.sidebar:
        st.header("Data")
        df, data_expr, data_args = data_section()
        columns, keep, keys, strata, cats, weight, missing, missing_categories = columns_section(df, data_expr)
        st.header("Microaggregation")
        k, part, confidential, mparams, refine = method_section(df, data_expr, columns)
        agg, aparams = aggregation_section(len(df), max(1, len(columns) - len(confidential)))
        shared = {p.name for p in part.params if p.shared} & {p.name for p in agg.params if p.shared}
        mparams = {**mparams, **{name: aparams[name] for name in shared}}  # one value, typed once (the DP bounds)
        st.header("Metrics")
        eparams, dld_rule = metrics_section()
    return Setup(df, data_expr, data_args, columns, keep, keys, strata, k, part, confidential, mparams, agg, aparams,
                 eparams, dld_rule, cats, weight, missing, missing_categories, refine)


# --------------------------------------------------------------------------- results


@dataclass
class Result:
    """The partition and the release of the sidebar's choices: ``summary`` is the report of the :data:`SUMMARY`
    metrics (with every row that is not a metric of ``evaluate``), :meth:`report` the whole one."""

    labels: np.ndarray
    released: Released
    summary: pd.DataFrame
    ekey: tuple  # the evaluation parameters of the reports
    notes: tuple = ()

    @property
    def protected(self) -> pd.DataFrame:  # as published: identifiers and the index left out, rows shuffled
        return self.released.rel.protected

    @property
    def Z(self) -> np.ndarray:
        return self.released.rel.Z

    @property
    def params(self) -> dict:
        return self.released.rel.params

    @property
    def spec(self):
        return self.released.rel.spec

    def report(self) -> pd.DataFrame:
        """Every metric: computed the first time a tab that shows it is opened for this release."""
        if (self.ekey, None) in self.released.reports:
            return self.released.report(self.ekey)
        with st.spinner("Computing every metric of the report…"):
            return self.released.report(self.ekey)


def compute(s: Setup) -> Result:
    """The partition, the release of the sidebar's choices and its summary (cached); MicroaggError propagates."""
    if s.part.name == "mdav":
        wait_for_mdav()
    labels, notes = partition(s.df, tuple(s.masked), tuple(s.confidential), s.k, s.part.name, s.mkey,
                              tuple(s.strata), s.cats, s.missing, s.refine, s.missing_categories)
    held = release(s.df, tuple(s.masked), tuple(s.confidential), tuple(s.keep), s.k, s.part.name, s.mkey, s.agg.name,
                   s.akey, labels, tuple(s.keys), tuple(s.strata), s.cats, s.weight, s.missing, s.refine,
                   s.missing_categories)
    summary, said = held.summary(s.ekey)
    return Result(labels, held, summary, s.ekey, tuple(dict.fromkeys(notes + held.notes + said)))


def overall(table: pd.DataFrame) -> pd.Series:
    """The report's values over all attributes, by metric."""
    return table[table["attribute"] == "all"].set_index("metric")["value"]


def headline(s: Setup, r: Result) -> None:
    values = overall(r.summary)
    c1, c2, c3, c4 = st.columns(4)
    il = float(values["IL"] if "IL" in values else values["IL (observed cells)"])
    c1.metric("Information loss (IL)", "undefined" if np.isnan(il) else f"{il:.3f} %",
              help="100·SSE/SST on z-scores (Chettri, Paul & Dutta, Eq. 4); undefined when every record is "
                   "identical (SST = 0).")
    groups = r.summary.loc[r.summary["metric"] == "groups", "value"].iloc[0]  # per attribute: the first one's
    c2.metric("Groups", f"{int(groups):,}")
    c3.metric("Smallest equivalence class", int(values["smallest equivalence class"]),
              help="Released rows identical on all masked and key columns; k-anonymity needs at least k.")
    c4.metric("k-anonymous", "yes" if bool(values["k-anonymous"]) else "NO",
              help="On the masked columns and the key columns, for the file as published.")
    caveats(s, r, bool(values["k-anonymous"]))


def caveats(s: Setup, r: Result, k_anonymous: bool) -> None:
    """What the release does not protect, said on the page."""
    values = overall(r.summary)
    if not k_anonymous and s.keys and s.part.record_level:
        st.warning(f"**The key columns {', '.join(s.keys)} break k-anonymity:** "
                   f"{int(values['records in classes < k'])} released rows share their keys and masked values with "
                   "fewer than k others. Tick 'Microaggregate inside each combination of the keys'.", icon="⚠️")
    elif not k_anonymous:
        why = " ".join(r.notes) or s.part.summary
        st.warning(f"**This release is not k-anonymous as whole records.** {why}", icon="⚠️")
    uncovered = r.summary[r.summary["metric"].str.startswith("kept column not in the k-anonymity check")]
    for row in uncovered.itertuples():
        st.info(f"Kept column **{row.attribute}** is not in the k-anonymity check: if an intruder knows it, "
                f"{tables.format_value(row.value, row.unit)} released rows become unique. Declare it a key if it "
                "may be known.", icon="ℹ️")
    if "exact cells" in values and float(values["exact cells"]) > 0:
        st.info(f"{float(values['exact cells']):.2f} % of the masked cells are published exactly as in the original "
                f"({float(values['exact records']):.2f} % of the records have one)"
                + (" — the median of a group of odd size is one member's own value." if s.agg.name == "median"
                   else "."), icon="ℹ️")
    exact = [*s.confidential, *s.keep]
    if exact:
        st.info(f"Released with their exact values: {', '.join(exact)} (confidential or kept unmasked). Check that "
                "no identifier (name, ID, record number) is among them.", icon="ℹ️")


def table_height(rows: int, cap: int = 16) -> int:
    """A dataframe height that shows ``rows`` rows without an inner scroll bar (up to ``cap`` rows)."""
    return 38 + 35 * min(rows, cap)


# --------------------------------------------------------------------------- tabs


def looks_like_identifier(column: pd.Series) -> bool:
    """The identifier rule of the API (``ma.identifiers``) on one column: not a quantity to plot by default."""
    return bool(ma.identifiers(column.to_frame()))


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
    sample = ma.standardize(df[pair].iloc[rows])
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


def tab_aggregation(s: Setup, r: Result) -> None:
    st.write("The same partition, aggregated by every registered aggregation (default parameters for the ones not "
             "selected in the sidebar). A **breach** is a released value closer than Δ to its original: the "
             "owner's wish not met, which P3M tries to avoid.")
    rows, released, left_out = [], {}, []
    for m in methods("aggregate"):
        ap = s.akey if m.name == s.agg.name else tuple(sorted(m.defaults().items()))
        try:
            # the same arguments as the main release for the selected aggregation: a cache hit
            held = release(s.df, tuple(s.masked), tuple(s.confidential), tuple(s.keep), s.k, s.part.name, s.mkey,
                           m.name, ap, r.labels, tuple(s.keys), tuple(s.strata), s.cats, refine=s.refine,
                           mcats=s.missing_categories)
            summary, _ = held.summary(s.ekey)
        except ma.MicroaggError as exc:
            if m.name == s.agg.name:  # what the user chose: a warning; another one's defaults: a note below
                st.warning(f"{m.title}: {exc}")
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


def inside(key: str, top: int) -> None:
    """Keep a k range slider's value within 2..top (the data may have fewer records than its last value)."""
    kept = st.session_state.setdefault("_kept", {})
    if key in kept:
        kept[key] = tuple(min(max(v, 2), top) for v in kept[key])
    if key in st.session_state and max(st.session_state[key]) > top:
        del st.session_state[key]


def stale_note(what: str, shown_for: tuple, now: tuple) -> None:
    if shown_for != now:
        st.warning(f"This {what} was computed for earlier settings (sidebar or the controls above). Press the button "
                   "to compute it for the current ones.", icon="🕒")


@st.fragment
def ru_map(s: Setup) -> None:
    r1, r2, r3 = st.columns([2, 2, 1])
    names = [m.name for m in methods("partition")]
    ru_methods = r1.multiselect("methods", names, key="ru-methods", **initial("ru-methods", "default", [s.part.name]))
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
            frame = ru_sweep(s.df, tuple(s.masked), tuple(s.confidential), ks, runs, s.agg.name,
                             float(s.eparams["p"]), s.dld_rule, tuple(compare))
        except ma.MicroaggError as exc:
            st.error(str(exc))
            return
        st.session_state["ru-result"] = (now, frame, s.part.name, RULE_TITLES[s.dld_rule], float(s.eparams["p"]))
    if "ru-result" not in st.session_state:
        return
    shown_for, frame, method, rule, p = st.session_state["ru-result"]
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


def tab_privacy(s: Setup, r: Result) -> None:
    st.write("Mortazavi & Jalili's (2017) model: each owner asks that the released value stay at least **Δ** away "
             "from theirs, with importance **w**; P3M shifts every group's value to minimize, with weight **α**, the "
             "gaps between each squared released distance and Δ² (too near and too far alike, scaled by "
             "1 / (1 − w)) against, with weight 1 − α, the size of the shifts, while keeping every mean and "
             "variance. It does not count wishes met: the satisfaction level SL, the weighted share of wishes met, "
             "is measured on its result.")
    alphas = tuple(np.round(np.linspace(0, 1, 11), 2))
    privacy = s.privacy
    try:
        frame = sl_alpha(r.Z, r.labels, alphas, tuple(sorted(privacy.items())))
    except ma.MicroaggError as exc:
        st.error(str(exc))
    else:
        left, right = st.columns([3, 2])
        left.plotly_chart(plots.satisfaction_over_alpha(frame), width="stretch")
        W = cells(r.Z, **privacy)[1]
        if np.ptp(W) > 0:
            right.plotly_chart(plots.weights_histogram(W), width="stretch")
        else:
            right.metric("Privacy weight of every cell", f"w = {W.flat[0]:g}",
                         help="Choose P3M with weights = random (or upload per-record weights) to vary it.")
        number = st.column_config.NumberColumn(format="%.2f")
        st.dataframe(frame, hide_index=True, width="stretch", height=table_height(len(frame)),
                     column_config={c: number for c in ("alpha", "SL P3M", "SL mean (renormalized)", "IL P3M")})
        st.caption("status per attribute: 'optimal' = certified global optimum (the dual bound closes the gap); "
                   "'local' = a feasible local optimum, its gap to the bound is reported in the release report.")
    st.subheader("SL over k and α")
    sl_heatmap(s)


@st.fragment
def sl_heatmap(s: Setup) -> None:
    h1, h2 = st.columns(2)
    top = min(20, len(s.df))
    inside("sl-k", top)
    hk = remember("sl-k", h1.slider("k from … to", 2, max(3, top), key="sl-k",
                                    **initial("sl-k", "value", (min(3, top), min(10, top)))))
    hk = (min(hk[0], top), min(hk[1], top))
    ha = remember("sl-alpha", h2.select_slider("α values", options=[3, 5, 6, 11], key="sl-alpha",
                                               **initial("sl-alpha", "value", 6)))
    ks = tuple(sorted({hk[0], hk[1], *range(hk[0], hk[1] + 1, max(1, (hk[1] - hk[0]) // 6))}))
    alphas = tuple(np.round(np.linspace(0, 1, ha), 2))
    privacy = tuple(sorted(s.privacy.items()))
    now = (s.data_expr, len(s.df), tuple(s.masked), tuple(s.confidential), ks, alphas, s.part.name, s.mkey, privacy)
    if st.button("Compute the heat-map", key="sl-go"):
        try:
            grid = sl_grid(s.df, tuple(s.masked), tuple(s.confidential), ks, alphas, s.part.name, s.mkey, privacy)
        except ma.MicroaggError as exc:
            st.error(str(exc))
            return
        st.session_state["sl-result"] = (now, grid)
    if "sl-result" in st.session_state:
        shown_for, grid = st.session_state["sl-result"]
        stale_note("heat-map", shown_for, now)
        st.plotly_chart(plots.satisfaction_heatmap(grid), width="stretch")


def tab_release(s: Setup, r: Result) -> None:
    report = public(r.report())  # the noise seed of an ε-DP release only in the files marked private
    st.dataframe(r.protected, height=320, width="stretch", hide_index=True)
    d1, d2, d3 = st.columns(3)
    d1.download_button("Download the release (CSV)", release_csv(r.protected), file_name="release.csv",
                       mime="text/csv", key="download-release")
    d2.download_button("Download the report (CSV)", lambda: write_csv(report, index=False).encode(),
                       file_name="report.csv", mime="text/csv", key="download-report")
    d3.download_button("Download the report (HTML, private)", lambda: release_html(s, r), file_name="report.html",
                       mime="text/html", key="download-report-html",
                       help="One page that opens offline: parameters, metrics, plots, the recipe and its seed. Keep "
                            "it private, like the data.")
    st.caption("The release as published: identifiers and the input's row labels left out, rows in a random order "
               "(the commands below carry its seed, and the noise's seed of an ε-DP release: keep them private, like "
               "the data; the report's CSV leaves the noise seed out). Text cells a spreadsheet would run as a formula "
               "get a leading quote.")
    st.subheader("Report")
    st.dataframe(tables.headline(report), hide_index=True, width="stretch",
                 height=table_height(len(tables.headline(report))))
    full = st.expander(f"The full report ({len(report)} rows: every metric, per attribute, with its source)",
                       key="report-open", on_change="rerun")
    if full.open:
        full.dataframe(tables.formatted(report), hide_index=True, width="stretch", height=420)
    st.subheader("Reproduce this release")
    st.caption("Both write the same release.csv as the download button.")
    st.code(recipe.python_snippet(r.spec, s.data_expr), language="python")
    st.code(recipe.cli_command(r.spec, s.data_args), language="bash")


# --------------------------------------------------------------------------- page


# The tabs in their order: a title and a function drawing it from the sidebar's choices and the release (README,
# "Architecture": adding a tab is one function and one line here).
TABS = {"Partition": tab_partition, "Aggregation": tab_aggregation, "Risk & utility": tab_risk,
        "Personalized privacy": tab_privacy, "Release": tab_release}


def main() -> None:
    kernels()  # start compiling in the background before anything else
    st.title("microagg — microaggregation lab")
    st.caption("Partition numeric records into groups of at least k, publish a group value instead of each record, "
               "and see what it costs in information loss.")
    s = sidebar()
    problem, r = None, None
    if not s.columns:
        problem = "Select at least one numeric column to mask."
    else:
        try:
            r = compute(s)
        except ma.MicroaggError as exc:
            problem = str(exc)
    hint = scale_hint(len(s.df), len(s.masked), s.part) if s.columns else None
    if hint:
        st.info(f"This may take long: {hint}")
    if r is not None:
        headline(s, r)
    else:
        st.error(problem)
    tabs = st.tabs(list(TABS), key="tab", on_change="rerun")
    for tab, draw in zip(tabs, TABS.values()):
        if tab.open:
            with tab:
                if r is None:
                    st.info("Nothing to show until the problem above is fixed in the sidebar.")
                    continue
                if s.survey and draw is not tab_release:
                    st.info("With sampling weights or missing cells, only the Release tab is drawn: this tab "
                            "compares methods and metrics that need complete, unweighted records (docs/methods.md "
                            "§8), as do the sidebar's metric options. The report in the Release tab has the survey "
                            "metrics.")
                    continue
                try:
                    draw(s, r)
                except ma.MicroaggError as exc:  # e.g. a metric the whole report computes on opening the tab
                    st.error(str(exc))
    references()


@st.cache_data(show_spinner=False)
def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def references() -> None:
    """The papers cited on the page (by authors and year), with full entries; definitions are in docs/."""
    refs = st.expander("References: the papers cited on this page", key="refs-open", on_change="rerun")
    if refs.open:
        refs.caption("Definitions and the decisions taken where a paper is ambiguous: docs/methods.md and "
                     "docs/metrics.md in the repository; published tables beside ours: docs/reproductions.md.")
        refs.markdown(read_doc("references.md").split("\n", 1)[1])


main()
