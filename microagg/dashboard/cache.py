"""The release specification of the sidebar's choices and the cached stages of the page (roles and standardize,
partition, aggregate and release, each keyed on the part of the specification it reads; figures, downloads), the
release it shows (:class:`Released`, :class:`Result`) and the background warm-up of the numba kernels. The stages'
caches are Streamlit's, shared by every session of the server."""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from ..data.datasets import list_datasets, load_dataset
from ..data.io import write_csv
from ..figures import plots
from ..lab.explore import satisfaction_over_alpha
from ..partition.compiled import warmup
from ..partition.mdav import mdav_steps
from ..release import stages
from ..release.release import Release
from ..release.spec import OPTION, Params, ReleaseSpec

DOCS = Path(__file__).resolve().parents[2] / "docs"


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


def _caught(call):
    """``call()`` and the texts of the warnings it raised (shown on the page, not in the server's terminal)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = call()
    return out, tuple(dict.fromkeys(str(w.message) for w in seen))


@st.cache_data(show_spinner=False)
def datasets() -> pd.DataFrame:
    """The data sets and generators by name (``ma.list_datasets`` reads every bundled file: 45 ms a run)."""
    return list_datasets().set_index("name")


@st.cache_data(show_spinner=False)
def load(name: str, **kwargs) -> pd.DataFrame:
    return load_dataset(name, **kwargs)


# The caches below are keyed on the release's specification (``ReleaseSpec.key``), each on the part its stages read:
# the roles and standardize stages read no method (:func:`data_part`), the partition stage no aggregation and none of
# the options that only the aggregate and release stages read (:func:`partition_part`). An option not named in
# AGGREGATE_ONLY is taken to change the partition: a new one is correct before it is fast.
AGGREGATE_ONLY = ("keep", "keys", "sampling_weights", "renormalize", "shuffle", "seed", "keep_index")


@st.cache_resource(show_spinner=False, max_entries=256, hash_funcs={Params: lambda params: params.key})
def specification(k: int, method: str, aggregation: str, mparams: Params, aparams: Params,
                  options: dict) -> ReleaseSpec:
    """The release specification of the sidebar's choices (``ReleaseSpec.of``, validated as at every door), built
    once for these choices: every run showing them gets the same value, with the same noise seed drawn for an
    ε-differentially private aggregation whose seed box is empty. ``mparams``/``aparams``: the partitioner's and
    the aggregation's (an uploaded array keyed by all its bytes); ``options``: the options of
    ``release.spec.OPTIONS`` by name. MicroaggError propagates."""
    return ReleaseSpec.of(k, method, aggregation, dict(mparams), dict(aparams), **options)


def data_part(spec: ReleaseSpec) -> ReleaseSpec:
    """What the roles and standardize stages read of ``spec``: every option and k, no partitioner or aggregation."""
    return spec.resolved(method="mdav", method_params=Params(), aggregation="mean", aggregation_params=Params())


def partition_part(spec: ReleaseSpec) -> ReleaseSpec:
    """What the partition stage reads of ``spec``: no aggregation, none of the :data:`AGGREGATE_ONLY` options."""
    return spec.resolved(aggregation="mean", aggregation_params=Params(),
                         **{name: OPTION[name].default for name in AGGREGATE_ONLY})


@st.cache_resource(show_spinner=False, max_entries=8,
                   hash_funcs={ReleaseSpec: lambda spec: data_part(spec).key()})
def prepared(df: pd.DataFrame, spec: ReleaseSpec) -> tuple[stages.Prepared, tuple]:
    """The roles and standardize stages of ``spec`` on ``df``, run once for every partition and aggregation of the
    same data and options (a change of method or α standardizes nothing), and the warnings said. Shared by the runs
    and sessions that show it: the stages read it and never modify it. MicroaggError propagates."""
    part = data_part(spec)
    return _caught(lambda: stages.standardize(df, stages.roles_of(df, part), part))


@st.cache_data(show_spinner="Partitioning…", max_entries=64,
               hash_funcs={ReleaseSpec: lambda spec: partition_part(spec).key()})
def partition(df: pd.DataFrame, spec: ReleaseSpec) -> tuple[np.ndarray, tuple]:
    """The partition stage alone (no aggregation, no report), kept for every aggregation of it: its labels are then
    aggregated by :func:`release`; and the warnings said (standardizing too)."""
    prep, said = prepared(df, spec)
    labels, notes = _caught(lambda: stages.partition(prep, spec)[0])
    return labels, tuple(dict.fromkeys(said + notes))


# the report's metrics on every page (the headline, its caveats) and in the Aggregation tab's table; the others are
# computed only by the tabs that show them (Risk & utility, Release)
SUMMARY = ("IL", "partition IL", "SL", "exact cells", "exact records")


def hashable(pairs: tuple) -> tuple:
    """Parameters as (name, value) pairs with each array (a Δ or w uploaded per record) replaced by its shape and
    bytes: a key of a dict, or a value to compare with ``!=``."""
    return tuple((name, (np.shape(v), np.asarray(v).tobytes()) if np.ndim(v) else v) for name, v in pairs)


@dataclass(eq=False)
class Released:
    """A release of the page (the aggregate and release stages on a cached partition: one shuffle, kept), the same
    rows in input order (for the plots), the warnings said on the way, and its reports, each computed once, when a
    part of the page first asks for it. Shared by the runs and sessions that show it: nothing modifies it."""

    rel: Release
    in_order: pd.DataFrame
    notes: tuple
    reports: dict = field(default_factory=dict, repr=False)

    def report(self, eparams: tuple, metrics: tuple | None = None) -> pd.DataFrame:
        """``Release.report`` with the evaluation parameters ``eparams`` (a sorted tuple of pairs), of the
        ``metrics`` named (default: every one)."""
        key = (hashable(eparams), metrics)
        if key not in self.reports:  # with missing cells the report's two metrics take no options (metrics §4.27)
            self.reports[key] = self.rel.report(metrics=metrics, **({} if self.rel.missing_cells else dict(eparams)))
        return self.reports[key]

    def computed(self, eparams: tuple, metrics: tuple | None = None) -> bool:
        """Whether :meth:`report` has this report already."""
        return (hashable(eparams), metrics) in self.reports

    def summary(self, eparams: tuple) -> tuple[pd.DataFrame, tuple]:
        """The report of the :data:`SUMMARY` metrics and the warnings said computing it."""
        return _caught(lambda: self.report(eparams, SUMMARY))


@st.cache_resource(show_spinner="Aggregating…", max_entries=64, hash_funcs={ReleaseSpec: ReleaseSpec.key})
def release(df: pd.DataFrame, spec: ReleaseSpec, labels: np.ndarray) -> Released:
    """The aggregate and release stages of ``spec`` on its cached partition ``labels``, kept as one object for every
    run that shows it (a change of α re-solves P3M and evaluates the headline metrics only; going back to an
    earlier value is a cache hit). MicroaggError propagates."""
    prep, _ = prepared(df, spec)  # its warnings are the partition's

    def run():
        rel = stages.release(prep, labels, stages.aggregate(prep, labels, spec), spec,
                             {**spec.engine.info(spec.k), "refine": spec.refine})
        return rel, rel.in_input_order()

    (rel, in_order), notes = _caught(run)
    return Released(rel, in_order, notes)


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
    def spec(self) -> ReleaseSpec:
        """The release's specification, resolved (the columns masked, the seeds drawn): its recipe."""
        return self.released.rel.spec

    def report(self) -> pd.DataFrame:
        """Every metric: computed the first time a tab that shows it is opened for this release."""
        if self.released.computed(self.ekey):
            return self.released.report(self.ekey)
        with st.spinner("Computing every metric of the report…"):
            return self.released.report(self.ekey)


def overall(table: pd.DataFrame) -> pd.Series:
    """The report's values over all attributes, by metric."""
    return table[table["attribute"] == "all"].set_index("metric")["value"]


@st.cache_data(show_spinner="Solving P3M over α…")
def sl_alpha(Z: np.ndarray, labels: np.ndarray, alphas: tuple, privacy: tuple):
    return satisfaction_over_alpha(Z, labels, alphas, **dict(privacy))


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
    return mdav_steps(xy, k, variant)


@st.cache_data(show_spinner=False, max_entries=8)
def release_csv(protected: pd.DataFrame, index: bool = False) -> bytes:
    """The file the download button offers: the writer of ``Release.to_csv`` and the CLI (the index only if the
    release keeps the input's, text cells a spreadsheet would run as a formula quoted), so the recipe's command and
    snippet write the same bytes."""
    return write_csv(protected, index=index).encode()


@st.cache_data(show_spinner=False)
def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")
