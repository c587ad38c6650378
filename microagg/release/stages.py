"""The release as stages on DataFrames: roles → standardize → partition → aggregate → release → report.

``microaggregate`` (``microagg.release.pipeline``) builds the release's specification (``release.spec``: every
option, validated once) and runs these in order; the dashboard calls them itself, so that a cached partition is
aggregated and released without partitioning again::

    spec = ReleaseSpec.of(5, method="mdav", aggregation="mean")                        # microagg.release.spec
    roles = roles_of(df, spec)                                          # microagg.privacy.roles.column_roles
    prep = standardize(df, roles, spec)
    labels, engine_info = partition(prep, spec)
    masked = aggregate(prep, labels, spec)
    rel = release(prep, labels, masked, spec, engine_info)
    rel.report()

Every stage takes the specification and what the stage before it returned, calls the methods' kernels (their
input is validated already) and checks what its own step can break (a partition that is not one, a group smaller
than k, released rows that are not k-anonymous); none validates its arguments again.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..aggregate.basic import mean_1d, per_column
from ..aggregate.categorical import nominal_mode, ordinal_median
from ..aggregate.survey import weighted_group_values
from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..base.names import naming
from ..base.registry import DIFFERENTIAL_PRIVACY, Method
from ..base.said import say
from ..data.categories import NOMINAL, ORDINAL, Categories, drop_rows, encode
from ..data.preprocess import Standardizer, check_scale, numeric_matrix
from ..data.preprocess import renormalize as renormalized
from ..data.preprocess import standardize as zscores
from ..metrics import k_anonymity
from ..partition.igd import check_refine
from ..partition.missing import PATTERN_PENALTY
from ..privacy.bounds import BOUNDS, check_bounds
from ..privacy.roles import Roles, column_roles, sampling_weights, stratum_ids
from ..privacy.safety import class_ids, key_codes, meaningful_index, permutation, uniform_patterns
from .release import Release
from .spec import ReleaseSpec

# What the release stage says that a reader may show in a form of its own (the dashboard's caveats) or leave out
# (the risk-utility sweep's points are not meant as releases): each of its warnings, recognized by its start
NOT_WHOLE_RECORDS = re.compile(r"method '.*' groups each attribute separately")
KEYS_BREAK = re.compile(r"the key columns .* break k-anonymity")
KEPT_BREAKS = re.compile(r"kept column '.*' is not in the k-anonymity check")
EXACT_VALUES = re.compile(r"aggregation '\w+' publishes members' own values")


def roles_of(df: pd.DataFrame, spec: ReleaseSpec) -> Roles:
    """The column roles of ``df`` under the options of ``spec`` (``privacy.roles.column_roles``)."""
    return column_roles(df, spec.columns, spec.keep, spec.confidential or None, spec.identifiers, spec.keys,
                        spec.strata, {c: None if o is None else list(o) for c, o in spec.ordinal}, spec.nominal,
                        spec.sampling_weights)


@dataclass(frozen=True)
class Prepared:
    """The data with its column roles checked, under the release's specification ``spec``: the masked columns in
    original units (``X``) and z-scores (``Z``, the original's mean and population sd; NaN where a cell is
    missing), the stratum of every record (None without strata), the categorical quasi-identifiers as codes (None
    without any), the sampling weights (None without), what was done with missing categories, and ``Zs``: the
    z-scores of every stratum on its own, on which the partition measures distances with
    ``strata_scaling="stratum"`` (None otherwise)."""

    df: pd.DataFrame
    roles: Roles
    spec: ReleaseSpec
    X: np.ndarray
    std: Standardizer
    Z: np.ndarray
    stratum: np.ndarray | None
    cats: Categories | None = None
    weights: np.ndarray | None = None
    categories_missing: dict | None = None  # {"missing": option, "cells": n, "records left out": m}
    Zs: np.ndarray | None = None

    @property
    def k(self) -> int:
        return self.spec.k

    @property
    def missing(self) -> str:
        return self.spec.missing

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


def _naming_masked(roles_of_call):
    """The stage with the masked columns (``roles_of_call(*its arguments)``) named while it runs, so that a kernel's
    refusal says "column 'income'", not its position (``base.names``), whoever runs the stage."""
    def wrap(stage):
        @functools.wraps(stage)
        def named(*args, **kwargs):
            with naming(roles_of_call(*args, **kwargs).masked):
                return stage(*args, **kwargs)
        return named
    return wrap


@_naming_masked(lambda df, roles, spec: roles)
def standardize(df: pd.DataFrame, roles: Roles, spec: ReleaseSpec) -> Prepared:
    """The masked columns as a matrix of at least k rows, finite or, unless ``missing="refuse"``, missing (NaN),
    standardized (a column too large for float64 arithmetic refused), the strata (each of at least k records; with
    ``strata_scaling="stratum"`` each standardized on its own for the partition), the categorical
    quasi-identifiers' codes (an ordinal order taken from the natural sort is a warning; a missing category refused,
    its own, unknown, or its record left out: ``missing_categories``, docs/methods.md §8.8) and the sampling
    weights (each finite and > 0)."""
    holes = int(df[[*roles.ordinal, *roles.nominal]].isna().to_numpy().sum())
    gaps = bool(df[roles.masked].isna().to_numpy().any())  # (before records with a missing category may leave)
    whole = len(df)
    if spec.missing_categories == "drop":
        df = drop_rows(df, roles.ordinal, roles.nominal)
    cats = encode(df, roles.ordinal, roles.nominal, spec.missing_categories)
    X = numeric_matrix(df, roles.masked, min_rows=spec.k, missing=spec.missing != "refuse")
    if spec.missing == "impute" and not gaps:
        say("missing='impute' has nothing to impute: the masked columns have no missing cells.")
    if spec.missing_categories != "refuse" and not holes:
        say(f"missing_categories={spec.missing_categories!r} has nothing to do: " +
            ("the categorical columns have no missing cells." if roles.ordinal or roles.nominal else
             "no ordinal or nominal column is masked."))
    std = Standardizer.fit(X)
    Z = check_scale(X, roles.masked, std)
    for note in cats.notes if cats is not None else ():
        say(note)
    _check_bounds_agree(spec, len(roles.masked))
    stratum = stratum_ids(df, roles.strata, spec.k)
    said = {"missing": spec.missing_categories, "cells": holes, "records left out": whole - len(df)} if holes else None
    weights = sampling_weights(df, roles.sampling_weights)
    return Prepared(df, roles, spec, X, std, Z, stratum, cats=cats, weights=weights,
                    categories_missing=said,
                    Zs=_stratum_scores(X, stratum) if spec.strata_scaling == "stratum" else None)


def _stratum_scores(X: np.ndarray, stratum: np.ndarray) -> np.ndarray:
    """The z-scores of every stratum on its own mean and population sd (``strata_scaling="stratum"``, as sdcMicro
    scales each stratum; docs/methods.md §5)."""
    Zs = np.empty_like(X)
    for s in range(int(stratum.max()) + 1):
        rows = stratum == s
        Zs[rows] = Standardizer.fit(X[rows]).transform(X[rows])
    return Zs


@_naming_masked(lambda prep, spec: prep.roles)
def partition(prep: Prepared, spec: ReleaseSpec) -> tuple[np.ndarray, dict]:
    """Labels of the specification's partitioner on the masked z-scores (each stratum's own with
    ``strata_scaling="stratum"``), computed by its engine and refined by its ``refine`` ("igd": docs/methods.md
    §2.18, inside every block or stratum), and what the release records about the engine and the refinement.
    Categorical quasi-identifiers or missing cells go to the kernel the partitioner registered for such data
    (``Method.data_kernel``). A method that uses roles also gets the confidential columns' z-scores, appended after
    the masked ones, and their positions as ``confidential``; one registered ``units="original"`` (insensitive
    MDAV, whose order is fixed by bounds in the data's units) gets the masked columns in their original units."""
    part, params = spec.partitioner, dict(spec.method_params)
    refine = check_refine(spec.refine, part)
    data = "categorical" if prep.cats is not None else "missing" if np.isnan(prep.Z).any() else None
    if data is not None:
        if refine != "none":
            raise MicroaggError(f"refine={refine!r} moves records by the SSE of complete numeric columns: it cannot "
                                "follow the partition of ordinal or nominal quasi-identifiers or of records with "
                                "missing cells. Leave refine out.")
        return _by_data_kernel(prep, part.data_kernel(data, params, spec.engine.name), part.name)
    Z, d = (prep.X if part.caps.units == "original" else prep.Z if prep.Zs is None else prep.Zs), prep.Z.shape[1]
    Z = np.array(Z, dtype=np.float64, order="C")  # one copy, the kernels' own
    if part.caps.uses_roles:
        conf = prep.roles.confidential
        Zc = zscores(prep.df, conf) if conf else np.empty((len(Z), 0))
        Z, params = np.hstack([Z, Zc]), {**params, "confidential": list(range(d, d + len(conf)))}
    labels, info = spec.engine.partition(part, Z, prep.k, params, prep.stratum, np.arange(d), refine)
    return check_partition(np.asarray(labels), prep, part.name), {**info, "refine": refine}


def _by_data_kernel(prep: Prepared, dk, method: str) -> tuple[np.ndarray, dict]:
    """The data kernel ``dk`` (categorical quasi-identifiers or missing cells: ``base.registry.DataKernel``) inside
    each stratum; with ``missing="keep"`` a mismatch of missingness adds ``PATTERN_PENALTY`` per attribute
    (docs/methods.md §8.5)."""
    cats = None if prep.cats is None else tuple(prep.cats.codes[:, prep.cats.columns(kind)] for kind in
                                                (ORDINAL, NOMINAL))
    stratum = np.zeros(len(prep.Z), np.int64) if prep.stratum is None else prep.stratum
    penalty = PATTERN_PENALTY if prep.missing == "keep" else 0.0
    labels = np.empty(len(stratum), np.int64)
    offset = 0
    for s in range(int(stratum.max()) + 1):
        rows = np.flatnonzero(stratum == s)
        labels[rows] = dk.kernel(prep.Z[rows], prep.k, None if cats is None else tuple(c[rows] for c in cats),
                                 penalty) + offset
        offset = int(labels[rows].max()) + 1
    return check_partition(labels, prep, method), {**prep.spec.engine.info(prep.k), **dict(dk.records)}


def check_partition(labels: np.ndarray, prep: Prepared, method: str) -> np.ndarray:
    """The labels as consecutive group ids (``check_labels``), refused if they are not a partition of the records,
    have a group smaller than k (a release would not be k-anonymous) or put records of different strata in one
    group."""
    lab = check_labels(labels, prep.Z.shape[0], d=prep.Z.shape[1])
    smallest = min(np.bincount(col).min() for col in (lab.T if lab.ndim == 2 else [lab]))
    if smallest < prep.k:
        raise MicroaggError(f"method '{method}' produced a group of {smallest} < k = {prep.k} records; "
                            "no release was made.")
    if prep.stratum is None:
        return lab
    for col in lab.T if lab.ndim == 2 else [lab]:
        pairs = np.unique(np.column_stack([col, prep.stratum]), axis=0)
        if len(pairs) != len(np.unique(col)):
            raise MicroaggError(f"the given labels put records of different strata ({', '.join(prep.roles.strata)}) "
                                "in one group: compute them with the same strata.")
    return lab


@_naming_masked(lambda prep, labels, spec: prep.roles)
def aggregate(prep: Prepared, labels: np.ndarray, spec: ReleaseSpec) -> Masked:
    """The specification's aggregation of every group of ``labels`` (checked: :func:`check_partition`): masked
    z-scores, renormalized to unit variance with ``renormalize`` (Mortazavi & Jalili 2017, Eq. 5), and the
    released values in original units (:func:`release_values`). An aggregation registered ``units="original"``
    (the Laplace mechanism, whose bounds and noise are in the data's units) works on the original values and
    returns the released values themselves; the masked z-scores are then theirs, standardized with the
    original's mean and sd. An aggregation's report hook adds its rows."""
    agg, params, renormalize = spec.aggregator, dict(spec.aggregation_params), spec.renormalize
    _check_private_rows(agg, labels)
    if prep.survey:
        return _aggregate_survey(prep, labels, agg, params, renormalize)
    hook = agg.caps.report
    if agg.caps.units == "original":
        if renormalize:
            raise MicroaggError(f"renormalize=True cannot be combined with aggregation '{agg.name}': rescaling with "
                                "the data's own mean and variance would make the release depend on them beyond what "
                                "its noise accounts for. Call it without renormalize.")
        V, rows = hook(prep.X, labels, **params) if hook is not None else (agg.kernel(prep.X, labels, **params), [])
        return Masked(prep.std.transform(V), V, tuple(rows), agg.name, False)
    Zp, rows = hook(prep.Z, labels, **params) if hook is not None else (agg.kernel(prep.Z, labels, **params), [])
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
    if not (exact and agg.caps.group_local):
        return std.inverse(Zp)
    scale = _overflow_scale(X)
    return agg.kernel(X / scale, labels, **params) * scale


def _overflow_scale(X: np.ndarray) -> np.ndarray:
    """1 per column, or its largest magnitude for a column whose group sums could overflow float64."""
    top = np.nanmax(np.abs(X), axis=0) if len(X) else np.zeros(X.shape[1])
    risky = top > np.finfo(np.float64).max / 4 / max(len(X), 1)  # (divided: the product itself could overflow)
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


def release(prep: Prepared, labels: np.ndarray, masked: Masked, spec: ReleaseSpec, engine_info: dict,
            inputs: tuple[str, ...] = ()) -> Release:
    """The table as published, checked: the masked rows k-anonymous (or no release), with the keys; a warning
    where the released rows are not k-anonymous as whole records or on the keys. Identifiers are left out, the
    index replaced by 0..n-1 unless ``keep_index``, the rows shuffled by a permutation from the specification's
    ``seed`` (a fresh one when None, recorded) unless ``shuffle`` is False (README, "Publishing a release
    safely"). ``inputs``: the files the data was read from, which no writer replaces. The release keeps the
    specification resolved (the columns masked, the seed drawn) for its recipe."""
    df, roles, k, V = prep.df, prep.roles, prep.k, masked.V
    method = spec.method
    order, seed = permutation(len(df), spec.seed) if spec.shuffle else (np.arange(len(df)), None)
    cats, codes_p = prep.cats, masked.codes
    masked_only = k_anonymity(V if codes_p is None else np.column_stack([V, codes_p]), k)
    if labels.ndim == 1 and not masked_only["k_anonymous"]:
        raise MicroaggError(f"internal check failed: the masked rows of method '{method}' are not {k}-anonymous "
                            f"(smallest class {masked_only['min_class']}); no release was made.")
    codes = key_codes(df, roles.keys)
    anonymity = k_anonymity(np.column_stack([codes, V] + ([] if codes_p is None else [codes_p])), k) \
        if roles.keys else masked_only
    if labels.ndim > 1 and not anonymity["k_anonymous"]:
        say(f"method '{method}' groups each attribute separately: the released rows are NOT {k}-anonymous "
            f"as whole records ({anonymity['records_in_small_classes']} records in classes smaller than "
            "k); see the report.")
    elif not anonymity["k_anonymous"]:
        say(f"the key columns {roles.keys} break k-anonymity: the released rows are NOT {k}-anonymous on "
            f"the keys and masked columns ({anonymity['records_in_small_classes']} records in classes "
            f"smaller than k). Microaggregate inside strata of the keys (strata={roles.keys}) to keep "
            "it; see the report.")
    _warn_exact_values(spec.aggregator, labels, prep.X, V)

    names, cols, conf, keep = roles.names, roles.masked, roles.confidential, roles.kept
    categorical = [] if cats is None else cats.names
    columns_out = [c for c in names if c in cols or c in keep or c in conf or c in categorical]
    released = {c: pd.Categorical(v, dtype=df[c].dtype) if isinstance(df[c].dtype, pd.CategoricalDtype) else v
                for c, v in ({} if cats is None else cats.decode(codes_p)).items()}  # a Categorical stays one
    out = {c: V[:, cols.index(c)] if c in cols else released[c] if c in released else df[c].to_numpy(copy=True)
           for c in columns_out}
    index = df.index[order] if spec.keep_index else pd.RangeIndex(len(df))
    protected = pd.DataFrame(out, index=df.index.copy(), columns=columns_out).iloc[order].set_axis(index, axis=0)
    if spec.shuffle:
        protected.attrs["row order"] = "shuffled"  # refused by evaluate(): the rows no longer pair with the input
    kept = [c for c in keep if c not in roles.keys]
    identifiers = None if spec.identifiers is None else list(roles.identifiers)
    params = {"k": k, "method": method, "aggregation": masked.name, "columns": cols, "keep": kept,
              "renormalize": masked.renormalized, "confidential": conf, "identifiers": identifiers,
              "keys": roles.keys, "strata": roles.strata, "shuffle": spec.shuffle, "shuffle_seed": seed,
              "keep_index": spec.keep_index, **engine_info, **spec.method_params, **spec.aggregation_params,
              **({"sampling_weights": roles.sampling_weights, "missing": prep.missing} if masked.survey else {}),
              **({"missing_categories": prep.categories_missing["missing"]} if prep.categories_missing else {})}
    if cats is not None:
        params.update(ordinal=cats.orders(), nominal=[cats.names[j] for j in cats.columns(NOMINAL)])
    if spec.strata_scaling != "file":
        params["strata_scaling"] = spec.strata_scaling
    resolved = spec.resolved(columns=tuple(cols), identifiers=None if identifiers is None else tuple(identifiers),
                             seed=seed, ordinal=tuple((c, tuple(o)) for c, o in (params.get("ordinal") or {}).items()))
    dropped = [c for c in names if c not in cols and c not in keep and c not in conf and c not in categorical]
    coverage = tuple(_coverage(df, codes, V if codes_p is None else np.column_stack([V, codes_p]), kept, k))
    for c, unique, small in coverage:
        if small:
            say(f"kept column '{c}' is not in the k-anonymity check: whoever also knows it finds {small} released "
                f"rows in classes smaller than k ({unique} of them unique). Declare it in keys (and strata) to cover "
                "it, or leave it out; see the report.")
    if spec.keep_index:
        say("keep_index=True releases the input's row labels: they link every released row to its record in the "
            "input" + (", and give back the order the shuffle hid" if spec.shuffle else "") + ". Leave it out "
            "unless the labels are meant to be published.")
    return Release(protected=protected, labels=labels, params=params, original=df[cols + conf + categorical].copy(),
                   Z=prep.Z,
                   Zp=masked.Zp, standardizer=prep.std, masked=cols, dropped=dropped, kept=keep,
                   anonymity=anonymity, confidential=conf, aggregation_report=masked.rows, order=order,
                   identifiers=roles.identifiers, keys=roles.keys, strata=roles.strata, key_classes=class_ids(codes),
                   index_note=meaningful_index(df), categories=cats, category_codes=codes_p,
                   coverage=coverage,
                   sampling_weights=prep.weights, survey=masked.survey, inputs=inputs,
                   categories_missing=_categories_missing(prep.categories_missing, released),
                   keys_strata=df[list(dict.fromkeys(roles.keys + roles.strata))].copy()
                   if roles.keys or roles.strata else None, spec=resolved)


def _categories_missing(said: dict | None, released: dict) -> dict | None:
    """What the release records about its missing categories: the option, the cells missing in the input, the
    records left out and the categorical cells released missing (docs/methods.md §8.8)."""
    if said is None:
        return None
    return {**said, "released missing": int(sum(pd.isna(v).sum() for v in released.values()))}


def _check_private_rows(agg: Method, labels: np.ndarray) -> None:
    """Per-attribute labels (individual ranking's, or any given so) under an ε-DP aggregation cover each column's
    values, not which value of one column shares a row with which of another: with two or more masked columns that
    pairing is published without noise and changes with one record, so the file would not be ε-DP
    (docs/methods.md §7.2). Decided here, on the labels every release path aggregates (the API, the command line,
    the dashboard's cached stages, labels given)."""
    if agg.caps.privacy == DIFFERENTIAL_PRIVACY and labels.ndim == 2 and labels.shape[1] > 1:
        raise MicroaggError(f"aggregation '{agg.name}' on per-attribute groups (individual ranking) makes each masked "
                            f"column ε-differentially private on its own, but not the rows: which noisy value of one "
                            f"column shares a row with which of another is published without noise and changes with "
                            f"a single record, so a file of {labels.shape[1]} masked columns would not be "
                            "ε-differentially private (docs/methods.md §7.2). Mask one column, or use method "
                            "'insensitive_mdav', whose groups are whole records; no release was made.")


def _check_bounds_agree(spec: ReleaseSpec, d: int) -> None:
    """A partitioner that takes attribute bounds (insensitive MDAV) orders the records by the bounds the DP
    aggregation's noise is calibrated to: the two must be the same, ``d`` of them (docs/methods.md §7)."""
    own, theirs = spec.method_params.get(BOUNDS.name), spec.aggregation_params.get(BOUNDS.name)
    if BOUNDS.name in spec.method_params and theirs is not None and (own is None or not np.array_equal(
            check_bounds(own, d, f"method '{spec.method}'"), check_bounds(theirs, d, f"aggregation "
                                                                                 f"'{spec.aggregation}'"))):
        raise MicroaggError(f"method '{spec.method}' must order the records by the bounds the noise of aggregation "
                            f"'{spec.aggregation}' is calibrated to; got {own!r} and {theirs!r}: give the bounds once "
                            "(bounds=...), for both; no release was made.")


def _coverage(df: pd.DataFrame, codes: np.ndarray, V: np.ndarray, uncovered: list[str], k: int):
    """(column, records unique, records in classes < k) on the keys, the masked values and one kept column that
    is not a key: what an intruder who knows that column as well could single out."""
    for c in uncovered:
        _, inverse, counts = np.unique(np.column_stack([codes, key_codes(df, [c]), V]), axis=0,
                                       return_inverse=True, return_counts=True)
        size = counts[inverse.reshape(-1)]
        yield c, int((size == 1).sum()), int((size < k).sum())


def _warn_exact_values(agg: Method, labels: np.ndarray, X: np.ndarray, V: np.ndarray) -> None:
    """Say how many cells an aggregation that can publish a member's own value (``caps.member_values``: the median
    of a group of odd size, a trimmed or clipped mean) publishes exactly where the group's mean would not (ties and
    symmetric groups publish their value under the mean too)."""
    if not agg.caps.member_values:
        return
    same = (X == V) & (X != per_column(X, labels, mean_1d))  # (a missing cell equals nothing)
    cells, records = 100.0 * same.mean(), 100.0 * same.any(axis=1).mean()
    if cells:
        say(f"aggregation '{agg.name}' publishes members' own values where the mean would not: {cells:.1f} % of the "
            f"masked cells equal their original ({records:.1f} % of the records have at least one); see 'exact "
            "cells' in the report, or use the mean.")

