"""A release: the table as published and everything needed to evaluate it (``Release``), as made by
``microaggregate`` (``microagg.release.pipeline``) from the stages of ``microagg.release.stages``.

Columns have roles (Abidi, Ben Yahia & Perera 2018, §2.1; ``microagg.privacy.roles``): the masked columns are the
quasi-identifiers (QIs); confidential columns are released unchanged. The k-anonymity check is on the QI
columns and the key columns an intruder knows (docs/metrics.md §4.13). A release is published as a whole
file, so nothing around the masked columns may give a respondent away (README, "Publishing a release
safely"): identifiers are not released, the input's index is not released unless ``keep_index=True`` and the
rows are shuffled unless ``shuffle=False``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..base.labels import pooled_labels
from ..base.registry import get_method
from ..base.rows import (
    HIGHER,
    LOWER,
    NOT_RECORD_LEVEL,
    categories_missing_rows,
    column_rows,
    group_rows,
    report_row,
    safety_rows,
    survey_rows,
)
from ..data.categories import Categories
from ..data.io import check_output, write_csv
from ..data.preprocess import Standardizer, standardize
from ..metrics import group_stats
from ..metrics.categorical import category_rows
from ..metrics.report import COLUMNS, evaluate_arrays
from ..metrics.survey import missing_rows
from ..privacy.wishes import NAMES as WISHES

if TYPE_CHECKING:
    from .spec import ReleaseSpec  # the release's options; spec.py stands above this module

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
    (not released), with the reason; ``inputs`` the files the input was read from (``microaggregate(path)``,
    ``ma.read_csv``), which no writer replaces; ``keys_strata`` the input's key and stratum columns (input order;
    None without), with which the release can be made again at another k (the HTML report's sweep).
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
    categories: Categories | None = field(default=None, repr=False)  # ordinal and nominal quasi-identifiers
    category_codes: np.ndarray | None = field(default=None, repr=False)  # their released codes, input order
    sampling_weights: np.ndarray | None = field(default=None, repr=False)  # one per record, input order
    survey: dict | None = None  # with sampling weights or missing cells: their handling (docs/methods.md §8)
    inputs: tuple[str, ...] = ()  # the files the input was read from: no writer replaces them, even with force
    keys_strata: pd.DataFrame | None = field(default=None, repr=False)  # the input's key and stratum columns
    categories_missing: dict | None = None  # with a missing category: what was done (docs/methods.md §8.8)
    spec: ReleaseSpec | None = field(default=None, repr=False)  # every option, resolved (``release.spec``)

    @property
    def k(self) -> int:
        return self.params["k"]

    @property
    def missing_cells(self) -> bool:
        """Whether a masked cell is missing in the original or in the release (docs/methods.md §8)."""
        return bool(np.isnan(self.Z).any() or np.isnan(self.Zp).any())

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

    def report(self, metrics=None, **params) -> pd.DataFrame:
        """Metrics of this release, one per row: metric, attribute, value, unit, direction, source.

        Every metric of ``microagg.evaluate`` (``params`` are its parameters, e.g. ``p=5``, ``keys=[...]``),
        computed on the release's own z-scores of the masked columns before rounding, then the group
        statistics, the k-anonymity check of the released rows and the columns masked, confidential,
        dropped and kept. With confidential columns, SSE_i (Abidi, Ben Yahia & Perera 2018, Eq. 2) is their spread
        within the
        groups, in z units. SL uses the release's own Δ and w when its aggregation takes them
        (``Method.caps.personalized``, P3M), unless ``params`` say otherwise. ``metrics`` names the metrics of
        ``evaluate`` to compute (default every one; e.g. a headline without the costly ones): the same values,
        and every row that is not a metric of ``evaluate``.
        """
        params.setdefault("k", self.k)
        if self.confidential and params.get("confidential") is not None:
            raise MicroaggError(f"this release's confidential columns are {self.confidential}; SSE_i, l-diversity, "
                                "t-closeness and the inference attack use them, so leave 'confidential' out of "
                                "report().")
        if get_method("aggregate", self.params["aggregation"]).caps.personalized:
            for name in WISHES:
                params.setdefault(name, self.params[name])
        X = self.original[self.masked].to_numpy(dtype=np.float64)
        Xp = self.in_input_order()[self.masked].to_numpy(dtype=np.float64)
        if self.missing_cells:
            if set(params) - {"k"}:
                raise MicroaggError(f"this release has missing cells: its report computes IL and DLD over the "
                                    f"observed cells only (docs/metrics.md §4.27), which take no "
                                    f"{sorted(set(params) - {'k'})}; leave them out.")
            table = pd.DataFrame([(m, "all", v, u, d, s) for m, v, u, d, s in
                                  missing_rows(self.Z, self.Zp, self.sampling_weights, X, Xp)], columns=COLUMNS)
            if self.categories is not None:  # the categories have no missing cell: their metrics still apply
                table = pd.concat([table, pd.DataFrame(category_rows(self._categories()), columns=COLUMNS)],
                                  ignore_index=True)
        else:
            Zc = standardize(self.original, self.confidential) if self.confidential else None
            Xc = self.original[self.confidential].to_numpy(dtype=np.float64) if self.confidential else None
            table = evaluate_arrays(X, Xp, self.Z, self.Zp, self.masked, self.labels, Zc=Zc,
                                    key_classes=self.key_classes if self.keys else None, Xc=Xc,
                                    conf_names=self.confidential, categories=self._categories(),
                                    sampling_weights=self.sampling_weights, metrics=metrics, **params)
        per_attribute = self.labels.ndim == 2
        rows = group_rows(group_stats(pooled_labels(self.labels), self.k),
                          "pooled over attributes" if per_attribute else "all")
        if per_attribute:
            rows.append(report_row("record-level k-anonymity", NOT_RECORD_LEVEL,
                                   source="docs/methods.md §2.9, docs/metrics.md §4.13"))
        an = self.anonymity
        on = "docs/metrics.md §4.13" + (f"; on the key columns {', '.join(self.keys)} and the masked columns"
                                         if self.keys else "")
        rows += [report_row("smallest equivalence class", an["min_class"], "records", HIGHER, on),
                 report_row("records in classes < k", an["records_in_small_classes"], "records", LOWER, on),
                 report_row("k-anonymous", an["k_anonymous"], source=on)]
        breaking = [col for col, _, small in self.coverage if small]
        if breaking:  # (said over all attributes too, beside "k-anonymous", which is on the masked and key columns)
            rows.append(report_row("k-anonymous with the kept columns known", False,
                                   source=f"not with {', '.join(breaking)} known (kept unmasked, not keys); declare "
                                          "them in 'keys' (and 'strata') to cover them"))
        rows += [report_row("kept column not in the k-anonymity check: records unique if it is known", unique,
                            "records", LOWER, f"{small} records in classes < k with {col} known; declare it in "
                            "'keys' (and 'strata') to cover it", attribute=col) for col, unique, small in self.coverage]
        if self.params.get("refine", "none") != "none":
            rows.append(report_row("refinement", self.params["refine"], source="docs/methods.md §2.18"))
        if self.params.get("engine", "memory") == "blocks":
            rows.append(report_row("engine", "blocks", source="README, Scaling out"))
            if "blocks" in self.params:
                rows.append(report_row("blocks", self.params["blocks"], "blocks", source="microagg.partition.blocks"))
            rows.append(report_row("block size B", self.params["block_size"], "records",
                                   source="microagg.partition.blocks"))
        cats = self.categories
        rows += column_rows(self.masked + ([] if cats is None else [f"{c} ({kind})" for c, kind in
                                                                    zip(cats.names, cats.kinds)]),
                            self.confidential, self.dropped, self.kept)
        for c, order in ({} if cats is None else cats.orders()).items():
            rows.append(report_row("ordinal order", " < ".join(map(str, order)), source="microagg.data.categories",
                                   attribute=c))
        if self.survey is not None:
            rows += survey_rows(self.survey, self.params.get("sampling_weights"), self.kept)
        if self.categories_missing is not None:
            rows += categories_missing_rows(self.categories_missing)
        rows += safety_rows(self.identifiers, self.keys, self.strata, self.index_note,
                            self.params.get("keep_index", False), self.params.get("shuffle", False))
        for row in self.aggregation_report:
            at = row.get("attribute", "all")
            rows.append({**row, "attribute": self.masked[at] if isinstance(at, (int, np.integer)) else at})
        return pd.concat([table, pd.DataFrame(rows, columns=table.columns)], ignore_index=True)

    def _categories(self) -> tuple | None:
        """(names, kinds, original codes, released codes, number of categories) of the categorical
        quasi-identifiers for the metrics, or None without any."""
        cats = self.categories
        if cats is None:
            return None
        return cats.names, cats.kinds, cats.codes, self.category_codes, [len(v) for v in cats.levels]

    def to_csv(self, path=None, index: bool | None = None, spreadsheet_safe: bool = True, force: bool = False,
               **kwargs):
        """Write the protected table as published, atomically: rows in the release's order, no index unless the
        release keeps the input's (``keep_index=True``) or ``index=True`` is asked for; ``path=None`` returns the
        text. ``spreadsheet_safe`` prefixes a quote to text cells, column names and index labels a spreadsheet
        would run as a formula (``microagg.data.io.neutralise``); set it False to write them as they are. Like every
        writer of microagg (``microagg.data.io.check_output``) it refuses an existing ``path`` unless ``force=True``,
        and the file the release was read from (``inputs``) even then."""
        if isinstance(path, (str, os.PathLike)):
            check_output(path, self.inputs, force=force)
        keep = self.params.get("keep_index", False) if index is None else index
        return write_csv(self.protected, path, spreadsheet_safe=spreadsheet_safe, index=keep, **kwargs)
