"""The release specification of the sidebar's choices and the cached stages of the page (roles and standardize,
partition, aggregate and release, each keyed on the part of the specification it reads; figures, downloads), the
release it shows (:class:`Released`, :class:`Result`) and the background warm-up of the numba kernels. The stages'
caches are Streamlit's, shared by every session of the server, keyed on every byte of the data (:data:`EXACT`) and
bounded; what one session chose by chance (the noise seed of an empty seed box) is drawn in its own session state
(``sidebar``), never here. The warnings microagg said during a computation are kept with its result (same inputs,
same notes), collected per run (``base.said``), never through the process-wide warnings state; other libraries'
warnings go to the server's terminal."""

from __future__ import annotations

import hashlib
import io
import os
import threading
import time
import weakref
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from threadpoolctl import threadpool_limits

from ..base.advice import threads_available
from ..base.checks import check_int
from ..base.errors import MicroaggError
from ..base.said import caught
from ..data.datasets import list_datasets, load_dataset
from ..data.io import CsvTable, read_csv, write_csv
from ..figures import plots
from ..lab.explore import satisfaction_over_alpha
from ..partition import warmup
from ..partition.mdav import mdav_steps
from ..privacy.safety import identifiers
from ..release import stages
from ..release.release import Release
from ..release.spec import OPTION, Params, ReleaseSpec

DOCS = Path(__file__).resolve().parents[2] / "docs"

# The server's process-wide setting (README, "A class on one server"): BLAS runs one thread per call from the first
# page on (blas_threads), so that sessions computing at once share the cores instead of oversubscribing them (two
# OpenBLAS threads per call on two cores made ten concurrent reports 8x slower); MICROAGG_BLAS_THREADS sets another
# number. Each warning microagg says goes to the run that said it, every time, with no process-wide setting
# (base.said).
BLAS_ENV = "MICROAGG_BLAS_THREADS"


@st.cache_resource(show_spinner=False)
def blas_threads() -> int:
    """Limit BLAS to ``MICROAGG_BLAS_THREADS`` threads per call (default 1), once per server; a value that is not an
    integer >= 1 is refused with one message (the page shows it) rather than ignored."""
    value = os.environ.get(BLAS_ENV, "1").strip()
    try:
        n = check_int(int(value), 1, "")
    except (ValueError, MicroaggError):
        raise MicroaggError(f"{BLAS_ENV} must be an integer >= 1 (BLAS threads per call); got {value!r}.") from None
    threadpool_limits(n, user_api="blas")
    return n

_DIGESTS: dict[int, str] = {}


def frame_digest(df: pd.DataFrame) -> str:
    """SHA-256 of every cell of ``df`` (numbers by their bytes, other cells by their repr), its index, column names and
    dtypes, computed once per frame object (the frames of the page are the cached, shared, never modified ones of
    :func:`load` and :func:`upload`). Streamlit's own hash of a frame of 50,000 rows or more reads a sample of them:
    two uploads differing only elsewhere would share a result."""
    known = _DIGESTS.get(id(df))
    if known is not None:
        return known
    h = hashlib.sha256(repr((list(map(str, df.columns)), list(map(str, df.dtypes)), df.shape)).encode())
    for part in (df.index, *(df.iloc[:, j] for j in range(df.shape[1]))):
        values = np.asarray(part)
        h.update(values.tobytes() if values.dtype.kind in "biufcmM" else "\x1f".join(map(repr, values)).encode())
    _DIGESTS[id(df)] = out = h.hexdigest()
    weakref.finalize(df, _DIGESTS.pop, id(df), None)
    return out


def array_digest(a: np.ndarray) -> str:
    """SHA-256 of every byte of ``a``, its shape and dtype (Streamlit samples arrays of a million cells or more)."""
    a = np.ascontiguousarray(a)
    return hashlib.sha256(repr((a.shape, a.dtype.str)).encode() + a.tobytes()).hexdigest()


EXACT = {pd.DataFrame: frame_digest, np.ndarray: array_digest}  # the hash_funcs of every cache taking data


@dataclass
class Kernels:
    """The background warm-up of the numba kernels (``microagg.partition.warmup``), started only once data of a size
    that takes them is chosen (smaller runs take the numpy kernels: nothing to compile): ``mdav`` is set when MDAV can
    run; ``compiles.running`` while numba compiles (the first start on a machine; loading them from disk is quick)."""

    mdav: threading.Event = field(default_factory=threading.Event)
    compiles: warmup.Compiles = field(default_factory=warmup.Compiles)
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None


def compile_kernels(state: Kernels, n: int) -> None:
    """MDAV first (the default method), then every other partitioner, on samples of the engines ``n`` records take.
    If the warm-up fails (the error goes to the server's log), the sessions waiting for MDAV go on: their own run
    compiles, and says any error, instead of waiting for ever."""
    def ready(name: str) -> None:
        if name == "mdav":
            state.mdav.set()

    try:
        with state.compiles:
            warmup.warm_up("mdav", ready=ready, n=n)
    finally:
        state.mdav.set()


@st.cache_resource(show_spinner=False)
def kernels() -> Kernels:
    return Kernels()


def wait_for_mdav(n: int) -> None:
    """Before MDAV on ``n`` records: nothing below the crossover (the numpy kernels); above it, start the warm-up
    (once) and say what the first run is waiting for while numba compiles, with the time spent, instead of a bare
    spinner; a wait for kernels loaded from disk is not announced. Where threads cannot start, the run compiles."""
    if not warmup.compiles_for(n) or not threads_available():
        return
    state = kernels()
    with state.lock:
        if state.thread is None:
            state.started = time.monotonic()
            state.thread = threading.Thread(target=compile_kernels, args=(state, n), daemon=True)
            state.thread.start()
    if state.mdav.is_set():
        return
    note = st.empty()
    while not state.mdav.wait(0.25):
        if state.compiles.running.is_set():
            note.info(f"Compiling the MDAV kernel for this machine: {time.monotonic() - state.started:.0f} s so far. "
                      "This happens once (numba keeps the compiled code on disk); it takes about a minute on a "
                      "small machine, then every page is immediate.", icon="⏳")
    note.empty()


@st.cache_data(show_spinner=False)
def datasets() -> pd.DataFrame:
    """The data sets and generators by name (``ma.list_datasets`` reads every bundled file: 45 ms a run)."""
    return list_datasets().set_index("name")


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=EXACT)
def withheld(df: pd.DataFrame) -> dict[str, str]:
    """``privacy.safety.identifiers`` of the page's data, judged once per data set (its values rules read every
    column), for the sidebar's choices and the page's messages."""
    return identifiers(df)


@st.cache_resource(show_spinner=False, max_entries=16)
def load(name: str, **kwargs) -> pd.DataFrame:
    """A bundled data set or a generated one, one frame shared by every session showing it (nothing modifies it)."""
    return load_dataset(name, **kwargs)


@st.cache_resource(show_spinner="Reading the file…", max_entries=8)
def upload(digest: str, name: str, encoding: str, most: int, _data: bytes) -> CsvTable:
    """An uploaded CSV read once (``io.read_csv``), keyed on the SHA-256 ``digest`` of its bytes as uploaded, its name
    and encoding: only the same bytes find it again. One of more than ``most`` records is refused here, so that the
    cache never keeps it. MicroaggError propagates (nothing is cached then)."""
    table = read_csv(io.BytesIO(_data), encoding=encoding, name=name)
    if len(table.data) > most:
        raise MicroaggError(f"{name} has {len(table.data):,} records; the dashboard handles at most {most:,}. Use the "
                            "command line for larger files.")
    return table


def upload_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# The caches below are keyed on the release's specification (``ReleaseSpec.key``), each on the part its stages read:
# the roles and standardize stages read no method (:func:`data_part`), the partition stage no aggregation and none of
# the options that only the aggregate and release stages read (:func:`partition_part`). An option not named in
# AGGREGATE_ONLY is taken to change the partition: a new one is correct before it is fast.
AGGREGATE_ONLY = ("keep", "keys", "sampling_weights", "renormalize", "shuffle", "seed", "keep_index")


@st.cache_resource(show_spinner=False, max_entries=256, hash_funcs={Params: lambda params: params.key})
def specification(k: int, method: str, aggregation: str, mparams: Params, aparams: Params,
                  options: dict) -> ReleaseSpec:
    """The release specification of the sidebar's choices (``ReleaseSpec.of``, validated as at every door), built
    once for these choices: every run showing them gets the same value. Shared by the sessions, so nothing is drawn
    by chance here: the noise seed of an ε-differentially private aggregation whose seed box is empty comes in
    ``aparams``, drawn for the session (``sidebar.session_seed``), as does the shuffle's seed in ``options``.
    ``mparams``/``aparams``: the partitioner's and the aggregation's (an uploaded array keyed by all its bytes);
    ``options``: the options of ``release.spec.OPTIONS`` by name. MicroaggError propagates."""
    return ReleaseSpec.of(k, method, aggregation, dict(mparams), dict(aparams), **options)


def data_part(spec: ReleaseSpec) -> ReleaseSpec:
    """What the roles and standardize stages read of ``spec``: every option and k, no partitioner or aggregation, no
    shuffle seed (each session's own)."""
    return spec.resolved(method="mdav", method_params=Params(), aggregation="mean", aggregation_params=Params(),
                         seed=None)


def unshuffled(spec: ReleaseSpec) -> ReleaseSpec:
    """What the aggregate stage and the reports read of ``spec``: all of it but the shuffle's seed, which only orders
    the published rows (each session draws its own: ``sidebar.session_seed``), so the sessions at the same settings
    share the aggregation and its reports."""
    return spec.resolved(seed=None)


def partition_part(spec: ReleaseSpec) -> ReleaseSpec:
    """What the partition stage reads of ``spec``: no aggregation, none of the :data:`AGGREGATE_ONLY` options."""
    return spec.resolved(aggregation="mean", aggregation_params=Params(),
                         **{name: OPTION[name].default for name in AGGREGATE_ONLY})


@st.cache_resource(show_spinner=False, max_entries=8,
                   hash_funcs={**EXACT, ReleaseSpec: lambda spec: data_part(spec).key()})
def prepared(df: pd.DataFrame, spec: ReleaseSpec) -> tuple[stages.Prepared, tuple]:
    """The roles and standardize stages of ``spec`` on ``df``, run once for every partition and aggregation of the
    same data and options (a change of method or α standardizes nothing), and the warnings said. Shared by the runs
    and sessions that show it: the stages read it and never modify it. MicroaggError propagates."""
    part = data_part(spec)
    return caught(lambda: stages.standardize(df, stages.roles_of(df, part), part), own=True)


@st.cache_data(show_spinner="Partitioning…", max_entries=64,
               hash_funcs={**EXACT, ReleaseSpec: lambda spec: partition_part(spec).key()})
def partition(df: pd.DataFrame, spec: ReleaseSpec) -> tuple[np.ndarray, tuple]:
    """The partition stage alone (no aggregation, no report), kept for every aggregation of it: its labels are then
    aggregated by :func:`release`; and the warnings said (standardizing too)."""
    prep, said = prepared(df, spec)
    labels, notes = caught(lambda: stages.partition(prep, spec)[0], own=True)
    return labels, tuple(dict.fromkeys(said + notes))


# the report's metrics on every page (the headline, its caveats) and in the Aggregation tab's table; the others are
# computed only by the tabs that show them (Risk & utility, Release)
SUMMARY = ("IL", "partition IL", "SL", "exact cells", "exact records")


REPORTS_KEPT = 8  # reports kept per release (one per set of evaluation parameters), the oldest dropped first


@dataclass(eq=False)
class Released:
    """A release of the page (the aggregate and release stages on a cached partition: one shuffle, kept), the same
    rows in input order (for the plots), the warnings said on the way, and its reports, each computed once, when a
    part of the page first asks for it: sessions asking for one being computed wait for it rather than compute it
    again, and the lock guarding the table of reports is never held while one is computed. Shared by the runs and
    sessions that show it: nothing modifies it but that table."""

    rel: Release
    in_order: pd.DataFrame
    notes: tuple
    reports: dict = field(default_factory=dict, repr=False)  # key -> Future of (report, warnings said)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _job(self, eparams: tuple, metrics: tuple | None) -> tuple[pd.DataFrame, tuple]:
        key = (Params(dict(eparams)).key, metrics)
        with self.lock:
            job, mine = self.reports.get(key), False
            if job is None:
                job, mine = Future(), True
                self.reports[key] = job
                while len(self.reports) > REPORTS_KEPT:
                    del self.reports[next(iter(self.reports))]
        if mine:  # with missing cells the report's two metrics take no options (metrics §4.27)
            try:
                job.set_result(caught(lambda: self.rel.report(
                    metrics=metrics, **({} if self.rel.missing_cells else dict(eparams))), own=True))
            except BaseException as exc:  # the waiting sessions get it too; kept only if it is the inputs' fault
                job.set_exception(exc)
                if not isinstance(exc, MicroaggError):
                    with self.lock:
                        if self.reports.get(key) is job:
                            del self.reports[key]
        return job.result()

    def report(self, eparams: tuple, metrics: tuple | None = None) -> pd.DataFrame:
        """``Release.report`` with the evaluation parameters ``eparams`` (a sorted tuple of pairs), of the
        ``metrics`` named (default: every one)."""
        return self._job(eparams, metrics)[0]

    def computed(self, eparams: tuple, metrics: tuple | None = None) -> bool:
        """Whether :meth:`report` has this report already."""
        job = self.reports.get((Params(dict(eparams)).key, metrics))
        return job is not None and job.done()

    def summary(self, eparams: tuple) -> tuple[pd.DataFrame, tuple]:
        """The report of the :data:`SUMMARY` metrics and the warnings said computing it (kept with it: every
        session showing it gets them, not only the first)."""
        return self._job(eparams, SUMMARY)


@st.cache_resource(show_spinner="Aggregating…", max_entries=64,
                   hash_funcs={**EXACT, ReleaseSpec: lambda spec: unshuffled(spec).key()})
def aggregated(df: pd.DataFrame, spec: ReleaseSpec, labels: np.ndarray) -> tuple[stages.Masked, tuple]:
    """The aggregate stage of ``spec`` on its cached partition ``labels``, and the warnings said: shared by the
    sessions at these settings, whatever their shuffles (a change of α re-solves P3M; going back to an earlier value
    is a cache hit). Nothing modifies it. MicroaggError propagates."""
    prep, _ = prepared(df, spec)  # its warnings are the partition's
    return caught(lambda: stages.aggregate(prep, labels, spec), own=True)


@st.cache_resource(show_spinner=False, max_entries=64,
                   hash_funcs={**EXACT, ReleaseSpec: lambda spec: unshuffled(spec).key()})
def reports(df: pd.DataFrame, spec: ReleaseSpec, labels: np.ndarray) -> tuple[dict, threading.Lock]:
    """The table of reports (and its lock) of the releases of ``spec`` on ``labels``, shared by the sessions at these
    settings: a report reads no row order, so one computed for one shuffle serves every other."""
    return {}, threading.Lock()


@st.cache_resource(show_spinner=False, max_entries=64, hash_funcs={**EXACT, ReleaseSpec: ReleaseSpec.key})
def release(df: pd.DataFrame, spec: ReleaseSpec, labels: np.ndarray) -> Released:
    """The release stage of ``spec`` on the shared aggregation of its cached partition ``labels`` (the session's own
    shuffle), kept as one object for every run that shows it, with the reports shared by the sessions at these
    settings (:func:`reports`). MicroaggError propagates."""
    prep, _ = prepared(df, spec)
    masked, said = aggregated(df, spec, labels)

    def run():
        rel = stages.release(prep, labels, masked, spec, {**spec.engine.info(spec.k), "refine": spec.refine})
        return rel, rel.in_input_order()

    (rel, in_order), notes = caught(run, own=True)
    table, lock = reports(df, spec, labels)
    return Released(rel, in_order, tuple(dict.fromkeys(said + notes)), table, lock)


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
    """The report's values over all attributes, by metric (selected on numpy arrays: a boolean selection of the
    whole table takes every text column through pyarrow, a fifth of a class's server time)."""
    rows = table["attribute"].to_numpy() == "all"
    return pd.Series(table["value"].to_numpy()[rows], index=pd.Index(table["metric"].to_numpy()[rows], name="metric"),
                     name="value")


@st.cache_data(show_spinner="Solving P3M over α…", max_entries=32, hash_funcs=EXACT)
def sl_alpha(Z: np.ndarray, labels: np.ndarray, alphas: tuple, privacy: tuple):
    return satisfaction_over_alpha(Z, labels, alphas, **dict(privacy))


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=EXACT)
def pcs(Z: np.ndarray) -> np.ndarray:
    return plots.principal_components(Z)


@st.cache_resource(show_spinner=False, max_entries=16, hash_funcs=EXACT)
def figure(name: str, *args, **kwargs):
    """``plots.<name>(*args, **kwargs)``, built once for these arguments (20–25 ms each for the Partition tab's
    figures on EIA) and then only sent again: Streamlit copies a figure to send it, so nothing modifies it."""
    return getattr(plots, name)(*args, **kwargs)


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=EXACT)
def steps(xy: np.ndarray, k: int, variant: str):
    return mdav_steps(xy, k, variant)


@st.cache_data(show_spinner=False, max_entries=8, hash_funcs=EXACT)
def release_csv(protected: pd.DataFrame, index: bool = False) -> bytes:
    """The file the download button offers: the writer of ``Release.to_csv`` and the CLI (the index only if the
    release keeps the input's, text cells a spreadsheet would run as a formula quoted), so the recipe's command and
    snippet write the same bytes."""
    return write_csv(protected, index=index).encode()


@st.cache_data(show_spinner=False)
def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")
