"""Methods and their parameters, described as data.

Every partitioner and aggregator registers itself once with its parameters
(name, type, default, range, one-line help, paper and equation). The release
API validates calls against this description; the dashboard and the notebooks
build their widgets from it. The built-ins register when ``microagg`` is imported (its ``__init__`` imports
``partition`` and ``aggregate``), so this module imports neither.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import MicroaggError

KINDS = ("partition", "aggregate")


@dataclass(frozen=True)
class Param:
    """One parameter of a method.

    ``type`` is one of "int", "float", "choice", "bool" or "array" (a scalar or an
    array the method checks itself). ``low``/``high`` bound numbers inclusively
    unless ``low_open``/``high_open`` say otherwise. ``array_ok`` lets a "float"
    parameter (a scalar widget) also take an array, which the method checks itself.
    ``only_with`` maps another parameter of the method to the values under which this one has an
    effect (e.g. P3M's ``w`` only with ``weights="given"``); set to anything but its default under
    other values, it is refused (``Method.resolve``) rather than silently ignored.
    ``label`` and ``unit`` name it for people (the dashboard's widgets; ``name`` is the code name) and
    ``advanced`` marks a tuning constant most users leave alone; the dashboard disables a parameter that
    ``only_with`` makes ineffective.
    """

    name: str
    type: str
    default: Any
    help: str
    source: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    array_ok: bool = False
    label: str = ""
    unit: str = ""
    advanced: bool = False
    only_with: tuple = ()  # ((other parameter, (values under which this one has an effect)), ...)

    def active(self, values: dict) -> bool:
        """Whether this parameter has an effect given the other parameters' ``values``."""
        return all(values.get(other, None) in allowed for other, allowed in self.only_with)

    def is_default(self, value: Any) -> bool:
        """Whether ``value`` is this parameter's default (an array never is)."""
        return (isinstance(value, str) or np.ndim(value) == 0) and value == self.default

    @property
    def title(self) -> str:
        """The human label with its unit, e.g. "Δ, minimum distance wished (z units)"."""
        text = self.label or self.name
        return f"{text} ({self.unit})" if self.unit else text

    def describe_range(self) -> str:
        if self.type == "choice":
            return "one of " + ", ".join(map(repr, self.choices))
        if self.low is None and self.high is None:
            return ""
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{lo}{low}, {high}{hi}"

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` converted to this parameter's type, or raise naming the parameter."""
        where = f"parameter '{self.name}' of {owner}"
        if self.type == "choice":
            if value not in self.choices:
                raise MicroaggError(f"{where} must be {self.describe_range()}; got {value!r}.")
            return value
        if self.type == "bool":
            if not isinstance(value, bool):
                raise MicroaggError(f"{where} must be True or False; got {value!r}.")
            return value
        if self.type == "array" or (self.array_ok and np.ndim(value) > 0):
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                if isinstance(value, numbers.Real) and float(value).is_integer():
                    value = int(value)
                else:
                    raise MicroaggError(f"{where} must be an integer; got {value!r}.")
            value = int(value)
        elif self.type == "float":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise MicroaggError(f"{where} must be a number; got {value!r}.")
            value = float(value)
            if value != value:
                raise MicroaggError(f"{where} must be a number, not NaN.")
        else:  # pragma: no cover - programming error in a registration
            raise TypeError(f"unknown parameter type {self.type!r}")
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        too_high = self.high is not None and (value >= self.high if self.high_open else value > self.high)
        if too_low or too_high:
            raise MicroaggError(f"{where} must lie in {self.describe_range()}; got {value!r}.")
        return value


@dataclass(frozen=True)
class Method:
    """A registered partitioner or aggregator."""

    kind: str
    name: str
    func: Callable
    title: str
    summary: str
    source: str
    params: tuple[Param, ...] = ()
    record_level: bool = True  # partitioners: one label per record (k-anonymous release)
    extras: dict = field(default_factory=dict)

    @property
    def uses_roles(self) -> bool:
        """Whether the method reads attribute roles (registered with ``uses_roles=True``).

        Such a partitioner is called as ``func(Z, k, confidential=positions, **params)`` on the
        quasi-identifiers and the confidential columns together; any other one sees the quasi-identifiers only.
        """
        return bool(self.extras.get("uses_roles", False))

    @property
    def bounded(self) -> bool:
        """Whether a partitioner's groups all have k to 2k−1 records (registered with ``bounded=True``), the
        bound of fixed- and variable-size MDAV-type methods (Domingo-Ferrer & Mateo-Sanz 2002)."""
        return bool(self.extras.get("bounded", False))

    @property
    def group_local(self) -> bool:
        """Whether an aggregator's value for a group depends on that group's records only (registered with
        ``group_local=True``: mean, median). Only such aggregators run block by block (``microagg.scale``)."""
        return bool(self.extras.get("group_local", False))

    @property
    def personalized(self) -> bool:
        """Whether the aggregation takes the owners' privacy wishes Δ and w (registered with
        ``personalized_privacy=True``, Mortazavi & Jalili 2017, §4): its
        ``delta``/``relative``/``w``/``weights``/``w_seed``
        are then the settings of SL in its release's report (``microagg.wishes``)."""
        return bool(self.extras.get("personalized_privacy", False))

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with validated ``params``; unknown names raise."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            accepted = ", ".join(known) or "no parameters"
            raise MicroaggError(
                f"{self.kind} method '{self.name}' does not take {unknown}; it accepts: {accepted}."
            )
        out = self.defaults()
        for name, value in params.items():
            out[name] = known[name].validate(value, f"{self.kind} method '{self.name}'")
        for name in params:
            p = known[name]
            if not p.active(out) and not p.is_default(out[name]):
                when = " or ".join(f"{o}={v!r}" for o, vals in p.only_with for v in vals)
                now = ", ".join(f"{o}={out[o]!r}" for o, _ in p.only_with)
                raise MicroaggError(f"parameter '{name}' of {self.kind} method '{self.name}' has an effect only with "
                                    f"{when}, not with {now}: leave it out or change {now.split('=')[0]}.")
        return out

    def active(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` without the ones that have no effect under the others (``Param.only_with``), e.g. for a
        form that shows every parameter."""
        values = {**self.defaults(), **params}
        names = {p.name for p in self.params}
        return {n: v for n, v in params.items() if n not in names or self.param(n).active(values)}


_REGISTRY: dict[str, dict[str, Method]] = {kind: {} for kind in KINDS}


def register(kind: str, name: str, *, title: str, summary: str, source: str,
             params: tuple[Param, ...] = (), record_level: bool = True, **extras) -> Callable:
    """Decorator registering ``func`` as method ``name`` of ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")

    def deco(func: Callable) -> Callable:
        _REGISTRY[kind][name] = Method(kind, name, func, title, summary, source, tuple(params),
                                       record_level, dict(extras))
        return func

    return deco


def get_method(kind: str, name: str) -> Method:
    """The registered method, or a ``MicroaggError`` listing the choices."""
    table = _REGISTRY[kind]
    if name not in table:
        label = "method" if kind == "partition" else "aggregation"
        raise MicroaggError(f"unknown {label} {name!r}; choose one of {sorted(table)}.")
    return table[name]


def methods(kind: str) -> list[Method]:
    """All registered methods of ``kind`` in registration order."""
    return list(_REGISTRY[kind].values())

