"""Every metric of ``microagg.evaluate`` described as data and registered with its computation.

A :class:`Metric` names one row type of the evaluation table (``metric`` column) and says what it
measures, its unit, whether lower or higher is better, the paper and equation it comes from, the
evaluation parameters it uses (:data:`PARAMS`, described with ``microagg.base.registry.Param``), what it
needs (:data:`NEEDS`: the partition ``labels``, values in original units, a record linkage, ...),
whether it also has one row per attribute, and the section of docs/metrics.md that defines it (``doc``).

Each metric module registers its metrics next to the function computing them (:func:`register`; a family
computed together, such as the PIL components, registers at once). ``evaluate``, the R-U sweeps
(``microagg.lab.explore``) and the Dask engine's report (``microagg.release.scale``) all take their metrics from here:
adding a metric is one function plus one registration. The rows of the evaluation table follow
:data:`MODULES`, then the order of registration within a module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..base.registry import Param
from ..figures.tables import NOT_COMPUTED
from ..privacy.wishes import NAMES as WISH_NAMES
from ..privacy.wishes import PARAMS as WISHES

FAMILIES = ("utility", "risk", "privacy", "combined", "test")
NEEDS = {
    "z-scores": "original and protected values as z-scores of the original",
    "original units": "original and protected values in original units",
    "labels": "the partition (one labelling, or one per attribute)",
    "one labelling": "one partition shared by every attribute",
    "linkage": "every record linked to its nearest masked record: all records at once, not sums over blocks",
    "metrics": "values of other metrics",
    "categories": "original and released categories of ordinal or nominal quasi-identifiers",
    "sampling weights": "the sampling weight of every record (a survey's design weights)",
}
# The computing modules, in the order of the evaluation table's rows.
MODULES = ("utility", "categorical", "analysis", "propensity", "probabilistic", "gil", "groups", "risk", "disclosure",
           "attribute", "inference", "privacy", "scores", "significance", "survey")

PARAMS: dict[str, Param] = {p.name: p for p in (
    *WISHES,
    Param("p", "float", 5.0, "interval half-width in % of the attribute's sd", "Mortazavi & Jalili 2017, Eq. 8, §5 "
                                                                               "(sd = 5)",
          low=0, high=100, low_open=True, high_open=True, label="SDID interval p", unit="% of the sd"),
    Param("keys", "array", None, "key variables an intruder knows, for RLD (names or positions; default all)",
          "Oommen & Fayyoumi 2010, §IV-C", label="key variables"),
    Param("confidential", "array", None, "confidential attributes for SSE_i, l-diversity, t-closeness and the "
          "inference attack (names or positions; default all)", "Abidi, Ben Yahia & Perera 2018, Eq. 2",
          label="confidential attributes"),
    Param("tolerance", "float", 10.0, "an inferred confidential value counts as disclosed within this distance of "
          "the true one, in % of the attribute's sd", "docs/metrics.md §4.18", low=0, label="inference tolerance",
          unit="% of the sd"),
    Param("one_to_one_max", "int", 2000, "largest number of records for one-to-one linkage (an n x n distance "
          "matrix and a cubic solver)", "docs/metrics.md §4.16", low=2, label="one-to-one linkage up to",
          unit="records"),
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
    doc: str
    params: tuple[str, ...] = ()
    needs: tuple[str, ...] = ("z-scores",)
    per_attribute: bool = False

    def __post_init__(self):
        if self.family not in FAMILIES or not set(self.needs) <= set(NEEDS) or not set(self.params) <= set(PARAMS):
            raise ValueError(f"metric {self.name!r}: unknown family, need or parameter")

    @property
    def needs_labels(self) -> bool:
        return "labels" in self.needs or "one labelling" in self.needs

    def describe(self) -> dict:
        return {"metric": self.name, "title": self.title, "family": self.family, "unit": self.unit,
                "direction": self.direction, "source": self.source, "summary": self.summary,
                "params": ", ".join(self.params), "needs": ", ".join(self.needs), "needs labels": self.needs_labels,
                "per attribute": self.per_attribute, "doc": self.doc}


@dataclass(frozen=True)
class Noted:
    """A metric's value with a note that its row's ``source`` carries: how it was computed (the model a budget
    chose, say), or, with value NaN and a note beginning "not computed:", why it was not (:func:`not_computed`)."""

    value: Any
    note: str

    def source(self, source: str) -> str:
        """The row's source: the metric's ``source`` with the note (first when the metric was not computed)."""
        return f"{self.note}; {source}" if self.note.startswith(NOT_COMPUTED) else f"{source}; {self.note}"


def not_computed(reason: str) -> Noted:
    """The value of a metric not computed, e.g. because it cannot be afforded on these data: NaN, with ``reason``."""
    return Noted(float("nan"), f"{NOT_COMPUTED}: {reason}")


@dataclass(frozen=True)
class Computation:
    """Metrics computed together by ``func(ctx)``, which returns ``{name: value}`` (a metric left out is not
    defined for these inputs), ``{name: (value, one value per attribute)}`` or ``{name: Noted(value, note)}``."""

    metrics: tuple[Metric, ...]
    func: Callable[[Context], dict]
    rank: tuple[int, int]

    @property
    def needs(self) -> set[str]:
        return {need for m in self.metrics for need in m.needs}


_COMPUTATIONS: list[Computation] = []
_BY_NAME: dict[str, tuple[Metric, Computation]] = {}


def register(*described: Metric) -> Callable:
    """Decorator registering ``func(ctx)`` as the computation of the metrics ``described``."""

    def deco(func: Callable) -> Callable:
        module = func.__module__.rsplit(".", 1)[-1]
        if module not in MODULES or any(m.name in _BY_NAME for m in described):
            raise ValueError(f"{module}.{func.__name__}: the module must be in MODULES, the metrics new")
        comp = Computation(described, func, (MODULES.index(module), len(_COMPUTATIONS)))
        _COMPUTATIONS.append(comp)
        _COMPUTATIONS.sort(key=lambda c: c.rank)
        _BY_NAME.update({m.name: (m, comp) for m in described})
        return func

    return deco


def computations() -> list[Computation]:
    """The registered computations in the order of the evaluation table."""
    return list(_COMPUTATIONS)


def metrics(family: str | None = None) -> list[Metric]:
    """The registered metrics, optionally of one family (utility, risk, privacy, combined, test)."""
    if family is not None and family not in FAMILIES:
        raise MicroaggError(f"unknown metric family {family!r}; choose one of {FAMILIES}.")
    return [m for c in _COMPUTATIONS for m in c.metrics if family is None or m.family == family]


def get_metric(name: str) -> Metric:
    """The metric named ``name`` (as in the evaluation table's ``metric`` column)."""
    if name not in _BY_NAME:
        raise MicroaggError(f"unknown metric {name!r}; choose one of {list(_BY_NAME)}.")
    return _BY_NAME[name][0]


def metric_table() -> pd.DataFrame:
    """One row per metric: name, title, family, unit, direction, source, summary, parameters, needs."""
    return pd.DataFrame([m.describe() for m in metrics()])


def resolve(params: dict, owner: str = "evaluate") -> dict:
    """Every evaluation parameter: :data:`PARAMS`' defaults overlaid with ``params``, validated (the wishes Δ and w
    are checked against the data by ``microagg.privacy.wishes.cells`` when SL is computed)."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise MicroaggError(f"{owner} does not take {unknown}; it accepts: {', '.join(PARAMS)}.")
    out = {name: p.default for name, p in PARAMS.items()}
    for name, value in params.items():
        keep = name in WISH_NAMES or (value is None and PARAMS[name].default is None)
        out[name] = value if keep else PARAMS[name].validate(value, owner)
    return out


class Context:
    """The inputs of one evaluation and the work its metrics share.

    ``X``, ``Xp`` (original units; a column of a magnitude beyond 2^±400 divided by a power of two,
    ``_arrays.rescaled``, which no metric in original units sees), ``Z``, ``Zp`` (z-scores of the original),
    ``names``, ``labels`` (checked, or None), ``params`` (:func:`resolve`), ``Zc`` (z-scores of confidential columns
    released unchanged) and ``key_classes`` (the class of every record on key columns released unmasked), ``Xc`` and
    ``conf_names`` (the original values and names of those confidential columns), ``categories`` (names, kinds,
    original codes, released codes, number of categories of the ordinal and nominal quasi-identifiers, or None) and
    ``weights`` (the sampling weights, or None), all validated by the caller.
    """

    def __init__(self, X: np.ndarray, Xp: np.ndarray, Z: np.ndarray, Zp: np.ndarray, names: list[str],
                 labels: np.ndarray | None, params: dict, Zc: np.ndarray | None = None, key_classes=None,
                 Xc: np.ndarray | None = None, conf_names: list[str] | None = None, categories=None, weights=None):
        self.categories = categories
        self.X, self.Xp, self.Z, self.Zp, self.names, self.labels = X, Xp, Z, Zp, names, labels
        self.params, self.Zc, self.key_classes, self.Xc, self.conf_names = params, Zc, key_classes, Xc, conf_names
        self.weights = weights
        self.n, self.d = X.shape
        self._shared: dict[str, Any] = {}
        self._results: dict[int, dict] = {}

    def shared(self, key: str, make: Callable[[], Any]) -> Any:
        """Work shared by several metrics (e.g. the record linkage), made once."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    @property
    def constant(self) -> bool:
        """Every record identical (SST = 0): IL, IL1s and PIL are undefined, reported as NaN."""
        return self.value("SST") == 0

    def applies(self, comp: Computation) -> bool:
        """Whether these inputs have what ``comp`` needs (the partition, one labelling, categories, sampling
        weights)."""
        if "categories" in comp.needs and self.categories is None:
            return False
        if "sampling weights" in comp.needs and self.weights is None:
            return False
        if comp.needs & {"labels", "one labelling"} and self.labels is None:
            return False
        return "one labelling" not in comp.needs or self.labels.ndim == 1

    def results(self, comp: Computation) -> dict:
        """``comp``'s values on these inputs, computed once."""
        key = id(comp)
        if key not in self._results:
            self._results[key] = comp.func(self)
        return self._results[key]

    def value(self, name: str):
        """The value of metric ``name`` over all attributes."""
        get_metric(name)
        value = self.results(_BY_NAME[name][1])[name]
        value = value.value if isinstance(value, Noted) else value
        return value[0] if isinstance(value, tuple) else value
