"""``microaggregate(data, k, ...)`` -> ``Release``: the public edge of the release pipeline.

It validates every argument once and runs the stages of ``microagg.release.stages`` (roles → standardize → partition
→ aggregate → release; ``Release.report`` is the last) on the engine chosen (``microagg.release.engines``); the Dask
engine runs the whole release itself (``microagg.release.scale``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..base.checks import check_k
from ..base.errors import MicroaggError
from ..base.labels import GIVEN
from ..base.registry import get_method
from ..data.io import read_csv
from ..data.preprocess import as_frame
from ..partition.igd import REFINEMENTS
from ..privacy.roles import column_roles
from ..privacy.safety import permutation
from . import stages
from .engines import Blocks, Dask, Memory, engine_of
from .release import Release

ENGINE_SETTINGS = {"block_size": "Blocks", "n_jobs": "Blocks", "blocks": "Blocks", "out": "Dask",
                   "scheduler": "Dask"}

if TYPE_CHECKING:
    from .scale import DaskRelease


def microaggregate(data, k: int, method: str | None = None, aggregation: str = "mean",
                   columns: Sequence[str] | None = None, keep: Sequence[str] | None = None,
                   renormalize: bool = False, method_params: dict | None = None,
                   aggregation_params: dict | None = None, labels=None, confidential: Sequence[str] | None = None,
                   identifiers: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                   strata: Sequence[str] | None = None, shuffle: bool = True, seed: int | None = None,
                   keep_index: bool = False, engine: str | Memory | Blocks | Dask = "memory",
                   ordinal: dict | Sequence[str] | None = None, nominal: Sequence[str] | None = None,
                   sampling_weights: str | None = None, missing: str = "keep", refine: str = "none",
                   missing_categories: str = "refuse", **params) -> Release | DaskRelease:
    """Microaggregate the numeric ``columns`` of ``data`` into groups of at least ``k`` records.

    ``method`` (default ``"mdav"``) and ``aggregation`` name registered methods (``microagg.base.registry``);
    their parameters are passed as keywords (or in ``method_params`` /
    ``aggregation_params``). ``data`` is a DataFrame, an array or the path of a CSV file (read by
    ``microagg.data.io.read_csv``; its conversions and text columns are warnings); the release remembers the file
    read (also through ``ma.read_csv(path).data``) as ``Release.inputs``, which no writer replaces.
    ``columns=None`` masks every numeric column that is not an identifier, a key, a stratum or confidential.
    Columns not masked are dropped unless listed in ``keep``, which releases them unchanged.
    ``renormalize`` rescales the masked z-scores to unit variance (Mortazavi & Jalili 2017
    Eq. 5) before destandardizing; it is refused for aggregations that already
    preserve means and variances (registered with ``preserves_moments``, e.g. P3M).
    An aggregation registered with a ``with_report`` hook ((Z, labels, **params) ->
    (Z', rows)) adds its rows to ``report()``. ``labels`` reuses a partition computed
    earlier instead of running ``method`` again; it is
    checked like any other, and the release records ``method`` and its parameters only if
    they are given (they are the caller's statement of how ``labels`` were made). The input
    is never modified. Released values of a group-local aggregation (mean, median) are computed
    in the original units, exact to float64 rounding; others are destandardized from z-scores.

    ``confidential`` names the confidential (sensitive) columns: they are released
    unchanged; a method that uses roles (HM-pfsom) reads them to form its groups,
    any other method partitions on the masked columns only. The masked columns are
    the quasi-identifiers. The k-anonymity check is on them and the key columns (docs/metrics.md §4.13).

    Publishing safely (README, "Publishing a release safely"): ``identifiers`` (default: detected by
    ``microagg.privacy.safety.identifiers``; ``[]`` for none) are neither masked nor released unless named in
    ``columns`` or ``keep``. ``keys`` are columns an intruder may know, released unmasked (categorical or
    numeric): they enter the k-anonymity check and RLD. ``strata`` microaggregates inside each stratum (every
    combination of their values; each must hold at least k records, else the release is refused naming it),
    so that with ``strata`` covering ``keys`` the release stays k-anonymous. ``shuffle`` (default) publishes the
    rows in a random order drawn from ``seed`` (default: a fresh seed, recorded in ``params["shuffle_seed"]``;
    a method's own ``seed`` then goes in ``method_params``);
    ``keep_index=True`` releases the input's index, which is otherwise replaced by 0..n-1.

    ``ordinal`` (``{column: [lowest, ..., highest]}``, or names whose order is the natural sort, said in a
    warning) and ``nominal`` (names) are categorical quasi-identifiers, text or numbers: the partition is then
    heterogeneous MDAV (Domingo-Ferrer & Torra 2005; ``microagg.partition.heterogeneous``) on them and the
    continuous masked columns, and each group publishes its lower median (ordinal) or mode (nominal) category,
    always one of its members' (docs/methods.md §2.15, §3.4). Without them nothing changes.

    Survey data (docs/methods.md §8): ``sampling_weights`` names the column of sampling weights (each finite and
    > 0): never masked, released only if also in ``keep``; mean and median become the weighted mean and median
    of every group and the report adds the weighted metrics (docs/metrics.md §4.26). ``missing`` says what to do
    with missing cells (NaN) in masked columns: ``"keep"`` (default) microaggregates the records (MDAV-generic
    with partial distances) and releases the missing cells missing, suppressing observed cells where needed
    for k-anonymity (a missing cell matches only a missing cell); ``"impute"`` releases the group value there
    instead; ``"refuse"`` stops with an error naming the column. ``missing_categories`` says what to do with a
    missing cell of an ordinal or nominal quasi-identifier (docs/methods.md §8.8): ``"refuse"`` (default) stops
    with an error naming the column and these choices; ``"impute"`` partitions with the cell unknown and
    releases its group's category; ``"category"`` makes it a nominal column's own category; ``"drop"`` leaves
    its record out of the release. The report says what was done and to how many cells or records.

    ``engine`` chooses how the partition is computed (``microagg.release.engines``; README "Scaling out"):
    ``"memory"`` / ``Memory()`` runs ``method`` on all records at once (inside each stratum); ``"blocks"`` /
    ``Blocks(block_size, n_jobs, blocks)`` runs it inside blocks of at most ``block_size`` records;
    ``Dask(out, ...)`` is ``microagg.release.scale.microaggregate_dask``: ``data`` may also be a path, glob pattern or
    list of CSV or Parquet files or a dask DataFrame, the release is written as Parquet files to the directory
    ``out`` and a ``scale.DaskRelease`` is returned.

    ``refine="igd"`` refines the partition of ``method`` by iterative group decomposition (Khomnotai, Lin, Peng &
    Samanta 2018; docs/methods.md §2.18): records move between groups only where the SSE falls, every group keeps
    k..2k−1 records, inside every block and stratum; it is refused after a method whose guarantee it would break
    (per-attribute groups, groups chosen for the confidential columns) and with ``labels``. The release records it.
    """
    engine = engine_of(engine)
    settings = sorted(set(params) & set(ENGINE_SETTINGS))
    if settings:
        raise MicroaggError(f"{settings} are settings of an engine, not of microaggregate: pass them to it, e.g. "
                            f"engine=microagg.engines.{ENGINE_SETTINGS[settings[0]]}({settings[0]}=...).")
    if not isinstance(renormalize, (bool, np.bool_)):
        raise MicroaggError(f"renormalize must be True or False; got {renormalize!r}.")
    if labels is not None and method is None and (method_params or set(params) - _aggregation_names(aggregation)):
        raise MicroaggError("method parameters were given with labels= but no method=: name the method that made "
                            "the labels, or leave its parameters out.")
    if refine not in REFINEMENTS:
        raise MicroaggError(f"refine must be one of {', '.join(map(repr, REFINEMENTS))}; got {refine!r}.")
    if refine != "none" and (labels is not None or isinstance(engine, Dask)):
        raise MicroaggError(f"refine={refine!r} refines a partition computed here by the memory or blocks engine: "
                            "not with labels= (refine them with microagg.partition.igd_refine) nor with the Dask "
                            "engine.")
    if isinstance(engine, Dask):
        from .scale import microaggregate_dask

        if ordinal or nominal:
            raise MicroaggError("the Dask engine has no heterogeneous MDAV: microaggregate ordinal or nominal "
                                "quasi-identifiers in memory (engine='memory').")
        if sampling_weights is not None or missing != "keep" or missing_categories != "refuse":
            raise MicroaggError("the Dask engine takes neither sampling weights nor a missing-value option: "
                                "use the memory engine (docs/methods.md §8).")
        if labels is not None or renormalize or keep_index:
            raise MicroaggError("the Dask engine computes its own blocks and partition, cannot renormalize and "
                                "writes no index: leave 'labels', 'renormalize' and 'keep_index' out.")
        return microaggregate_dask(data, k, method=method or "mdav", aggregation=aggregation, columns=columns,
                                   keep=keep, confidential=confidential, identifiers=identifiers, keys=keys,
                                   strata=strata, shuffle=shuffle, method_params=method_params,
                                   aggregation_params=aggregation_params, **engine.options(),
                                   **({} if seed is None else {"seed": seed}), **params)
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
    part, agg, mp, ap = stages.resolve_methods(method or "mdav", aggregation, params, method_params,
                                               aggregation_params)
    if given:
        mp = {}
    if agg.extras.get("differential_privacy") and ap.get("noise_seed") is None:
        ap = {**ap, "noise_seed": permutation(0, None)[1]}  # a fresh seed, recorded like the shuffle's
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
    try:
        roles = column_roles(df, columns, keep, confidential, identifiers, keys, strata, ordinal, nominal,
                             sampling_weights)
    except MicroaggError as exc:
        if isinstance(data, pd.Series) and data.name is None:
            raise MicroaggError(f"data is an unnamed pandas Series, read as one column named '{df.columns[0]}': "
                                f"{exc} A Series is one column: give it a name (s.rename('income')) and pass "
                                "columns=['income'] to mask it, or pass a DataFrame.") from None
        raise
    stages.check_insensitive("given labels" if given else part.name, mp, agg.name, ap, len(roles.masked))
    seed = permutation(0, seed)[1] if shuffle else None  # checked now, a fresh one drawn when None
    prep = stages.standardize(df, roles, k, missing, missing_categories)
    if labels is None:
        labels, engine_info = stages.partition(prep, part, mp, engine, refine)
    else:
        engine_info = {**engine.info(k), "refine": "none"}
        labels = np.asarray(labels)
        stages.check_partition(labels, prep, GIVEN if given else part.name)
    masked = stages.aggregate(prep, labels, agg, ap, renormalize)
    return stages.release(prep, labels, masked, method=GIVEN if given else (method or "mdav"),
                          method_params=mp, aggregation_params=ap, engine_info=engine_info,
                          identifiers_given=identifiers is not None, shuffle=shuffle, seed=seed,
                          keep_index=keep_index, inputs=(df.attrs["source"],) if "source" in df.attrs else ())


def _aggregation_names(aggregation: str) -> set[str]:
    return {p.name for p in get_method("aggregate", aggregation).params}
