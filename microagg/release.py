"""The release API: ``microaggregate(df, k, ...)`` -> ``Release`` (DESIGN.md pipeline).

DataFrame -> validate/standardize -> partition -> aggregate -> (renormalize) ->
destandardize -> protected DataFrame, with the checks that make it a release:
every masked row belongs to an equivalence class of at least k records, or no
release is made.

Columns have roles (Abidi, Ben Yahia & Perera 2018, §2.1): the masked columns are the quasi-identifiers
(QIs); confidential columns are released unchanged, never drive a partitioner that
does not use roles, and are read by one that does (``Method.uses_roles``). The
k-anonymity check is on the QI columns and the key columns an intruder knows (docs/metrics.md §4.13).

A release is published as a whole file, so nothing around the masked columns may give a respondent away
(README, "Publishing a release safely"): identifiers (``microagg.safety.identifiers``) are neither masked
nor released unless chosen, the input's index is not released unless ``keep_index=True``, the rows are
shuffled by a seeded permutation unless ``shuffle=False``, key columns released unmasked enter the
k-anonymity check, and ``strata`` microaggregates inside each stratum so that the check holds with them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .checks import check_int, check_k
from .errors import MicroaggError
from .io import read_csv, write_csv
from .labels import check_labels, pooled_labels
from .metrics import group_stats, k_anonymity
from .metrics.report import evaluate_arrays
from .metrics.risk import exact_cells
from .partition.blocks import DEFAULT_BLOCK_SIZE, block_partition, check_block_size, split_blocks
from .preprocess import Standardizer, as_frame, check_scale, numeric_matrix, select_columns, standardize
from .preprocess import renormalize as _renormalize
from .registry import Method, get_method
from .safety import chosen_identifiers, class_ids, key_codes, meaningful_index, permutation
from .wishes import NAMES as WISHES

if TYPE_CHECKING:
    from .scale import DaskRelease


@dataclass(frozen=True)
class Release:
    """A microaggregated release and everything needed to evaluate it.

    ``protected`` is the table as published: its columns are the masked columns (the
    quasi-identifiers, in the input's order) plus the confidential columns and any
    columns kept unmasked on request (``kept``, the ``keys`` among them), all released unchanged; its rows
    are in the shuffled order ``order`` (row i is input record ``order[i]``; the identity with
    ``shuffle=False``) and its index is 0..n-1 (the input's, permuted, with ``keep_index=True``).
    :meth:`in_input_order` gives it back in the input's order and index, for analysis. ``Z``/``Zp`` are the
    original and masked values of the masked columns in z-scores (the original
    data's mean and population sd), ``labels`` the group of every record (n x d
    for univariate methods), ``key_classes`` the class of every record on the key columns (all in input
    order); ``confidential`` the confidential columns; ``identifiers`` the columns treated as identifiers
    (not released), with the reason.
    """

    protected: pd.DataFrame
    labels: np.ndarray
    params: dict
    original: pd.DataFrame
    Z: np.ndarray
    Zp: np.ndarray
    standardizer: Standardizer
    masked: list[str]
    dropped: list[str]
    kept: list[str]
    anonymity: dict = field(repr=False)
    aggregation_report: tuple = field(default=(), repr=False)  # rows an aggregator adds to report()
    confidential: list[str] = field(default_factory=list)
    order: np.ndarray | None = field(default=None, repr=False)
    identifiers: dict = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    strata: list[str] = field(default_factory=list)
    key_classes: np.ndarray | None = field(default=None, repr=False)
    index_note: str | None = None  # what the input's index was, if it carried information
    coverage: tuple = field(default=(), repr=False)  # (kept column, records unique, in classes < k) if known

    @property
    def k(self) -> int:
        return self.params["k"]

    def in_input_order(self) -> pd.DataFrame:
        """The released table in the input's row order with the input's index: row i is record i's release, for
        comparing with the original. Not for publication (the order and index link rows back)."""
        n = len(self.protected)
        order = np.arange(n) if self.order is None else self.order
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n)
        out = self.protected.iloc[inverse].set_axis(self.original.index, axis=0)
        out.attrs = {}
        return out

    def report(self, **params) -> pd.DataFrame:
        """Metrics of this release, one per row: metric, attribute, value, unit, direction, source.

        Every metric of ``microagg.evaluate`` (``params`` are its parameters, e.g. ``p=5``, ``keys=[...]``),
        computed on the release's own z-scores of the masked columns before rounding, then the group
        statistics, the k-anonymity check of the released rows and the columns masked, confidential,
        dropped and kept. With confidential columns, SSE_i (Abidi, Ben Yahia & Perera 2018, Eq. 2) is their spread
        within the
        groups, in z units. SL uses the release's own Δ and w when its aggregation takes them
        (``Method.personalized``, P3M), unless ``params`` say otherwise.
        """
        params.setdefault("k", self.k)
        if self.confidential and params.get("confidential") is not None:
            raise MicroaggError(f"this release's confidential columns are {self.confidential}; SSE_i is computed on "
                                "them, so leave 'confidential' out of report().")
        if get_method("aggregate", self.params["aggregation"]).personalized:
            for name in WISHES:
                params.setdefault(name, self.params[name])
        X = self.original[self.masked].to_numpy(dtype=np.float64)
        Xp = self.in_input_order()[self.masked].to_numpy(dtype=np.float64)
        Zc = standardize(self.original, self.confidential) if self.confidential else None
        table = evaluate_arrays(X, Xp, self.Z, self.Zp, self.masked, self.labels, Zc=Zc,
                                key_classes=self.key_classes if self.keys else None, **params)
        rows = []

        def add(metric, value, unit="", direction="", source="", attribute="all"):
            rows.append({"metric": metric, "attribute": attribute, "value": value, "unit": unit,
                         "direction": direction, "source": source})

        lower, higher = "lower is better", "higher is better"
        per_attribute = self.labels.ndim == 2
        rows += group_rows(group_stats(pooled_labels(self.labels), self.k),
                           "pooled over attributes" if per_attribute else "all")
        if per_attribute:
            add("record-level k-anonymity", NOT_RECORD_LEVEL, "", "", "docs/methods.md §2.9, docs/metrics.md §4.13")
        an = self.anonymity
        on = "docs/metrics.md §4.13" + (f"; on the key columns {', '.join(self.keys)} and the masked columns"
                                         if self.keys else "")
        add("smallest equivalence class", an["min_class"], "records", higher, on)
        add("records in classes < k", an["records_in_small_classes"], "records", lower, on)
        add("k-anonymous", an["k_anonymous"], "", "", on)
        for col, unique, small in self.coverage:
            add("kept column not in the k-anonymity check: records unique if it is known", unique, "records",
                lower, f"{small} records in classes < k with {col} known; declare it in 'keys' (and 'strata') "
                "to cover it", attribute=col)
        if self.params.get("engine", "memory") == "blocks":
            add("engine", "blocks", "", "", "README, Scaling out")
            if "blocks" in self.params:
                add("blocks", self.params["blocks"], "blocks", "", "microagg.partition.blocks")
            add("block size B", self.params["block_size"], "records", "", "microagg.partition.blocks")
        rows += column_rows(self.masked, self.confidential, self.dropped, self.kept)
        rows += safety_rows(self.identifiers, self.keys, self.strata, self.index_note,
                            self.params.get("keep_index", False), self.params.get("shuffle", False))
        for row in self.aggregation_report:
            at = row.get("attribute", "all")
            rows.append({**row, "attribute": self.masked[at] if isinstance(at, (int, np.integer)) else at})
        return pd.concat([table, pd.DataFrame(rows, columns=table.columns)], ignore_index=True)

    def to_csv(self, path=None, index: bool | None = None, spreadsheet_safe: bool = True, **kwargs):
        """Write the protected table as published, atomically: rows in the release's order, no index unless the
        release keeps the input's (``keep_index=True``) or ``index=True`` is asked for; ``path=None`` returns the
        text. ``spreadsheet_safe`` prefixes a quote to text cells and column names a spreadsheet would run as
        a formula (``microagg.io.neutralise``); set it False to write them as they are."""
        keep = self.params.get("keep_index", False) if index is None else index
        return write_csv(self.protected, path, spreadsheet_safe=spreadsheet_safe, index=keep, **kwargs)


def report_row(metric, value, unit="", direction="", source="", attribute="all") -> dict:
    """One row of a release's report."""
    return {"metric": metric, "attribute": attribute, "value": value, "unit": unit, "direction": direction,
            "source": source}


def group_rows(stats: dict, where: str = "all") -> list[dict]:
    """Report rows of the group statistics ``stats`` (``metrics.group_stats`` with k), attribute ``where``."""
    return [report_row(metric, stats[key], unit, direction, "docs/metrics.md §4.12", where)
            for metric, key, unit, direction in (("groups", "groups", "groups", ""),
                                                 ("smallest group", "min_size", "records", ""),
                                                 ("largest group", "max_size", "records", ""),
                                                 ("mean group size", "mean_size", "records", ""),
                                                 ("groups larger than 2k-1", "oversized", "groups", "lower is better"))]


def column_rows(masked, confidential, dropped, kept) -> list[dict]:
    """Report rows naming the columns of each role."""
    return [report_row("columns masked", ", ".join(masked), source="release"),
            report_row("columns confidential (unchanged)", ", ".join(confidential) or "none",
                       source="Abidi, Ben Yahia & Perera 2018, §2.1"),
            report_row("columns dropped", ", ".join(dropped) or "none", source="release"),
            report_row("columns kept unmasked", ", ".join(kept) or "none", source="release")]


def safety_rows(identifiers: dict, keys, strata, index_note, keep_index: bool, shuffled: bool) -> list[dict]:
    """Report rows saying what was withheld or declared around the masked columns (README, "Publishing a release
    safely")."""
    rows = [report_row("identifiers (not released)", "; ".join(f"{c} ({why})" for c, why in identifiers.items())
                       or "none", source="microagg.safety.identifiers"),
            report_row("key columns (in the k-anonymity check)", ", ".join(keys) or "none", source="release"),
            report_row("strata (microaggregated separately)", ", ".join(strata) or "none", source="release"),
            report_row("row order", "shuffled (seeded random permutation)" if shuffled else
                       "input order (shuffle=False): links rows to anyone holding the original's order",
                       source="release")]
    if index_note is not None or keep_index:
        what = index_note or "the input's index"
        rows.append(report_row("input index", f"{what}: released (keep_index=True)" if keep_index else
                               f"{what}: not released (keep_index=True would release it)", source="release"))
    return rows


def split_params(method: Method, aggregator: Method, params: dict[str, Any]) -> tuple[dict, dict]:
    """Route keyword parameters to the partitioner or the aggregator that declares them.

    A name neither declares raises; a name both declare must be given through
    ``method_params`` / ``aggregation_params`` instead.
    """
    mnames = {p.name for p in method.params}
    anames = {p.name for p in aggregator.params}
    both = sorted(set(params) & mnames & anames)
    if both:
        raise MicroaggError(f"parameter(s) {both} are accepted by both method '{method.name}' and aggregation "
                            f"'{aggregator.name}': pass them in method_params= or aggregation_params=.")
    unknown = sorted(set(params) - mnames - anames)
    if unknown:
        raise MicroaggError(
            f"parameter(s) {unknown} are not accepted by method '{method.name}' "
            f"(accepts: {', '.join(sorted(mnames)) or 'none'}) nor by aggregation '{aggregator.name}' "
            f"(accepts: {', '.join(sorted(anames)) or 'none'})."
        )
    return ({n: v for n, v in params.items() if n in mnames}, {n: v for n, v in params.items() if n in anames})


ENGINES = ("memory", "blocks", "dask")


def microaggregate(data, k: int, method: str | None = None, aggregation: str = "mean",
                   columns: Sequence[str] | None = None, keep: Sequence[str] | None = None,
                   renormalize: bool = False, method_params: dict | None = None,
                   aggregation_params: dict | None = None, labels=None, confidential: Sequence[str] | None = None,
                   identifiers: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                   strata: Sequence[str] | None = None, shuffle: bool = True, seed: int | None = None,
                   keep_index: bool = False,
                   engine: str = "memory", block_size: int | None = None, n_jobs: int | None = None, blocks=None,
                   out=None, scheduler=None, **params) -> Release | DaskRelease:
    """Microaggregate the numeric ``columns`` of ``data`` into groups of at least ``k`` records.

    ``method`` (default ``"mdav"``) and ``aggregation`` name registered methods (``microagg.registry``);
    their parameters are passed as keywords (or in ``method_params`` /
    ``aggregation_params``). ``data`` is a DataFrame, an array or the path of a CSV file (read by
    ``microagg.io.read_csv``; its conversions and text columns are warnings). ``columns=None`` masks every
    numeric column that is not an identifier, a key, a stratum or confidential. Columns not masked are dropped
    unless listed in ``keep``, which releases them unchanged.
    ``renormalize`` rescales the masked z-scores to unit variance (Mortazavi & Jalili 2017
    Eq. 5) before destandardizing; it is refused for aggregations that already
    preserve means and variances (registered with ``preserves_moments``, e.g. P3M).
    An aggregation registered with a ``with_report`` hook ((Z, labels, **params) ->
    (Z', rows)) adds its rows to ``report()``. ``labels`` reuses a partition computed
    earlier (e.g. cached by the dashboard) instead of running ``method`` again; it is
    checked like any other, and the release records ``method`` and its parameters only if
    they are given (they are the caller's statement of how ``labels`` were made). The input
    is never modified. Released values of a group-local aggregation (mean, median) are computed
    in the original units, exact to float64 rounding; others are destandardized from z-scores.

    ``confidential`` names the confidential (sensitive) columns: they are released
    unchanged; a method that uses roles (HM-pfsom) reads them to form its groups,
    any other method partitions on the masked columns only. The masked columns are
    the quasi-identifiers. The k-anonymity check is on them and the key columns (docs/metrics.md §4.13).

    Publishing safely (README, "Publishing a release safely"): ``identifiers`` (default: detected by
    ``microagg.safety.identifiers``; ``[]`` for none) are neither masked nor released unless named in
    ``columns`` or ``keep``. ``keys`` are columns an intruder may know, released unmasked (categorical or
    numeric): they enter the k-anonymity check and RLD. ``strata`` microaggregates inside each stratum (every
    combination of their values; each must hold at least k records, else the release is refused naming it),
    so that with ``strata`` covering ``keys`` the release stays k-anonymous. ``shuffle`` (default) publishes the
    rows in a random order drawn from ``seed`` (default: a fresh seed, recorded in ``params["shuffle_seed"]``;
    a method's own ``seed`` then goes in ``method_params``);
    ``keep_index=True`` releases the input's index, which is otherwise replaced by 0..n-1.

    ``engine`` chooses how the partition is computed (README "Scaling out"): ``"memory"`` runs
    ``method`` on all records at once (inside each stratum); ``"blocks"`` runs it inside blocks of at most
    ``block_size`` records (``microagg.partition.block_partition``: a median tree on the standardized masked
    columns, inside each stratum,
    ``n_jobs`` threads, default all cores; ``blocks`` gives the blocks instead, one id per record,
    and larger ones are split further); ``"dask"`` is ``microagg.scale.microaggregate_dask``: ``data``
    may also be a path, glob pattern or list of CSV or Parquet files or a dask DataFrame, the release
    is written as Parquet files to the directory ``out`` on the Dask ``scheduler`` (default a
    LocalCluster) and a ``scale.DaskRelease`` is returned.
    """
    if engine not in ENGINES:
        raise MicroaggError(f"unknown engine {engine!r}; choose one of {list(ENGINES)}.")
    if not isinstance(renormalize, (bool, np.bool_)):
        raise MicroaggError(f"renormalize must be True or False; got {renormalize!r}.")
    if n_jobs is not None:
        n_jobs = check_int(n_jobs, 1, "n_jobs must be an integer >= 1 (threads running blocks)")
    if labels is not None and method is None and (method_params or set(params) - _aggregation_names(aggregation)):
        raise MicroaggError("method parameters were given with labels= but no method=: name the method that made "
                            "the labels, or leave its parameters out.")
    if engine == "dask":
        from .scale import microaggregate_dask

        if labels is not None or renormalize or n_jobs is not None or blocks is not None or keep_index:
            raise MicroaggError("engine='dask' computes its own blocks and partition, cannot renormalize and writes "
                                "no index: leave 'labels', 'renormalize', 'n_jobs', 'blocks' and 'keep_index' out.")
        return microaggregate_dask(data, k, method=method or "mdav", aggregation=aggregation, columns=columns,
                                   keep=keep, confidential=confidential, identifiers=identifiers, keys=keys,
                                   strata=strata, shuffle=shuffle, method_params=method_params,
                                   aggregation_params=aggregation_params, out=out, scheduler=scheduler,
                                   block_size=block_size, **({} if seed is None else {"seed": seed}), **params)
    if out is not None or scheduler is not None:
        raise MicroaggError(f"'out' and 'scheduler' belong to engine='dask', not engine={engine!r}.")
    if engine == "memory" and (block_size is not None or n_jobs is not None or blocks is not None):
        raise MicroaggError("'block_size', 'n_jobs' and 'blocks' belong to engine='blocks' (or 'dask' for "
                            "block_size); engine='memory' partitions all records at once.")
    for name, flag in (("shuffle", shuffle), ("keep_index", keep_index)):
        if not isinstance(flag, (bool, np.bool_)):
            raise MicroaggError(f"'{name}' must be True or False; got {flag!r}.")
    if isinstance(data, (str, os.PathLike)):
        table = read_csv(data)
        for note in table.notes:
            warnings.warn(note, stacklevel=2)
        data = table.data
    df = as_frame(data)
    k = check_k(k)
    given = labels is not None and method is None  # a partition made elsewhere: no method to record
    part, agg, mp, ap = resolve_methods(method or "mdav", aggregation, params, method_params, aggregation_params)
    if given:
        mp = {}
    if renormalize and agg.extras.get("preserves_moments"):
        raise MicroaggError(f"renormalize=True cannot be combined with aggregation '{aggregation}': it already "
                            "preserves every attribute's mean and variance, and rescaling would undo what it "
                            "optimized. Call it without renormalize.")
    clash = [m for m in (part, agg) if "seed" in {p.name for p in m.params}
             and "seed" not in ((method_params if m is part else aggregation_params) or {})]
    if seed is not None and clash:
        raise MicroaggError(f"'seed' seeds the shuffle of the released rows, and {clash[0].kind} '{clash[0].name}' "
                            f"takes a 'seed' too: pass that one in {'method' if clash[0] is part else 'aggregation'}"
                            "_params={'seed': ...} (then seed= is the shuffle's).")
    roles = column_roles(df, columns, keep, confidential, identifiers, keys, strata)
    masked, conf, keep, names = roles.masked, roles.confidential, roles.kept, roles.names
    X = numeric_matrix(df, masked, min_rows=k)
    order, seed = permutation(len(df), seed) if shuffle else (np.arange(len(df)), None)

    std = Standardizer.fit(X)
    Z = check_scale(X, masked, std)
    stratum = stratum_ids(df, roles.strata, k)
    engine_info = {"engine": engine}
    if engine == "blocks":
        B = check_block_size(DEFAULT_BLOCK_SIZE if block_size is None else block_size, k)
        engine_info.update(block_size=B)
    if labels is None:
        if engine == "blocks":
            outer = blocks if stratum is None or blocks is None else class_ids(np.column_stack([blocks, stratum]))
            blocks = split_blocks(Z, k, B, blocks=stratum if outer is None else outer)
            engine_info.update(blocks=int(blocks.max()) + 1)
        elif stratum is not None:  # every stratum one block, the method run on all its records
            blocks, B = stratum, max(2 * k, int(np.bincount(stratum).max()))
        labels = _partition(part, df, conf, Z, k, mp, blocks=blocks, block_size=B if blocks is not None else None,
                            n_jobs=n_jobs)
    labels = np.asarray(labels)
    _check_partition(labels, Z.shape, k, "given labels" if given else part.name)
    _check_strata(labels, stratum, roles.strata)
    hook = agg.extras.get("with_report")
    Zp, agg_rows = hook(Z, labels, **ap) if hook is not None else (agg.func(Z, labels, **ap), [])
    if renormalize:
        Zp = _renormalize(Zp)
    V = release_values(X, Zp, labels, agg, ap, std, exact=not renormalize)
    masked_only = k_anonymity(V, k)
    method = "given labels" if given else (method or "mdav")
    if labels.ndim == 1 and not masked_only["k_anonymous"]:
        raise MicroaggError(f"internal check failed: the masked rows of method '{method}' are not {k}-anonymous "
                            f"(smallest class {masked_only['min_class']}); no release was made.")
    codes = key_codes(df, roles.keys)
    anonymity = k_anonymity(np.column_stack([codes, V]), k) if roles.keys else masked_only
    if labels.ndim > 1 and not anonymity["k_anonymous"]:
        warnings.warn(f"method '{method}' groups each attribute separately: the released rows are NOT {k}-anonymous "
                      f"as whole records ({anonymity['records_in_small_classes']} records in classes smaller than "
                      "k); see the report.", stacklevel=2)
    elif not anonymity["k_anonymous"]:
        warnings.warn(f"the key columns {roles.keys} break k-anonymity: the released rows are NOT {k}-anonymous on "
                      f"the keys and masked columns ({anonymity['records_in_small_classes']} records in classes "
                      f"smaller than k). Microaggregate inside strata of the keys (strata={roles.keys}) to keep "
                      "it; see the report.", stacklevel=2)
    _warn_exact_median(agg, labels, X, V)

    columns_out = [c for c in names if c in masked or c in keep or c in conf]
    out = {}
    for c in columns_out:
        out[c] = V[:, masked.index(c)] if c in masked else df[c].to_numpy(copy=True)
    index = df.index[order] if keep_index else pd.RangeIndex(len(df))
    protected = pd.DataFrame(out, index=df.index.copy(), columns=columns_out).iloc[order].set_axis(index, axis=0)
    if shuffle:
        protected.attrs["row order"] = "shuffled"  # refused by evaluate(): the rows no longer pair with the input
    params_used = {"k": k, "method": method, "aggregation": aggregation, "columns": masked,
                   "keep": [c for c in keep if c not in roles.keys], "renormalize": bool(renormalize),
                   "confidential": conf, "identifiers": None if identifiers is None else list(roles.identifiers),
                   "keys": roles.keys, "strata": roles.strata, "shuffle": bool(shuffle), "shuffle_seed": seed,
                   "keep_index": bool(keep_index), **engine_info, **mp, **ap}
    dropped = [c for c in names if c not in masked and c not in keep and c not in conf]
    return Release(protected=protected, labels=labels, params=params_used,
                   original=df[masked + conf].copy(), Z=Z, Zp=Zp, standardizer=std, masked=masked,
                   dropped=dropped, kept=keep, anonymity=anonymity, confidential=conf,
                   aggregation_report=tuple(agg_rows), order=order, identifiers=roles.identifiers,
                   keys=roles.keys, strata=roles.strata, key_classes=class_ids(codes),
                   index_note=meaningful_index(df),
                   coverage=tuple(_coverage(df, codes, V, [c for c in keep if c not in roles.keys], k)))


def _coverage(df: pd.DataFrame, codes: np.ndarray, V: np.ndarray, uncovered: list[str], k: int):
    """(column, records unique, records in classes < k) on the keys, the masked values and one kept column that
    is not a key: what an intruder who knows that column as well could single out."""
    for c in uncovered:
        _, inverse, counts = np.unique(np.column_stack([codes, key_codes(df, [c]), V]), axis=0,
                                       return_inverse=True, return_counts=True)
        size = counts[inverse.reshape(-1)]
        yield c, int((size == 1).sum()), int((size < k).sum())


def _warn_exact_median(agg: Method, labels: np.ndarray, X: np.ndarray, V: np.ndarray) -> None:
    """The median of a group of odd size is one member's own value: say how many cells are published exactly."""
    if agg.name != "median" or not (np.bincount(pooled_labels(labels)) % 2).any():
        return
    cells, records = exact_cells(X, V)
    warnings.warn(f"median aggregation with groups of odd size publishes one member's own value: {cells:.1f} % of "
                  f"the masked cells equal their original ({records:.1f} % of the records have at least one); see "
                  "'exact cells' in the report, or use the mean.", stacklevel=3)


def stratum_ids(df: pd.DataFrame, strata: list[str], k: int) -> np.ndarray | None:
    """The stratum (0..s-1) of every record, or None without strata; a stratum of fewer than k records is refused
    (merging it into another would mix strata that the user asked to keep apart)."""
    if not strata:
        return None
    codes = key_codes(df, strata)
    ids = class_ids(codes)
    sizes = np.bincount(ids)
    if sizes.min() < k:
        small = np.flatnonzero(sizes < k)
        row = int(np.flatnonzero(ids == small[0])[0])
        name = ", ".join(f"{c}={df[c].iloc[row]}" for c in strata)
        raise MicroaggError(f"stratum {name} has {int(sizes[small[0]])} < k = {k} records ({len(small)} of "
                            f"{len(sizes)} strata are smaller than k): no k-anonymous group can be formed inside it. "
                            "Merge small categories into a larger one, lower k, or stratify on fewer columns.")
    return ids


def _check_strata(labels: np.ndarray, stratum: np.ndarray | None, strata: list[str]) -> None:
    """Every group must lie inside one stratum (given ``labels`` computed without the strata are refused)."""
    if stratum is None:
        return
    for col in labels.T if labels.ndim == 2 else [labels]:
        pairs = np.unique(np.column_stack([col, stratum]), axis=0)
        if len(pairs) != len(np.unique(col)):
            raise MicroaggError(f"the given labels put records of different strata ({', '.join(strata)}) in one "
                                "group: compute them with the same strata.")


def resolve_methods(method: str, aggregation: str, params: dict, method_params: dict | None,
                    aggregation_params: dict | None) -> tuple[Method, Method, dict, dict]:
    """The registered partitioner and aggregator and their validated parameters (defaults filled in)."""
    part = get_method("partition", method)
    agg = get_method("aggregate", aggregation)
    mp, ap = split_params(part, agg, params)
    for where, direct, extra in (("method_params", mp, method_params), ("aggregation_params", ap, aggregation_params)):
        both = sorted(set(direct) & set(extra or {}))
        if both:
            raise MicroaggError(f"parameter(s) {both} given both as keywords and in {where}: give each once.")
    return (part, agg, part.resolve({**mp, **(method_params or {})}),
            agg.resolve({**ap, **(aggregation_params or {})}))


def _aggregation_names(aggregation: str) -> set[str]:
    return {p.name for p in get_method("aggregate", aggregation).params}


@dataclass(frozen=True)
class Roles:
    """The role of every column of a release (``column_roles``)."""

    masked: list[str]
    confidential: list[str]
    kept: list[str]          # released unchanged, the keys included
    names: list[str]
    identifiers: dict        # column -> why it is treated as an identifier (not released)
    keys: list[str]
    strata: list[str]


def _names(df: pd.DataFrame, given, what: str) -> list[str]:
    """``given`` (a name or names, None for none) checked: in the data, each once."""
    if given is None:
        return []
    cols = [given] if isinstance(given, str) else [str(c) for c in given]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise MicroaggError(f"columns {dup} are listed more than once in '{what}'.")
    names = [str(c) for c in df.columns]
    missing = [c for c in cols if c not in names]
    if missing:
        raise MicroaggError(f"{what}: columns {missing} are not in the data; available: {names}.")
    return cols


def column_roles(df: pd.DataFrame, columns, keep, confidential, identifiers=None, keys=None, strata=None) -> Roles:
    """The columns of ``df`` by role, checked: each column in one role, masked ones numeric, at least one masked.

    Identifiers (given, or detected by ``safety.identifiers`` when ``identifiers`` is None) are neither masked
    nor released; a detected one named in ``columns``, ``keep``, ``keys``, ``strata`` or ``confidential`` is
    the user's choice and no longer one. Keys are released unmasked. By default the masked columns are the
    numeric columns in no other role. ``df`` may be an empty frame with the data's dtypes (the Dask engine).
    """
    conf = _confidential(df, confidential)
    keys, strata = _names(df, keys, "keys"), _names(df, strata, "strata")
    keep = [] if keep is None else ([keep] if isinstance(keep, str) else [str(c) for c in keep])
    chosen = set(conf) | set(keys) | set(strata) | set(keep) | \
        (set([columns] if isinstance(columns, str) else map(str, columns)) if columns is not None else set())
    ids = chosen_identifiers(df, identifiers)
    if identifiers is None:
        ids = {c: why for c, why in ids.items() if c not in chosen}
    else:
        clash = [c for c in ids if c in chosen]
        if clash:
            raise MicroaggError(f"columns {clash} are listed in 'identifiers' (not released) and also chosen for the "
                                "release ('columns', 'keep', 'keys', 'strata' or 'confidential'); list each once.")
    masked = select_columns(df, columns) if columns is not None else \
        [c for c in select_columns(df, None) if c not in conf and c not in ids and c not in keys
         and c not in strata and c not in keep]
    both = [c for c in masked if c in conf]
    if both:
        raise MicroaggError(f"columns {both} are listed both in 'columns' (quasi-identifiers, masked) and in "
                            "'confidential' (released unchanged); list each column once.")
    if not masked:
        raise MicroaggError("no column left to mask: every numeric column is confidential, an identifier, a key, a "
                            "stratum or kept; leave at least one quasi-identifier to mask (or name it in 'columns').")
    names = [str(c) for c in df.columns]
    missing = [c for c in keep if c not in names]
    if missing:
        raise MicroaggError(f"keep: columns {missing} are not in the data; available: {names}.")
    for role, cols in (("masked", masked), ("confidential", conf)):
        for what, given in (("keep", keep), ("keys", keys)):
            overlap = [c for c in given if c in cols]
            if overlap:
                raise MicroaggError(f"columns {overlap} are both {role} and listed in '{what}'; list each column "
                                    "once (keys are released unmasked).")
    masked_strata = [c for c in strata if c in masked]
    if masked_strata:
        raise MicroaggError(f"columns {masked_strata} are both masked and strata: a stratum column is released "
                            "unmasked (list it in 'keys') or not at all.")
    kept = keep + [c for c in keys if c not in keep]
    return Roles(masked, conf, kept, names, ids, keys, strata)


def _confidential(df: pd.DataFrame, confidential) -> list[str]:
    """The confidential column names, checked: in the data, numeric, each listed once."""
    cols = _names(df, confidential, "confidential")
    return select_columns(df, cols) if cols else []


def _partition(part: Method, df: pd.DataFrame, conf: list[str], Z: np.ndarray, k: int, params: dict,
               blocks=None, block_size: int | None = None, n_jobs: int | None = None) -> np.ndarray:
    """Labels of ``part`` on the QI z-scores ``Z``; a method that uses roles also gets the confidential columns'
    z-scores, appended after the QIs, and their positions as ``confidential``. With ``blocks`` (the block
    engine), ``part`` runs inside each block (``block_partition``)."""
    if part.uses_roles:
        Zc = standardize(df, conf) if conf else np.empty((len(Z), 0))
        Z, params = np.hstack([Z, Zc]), {**params, "confidential": list(range(Z.shape[1], Z.shape[1] + len(conf)))}
    if blocks is None:
        return part.func(Z, k, **params)
    return block_partition(Z, k, part.name, block_size=block_size, n_jobs=n_jobs, blocks=blocks, **params)


NOT_RECORD_LEVEL = ("NOT guaranteed: each attribute was grouped separately, so every released value is shared by "
                    ">= k records in its own column, but whole released rows are generally not k-anonymous")


def release_values(X: np.ndarray, Zp: np.ndarray, labels: np.ndarray, agg: Method, params: dict,
                   std: Standardizer, exact: bool = True) -> np.ndarray:
    """Released values in original units. A group-local aggregation (mean, median) commutes with the affine
    standardization (Mortazavi & Jalili 2017, Eq. 6), so with ``exact`` it is applied to ``X`` itself: exact to
    float64 rounding at any magnitude. Only a column whose group sums could overflow is divided first by its
    largest magnitude (so no small value of an ordinary column is pushed into the subnormal range). Otherwise
    ``Zp`` is destandardized."""
    if not (exact and agg.group_local):
        return std.inverse(Zp)
    top = np.abs(X).max(axis=0) if len(X) else np.zeros(X.shape[1])
    risky = top * max(len(X), 1) > np.finfo(np.float64).max / 4
    scale = np.where(risky, top, 1.0)
    return agg.func(X / scale, labels, **params) * scale


def _check_partition(labels: np.ndarray, shape: tuple[int, int], k: int, method: str) -> None:
    """Refuse labels that are not a partition of the records (``check_labels``) or have a group smaller than k
    (a release would not be k-anonymous)."""
    lab = check_labels(labels, shape[0], d=shape[1])
    smallest = min(np.bincount(col).min() for col in (lab.T if lab.ndim == 2 else [lab]))
    if smallest < k:
        raise MicroaggError(f"method '{method}' produced a group of {smallest} < k = {k} records; "
                            "no release was made.")
