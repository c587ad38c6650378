"""The release as stages on DataFrames: roles → standardize → partition → aggregate → release → report.

``microaggregate`` (``microagg.release.pipeline``) validates its arguments once and runs these in order; the dashboard
calls them itself, so that a cached partition is aggregated and released without partitioning again::

    roles = column_roles(df, columns, keep, confidential, identifiers, keys, strata)   # microagg.privacy.roles
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

from ..aggregate.categorical import nominal_mode, ordinal_median
from ..aggregate.survey import weighted_group_values
from ..base.errors import MicroaggError
from ..base.labels import check_labels, pooled_labels
from ..base.registry import Method, get_method, methods
from ..data.categories import NOMINAL, ORDINAL, Categories, drop_rows, encode
from ..data.preprocess import Standardizer, check_scale, numeric_matrix
from ..data.preprocess import renormalize as renormalized
from ..data.preprocess import standardize as zscores
from ..metrics import k_anonymity
from ..metrics.risk import exact_cells
from ..partition.heterogeneous import mdav_heterogeneous
from ..partition.igd import check_refine
from ..partition.missing import PATTERN_PENALTY, mdav_missing
from ..privacy.bounds import BOUNDS, check_bounds
from ..privacy.roles import Roles, sampling_weights, stratum_ids
from ..privacy.safety import class_ids, key_codes, meaningful_index, permutation, uniform_patterns
from .engines import MEMORY, Blocks, Memory
from .release import Release

MISSING = ("keep", "impute", "refuse")  # what to do with missing cells in masked columns (docs/methods.md §8.1)


@dataclass(frozen=True)
class Prepared:
    """The data with its column roles checked, the masked columns in original units (``X``) and z-scores
    (``Z``, the original's mean and population sd; NaN where a cell is missing), the stratum of every record
    (None without strata), the categorical quasi-identifiers as codes (None without any), the sampling weights
    (None without), what to do with missing cells (``MISSING``) and, when an ordinal or nominal cell is missing,
    what was done with them (``categories_missing``: docs/methods.md §8.8)."""

    df: pd.DataFrame
    roles: Roles
    k: int
    X: np.ndarray
    std: Standardizer
    Z: np.ndarray
    stratum: np.ndarray | None
    cats: Categories | None = None
    weights: np.ndarray | None = None
    missing: str = "refuse"
    categories_missing: dict | None = None  # {"missing": option, "cells": n, "records left out": m}

    @property
    def survey(self) -> bool:
        """Sampling weights or missing cells: partitioned and aggregated by the survey kernels (docs/methods.md §8)."""
        return self.weights is not None or bool(np.isnan(self.X).any())


@dataclass(frozen=True)
class Masked:
    """An aggregation's output: ``Zp`` the masked z-scores, ``V`` the released values in original units, ``rows``
    what the aggregation adds to the report, ``name`` the aggregation, ``renormalized`` whether Z' was
    rescaled (Mortazavi & Jalili 2017, Eq. 5) and ``codes`` the released categories' codes (None without
    categorical quasi-identifiers)."""

    Zp: np.ndarray
    V: np.ndarray
    rows: tuple
    name: str
    renormalized: bool
    codes: np.ndarray | None = None
    survey: dict | None = None  # with weights or missing cells: what the release records about them


def standardize(df: pd.DataFrame, roles: Roles, k: int, missing: str = "refuse",
                missing_categories: str = "refuse") -> Prepared:
    """The masked columns as a matrix of at least ``k`` rows, finite or, unless ``missing="refuse"``, missing
    (NaN), standardized (a column too large for float64 arithmetic refused), the strata (each of at least ``k``
    records), the categorical quasi-identifiers' codes (an ordinal order taken from the natural sort is a
    warning; a missing category refused, its own, unknown, or its record left out: ``missing_categories``,
    docs/methods.md §8.8) and the sampling weights (each finite and > 0)."""
    if missing not in MISSING:
        raise MicroaggError(f"missing must be one of {MISSING}; got {missing!r}.")
    holes = int(df[[*roles.ordinal, *roles.nominal]].isna().to_numpy().sum())
    whole = len(df)
    if missing_categories == "drop":
        df = drop_rows(df, roles.ordinal, roles.nominal)
    cats = encode(df, roles.ordinal, roles.nominal, missing_categories)
    X = numeric_matrix(df, roles.masked, min_rows=k, missing=missing != "refuse")
    std = Standardizer.fit(X)
    Z = check_scale(X, roles.masked, std)
    for note in cats.notes if cats is not None else ():
        warnings.warn(note, stacklevel=3)
    said = {"missing": missing_categories, "cells": holes, "records left out": whole - len(df)} if holes else None
    return Prepared(df, roles, k, X, std, Z, stratum_ids(df, roles.strata, k), cats=cats,
                    weights=sampling_weights(df, roles.sampling_weights), missing=missing, categories_missing=said)


def split_params(method: Method, aggregator: Method, params: dict[str, Any]) -> tuple[dict, dict]:
    """Route keyword parameters to the partitioner or the aggregator that declares them.

    A name neither declares raises; a name both declare must be given through
    ``method_params`` / ``aggregation_params`` instead, unless both declare it ``shared`` (the same quantity,
    e.g. the attribute bounds of insensitive MDAV and the Laplace aggregation): then it goes to both.
    """
    mnames = {p.name for p in method.params}
    anames = {p.name for p in aggregator.params}
    shared = {p.name for p in method.params if p.shared} & {p.name for p in aggregator.params if p.shared}
    both = sorted(set(params) & mnames & anames - shared)
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
    and refined by ``refine`` ("igd": docs/methods.md §2.18, inside every block or stratum; refused after a
    method whose guarantee it would break), and what the release records about the engine and the refinement.
    A method that uses roles also gets the confidential columns' z-scores, appended after the masked ones, and
    their positions as ``confidential``. A method registered ``original_units=True`` (insensitive MDAV, whose
    order is fixed by bounds given in the data's units) gets the masked columns in their original units instead
    of z-scores."""
    refine = check_refine(refine, part)
    if refine != "none" and (prep.cats is not None or np.isnan(prep.Z).any()):
        raise MicroaggError(f"refine={refine!r} moves records by the SSE of complete numeric columns: it cannot follow "
                            "the partition of ordinal or nominal quasi-identifiers or of records with missing cells. "
                            "Leave refine out.")
    if prep.cats is not None:
        return _heterogeneous(prep, part, params, engine)
    Z, d = (prep.X if part.extras.get("original_units") else prep.Z), prep.Z.shape[1]
    if np.isnan(Z).any():
        return _partition_missing(prep, part, params, engine)
    if part.uses_roles:
        conf = prep.roles.confidential
        Zc = zscores(prep.df, conf) if conf else np.empty((len(Z), 0))
        Z, params = np.hstack([Z, Zc]), {**params, "confidential": list(range(d, d + len(conf)))}
    labels, info = engine.partition(part, Z, prep.k, params, prep.stratum, np.arange(d), refine)
    check_partition(np.asarray(labels), prep, part.name)
    return np.asarray(labels), {**info, "refine": refine}


def _heterogeneous(prep: Prepared, part: Method, params: dict, engine: Memory | Blocks) -> tuple[np.ndarray, dict]:
    """MDAV-generic on the continuous and categorical quasi-identifiers (Domingo-Ferrer & Torra 2005;
    ``microagg.partition.heterogeneous``), inside each stratum; other methods, variants and engines are refused.
    Missing continuous cells are measured by partial distances (docs/methods.md §8.2), with ``missing="keep"``
    plus ``PATTERN_PENALTY`` per attribute observed in only one of two records (docs/methods.md §8.5)."""
    if part.name != "mdav" or params.get("variant") != "generic" or not isinstance(engine, Memory):
        raise MicroaggError("ordinal or nominal quasi-identifiers are grouped by heterogeneous MDAV (Domingo-Ferrer & "
                            "Torra 2005): method 'mdav' with variant 'generic' on the memory engine; got method "
                            f"'{part.name}'{' variant ' + repr(params.get('variant')) if part.name == 'mdav' else ''}"
                            f" on the {engine.name} engine. Leave them at their defaults, or release the categorical "
                            "columns as keys with strata instead.")
    cats = prep.cats
    P, N = (cats.codes[:, cats.columns(kind)] for kind in (ORDINAL, NOMINAL))
    stratum = np.zeros(len(prep.Z), np.int64) if prep.stratum is None else prep.stratum
    mismatch = PATTERN_PENALTY if prep.missing == "keep" else 0.0
    labels = np.empty(len(stratum), np.int64)
    offset = 0
    for s in range(int(stratum.max()) + 1):
        rows = np.flatnonzero(stratum == s)
        labels[rows] = mdav_heterogeneous(prep.Z[rows], P[rows], N[rows], prep.k, mismatch) + offset
        offset = int(labels[rows].max()) + 1
    check_partition(labels, prep, part.name)
    return labels, {**engine.info(prep.k), "distance": "heterogeneous (Domingo-Ferrer & Torra 2005)"}


def _partition_missing(prep: Prepared, part: Method, params: dict, engine: Memory | Blocks) -> tuple[np.ndarray, dict]:
    """MDAV-generic with partial distances (``partition.missing``, docs/methods.md §8.2) inside every stratum, the
    only partition offered when a masked cell is missing; with ``missing="keep"`` a mismatch of missingness adds
    ``PATTERN_PENALTY`` per attribute (docs/methods.md §8.5)."""
    if part.name != "mdav" or params.get("variant") != "generic" or isinstance(engine, Blocks):
        raise MicroaggError(f"some masked cells are missing: only method 'mdav' (variant 'generic', memory engine) "
                            f"partitions records with missing cells (docs/methods.md §8.2), not '{part.name}'"
                            f"{' with ' + repr(params.get('variant')) if part.name == 'mdav' else ''}"
                            f"{' on blocks' if isinstance(engine, Blocks) else ''}. Use it, or missing='refuse' "
                            "and fill the cells yourself.")
    stratum = np.zeros(len(prep.Z), dtype=np.int64) if prep.stratum is None else prep.stratum
    labels = np.empty(len(prep.Z), dtype=np.int64)
    offset = 0
    for s in range(stratum.max() + 1):
        rows = np.flatnonzero(stratum == s)
        labels[rows] = mdav_missing(prep.Z[rows], prep.k, PATTERN_PENALTY if prep.missing == "keep" else 0.0) + offset
        offset = labels[rows].max() + 1
    check_partition(labels, prep, part.name)
    return labels, engine.info(prep.k)


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
    (:func:`release_values`). An aggregation registered ``original_units=True`` (the Laplace mechanism, whose
    bounds and noise are in the data's units) works on the original values and returns the released values
    themselves; the masked z-scores are then theirs, standardized with the original's mean and sd."""
    if prep.survey:
        return _aggregate_survey(prep, labels, agg, params, renormalize)
    hook = agg.extras.get("with_report")
    if agg.extras.get("original_units"):
        if renormalize:
            raise MicroaggError(f"renormalize=True cannot be combined with aggregation '{agg.name}': rescaling with "
                                "the data's own mean and variance would make the release depend on them beyond what "
                                "its noise accounts for. Call it without renormalize.")
        V, rows = hook(prep.X, labels, **params) if hook is not None else (agg.func(prep.X, labels, **params), [])
        return Masked(prep.std.transform(V), V, tuple(rows), agg.name, False)
    Zp, rows = hook(prep.Z, labels, **params) if hook is not None else (agg.func(prep.Z, labels, **params), [])
    if renormalize:
        Zp = renormalized(Zp)
    V = release_values(prep.X, Zp, labels, agg, params, prep.std, exact=not renormalize)
    return Masked(Zp, V, tuple(rows), agg.name, bool(renormalize), category_values(prep.cats, labels))


def category_values(cats: Categories | None, labels: np.ndarray) -> np.ndarray | None:
    """The released codes of the categorical quasi-identifiers: the lower median of an ordinal column, the mode of a
    nominal one, in every group (``microagg.aggregate.categorical``); None without any."""
    if cats is None:
        return None
    if labels.ndim != 1:
        raise MicroaggError("categorical quasi-identifiers need one partition shared by every attribute.")
    out = np.empty_like(cats.codes)
    for kind, value in ((ORDINAL, ordinal_median), (NOMINAL, nominal_mode)):
        cols = cats.columns(kind)
        if cols:
            out[:, cols] = value(cats.codes[:, cols], labels)
    return out


def release_values(X: np.ndarray, Zp: np.ndarray, labels: np.ndarray, agg: Method, params: dict,
                   std: Standardizer, exact: bool = True) -> np.ndarray:
    """Released values in original units. A group-local aggregation (mean, median) commutes with the affine
    standardization (Mortazavi & Jalili 2017, Eq. 6), so with ``exact`` it is applied to ``X`` itself: exact to
    float64 rounding at any magnitude. Only a column whose group sums could overflow is divided first by its
    largest magnitude (so no small value of an ordinary column is pushed into the subnormal range). Otherwise
    ``Zp`` is destandardized."""
    if not (exact and agg.group_local):
        return std.inverse(Zp)
    scale = _overflow_scale(X)
    return agg.func(X / scale, labels, **params) * scale


def _overflow_scale(X: np.ndarray) -> np.ndarray:
    """1 per column, or its largest magnitude for a column whose group sums could overflow float64."""
    top = np.nanmax(np.abs(X), axis=0) if len(X) else np.zeros(X.shape[1])
    risky = top * max(len(X), 1) > np.finfo(np.float64).max / 4
    return np.where(risky, top, 1.0)


def _aggregate_survey(prep: Prepared, labels: np.ndarray, agg: Method, params: dict, renormalize: bool) -> Masked:
    """Weighted mean or median over the observed members of every group (``aggregate.survey``, docs/methods.md
    §8.3-8.4), in original units as exactly as ``release_values``; then the missing cells: imputed by the group
    value (``missing="impute"``) or kept missing, with observed cells suppressed until every group's missingness
    patterns are each shared by at least k members (``safety.uniform_patterns``, docs/methods.md §8.5)."""
    weighted = "sampling weights" if prep.weights is not None else "missing cells"
    if agg.name not in ("mean", "median"):
        raise MicroaggError(f"aggregation '{agg.name}' cannot take {weighted}: use 'mean' or 'median' "
                            "(docs/methods.md §8.7).")
    if renormalize or labels.ndim != 1:
        raise MicroaggError(f"{weighted}: renormalize and per-attribute partitions are not supported "
                            "(docs/methods.md §8.7).")
    Zp = weighted_group_values(prep.Z, labels, agg.name, prep.weights)
    scale = _overflow_scale(prep.X)
    V = weighted_group_values(prep.X / scale, labels, agg.name, prep.weights) * scale
    missing = np.isnan(prep.X)
    hidden = uniform_patterns(missing, labels, prep.k) if prep.missing == "keep" else np.isnan(V)
    Zp[hidden], V[hidden] = np.nan, np.nan
    survey = {"missing": prep.missing, "missing cells": int(missing.sum()),
              "suppressed cells": int((hidden & ~missing).sum()),
              "imputed cells": int((missing & ~hidden).sum()), "released missing": int(hidden.sum())}
    return Masked(Zp, V, (), agg.name, False, category_values(prep.cats, labels), survey)


def release(prep: Prepared, labels: np.ndarray, masked: Masked, *, method: str, method_params: dict,
            aggregation_params: dict, engine_info: dict, identifiers_given: bool = False, shuffle: bool = True,
            seed: int | None = None, keep_index: bool = False, inputs: tuple[str, ...] = ()) -> Release:
    """The table as published, checked: the masked rows k-anonymous (or no release), with the keys; a warning
    where the released rows are not k-anonymous as whole records or on the keys. Identifiers are left out, the
    index replaced by 0..n-1 unless ``keep_index``, the rows shuffled by a permutation from ``seed`` (a fresh
    one when None, recorded) unless ``shuffle`` is False (README, "Publishing a release safely")."""
    df, roles, k, V = prep.df, prep.roles, prep.k, masked.V
    _check_private(masked.name, roles, keep_index, engine_info)
    check_insensitive(method, method_params, masked.name, aggregation_params, len(roles.masked))
    order, seed = permutation(len(df), seed) if shuffle else (np.arange(len(df)), None)
    cats, codes_p = prep.cats, masked.codes
    masked_only = k_anonymity(V if codes_p is None else np.column_stack([V, codes_p]), k)
    if labels.ndim == 1 and not masked_only["k_anonymous"]:
        raise MicroaggError(f"internal check failed: the masked rows of method '{method}' are not {k}-anonymous "
                            f"(smallest class {masked_only['min_class']}); no release was made.")
    codes = key_codes(df, roles.keys)
    anonymity = k_anonymity(np.column_stack([codes, V] + ([] if codes_p is None else [codes_p])), k) \
        if roles.keys else masked_only
    if labels.ndim > 1 and not anonymity["k_anonymous"]:
        warnings.warn(f"method '{method}' groups each attribute separately: the released rows are NOT {k}-anonymous "
                      f"as whole records ({anonymity['records_in_small_classes']} records in classes smaller than "
                      "k); see the report.", stacklevel=3)
    elif not anonymity["k_anonymous"]:
        warnings.warn(f"the key columns {roles.keys} break k-anonymity: the released rows are NOT {k}-anonymous on "
                      f"the keys and masked columns ({anonymity['records_in_small_classes']} records in classes "
                      f"smaller than k). Microaggregate inside strata of the keys (strata={roles.keys}) to keep "
                      "it; see the report.", stacklevel=3)
    _warn_exact_median(masked.name, labels, prep.X, V, masked.survey is not None)

    names, cols, conf, keep = roles.names, roles.masked, roles.confidential, roles.kept
    categorical = [] if cats is None else cats.names
    columns_out = [c for c in names if c in cols or c in keep or c in conf or c in categorical]
    released = {c: pd.Categorical(v, dtype=df[c].dtype) if isinstance(df[c].dtype, pd.CategoricalDtype) else v
                for c, v in ({} if cats is None else cats.decode(codes_p)).items()}  # a Categorical stays one
    out = {c: V[:, cols.index(c)] if c in cols else released[c] if c in released else df[c].to_numpy(copy=True)
           for c in columns_out}
    index = df.index[order] if keep_index else pd.RangeIndex(len(df))
    protected = pd.DataFrame(out, index=df.index.copy(), columns=columns_out).iloc[order].set_axis(index, axis=0)
    if shuffle:
        protected.attrs["row order"] = "shuffled"  # refused by evaluate(): the rows no longer pair with the input
    kept = [c for c in keep if c not in roles.keys]
    params = {"k": k, "method": method, "aggregation": masked.name, "columns": cols, "keep": kept,
              "renormalize": masked.renormalized, "confidential": conf,
              "identifiers": list(roles.identifiers) if identifiers_given else None, "keys": roles.keys,
              "strata": roles.strata, "shuffle": bool(shuffle), "shuffle_seed": seed, "keep_index": bool(keep_index),
              **engine_info, **method_params, **aggregation_params,
              **({"sampling_weights": roles.sampling_weights, "missing": prep.missing} if masked.survey else {}),
              **({"missing_categories": prep.categories_missing["missing"]} if prep.categories_missing else {})}
    if cats is not None:
        params.update(ordinal=cats.orders(), nominal=[cats.names[j] for j in cats.columns(NOMINAL)])
    dropped = [c for c in names if c not in cols and c not in keep and c not in conf and c not in categorical]
    return Release(protected=protected, labels=labels, params=params, original=df[cols + conf + categorical].copy(),
                   Z=prep.Z,
                   Zp=masked.Zp, standardizer=prep.std, masked=cols, dropped=dropped, kept=keep,
                   anonymity=anonymity, confidential=conf, aggregation_report=masked.rows, order=order,
                   identifiers=roles.identifiers, keys=roles.keys, strata=roles.strata, key_classes=class_ids(codes),
                   index_note=meaningful_index(df), categories=cats, category_codes=codes_p,
                   coverage=tuple(_coverage(df, codes, V if codes_p is None else np.column_stack([V, codes_p]), kept,
                                            k)),
                   sampling_weights=prep.weights, survey=masked.survey, inputs=inputs,
                   categories_missing=_categories_missing(prep.categories_missing, released),
                   keys_strata=df[list(dict.fromkeys(roles.keys + roles.strata))].copy()
                   if roles.keys or roles.strata else None)


def _categories_missing(said: dict | None, released: dict) -> dict | None:
    """What the release records about its missing categories: the option, the cells missing in the input, the
    records left out and the categorical cells released missing (docs/methods.md §8.8)."""
    if said is None:
        return None
    return {**said, "released missing": int(sum(pd.isna(v).sum() for v in released.values()))}


def _check_private(aggregation: str, roles: Roles, keep_index: bool, engine_info: dict) -> None:
    """An ε-differentially private aggregation (registered ``differential_privacy=True``) covers the noisy columns
    only: refuse columns released unchanged beside them (kept, keys, confidential, the index) and strata or blocks,
    whose partitions the noise does not account for (docs/methods.md §7.3)."""
    if not get_method("aggregate", aggregation).extras.get("differential_privacy"):
        return
    given = [name for name, value in (("keep", roles.kept), ("keys", roles.keys), ("confidential", roles.confidential),
                                      ("strata", roles.strata), ("keep_index", keep_index)) if value]
    if engine_info.get("engine", "memory") != "memory":
        given.append(f"engine '{engine_info['engine']}'")
    if given:
        raise MicroaggError(f"aggregation '{aggregation}' makes the masked columns ε-differentially private; "
                            f"{', '.join(given)} would release columns unchanged beside them or partition inside "
                            "strata or blocks, which its noise does not account for: leave them out (mask every "
                            "column you release); no release was made.")


def check_insensitive(method: str, method_params: dict, aggregation: str, aggregation_params: dict, d: int) -> None:
    """An ε-differentially private aggregation calibrates its noise to an insensitive partition: refuse every
    partition but a method registered ``insensitive`` with its required parameters (``Method.insensitive``) and,
    for one that takes bounds, the aggregation's own bounds. Decided by the method, before any computation where
    the caller can (``microaggregate``), never by whether other groups happen to equal the insensitive ones on
    these data: that coincidence would make the release itself depend on the data (docs/methods.md §7)."""
    if not get_method("aggregate", aggregation).extras.get("differential_privacy"):
        return
    allowed = " or ".join(f"'{m.name}'" + "".join(f" with {n}={v!r}" for n, v in m.extras["insensitive"].items())
                          for m in methods("partition") if m.extras.get("insensitive") is not None)
    part = None if method not in {m.name for m in methods("partition")} else get_method("partition", method)
    if part is None or not part.insensitive(method_params):
        given = "labels computed elsewhere" if part is None else \
            f"method '{method}'" + "".join(f" with {n}={method_params[n]!r}" for n in
                                           (part.extras.get("insensitive") or {}) if n in method_params)
        raise MicroaggError(f"aggregation '{aggregation}' calibrates its noise to an insensitive partition, made by "
                            f"{allowed} (docs/methods.md §7); got {given}. Whether a release is ε-differentially "
                            "private depends on the method, not on whether its groups happen to equal the "
                            "insensitive ones on these data, so no other partition is taken; no release was made.")
    own, theirs = method_params.get(BOUNDS.name), aggregation_params.get(BOUNDS.name)
    if BOUNDS.name in method_params and theirs is not None and (own is None or not np.array_equal(
            check_bounds(own, d, f"method '{method}'"), check_bounds(theirs, d, f"aggregation '{aggregation}'"))):
        raise MicroaggError(f"method '{method}' must order the records by the bounds the noise of aggregation "
                            f"'{aggregation}' is calibrated to; got {own!r} and {theirs!r}: give the bounds once "
                            "(bounds=...), for both; no release was made.")


def _coverage(df: pd.DataFrame, codes: np.ndarray, V: np.ndarray, uncovered: list[str], k: int):
    """(column, records unique, records in classes < k) on the keys, the masked values and one kept column that
    is not a key: what an intruder who knows that column as well could single out."""
    for c in uncovered:
        _, inverse, counts = np.unique(np.column_stack([codes, key_codes(df, [c]), V]), axis=0,
                                       return_inverse=True, return_counts=True)
        size = counts[inverse.reshape(-1)]
        yield c, int((size == 1).sum()), int((size < k).sum())


def _warn_exact_median(aggregation: str, labels: np.ndarray, X: np.ndarray, V: np.ndarray, survey: bool) -> None:
    """The median of a group of odd size (a weighted median: of any size) is one member's own value: say how many
    cells are published exactly."""
    if aggregation != "median" or not (survey or (np.bincount(pooled_labels(labels)) % 2).any()):
        return
    same = X == V  # a missing cell equals nothing
    cells, records = (100.0 * same.mean(), 100.0 * same.any(axis=1).mean()) if survey else exact_cells(X, V)
    if not cells:
        return
    warnings.warn(f"median aggregation with groups of odd size publishes one member's own value: {cells:.1f} % of "
                  f"the masked cells equal their original ({records:.1f} % of the records have at least one); see "
                  "'exact cells' in the report, or use the mean.", stacklevel=4)

