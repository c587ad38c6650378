"""The Dask engine: block-partitioned microaggregation beyond one machine (README "Scaling out").

    rel = ma.microaggregate("data/*.parquet", 5, engine=ma.engines.Dask(out="release/"))     # a LocalCluster
    python -m microagg run --engine dask --input 'data/*.parquet' --k 5 --out release/ --scheduler tcp://host:8786

No step holds all records in one place:

1. the input (CSV or Parquet files, a dask or pandas DataFrame) is read with ``dask.dataframe``;
   every file must have the needed columns, checked on the headers before any data is read; in-memory
   input (pandas, numpy) is persisted on the workers once, for the passes below;
2. one streaming pass gives every attribute's count, mean and population variance (per partition,
   combined pairwise: Chan, Golub & LeVeque 1983), the non-finite values and the largest magnitudes;
3. a uniform sample of ``sample_size`` records builds the split tree of ``partition.blocks``
   (:class:`BlockPlan`): a node whose sample stands for more than B records is split at the lower
   median of its projections on its first principal axis (z-scores of the global standardization);
4. every record is routed down the tree and the leaves are counted; a leaf of fewer than k records
   joins the next one in tree order (the last joins the one before): these are the blocks. With
   ``strata``, every stratum is one block instead (:class:`StrataPlan`; a stratum of fewer than k or more
   than B records is refused), so the key columns, which must be strata, stay k-anonymous;
5. the records are shuffled by block (``set_index`` on the block id with divisions from the counts, so
   a partition holds whole blocks) and each partition is microaggregated in process: ``block_partition``
   on the globally standardized values, blocks in id order, records in input order, a block of more
   than B records (possible after routing by a sample) split exactly; then aggregated with a
   group-local aggregator, checked (every equivalence class >= k, or nothing is written) and written
   as one Parquet file;
6. the metrics are reductions of per-partition sums (SSE, IL, group sizes, smallest class; SST from the
   moments of step 2); DLD needs all records and is computed on a sample of whole blocks, which the report says.

Given the same blocks (``BlockPlan.assign``), the release equals that of
``microaggregate(..., engine=Blocks(B, blocks=...))`` up to the standardization's last bits (streamed
moments here, ``Standardizer.fit`` there): the same groups, values equal to the published precision.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace

import dask
import dask.dataframe as dd
import fsspec
import numpy as np
import pandas as pd
from fsspec.utils import glob_translate

from ..base.checks import is_numeric
from ..base.errors import MicroaggError
from ..base.registry import get_method
from ..base.rows import HIGHER, LOWER, column_rows, group_rows, report_row, safety_rows
from ..base.said import again, heard
from ..data.io import csv_header, read_csv
from ..data.preprocess import Standardizer, as_frame, check_scale
from ..metrics import dld, k_anonymity, sse
from ..metrics.anonymity import size_stats
from ..metrics.registry import Noted, metrics, not_computed
from ..partition.blocks import block_partition, split_blocks
from ..partition.geometry import principal_axis
from ..privacy.roles import column_roles
from ..privacy.safety import key_codes, permutation
from .engines import Dask
from .spec import ReleaseSpec
from .stages import release_values

SAMPLE_SIZE = 200_000      # records sampled to build the split tree, at least
LEAF_SAMPLE = 20           # ... and at least this many per leaf of B records (20 n / B in all)
DLD_SAMPLE = 20_000        # records (whole blocks) on which DLD is computed
PARTITION_ROWS = 500_000   # records per shuffled partition, at most (whole blocks, at least one)
BLOCK, ROW = "__microagg_block", "__microagg_row"
FORMATS = {".parquet": "parquet", ".parq": "parquet", ".pq": "parquet", ".csv": "csv"}
IN_MEMORY = (pd.DataFrame, pd.Series, np.ndarray)


@dataclass(frozen=True)
class BlockPlan:
    """The split tree of the Dask engine, on z-scores of the masked columns (global ``mean`` and ``sd``).

    Node arrays: ``axis`` (unit principal axis, nodes x d), ``threshold`` (records whose projection on the
    axis is <= it go left), ``left``/``right`` (child nodes, -1 at a leaf), ``leaf`` (leaf number in tree
    order, -1 inside). ``block_of_leaf`` maps leaves to blocks once the leaves are counted (leaves of
    fewer than k records merged).
    """

    mean: np.ndarray
    sd: np.ndarray
    axis: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    block_of_leaf: np.ndarray

    @property
    def n_leaves(self) -> int:
        return len(self.block_of_leaf)

    def leaves(self, X) -> np.ndarray:
        """Leaf of every row of ``X`` (records x masked columns, original units)."""
        Z = (np.asarray(X, dtype=np.float64) - self.mean) / self.sd
        node = np.zeros(len(Z), dtype=np.int64)
        active = np.flatnonzero(self.left[node] >= 0)
        while active.size:
            at = node[active]
            go_left = np.einsum("ij,ij->i", Z[active], self.axis[at]) <= self.threshold[at]
            node[active] = np.where(go_left, self.left[at], self.right[at])
            active = active[self.left[node[active]] >= 0]
        return self.leaf[node]

    def assign(self, X) -> np.ndarray:
        """Block id of every row of ``X``: the blocks the engine microaggregated."""
        return self.block_of_leaf[self.leaves(X)]

    def merged(self, counts: np.ndarray, k: int) -> BlockPlan:
        """This plan with leaves of fewer than ``k`` records (``counts``, per leaf) joined to the next leaf in tree
        order, the last to the one before; every block then holds at least k records (given >= k in all)."""
        block = np.empty(len(counts), dtype=np.int64)
        b, size = 0, 0
        for leaf, c in enumerate(counts):
            block[leaf] = b
            size += int(c)
            if size >= k:
                b, size = b + 1, 0
        block[block == b] = b - 1  # the leaves after the last full block hold < k records: they join it
        return replace(self, block_of_leaf=block)


def build_plan(Xs: np.ndarray, std: Standardizer, n: int, block_size: int) -> BlockPlan:
    """The split tree of a uniform sample ``Xs`` of ``n`` records (module docstring, step 3).

    A node is split while its sample stands for more than ``block_size`` records, at the lower median of
    the projections of its z-scores (``std``) on their first principal axis (``geometry.principal_axis``),
    unless they are all equal.
    """
    Zs = std.transform(Xs)
    weight = n / max(len(Zs), 1)
    axis, threshold, left, right, leaf = [], [], [], [], []

    def node() -> int:
        for a, v in ((axis, np.zeros(Zs.shape[1])), (threshold, np.nan), (left, -1), (right, -1), (leaf, -1)):
            a.append(v)
        return len(axis) - 1

    stack = [(node(), np.arange(len(Zs)))]
    n_leaves = 0
    while stack:
        at, idx = stack.pop()
        if len(idx) * weight > block_size:
            values = Zs[idx]
            v = principal_axis(values)
            p = values @ v
            ordered = np.sort(p)
            thr = ordered[(len(p) - 1) // 2]  # lower median
            if thr == ordered[-1]:
                thr = ordered[ordered < thr][-1] if ordered[0] < thr else np.nan
            if thr == thr:  # not NaN: the projections differ
                go_left = p <= thr
                axis[at], threshold[at] = v, thr
                left[at], right[at] = node(), node()
                stack.append((right[at], idx[~go_left]))
                stack.append((left[at], idx[go_left]))  # popped first: leaves numbered left to right
                continue
        leaf[at] = n_leaves
        n_leaves += 1
    arr = np.asarray
    return BlockPlan(std.mean, std.sd, arr(axis, dtype=np.float64).reshape(len(axis), Zs.shape[1]),
                     arr(threshold, dtype=np.float64), arr(left, dtype=np.int64), arr(right, dtype=np.int64),
                     arr(leaf, dtype=np.int64), np.arange(n_leaves, dtype=np.int64))


@dataclass(frozen=True)
class DaskRelease:
    """A release written by the Dask engine: Parquet files in ``path`` and its report.

    ``protected`` reads the release back lazily (a dask DataFrame: the masked, confidential and kept
    columns, rows ordered by block). ``standardizer`` holds the streamed means and sds of the masked
    and then the confidential columns; ``plan`` the split tree and blocks (``plan.assign``), or the strata
    (:class:`StrataPlan`);
    ``timings`` the wall time of each pass in seconds.
    """

    path: str
    files: list[str]
    params: dict
    table: pd.DataFrame = field(repr=False)
    standardizer: Standardizer = field(repr=False)
    plan: BlockPlan = field(repr=False)
    masked: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return self.params["k"]

    @property
    def protected(self) -> dd.DataFrame:
        return dd.read_parquet(self.files)

    def report(self) -> pd.DataFrame:
        """The engine's metrics (reductions over the partitions; DLD on a sample), group statistics,
        k-anonymity check, blocks and columns: metric, attribute, value, unit, direction, source."""
        return self.table.copy()


@dataclass(frozen=True)
class _Job:
    """What every release task needs (pickled to the workers)."""

    k: int
    block_size: int
    method: str
    method_params: dict
    uses_roles: bool
    aggregation: str
    aggregation_params: dict
    standardizer: Standardizer  # masked then confidential columns
    qi: Standardizer            # masked columns
    masked: list[str]
    confidential: list[str]
    columns_out: list[str]
    out: str
    dld_blocks: frozenset
    shuffle_seed: int | None
    keys: list[str]


def microaggregate_dask(data, k: int, method: str = "mdav", aggregation: str = "mean",
                        method_params: dict | None = None, aggregation_params: dict | None = None, out=None,
                        scheduler=None, block_size: int | None = None, sample_size: int | None = None,
                        dld_sample: int | None = None, progress: bool = False, force: bool = False,
                        encoding: str | None = None, **options) -> DaskRelease:
    """Microaggregate ``data`` block by block on Dask and write the release to ``out`` (module docstring).

    ``data``: a path, glob pattern, directory or list of CSV or Parquet files, or a dask or pandas
    DataFrame. ``scheduler``: None (a ``LocalCluster`` on this machine), a scheduler address
    (``"tcp://host:8786"``) or a ``distributed.Client``; the workers must be able to read ``data`` and
    write ``out`` (a new or empty directory, local or any fsspec URL; with ``force`` also a previous
    release, which is replaced). The release is written to a temporary directory beside ``out`` and
    renamed to ``out`` once every partition has passed its checks and the report is made: a failure
    leaves nothing behind. CSV files are read with ``microagg.data.io.read_csv`` (``encoding``), file by file.
    ``block_size`` B (default ``DEFAULT_BLOCK_SIZE``) must be >= 2k; ``sample_size`` records (default
    max(SAMPLE_SIZE, 20 n / B)) build the split tree; DLD is computed on whole blocks holding about
    ``dld_sample`` records (0: not computed); ``seed`` fixes both samples (default 0) and the shuffle of the
    rows inside every file written (``shuffle``, default; README "Publishing a release safely"; without
    ``seed`` the shuffle's seed is fresh, recorded in ``params["shuffle_seed"]``). ``identifiers`` are those
    of ``microaggregate`` (detected on the names and the values: of the data in memory, else of the first CSV file
    or the first partition of Parquet files or a dask DataFrame, so that an input of one file or partition gets the
    memory engine's decisions; a larger one's values rules see its first part only); no index is written.
    ``strata`` make every stratum one block (it must hold between k and B records) and every key column must
    be a stratum; ``keys`` then enter the k-anonymity check of every partition written.
    Methods, aggregations, their parameters and the column roles are those of ``microaggregate``; the
    aggregation must be group-local (mean, median) and the method give one label per record.
    ``progress`` shows dask's progress bar on stderr for each pass.
    """
    engine = Dask(out, scheduler, block_size, sample_size, dld_sample, progress, force, encoding)
    return release_dask(data, ReleaseSpec.of(k, method, aggregation, method_params, aggregation_params,
                                             engine=engine, **options))


def release_dask(data, spec: ReleaseSpec) -> DaskRelease:
    """The release of ``data`` under ``spec``, whose engine is a :class:`~microagg.release.engines.Dask` (its
    options checked against the engine's ``accepts``): :func:`microaggregate_dask`."""
    engine, k = spec.engine, spec.k
    B = engine.size(k)
    part, agg, mp, ap = spec.partitioner, spec.aggregator, dict(spec.method_params), dict(spec.aggregation_params)
    method, aggregation, shuffle = part.name, agg.name, spec.shuffle
    shuffle_seed = permutation(0, spec.seed)[1]  # a fresh one when None
    seed = 0 if spec.seed is None else spec.seed
    sample_size, dld_sample = engine.sample_size, DLD_SAMPLE if engine.dld_sample is None else engine.dld_sample
    out, scheduler, progress, force, encoding = engine.out, engine.scheduler, engine.progress, engine.force, \
        engine.encoding
    identifiers = spec.identifiers
    ddf, meta, files, known = _read(data, encoding, judge=identifiers is None)
    roles = column_roles(known, spec.columns, spec.keep, spec.confidential or None, spec.identifiers, spec.keys,
                         spec.strata)
    masked, conf, keep, names = roles.masked, roles.confidential, roles.kept, roles.names
    uncovered = [c for c in roles.keys if c not in roles.strata]
    if uncovered:
        raise MicroaggError(f"with engine='dask' every key column must also be a stratum (strata={roles.keys}), so "
                            f"that each partition written is checked whole; {uncovered} are not.")
    released = [c for c in names if c in masked or c in conf or c in keep]
    needed = [c for c in names if c in released or c in roles.strata]
    if files is not None:
        _check_files(*files, needed, encoding)
    ddf = ddf[needed]
    fs, root = fsspec.core.url_to_fs(os.fspath(out))
    _check_out(fs, root, os.fspath(out), files, force, data)

    timings = {}
    with _client(scheduler) as client:
        if isinstance(data, IN_MEMORY):
            ddf = client.persist(ddf)  # the records go to the workers once, not in the graph of every pass
        parts = ddf.to_delayed()
        try:
            moments = _compute(client, [dask.delayed(_moments)(p, i, masked + conf)
                                        for i, p in enumerate(parts)], progress, "moments", timings)
        except MicroaggError:
            raise
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise MicroaggError(f"reading the input failed: {type(exc).__name__}: {exc}") from None
        lengths, std, sst_cols = _combine(moments, masked + conf, k)
        n = int(lengths.sum())
        dq = len(masked)

        if sample_size is None:
            sample_size = max(SAMPLE_SIZE, LEAF_SAMPLE * n // B)
        sizes = _allocate(lengths, min(sample_size, n))
        Xs = np.concatenate(_compute(client, [dask.delayed(_sample)(p, i, masked, int(s), seed)
                                              for i, (p, s) in enumerate(zip(parts, sizes))],
                                     progress, "sample", timings))
        qi = Standardizer(std.mean[:dq], std.sd[:dq])
        sst = float(sst_cols[:dq].sum())  # of the masked z-scores; a constant column adds 0
        if roles.strata:  # every stratum one block (module docstring, step 4)
            plan = _strata_plan(_compute(client, [dask.delayed(_strata_count)(p, roles.strata) for p in parts],
                                         progress, "strata", timings), roles.strata, k, B)
            block_sizes = plan.sizes
        else:
            plan = build_plan(Xs, qi, n, B)
            counts = np.sum(_compute(client, [dask.delayed(_count)(p, plan, masked) for p in parts], progress,
                                     "blocks", timings), axis=0)
            plan = plan.merged(counts, k)
            block_sizes = np.bincount(plan.block_of_leaf, weights=counts).astype(np.int64)
        dld_blocks = _dld_blocks(block_sizes, dld_sample, seed)

        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        route_meta = meta[needed].assign(**{BLOCK: pd.Series(dtype="int64"), ROW: pd.Series(dtype="int64")})
        routed = dd.from_delayed([dask.delayed(_route)(p, plan, masked, int(o)) for p, o in zip(parts, offsets)],
                                 meta=route_meta, verify_meta=False)
        threads = sum(client.nthreads().values())
        rows = max(B, min(PARTITION_ROWS, math.ceil(n / (4 * threads))))
        shuffled = routed.set_index(BLOCK, divisions=_divisions(block_sizes, rows))
        staging = f"{root.rstrip('/')}.partial-{os.getpid()}-{time.time_ns()}"
        fs.makedirs(staging, exist_ok=False)
        try:
            job = _Job(k, B, method, mp, part.caps.uses_roles, aggregation, ap, std, qi, masked, conf, released,
                       fs.unstrip_protocol(staging), frozenset(int(b) for b in dld_blocks),
                       shuffle_seed if shuffle else None, roles.keys)
            stats = _compute(client, [dask.delayed(_release)(p, i, job)
                                      for i, p in enumerate(shuffled.to_delayed())], progress, "release", timings)
            again(dict.fromkeys(note for s in stats for note in s["notes"]), 3)  # what the workers' kernels said
            address = client.scheduler.address
            table = _report(stats, sst, k, n, B, plan, block_sizes, Xs.shape[0], masked, conf, keep,
                            [c for c in names if c not in released], address, method, aggregation)
            table = pd.concat([table, pd.DataFrame(safety_rows(roles.identifiers, roles.keys, roles.strata, None,
                                                               False, shuffle))], ignore_index=True)
            _publish(fs, staging, root)
        except BaseException:
            with contextlib.suppress(OSError):
                fs.rm(staging, recursive=True)
            raise
    final = fs.unstrip_protocol(root)
    for s in stats:
        s["file"] = final + s["file"][len(job.out):]
    params_used = {"k": k, "method": method, "aggregation": aggregation, "columns": masked, "keep": keep,
                   "confidential": conf, "identifiers": None if identifiers is None else list(roles.identifiers),
                   "shuffle": bool(shuffle), "engine": "dask", "block_size": B, "sample_size": int(sample_size),
                   "dld_sample": int(dld_sample), "seed": int(seed), "shuffle_seed": shuffle_seed if shuffle else None,
                   **mp, **ap}
    return DaskRelease(path=os.fspath(out), files=[s["file"] for s in stats], params=params_used, table=table,
                       standardizer=std, plan=plan, masked=masked, timings=timings)


# ----------------------------------------------------------------------------- input


def _read(data, encoding: str | None = None, judge: bool = True) -> tuple[dd.DataFrame, pd.DataFrame, tuple | None,
                                                                          pd.DataFrame]:
    """(dask DataFrame, empty frame with its dtypes, (fs, paths, format) for file input else None, the records
    whose values decide the identifiers: the data in memory, else the first CSV file or, with ``judge`` (no
    identifiers given), the first partition of Parquet files or a dask DataFrame). CSV files are read whole, one
    partition each, by ``microagg.data.io.read_csv``; the first is read here for the dtypes and the identifiers, so
    that an input of one file or partition gets the memory engine's decisions (the values rules of a larger one see
    its first part only: name its identifiers, or give them)."""
    known = None
    if isinstance(data, dd.DataFrame):
        ddf, files = data.rename(columns=str), None
    elif isinstance(data, IN_MEMORY):
        df = known = as_frame(data).rename(columns=str)
        ddf, files = dd.from_pandas(df, npartitions=max(1, math.ceil(len(df) / PARTITION_ROWS)), sort=False), None
    elif isinstance(data, (str, os.PathLike, list, tuple)):
        fs, paths, kind = _input_files(data)
        files = (fs, paths, kind)
        urls = [fs.unstrip_protocol(p) for p in paths]
        if kind == "csv":
            first = known = _read_csv_file(urls[0], encoding)
            ddf = dd.from_delayed([dask.delayed(_read_csv_file)(u, encoding) for u in urls], meta=first.iloc[:0],
                                  verify_meta=False)
        else:
            try:
                ddf = dd.read_parquet(urls)
            except (OSError, ValueError, TypeError) as exc:
                raise MicroaggError(f"cannot read {_show(data)}: {type(exc).__name__}: {exc}") from None
    else:
        raise MicroaggError(f"engine='dask' reads a path, glob pattern or list of CSV/Parquet files, or a dask or "
                            f"pandas DataFrame; got {type(data).__name__}.")
    meta = pd.DataFrame({str(c): pd.Series(dtype=t) for c, t in ddf.dtypes.items()})
    if known is None:  # (Parquet or a dask DataFrame: the first partition's values, as a CSV's first file's)
        known = ddf.get_partition(0).compute().rename(columns=str) if judge and ddf.npartitions else meta
    return ddf, meta, files, known


def _read_csv_file(url: str, encoding: str | None) -> pd.DataFrame:
    with fsspec.open(url, "rb") as f:
        return read_csv(f, encoding=encoding, name=url).data


def _check_out(fs, root: str, shown: str, files, force: bool, data=None) -> None:
    """Refuse an output that is an input, lies where the input ``data`` is searched, is a file, or is a non-empty
    directory other than a previous release (``part-*.parquet`` files only) replaced with ``force``; its parent
    must exist."""
    if files is not None and any(root.rstrip("/") == p or p.startswith(root.rstrip("/") + "/") for p in files[1]):
        raise MicroaggError(f"out={shown!r} holds or is the input: writing there would destroy the original data. "
                            "Choose a new directory.")
    where = _searched_by(fs, root, data)
    if where is not None:
        raise MicroaggError(f"out={shown!r} lies inside the input {where!r}: the next run on that input would read "
                            "this release as more records. Choose a directory outside it.")
    if not fs.exists(root):
        parent = root.rstrip("/").rpartition("/")[0]
        if parent and fs.protocol in ("file", ("file", "local")) and not fs.isdir(parent):
            raise MicroaggError(f"cannot write out={shown!r}: the folder {parent} does not exist. Create it first.")
        return
    if not fs.isdir(root):
        raise MicroaggError(f"out={shown!r} is a file; give a directory for the Parquet files.")
    content = fs.ls(root, detail=False)
    if not content:
        return
    previous = all(os.path.basename(p.rstrip("/")).startswith("part-") and p.endswith(".parquet") for p in content)
    if not force:
        raise MicroaggError(f"out={shown!r} exists and is not empty: choose a new directory, or pass --force "
                            "(force=True) to replace a previous release.")
    if not previous:
        raise MicroaggError(f"out={shown!r} holds files that are not a microagg release (part-*.parquet); it is not "
                            "replaced even with force. Choose a new directory.")


def _searched_by(fs, root: str, data) -> str | None:
    """The input item of ``data`` that would read the files of a release written to ``root`` (a folder above it,
    read with every file below; a glob pattern matching them, as fsspec matches it), or None."""
    if not isinstance(data, (str, os.PathLike, list, tuple)):
        return None
    part = root.rstrip("/") + "/part-00000.parquet"
    for item in [data] if isinstance(data, (str, os.PathLike)) else data:
        fs_item, path = fsspec.core.url_to_fs(os.fspath(item))
        path = path.rstrip("/")
        if fs_item.protocol != fs.protocol or not path:
            continue
        if any(ch in path for ch in "*?["):
            if re.match(glob_translate(path), part):
                return os.fspath(item)
        elif part.startswith(path + "/") and fs_item.isdir(path):
            return os.fspath(item)
    return None


def _publish(fs, staging: str, root: str) -> None:
    """Move the checked release from ``staging`` to ``root`` (replacing an empty directory or a previous release)."""
    if fs.exists(root):
        fs.rm(root, recursive=True)
    fs.mv(staging, root, recursive=True)


def _show(data) -> str:
    return repr(os.fspath(data)) if isinstance(data, (str, os.PathLike)) else repr([os.fspath(d) for d in data])


def _input_files(data) -> tuple:
    """(filesystem, sorted file paths, "parquet" or "csv") of a path, glob pattern, directory or list of them."""
    items = [data] if isinstance(data, (str, os.PathLike)) else list(data)
    if not items:
        raise MicroaggError("no input file given.")
    fs, found = None, []
    for item in items:
        fs, _, paths = fsspec.core.get_fs_token_paths(os.fspath(item))
        for p in paths:
            if fs.isdir(p):
                found += sorted(f for f in fs.find(p) if _format(f))
            elif fs.exists(p):
                found.append(p)
    if not found:
        raise MicroaggError(f"no input file matches {_show(data)}: check the path (quote glob patterns in a shell).")
    kinds = {_format(p) for p in found}
    if None in kinds:
        bad = next(p for p in found if _format(p) is None)
        raise MicroaggError(f"cannot tell the format of {bad}: name input files *.parquet or *.csv.")
    if len(kinds) > 1:
        raise MicroaggError(f"the input mixes Parquet and CSV files ({_show(data)}): give files of one format.")
    return fs, found, kinds.pop()


def _format(path: str) -> str | None:
    return FORMATS.get(os.path.splitext(path)[1].lower())


def _check_files(fs, paths: list[str], kind: str, needed: list[str], encoding: str | None = None) -> None:
    """Every file must be readable and have every needed column (headers and schemas only, no data)."""
    import pyarrow.parquet as pq

    missing = {}
    for p in paths:
        try:
            with fs.open(p, "rb") as f:
                cols = pq.read_schema(f).names if kind == "parquet" else csv_header(f, encoding, p)
        except (OSError, ValueError) as exc:
            raise MicroaggError(f"cannot read {p}: {type(exc).__name__}: {exc}") from None
        cols = {str(c) for c in cols}
        for c in needed:
            if c not in cols:
                missing.setdefault(c, []).append(p)
    if missing:
        c, where = next(iter(missing.items()))
        raise MicroaggError(f"column '{c}' is missing in {len(where)} of {len(paths)} input files (first: {where[0]}); "
                            f"every file must have the columns {needed}. Add it there or leave it out "
                            "('columns', 'keep', 'confidential').")


# ----------------------------------------------------------------------------- passes (run on the workers)


def _matrix(df: pd.DataFrame, i: int, cols: list[str]) -> np.ndarray:
    """float64 values of ``cols`` in partition ``i``, with a clear error for missing or non-numeric columns."""
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise MicroaggError(f"partition {i} of the input lacks column(s) {missing}: every partition must have them.")
    for c in cols:
        if not is_numeric(df[c]):
            raise MicroaggError(f"column '{c}' is not numeric in partition {i} of the input ({df[c].dtype}): "
                                "microaggregation needs numbers. Convert it or leave it out.")
    return df[cols].to_numpy(dtype=np.float64)


def _moments(df: pd.DataFrame, i: int, cols: list[str]) -> dict:
    """Count, largest magnitude ``scale``, mean, sum of squared deviations in units of ``scale`` (so that
    magnitudes from 1e-300 to 1e300 neither underflow nor overflow when squared) and non-finite count per column."""
    X = _matrix(df, i, cols)
    bad = (~np.isfinite(X)).sum(axis=0)
    if len(X) == 0 or bad.any():
        zero = np.zeros(X.shape[1])
        return {"n": len(X), "scale": np.ones(X.shape[1]), "mean": zero, "m2": zero, "bad": bad, "low": zero,
                "high": zero}
    scale = np.abs(X).max(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    Xs = X / scale
    mean = Xs.mean(axis=0)
    return {"n": len(X), "scale": scale, "mean": mean * scale, "m2": ((Xs - mean) ** 2).sum(axis=0), "bad": bad,
            "low": X.min(axis=0), "high": X.max(axis=0)}


def _combine(moments: list[dict], cols: list[str], k: int) -> tuple[np.ndarray, Standardizer, np.ndarray]:
    """(partition lengths, population-sd standardizer, SST of each column's z-scores) from the per-partition
    moments, combined pairwise in partition order (Chan, Golub & LeVeque 1983) in units of the largest
    magnitude of each column."""
    bad = np.sum([m["bad"] for m in moments], axis=0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise MicroaggError(f"column '{cols[j]}' has {int(bad[j])} non-finite value(s) (NaN or infinite) in the "
                            "input; remove or impute them before microaggregating.")
    live = [m for m in moments if m["n"]]
    S = np.max([m["scale"] for m in live], axis=0) if live else np.ones(len(cols))
    n, mean, m2 = 0, np.zeros(len(cols)), np.zeros(len(cols))
    for m in live:
        total = n + m["n"]
        delta = m["mean"] / S - mean
        mean = mean + delta * (m["n"] / total)
        m2 = m2 + m["m2"] * (m["scale"] / S) ** 2 + delta ** 2 * (n * m["n"] / total)
        n = total
    if n < k:
        raise MicroaggError(f"the data have {n} records but k = {k}: a k-anonymous release needs at least k "
                            "records. Lower k or supply more records.")
    sd = np.sqrt(m2 / n)
    sst = np.where(sd > 0, m2 / np.where(sd > 0, sd, 1.0) ** 2, 0.0)
    std = Standardizer(mean * S, np.where(sd > 0, sd * S, 1.0))
    extremes = np.array([np.min([m["low"] for m in live], axis=0), np.max([m["high"] for m in live], axis=0)])
    check_scale(extremes, cols, std)
    return np.array([m["n"] for m in moments], dtype=np.int64), std, sst


def _allocate(lengths: np.ndarray, size: int) -> np.ndarray:
    """Sample size per partition, proportional to its length (largest remainders), summing to ``size``."""
    n = int(lengths.sum())
    exact = lengths * (size / n)
    out = np.floor(exact).astype(np.int64)
    out[np.argsort(-(exact - out), kind="stable")[:size - int(out.sum())]] += 1
    return out


def _sample(df: pd.DataFrame, i: int, cols: list[str], size: int, seed: int) -> np.ndarray:
    """``size`` records of partition ``i`` drawn uniformly without replacement (seeded by seed and i)."""
    X = _matrix(df, i, cols)
    if size >= len(X):
        return X
    return X[np.sort(np.random.default_rng([seed, i]).choice(len(X), size, replace=False))]


@dataclass(frozen=True)
class StrataPlan:
    """The blocks of the Dask engine with strata: one block per stratum (a combination of the values of
    ``columns``, in sorted order), ``sizes`` its records."""

    columns: list[str]
    strata: pd.MultiIndex
    sizes: np.ndarray

    @property
    def n_leaves(self) -> int:
        return len(self.strata)

    def assign(self, df: pd.DataFrame) -> np.ndarray:
        """Block id of every row of ``df`` (a frame holding the strata columns)."""
        return self.strata.get_indexer(pd.MultiIndex.from_frame(df[self.columns])).astype(np.int64)


def _strata_count(df: pd.DataFrame, strata: list[str]) -> pd.Series:
    return df.groupby(strata, dropna=False).size()


def _strata_plan(counts: list[pd.Series], strata: list[str], k: int, B: int) -> StrataPlan:
    """One block per stratum; a stratum of fewer than k or more than B records is refused, named."""
    total = pd.concat(counts).groupby(level=list(range(len(strata))), dropna=False).sum().sort_index()
    index = pd.MultiIndex.from_frame(total.index.to_frame(index=False))
    sizes = total.to_numpy(dtype=np.int64)
    for bad, what in ((sizes < k, f"fewer than k = {k}"), (sizes > B, f"more than block_size B = {B}")):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            name = ", ".join(f"{c}={v}" for c, v in zip(strata, index[i]))
            hint = ("merge small categories, lower k or stratify on fewer columns" if what.startswith("fewer") else
                    "a stratum must fit in one block on this engine: raise block_size or use engine='blocks'")
            raise MicroaggError(f"stratum {name} has {sizes[i]} records, {what} ({int(bad.sum())} such strata): "
                                f"{hint}.")
    return StrataPlan(list(strata), index, sizes)


def _count(df: pd.DataFrame, plan: BlockPlan, cols: list[str]) -> np.ndarray:
    return np.bincount(plan.leaves(df[cols].to_numpy(dtype=np.float64)), minlength=plan.n_leaves)


def _route(df: pd.DataFrame, plan: BlockPlan | StrataPlan, cols: list[str], offset: int) -> pd.DataFrame:
    """The partition with its block id and global row number (input order) as two more columns."""
    block = plan.assign(df) if isinstance(plan, StrataPlan) else plan.assign(df[cols].to_numpy(dtype=np.float64))
    return df.assign(**{BLOCK: block,
                        ROW: np.arange(offset, offset + len(df), dtype=np.int64)})


def _release(df: pd.DataFrame, i: int, job: _Job) -> dict:
    """Microaggregate one shuffled partition (whole blocks), write it as Parquet and return its sums and what its
    blocks said (the driver says it again)."""
    blocks = df.index.to_numpy()  # the block ids (the shuffle's index): read, never inserted into a wide frame
    order = np.lexsort((df[ROW].to_numpy(), blocks))
    df, routed = df.iloc[order].reset_index(drop=True), blocks[order]
    dq = len(job.masked)
    Z = job.standardizer.transform(df[job.masked + job.confidential].to_numpy(dtype=np.float64))
    ids = split_blocks(Z, job.k, job.block_size, blocks=routed, split_on=np.arange(dq))
    conf = {"confidential": list(range(dq, Z.shape[1]))} if job.uses_roles else {}
    labels, notes = heard(block_partition, Z if job.uses_roles else Z[:, :dq], job.k, job.method, job.block_size,
                           n_jobs=1, blocks=ids, **conf, **job.method_params)  # said again by the driver
    Zq = Z[:, :dq]
    Zp = get_method("aggregate", job.aggregation).func(Zq, labels, **job.aggregation_params)
    X = df[job.masked].to_numpy(dtype=np.float64)
    V = release_values(X, Zp, labels, get_method("aggregate", job.aggregation), job.aggregation_params, job.qi)
    an = k_anonymity(np.column_stack([key_codes(df, job.keys), V]), job.k)  # whole strata, so whole key classes
    if not an["k_anonymous"]:
        raise MicroaggError(f"internal check failed: partition {i} has an equivalence class of {an['min_class']} < "
                            f"k = {job.k} records; no release was made.")
    out = pd.DataFrame({c: V[:, job.masked.index(c)] if c in job.masked else df[c].to_numpy()
                        for c in job.columns_out})
    if job.shuffle_seed is not None:  # rows of a file otherwise follow the input order within each block
        out = out.iloc[np.random.default_rng([job.shuffle_seed, i]).permutation(len(out))]
    path = f"{job.out}/part-{i:05d}.parquet"
    with fsspec.open(path, "wb") as f:
        out.to_parquet(f, index=False)
    sample = np.isin(routed, list(job.dld_blocks))
    return {"file": path, "sse": sse(Zq, Zp), "size_counts": np.bincount(np.bincount(labels)),
            "blocks": np.bincount(ids), "min_class": an["min_class"],
            "dld": (Zq[sample], Zp[sample]) if sample.any() else None, "notes": notes}


# ----------------------------------------------------------------------------- driver helpers


@contextlib.contextmanager
def _client(scheduler):
    """A ``distributed.Client``: the one given, one connected to an address, or one on a new LocalCluster."""
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        with LocalCluster(dashboard_address=":0", silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
        return
    if not isinstance(scheduler, str):
        raise MicroaggError(f"scheduler must be an address such as 'tcp://host:8786' or a distributed.Client; "
                            f"got {type(scheduler).__name__}.")
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise MicroaggError(f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}") from None
    with client:
        yield client


def _compute(client, tasks: list, progress: bool, what: str, timings: dict) -> list:
    """Results of ``tasks`` on ``client``, with dask's progress bar on stderr; wall time in ``timings[what]``."""
    from distributed import progress as bar

    t0 = time.perf_counter()
    futures = client.compute(tasks)
    if progress:
        print(f"{what}:", file=sys.stderr)
        with contextlib.redirect_stdout(sys.stderr):
            bar(futures, multi=False)
        print(file=sys.stderr)
    out = client.gather(futures)
    timings[what] = time.perf_counter() - t0
    return out


def _divisions(block_sizes: np.ndarray, rows: int) -> tuple:
    """Divisions of the block-id index: consecutive whole blocks, up to ``rows`` records per partition."""
    starts, size = [0], 0
    for b, s in enumerate(block_sizes):
        if size and size + s > rows:
            starts.append(b)
            size = 0
        size += s
    return tuple(starts) + (len(block_sizes) - 1,)


def _dld_blocks(block_sizes: np.ndarray, target: int, seed: int) -> np.ndarray:
    """Blocks, in a seeded random order, until they hold ``target`` records (all blocks if fewer)."""
    if target == 0:
        return np.empty(0, dtype=np.int64)
    order = np.random.default_rng(seed).permutation(len(block_sizes))
    upto = int(np.searchsorted(np.cumsum(block_sizes[order]), target)) + 1
    return np.sort(order[:upto])


def _report(stats, sst, k, n, B, plan, block_sizes, n_sample, masked, conf, keep, dropped, address, method,
            aggregation) -> pd.DataFrame:
    """The engine's report (see ``DaskRelease.report``)."""
    rows = []
    total = sum(s["sse"] for s in stats)
    reduction = "sum over the partitions"
    computed = {"IL": (100.0 * total / sst if sst > 0 else float("nan"), reduction), "SSE": (total, reduction),
                "SST": (sst, reduction)}
    linked = [s["dld"] for s in stats if s["dld"] is not None]
    if linked:
        Zs, Zps = (np.concatenate(a) for a in zip(*linked))
        where = ("all records" if len(Zs) == n else
                 f"SAMPLE of {len(Zs)} of {n} records (whole blocks), linked within the sample: fewer decoys "
                 "than in the whole release, so it tends to overstate the risk")
        computed["DLD"] = (dld(Zs, Zps), where)
    for m in metrics():  # every registered metric: computed here, or said not to be
        if "categories" in m.needs:  # no categorical quasi-identifier on this engine (refused by microaggregate)
            continue
        noted = (Noted(*computed[m.name]) if m.name in computed else not_computed("dld_sample = 0")
                 if m.name == "DLD" else not_computed("at this scale (the Dask engine's report)"))
        rows.append(report_row(m.name, noted.value, m.unit, m.direction, noted.source(m.source)))
    counts = np.zeros(max(len(s["size_counts"]) for s in stats), dtype=np.int64)
    for s in stats:
        counts[:len(s["size_counts"])] += s["size_counts"]
    rows += group_rows(size_stats(np.repeat(np.arange(len(counts)), counts), k))
    final = np.concatenate([s["blocks"] for s in stats])
    routed = (report_row("strata (one block each)", plan.n_leaves, "strata", source=", ".join(plan.columns))
              if isinstance(plan, StrataPlan) else
              report_row("tree leaves (routed by a sample)", plan.n_leaves, "leaves",
                         source=f"split tree of {n_sample} sampled records"))
    rows += [report_row("smallest equivalence class", min(s["min_class"] for s in stats), "records", HIGHER,
                        "docs/metrics.md §4.13; within each partition written, a lower bound for the whole release"),
             report_row("records in classes < k", 0, "records", LOWER, "docs/metrics.md §4.13 (checked per partition)"),
             report_row("k-anonymous", True, source="docs/metrics.md §4.13"),
             report_row("engine", f"dask ({address}); {method} + {aggregation} inside blocks",
                        source="README, Scaling out"),
             report_row("records", n, "records"),
             report_row("block size B", B, "records", source="microagg.partition.blocks"),
             routed,
             report_row("blocks", len(final), "blocks", source=f"{len(block_sizes)} routed blocks (leaves < k merged), "
                        "those above B split exactly"),
             report_row("smallest block", int(final.min()), "records"),
             report_row("largest block", int(final.max()), "records"),
             report_row("partitions written", len(stats), "files", source="Parquet")]
    rows += column_rows(masked, conf, dropped, keep)
    return pd.DataFrame(rows, columns=["metric", "attribute", "value", "unit", "direction", "source"])
