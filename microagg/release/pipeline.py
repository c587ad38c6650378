"""``microaggregate(data, k, ...)`` -> ``Release``: the public edge of the release pipeline.

It builds the release's specification from its keywords (``microagg.release.spec``: every option, validated once)
and runs the stages of ``microagg.release.stages`` (roles → standardize → partition → aggregate → release;
``Release.report`` is the last) on the engine chosen (``microagg.release.engines``); the Dask engine runs the whole
release itself (``microagg.release.scale``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..base.said import say
from ..data.io import read_csv
from ..data.preprocess import as_frame
from . import stages
from .engines import Dask
from .release import Release
from .spec import ReleaseSpec

if TYPE_CHECKING:
    from .scale import DaskRelease


def microaggregate(data, k: int, method: str | None = None, aggregation: str = "mean", labels=None,
                   method_params: dict | None = None, aggregation_params: dict | None = None,
                   **options) -> Release | DaskRelease:
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
    An aggregation registered with a ``report`` hook ((Z, labels, **params) ->
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

    Every option is described once, in ``release.spec.OPTIONS``, and validated into a ``ReleaseSpec`` before the
    data is read; ``strata_scaling="stratum"`` measures the partition's distances on each stratum's own z-scores
    (as sdcMicro does) instead of the whole file's (docs/methods.md §5). ``engine`` chooses how the partition is
    computed (``microagg.release.engines``; README "Scaling out"):
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
    spec = ReleaseSpec.of(k, method, aggregation, method_params, aggregation_params, labels_given=labels is not None,
                          **options)
    return release(data, spec, labels)


def release(data, spec: ReleaseSpec, labels=None) -> Release | DaskRelease:
    """The release of ``data`` under the validated specification ``spec`` (``labels``: a partition given instead
    of the partitioner's): the stages of ``microagg.release.stages`` on the memory or blocks engine, the Dask
    engine's own release (``microagg.release.scale``) otherwise. The command line and the dashboard build the
    specification from their flags and widgets and call this."""
    if isinstance(spec.engine, Dask):
        from .scale import release_dask

        return release_dask(data, spec)
    if isinstance(data, (str, os.PathLike)):
        table = read_csv(data)
        for note in table.notes:
            say(note)
        data = table.data
    df = as_frame(data)
    try:
        roles = stages.roles_of(df, spec)
    except MicroaggError as exc:
        if isinstance(data, pd.Series) and data.name is None:
            raise MicroaggError(f"data is an unnamed pandas Series, read as one column named '{df.columns[0]}': "
                                f"{exc} A Series is one column: give it a name (s.rename('income')) and pass "
                                "columns=['income'] to mask it, or pass a DataFrame.") from None
        raise
    prep = stages.standardize(df, roles, spec)
    if labels is None:
        labels, engine_info = stages.partition(prep, spec)
    else:
        engine_info = {**spec.engine.info(spec.k), "refine": "none"}
        labels = stages.check_partition(np.asarray(labels), prep, spec.method)
    masked = stages.aggregate(prep, labels, spec)
    return stages.release(prep, labels, masked, spec, engine_info,
                          inputs=(df.attrs["source"],) if "source" in df.attrs else ())
