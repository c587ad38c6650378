"""Every metric of ``microagg.evaluate`` described as data, for the dashboard, the notebooks and the CLI.

A :class:`Metric` names one row type of the evaluation table (``metric`` column) and says what it
measures, its unit, whether lower or higher is better, the paper and equation it comes from, the
evaluation parameters it uses (:data:`PARAMS`, described with ``microagg.registry.Param``),
whether it needs the partition ``labels`` or also has one row per attribute, and the section of
docs/metrics.md that defines it (``doc``, from :data:`DOCS`). ``evaluate`` takes unit,
direction and source of every row from here, so the table and this description cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import MicroaggError
from ..registry import Param

LOWER, HIGHER, NEUTRAL = "lower is better", "higher is better", ""
FAMILIES = ("utility", "risk", "privacy", "combined", "test")

PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("delta", "array", 0.1, "minimum distance Δ each owner asks for, in z units: a scalar, one per attribute "
          "or one per cell", "Mortazavi & Jalili 2017, §4, §5 (Δ = 0.1)",
          label="Δ, minimum distance wished", unit="z units"),
    Param("relative", "bool", False, "Δ relative to the value: Δ_i[t] = delta·|x_i[t]|", "Mortazavi & Jalili 2017, "
                                                                                         "§5.1",
          label="Δ relative to the value"),
    Param("w", "array", 0.001, "importance w of each owner's Δ, in [0, 1) (the paper's w = 1, a hard constraint, "
          "is excluded): a scalar, one per record or per cell, or \"random\" (Mortazavi & Jalili 2017, Table 3)",
          "Mortazavi & Jalili 2017, Eq. 13, Table 3", label="w, importance of each wish"),
    Param("w_seed", "int", 1, "seed of w = \"random\", our reconstruction of the paper's seeded generator as "
          "MATLAB rng(seed); rand(n, d)", "Mortazavi & Jalili 2017, Table 3", low=0,
          label="seed of the random weights"),
    Param("p", "float", 5.0, "interval half-width in % of the attribute's sd", "Mortazavi & Jalili 2017, Eq. 8, §5 "
                                                                               "(sd = 5)",
          low=0, high=100, low_open=True, high_open=True, label="SDID interval p", unit="% of the sd"),
    Param("keys", "array", None, "key variables an intruder knows, for RLD (names or positions; default all)",
          "Oommen & Fayyoumi 2010, §IV-C", label="key variables"),
    Param("confidential", "array", None, "confidential attributes for SSE_i (names or positions; default all)",
          "Abidi, Ben Yahia & Perera 2018, Eq. 2", label="confidential attributes"),
    Param("si_weight", "float", 0.5, "weight x of G_IL in the SI of Oommen & Fayyoumi 2010", "Oommen & Fayyoumi 2010, "
                                                                                          "Eq. 8", low=0, high=1,
          label="weight of G_IL in SI"),
    Param("k", "int", None, "if given, every group of labels must have at least k records", "k-anonymity", low=2,
          label="k", unit="records"),
)}


@dataclass(frozen=True)
class Metric:
    """One row type of the evaluation table."""

    name: str
    title: str
    family: str
    unit: str
    direction: str
    source: str
    summary: str
    params: tuple[str, ...] = ()
    needs_labels: bool = False
    per_attribute: bool = False
    doc: str = ""

    def describe(self) -> dict:
        return {"metric": self.name, "title": self.title, "family": self.family, "unit": self.unit,
                "direction": self.direction, "source": self.source, "summary": self.summary,
                "params": ", ".join(self.params), "needs labels": self.needs_labels,
                "per attribute": self.per_attribute, "doc": self.doc}


# Where each metric is defined, with the decisions taken where its paper is ambiguous.
_IL, _IL1S, _PILD, _ADM, _SIGN = ("docs/metrics.md §4.1", "docs/metrics.md §4.2", "docs/metrics.md §4.3",
                                  "docs/metrics.md §4.4", "docs/metrics.md §4.5")
_SDID, _SL, _SI_MJ, _GIL = ("docs/metrics.md §4.7", "docs/metrics.md §4.8", "docs/metrics.md §4.9",
                            "docs/metrics.md §4.10")
DOCS: dict[str, str] = {
    "IL": _IL, "SSE": _IL, "SST": _IL, "partition IL": _IL, "IL1s": _IL1S,
    **dict.fromkeys(("PIL", "pil(Q)", "pil(mean)", "pil(var)", "pil(cov)", "pil(rho)"), _PILD),
    **dict.fromkeys(("M1", "M2", "M3", "M4", "M5", "G_IL", "RLD", "G_DR", "SI (Oommen & Fayyoumi 2010)"), _GIL),
    "ADM": _ADM, "ADM / n": _ADM, "SSE_i min": "docs/metrics.md §4.11", "SSE_i mean": "docs/metrics.md §4.11",
    "DLD": "docs/metrics.md §4.6b", "DLD lowest index": "docs/metrics.md §4.6a", "DLD 1st": "docs/metrics.md §4.6c",
    "DLD 2nd": "docs/metrics.md §4.6c", "DLD 1st or 2nd": "docs/metrics.md §4.6c", "SDID": _SDID, "ID": _SDID,
    "SL": _SL, "DR (Mortazavi & Jalili 2017)": _SI_MJ, "SI (Mortazavi & Jalili 2017)": _SI_MJ,
    "exact cells": "docs/metrics.md §4.14", "exact records": "docs/metrics.md §4.14",
    "sign test N": _SIGN, "sign test W": _SIGN, "sign test p": _SIGN,
}


def _m(name, title, family, unit, direction, source, summary, params=(), labels=False, per_attribute=False):
    return Metric(name, title, family, unit, direction, source, summary, tuple(params), labels, per_attribute,
                  DOCS[name])


_PIL = "Mortazavi & Jalili 2017, Eq. 9-11 (Mateo-Sanz et al. 2005)"
_GIL = "Oommen & Fayyoumi 2010, Table I"
METRICS: tuple[Metric, ...] = (
    _m("IL", "Information loss", "utility", "%", LOWER, "Chettri, Paul & Dutta, Eq. 4; Mortazavi & Jalili 2017, Eq. "
                                                        "1-2",
       "100·SSE/SST on z-scores: the share of the total variance the masking removed."),
    _m("SSE", "Sum of squared errors", "utility", "z units²", LOWER, "Mortazavi & Jalili 2017, Eq. 1",
       "Squared distance between original and masked values, in total and per attribute.", per_attribute=True),
    _m("SST", "Total sum of squares", "utility", "z units²", NEUTRAL, "Mortazavi & Jalili 2017, Eq. 2",
       "Squared distance of the original values from their means (n·d for z-scores): IL's denominator."),
    _m("partition IL", "Information loss of the partition", "utility", "%", LOWER, "Chettri, Paul & Dutta, Eq. 1-4",
       "IL if every record were replaced by its group mean: the loss due to the grouping alone.", labels=True),
    _m("IL1s", "Mean absolute deviation IL1s", "utility", "%", LOWER, "Abidi, Ben Yahia & Perera 2018, Eq. 1 "
                                                                      "(Yancey et al. 2002)",
       "Mean over cells of |x - x'| / (√2 S_t), S_t the sample sd: the IL of Abidi, Ben Yahia & Perera 2018."),
    _m("PIL", "Probabilistic information loss", "utility", "%", LOWER, _PIL,
       "Mean of pil(Q), pil(mean), pil(var), pil(cov), pil(rho): how improbable the changes of these "
       "statistics are as sampling noise (0 = unchanged, 100 = far outside it)."),
    _m("pil(Q)", "PIL of the quantiles", "utility", "%", LOWER, _PIL,
       "pil of the 5 %, 10 %, ..., 95 % quantiles of every attribute, averaged."),
    _m("pil(mean)", "PIL of the means", "utility", "%", LOWER, _PIL, "pil of every attribute's mean, averaged."),
    _m("pil(var)", "PIL of the variances", "utility", "%", LOWER, _PIL,
       "pil of every attribute's variance, averaged."),
    _m("pil(cov)", "PIL of the covariances", "utility", "%", LOWER, _PIL,
       "pil of every pair's covariance, averaged."),
    _m("pil(rho)", "PIL of the correlations", "utility", "%", LOWER, _PIL,
       "pil of every pair's Pearson correlation, averaged."),
    _m("M1", "Mean variation of the data", "utility", "ratio", LOWER, _GIL, "Mean of |x - x'| / |x| over cells."),
    _m("M2", "Mean variation of the means", "utility", "ratio", LOWER, _GIL, "Mean of |x̄ - x̄'| / |x̄|."),
    _m("M3", "Mean variation of the variances", "utility", "ratio", LOWER, _GIL,
       "Mean of |v_tt - v'_tt| / |v_tt| over attributes."),
    _m("M4", "Mean variation of the covariances", "utility", "ratio", LOWER, _GIL,
       "Mean of |v_tt' - v'_tt'| / |v_tt'| over pairs t <= t'."),
    _m("M5", "Mean absolute error of the correlations", "utility", "ratio", LOWER, _GIL,
       "Mean of |r_tt' - r'_tt'| over pairs t < t'."),
    _m("G_IL", "Global information loss", "utility", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 6",
       "100·(M1 + M2 + M3 + M4 + M5)/5, in original units."),
    _m("ADM", "Absolute deviation from the median", "utility", "z units", LOWER, "Kabir & Wang, Eq. 1",
       "Sum of |x - group median| over cells: Kabir & Wang's distortion measure.", labels=True),
    _m("ADM / n", "ADM per record", "utility", "z units", LOWER, "Kabir & Wang, Eq. 1", "ADM divided by n.",
       labels=True),
    _m("SSE_i min", "Smallest group diversity SSE_i", "utility", "z units²", HIGHER, "Abidi, Ben Yahia & Perera "
                                                                                     "2018, Eq. 2",
       "Least spread of the confidential attributes within a group (attribute-disclosure protection).",
       ("confidential",), labels=True),
    _m("SSE_i mean", "Mean group diversity SSE_i", "utility", "z units²", HIGHER, "Abidi, Ben Yahia & Perera 2018, "
                                                                                  "Eq. 2",
       "Mean over groups of the spread of the confidential attributes.", ("confidential",), labels=True),
    _m("DLD", "Distance-based linkage disclosure", "risk", "%", LOWER, "Mortazavi & Jalili 2017, Eq. 7, with ties "
                                                                       "broken at random",
       "Expected share of records linked to their own masked record by nearest-neighbour matching "
       "(ties broken at random). No paper uses this rule: Mortazavi & Jalili 2017 use 'DLD lowest index', "
       "Chettri, Paul & Dutta 'DLD 1st or 2nd', Abidi, Ben Yahia & Perera 2018 'DLD 1st' and 'DLD 2nd'."),
    _m("DLD lowest index", "DLD, Mortazavi & Jalili 2017 rule", "risk", "%", LOWER, "Mortazavi & Jalili 2017, Eq. 7",
       "Share of records whose nearest masked row with the lowest index is their own."),
    _m("DLD 1st", "DBRL, linked to the nearest", "risk", "%", LOWER, "Abidi, Ben Yahia & Perera 2018, §4.2 (DBRL)",
       "Share of masked records whose nearest original record is their own."),
    _m("DLD 2nd", "DBRL, linked to the second nearest", "risk", "%", LOWER, "Abidi, Ben Yahia & Perera 2018, §4.2 "
                                                                            "(DBRL)",
       "Share of masked records whose second-nearest original record is their own."),
    _m("DLD 1st or 2nd", "DLD, Chettri, Paul & Dutta rule", "risk", "%", LOWER, "Chettri, Paul & Dutta, Eq. 5; "
                                                                                "Abidi, Ben Yahia & Perera 2018, §4.2",
       "Share of masked records whose own original is the nearest or second nearest original."),
    _m("SDID", "Interval disclosure (linked record)", "risk", "%", LOWER, "Mortazavi & Jalili 2017, Eq. 8",
       "Share of original values within p % of the sd of the masked value of the linked record.",
       ("p",), per_attribute=True),
    _m("ID", "Interval disclosure (own record)", "risk", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 7 (our "
                                                                     "reading)",
       "Share of original values within p % of the sd of their own masked value.", ("p",)),
    _m("RLD", "Record linkage on the key variables", "risk", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 7",
       "DLD (expected) using only the key variables an intruder knows (within each class of a release's key "
       "columns, which are released unmasked).", ("keys",)),
    _m("exact cells", "Cells published exactly", "risk", "%", LOWER, "docs/metrics.md §4.14",
       "Share of masked cells whose released value equals the original, as published (e.g. the median of a group "
       "of odd size is one member's own value).", per_attribute=True),
    _m("exact records", "Records with a cell published exactly", "risk", "%", LOWER,
       "docs/metrics.md §4.14", "Share of records with at least one masked cell equal to its original."),
    _m("SL", "Satisfaction level", "privacy", "%", HIGHER, "Mortazavi & Jalili 2017, Eq. 13",
       "Weighted share of values at least Δ away from their original (owners' wishes met).",
       ("delta", "relative", "w", "w_seed"), per_attribute=True),
    _m("DR (Mortazavi & Jalili 2017)", "Disclosure risk", "combined", "%", LOWER, "Mortazavi & Jalili 2017, §2.3",
       "(DLD lowest index + SDID)/2.",
       ("p",)),
    _m("SI (Mortazavi & Jalili 2017)", "Scoring index", "combined", "%", LOWER, "Mortazavi & Jalili 2017, Eq. 12",
       "(DR (Mortazavi & Jalili 2017) + PIL)/2.",
       ("p",)),
    _m("G_DR", "Global disclosure risk", "combined", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 7", "(RLD + ID)/2.",
       ("keys", "p")),
    _m("SI (Oommen & Fayyoumi 2010)", "Scoring index", "combined", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 8",
       "x·G_IL + (1 - x)·G_DR.",
       ("keys", "p", "si_weight")),
    _m("sign test N", "Sign test: untied pairs", "test", "pairs", NEUTRAL, "Kabir & Wang, §4",
       "Number of records whose masked value differs from the original.", per_attribute=True),
    _m("sign test W", "Sign test: positive differences", "test", "pairs", NEUTRAL, "Kabir & Wang, §4",
       "Number of records whose original value exceeds the masked one.", per_attribute=True),
    _m("sign test p", "Sign test: p-value", "test", "", NEUTRAL, "Kabir & Wang, §4 (scipy binomtest)",
       "Two-sided exact p-value of W ~ Bin(N, 1/2): small = masked values shifted systematically "
       "(the row 'all' pools dependent pairs).", per_attribute=True),
)

_BY_NAME = {m.name: m for m in METRICS}


def metrics(family: str | None = None) -> list[Metric]:
    """The registered metrics, optionally of one family (utility, risk, privacy, combined, test)."""
    if family is not None and family not in FAMILIES:
        raise MicroaggError(f"unknown metric family {family!r}; choose one of {FAMILIES}.")
    return [m for m in METRICS if family is None or m.family == family]


def get_metric(name: str) -> Metric:
    """The metric named ``name`` (as in the evaluation table's ``metric`` column)."""
    if name not in _BY_NAME:
        raise MicroaggError(f"unknown metric {name!r}; choose one of {list(_BY_NAME)}.")
    return _BY_NAME[name]


def metric_table() -> pd.DataFrame:
    """One row per metric: name, title, family, unit, direction, source, summary, parameters."""
    return pd.DataFrame([m.describe() for m in METRICS])
