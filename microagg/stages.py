"""The release as stages on DataFrames: roles → standardize → partition → aggregate → release → report.

``microaggregate`` (``microagg.pipeline``) validates its arguments once and runs these in order; the dashboard
calls them itself, so that a cached partition is aggregated and released without partitioning again::

    roles = column_roles(df, columns, keep, confidential, identifiers, keys, strata)   # microagg.roles
    prep = standardize(df, roles, k)
    part, agg, mp, ap = resolve_methods("mdav", "mean", {}, None, None)
    labels, engine_info = partition(prep, part, mp)
    masked = aggregate(prep, labels, agg, ap)
    rel = release(prep, labels, masked, method="mdav", method_params=mp, aggregation_params=ap,
                  engine_info=engine_info)
    rel.report()

Every stage takes what the one before it returned and checks what its own step can break (a partition that
is not one, a group smaller than k, released rows that are not k-anonymous); none validates its arguments
again.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .engines import MEMORY, Blocks, Memory
from .errors import MicroaggError
from .labels import check_labels, pooled_labels
from .metrics import k_anonymity
from .metrics.risk import exact_cells
from .partition.igd import check_refine
from .preprocess import Standardizer, check_scale, numeric_matrix
from .preprocess import renormalize as renormalized
from .preprocess import standardize as zscores
from .registry import Method, get_method
from .release import Release
from .roles import Roles, stratum_ids
from .safety import class_ids, key_codes, meaningful_index, permutation


@dataclass(frozen=True)
class Prepared:
    """The data with its column roles checked, the masked columns in original units (``X``) and z-scores
    (``Z``, the original's mean and population sd) and the stratum of every record (None without strata)."""

    df: pd.DataFrame
    roles: Roles
    k: int
    X: np.ndarray
    std: Standardizer
    Z: np.ndarray
    stratum: np.ndarray | None


@dataclass(frozen=True)
class Masked:
    """An aggregation's output: ``Zp`` the masked z-scores, ``V`` the released values in original units, ``rows``
    what the aggregation adds to the report, ``name`` the aggregation and ``renormalized`` whether Z' was
    rescaled (Mortazavi & Jalili 2017, Eq. 5)."""

    Zp: np.ndarray
    V: np.ndarray
    rows: tuple
    name: str
    renormalized: bool


def standardize(df: pd.DataFrame, roles: Roles, k: int) -> Prepared:
    """The masked columns as a finite matrix of at least ``k`` rows, standardized (a column too large for float64
    arithmetic refused), and the strata (each of at least ``k`` records)."""
    X = numeric_matrix(df, roles.masked, min_rows=k)
    std = Standardizer.fit(X)
    Z = check_scale(X, roles.masked, std)
    return Prepared(df, roles, k, X, std, Z, stratum_ids(df, roles.strata, k))


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


def partition(prep: Prepared, part: Method, params: dict, engine: Memory | Blocks = MEMORY,
              refine: str = "none") -> tuple[np.ndarray, dict]:
    """Labels of the partitioner ``part`` (validated ``params``) on the masked z-scores, computed by ``engine``
    and refined by ``refine`` ("igd": docs/methods.md §2.17, inside every block or stratum; refused after a
    method whose guarantee it would break), and what the release records about the engine and the refinement.
    A method that uses roles also gets the confidential columns' z-scores, appended after the masked ones, and
    their positions as ``confidential``."""
    refine = check_refine(refine, part)
    Z, d = prep.Z, prep.Z.shape[1]
    if part.uses_roles:
        conf = prep.roles.confidential
        Zc = zscores(prep.df, conf) if conf else np.empty((len(Z), 0))
        Z, params = np.hstack([Z, Zc]), {**params, "confidential": list(range(d, d + len(conf)))}
    labels, info = engine.partition(part, Z, prep.k, params, prep.stratum, np.arange(d), refine)
    check_partition(np.asarray(labels), prep, part.name)
    return np.asarray(labels), {**info, "refine": refine}


def check_partition(labels: np.ndarray, prep: Prepared, method: str) -> None:
    """Refuse labels that are not a partition of the records (``check_labels``), have a group smaller than k (a
    release would not be k-anonymous) or put records of different strata in one group."""
    lab = check_labels(labels, prep.Z.shape[0], d=prep.Z.shape[1])
    smallest = min(np.bincount(col).min() for col in (lab.T if lab.ndim == 2 else [lab]))
    if smallest < prep.k:
        raise MicroaggError(f"method '{method}' produced a group of {smallest} < k = {prep.k} records; "
                            "no release was made.")
    if prep.stratum is None:
        return
    for col in labels.T if labels.ndim == 2 else [labels]:
        pairs = np.unique(np.column_stack([col, prep.stratum]), axis=0)
        if len(pairs) != len(np.unique(col)):
            raise MicroaggError(f"the given labels put records of different strata ({', '.join(prep.roles.strata)}) "
                                "in one group: compute them with the same strata.")


def aggregate(prep: Prepared, labels: np.ndarray, agg: Method, params: dict, renormalize: bool = False) -> Masked:
    """The aggregation ``agg`` (validated ``params``) of every group of ``labels``: masked z-scores, optionally
    renormalized to unit variance (Mortazavi & Jalili 2017, Eq. 5), and the released values in original units
    (:func:`release_values`)."""
    hook = agg.extras.get("with_report")
    Zp, rows = hook(prep.Z, labels, **params) if hook is not None else (agg.func(prep.Z, labels, **params), [])
    if renormalize:
        Zp = renormalized(Zp)
    V = release_values(prep.X, Zp, labels, agg, params, prep.std, exact=not renormalize)
    return Masked(Zp, V, tuple(rows), agg.name, bool(renormalize))


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


def release(prep: Prepared, labels: np.ndarray, masked: Masked, *, method: str, method_params: dict,
            aggregation_params: dict, engine_info: dict, identifiers_given: bool = False, shuffle: bool = True,
            seed: int | None = None, keep_index: bool = False) -> Release:
    """The table as published, checked: the masked rows k-anonymous (or no release), with the keys; a warning
    where the released rows are not k-anonymous as whole records or on the keys. Identifiers are left out, the
    index replaced by 0..n-1 unless ``keep_index``, the rows shuffled by a permutation from ``seed`` (a fresh
    one when None, recorded) unless ``shuffle`` is False (README, "Publishing a release safely")."""
    df, roles, k, V = prep.df, prep.roles, prep.k, masked.V
    order, seed = permutation(len(df), seed) if shuffle else (np.arange(len(df)), None)
    masked_only = k_anonymity(V, k)
    if labels.ndim == 1 and not masked_only["k_anonymous"]:
        raise MicroaggError(f"internal check failed: the masked rows of method '{method}' are not {k}-anonymous "
                            f"(smallest class {masked_only['min_class']}); no release was made.")
    codes = key_codes(df, roles.keys)
    anonymity = k_anonymity(np.column_stack([codes, V]), k) if roles.keys else masked_only
    if labels.ndim > 1 and not anonymity["k_anonymous"]:
        warnings.warn(f"method '{method}' groups each attribute separately: the released rows are NOT {k}-anonymous "
                      f"as whole records ({anonymity['records_in_small_classes']} records in classes smaller than "
                      "k); see the report.", stacklevel=3)
    elif not anonymity["k_anonymous"]:
        warnings.warn(f"the key columns {roles.keys} break k-anonymity: the released rows are NOT {k}-anonymous on "
                      f"the keys and masked columns ({anonymity['records_in_small_classes']} records in classes "
                      f"smaller than k). Microaggregate inside strata of the keys (strata={roles.keys}) to keep "
                      "it; see the report.", stacklevel=3)
    _warn_exact_median(masked.name, labels, prep.X, V)

    names, cols, conf, keep = roles.names, roles.masked, roles.confidential, roles.kept
    columns_out = [c for c in names if c in cols or c in keep or c in conf]
    out = {c: V[:, cols.index(c)] if c in cols else df[c].to_numpy(copy=True) for c in columns_out}
    index = df.index[order] if keep_index else pd.RangeIndex(len(df))
    protected = pd.DataFrame(out, index=df.index.copy(), columns=columns_out).iloc[order].set_axis(index, axis=0)
    if shuffle:
        protected.attrs["row order"] = "shuffled"  # refused by evaluate(): the rows no longer pair with the input
    kept = [c for c in keep if c not in roles.keys]
    params = {"k": k, "method": method, "aggregation": masked.name, "columns": cols, "keep": kept,
              "renormalize": masked.renormalized, "confidential": conf,
              "identifiers": list(roles.identifiers) if identifiers_given else None, "keys": roles.keys,
              "strata": roles.strata, "shuffle": bool(shuffle), "shuffle_seed": seed, "keep_index": bool(keep_index),
              **engine_info, **method_params, **aggregation_params}
    dropped = [c for c in names if c not in cols and c not in keep and c not in conf]
    return Release(protected=protected, labels=labels, params=params, original=df[cols + conf].copy(), Z=prep.Z,
                   Zp=masked.Zp, standardizer=prep.std, masked=cols, dropped=dropped, kept=keep,
                   anonymity=anonymity, confidential=conf, aggregation_report=masked.rows, order=order,
                   identifiers=roles.identifiers, keys=roles.keys, strata=roles.strata, key_classes=class_ids(codes),
                   index_note=meaningful_index(df), coverage=tuple(_coverage(df, codes, V, kept, k)))


def _coverage(df: pd.DataFrame, codes: np.ndarray, V: np.ndarray, uncovered: list[str], k: int):
    """(column, records unique, records in classes < k) on the keys, the masked values and one kept column that
    is not a key: what an intruder who knows that column as well could single out."""
    for c in uncovered:
        _, inverse, counts = np.unique(np.column_stack([codes, key_codes(df, [c]), V]), axis=0,
                                       return_inverse=True, return_counts=True)
        size = counts[inverse.reshape(-1)]
        yield c, int((size == 1).sum()), int((size < k).sum())


def _warn_exact_median(aggregation: str, labels: np.ndarray, X: np.ndarray, V: np.ndarray) -> None:
    """The median of a group of odd size is one member's own value: say how many cells are published exactly."""
    if aggregation != "median" or not (np.bincount(pooled_labels(labels)) % 2).any():
        return
    cells, records = exact_cells(X, V)
    warnings.warn(f"median aggregation with groups of odd size publishes one member's own value: {cells:.1f} % of "
                  f"the masked cells equal their original ({records:.1f} % of the records have at least one); see "
                  "'exact cells' in the report, or use the mean.", stacklevel=4)

