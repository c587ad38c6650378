"""Methods and their parameters, described as data.

Every partitioner and aggregator registers itself once with its parameters
(name, type, default, range, one-line help, paper and equation). The release
API validates calls against this description; the dashboard and the notebooks
build their widgets from it. The built-ins register when ``microagg`` is imported (its ``__init__`` imports
``partition`` and ``aggregate``), so this module imports neither.

Validation happens once, at the public edge, and is generated from the registration: ``register`` decorates
the method's *kernel* (``Method.kernel``, which assumes validated input) and returns the public function
(``Method.func``) that checks the data (:func:`partition_input`, :func:`aggregate_input`, or the method's own
``inputs``), the parameters (``Method.resolve``) and any roles, then calls the kernel.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import numbers
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .checks import as_matrix, check_finite, check_k, check_size, columns
from .errors import MicroaggError
from .labels import check_labels

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
    ``only_with`` makes ineffective. ``shared`` marks one quantity that a partitioner and an aggregator both need
    (the attribute bounds of the differentially private methods): a keyword declared ``shared`` by both goes to both.
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
    shared: bool = False

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
        lo = "(" if self.low_open or self.low is None else "["  # infinity is never a value (``validate``)
        hi = ")" if self.high_open or self.high is None else "]"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{lo}{low}, {high}{hi}"

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` converted to this parameter's type, or raise naming the parameter."""
        where = f"parameter '{self.name}' of {owner}"
        if value is None and self.default is None:  # an optional parameter left empty (e.g. a fresh noise seed)
            return None
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
            if not np.isfinite(value):
                raise MicroaggError(f"{where} must be a finite number; got {value!r}.")
        else:  # pragma: no cover - programming error in a registration
            raise TypeError(f"unknown parameter type {self.type!r}")
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        too_high = self.high is not None and (value >= self.high if self.high_open else value > self.high)
        if too_low or too_high:
            raise MicroaggError(f"{where} must lie in {self.describe_range()}; got {value!r}.")
        return value


def partition_input(Z, k) -> tuple[np.ndarray, int]:
    """A partitioner's input, checked: ``k`` (an integer >= 2) and a C-contiguous float64 copy of ``Z``
    (n x d, a 1-D ``Z`` being one attribute; finite; n >= k)."""
    k = check_k(k)
    Z = as_matrix(Z)
    check_finite(Z, what="attribute")
    check_size(Z.shape[0], k)
    return Z, k


def aggregate_input(Z, labels) -> tuple[np.ndarray, np.ndarray]:
    """An aggregator's input, checked: ``Z`` as a float64 n x d array (finite; not copied) and ``labels`` as
    consecutive group ids, (n,) or one labelling per attribute (n, d) (``labels.check_labels``)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise MicroaggError(f"Z must be a 2-D array (records x attributes); got shape {Z.shape}.")
    check_finite(Z, what="attribute")
    return Z, check_labels(labels, Z.shape[0], d=Z.shape[1])



def confidential_positions(Z: np.ndarray, confidential, who: str) -> np.ndarray:
    """The positions of the confidential columns of ``Z`` for a method that uses roles (``who`` names it): at
    least one, and at least one quasi-identifier left to mask."""
    if confidential is None or np.size(confidential) == 0:
        raise MicroaggError(f"{who} needs confidential attributes: pass confidential=[...] naming the sensitive "
                            "columns (the others are the quasi-identifiers).")
    conf = columns(confidential, Z.shape[1], None, "confidential")
    if np.setdiff1d(np.arange(Z.shape[1]), conf).size == 0:
        raise MicroaggError(f"every column is confidential: {who} needs at least one quasi-identifier to mask.")
    return conf

INPUTS = {"partition": partition_input, "aggregate": aggregate_input}
ROLES = ("confidential",)  # what a method registered with uses_roles=True gets besides its parameters
UNITS = ("z", "original")
K_ANONYMITY, T_CLOSENESS, DIFFERENTIAL_PRIVACY = "k-anonymity", "k-anonymity and t-closeness", "ε-differential privacy"
PRIVACY = (K_ANONYMITY, T_CLOSENESS, DIFFERENTIAL_PRIVACY)


@dataclass(frozen=True)
class Capabilities:
    """What a registered method is and accepts, typed (README, "Architecture"); set by :func:`register`'s keywords.

    ``units``: the method works on z-scores of the masked columns ("z") or on their own units ("original":
    insensitive MDAV's bounds, the Laplace mechanism's noise). ``privacy``: the model its release satisfies.
    ``uses_roles``: a partitioner that reads the confidential columns (called with ``confidential=`` positions).
    ``bounded``: every group has k to 2k−1 records (Domingo-Ferrer & Mateo-Sanz 2002). ``whole_table``: its
    guarantee is relative to the whole table (t-closeness), so it never runs inside blocks or strata.
    ``group_local``: an aggregation whose value for a group depends on that group only (it runs block by block).
    ``personalized``: an aggregation taking the owners' wishes Δ and w (Mortazavi & Jalili 2017, §4), which are then
    the settings of SL in its release's report. ``preserves_moments``: it keeps every mean and variance (renormalize
    is refused). ``member_values``: an aggregation whose value for a group can be one member's own value where the
    mean's is not (a median, a trimmed or clipped mean): the release says how many cells it publishes so.
    ``quadratic``: a partitioner at least as slow as MDAV (O(n² d / k)), for the time estimates: True,
    or how many times compiled MDAV's time it takes (a numpy loop: robust MDAV 45).
    ``insensitive``: the parameters under which a partitioner is insensitive (docs/methods.md §7). ``report``: a
    hook ``(Z, labels, **params) -> (Z', rows)`` adding an aggregation's rows to the report."""

    units: str = "z"
    privacy: str = K_ANONYMITY
    uses_roles: bool = False
    bounded: bool = False
    whole_table: bool = False
    group_local: bool = False
    personalized: bool = False
    preserves_moments: bool = False
    member_values: bool = False
    quadratic: bool | float = False
    insensitive: tuple | None = None  # ((parameter, required value), ...); None: not insensitive
    report: Callable | None = None

    def __post_init__(self):
        if self.units not in UNITS or self.privacy not in PRIVACY:
            raise ValueError(f"units must be one of {UNITS} and privacy one of {PRIVACY}")


@dataclass(frozen=True)
class DataKernel:
    """A kernel of a registered partitioner for data that is not all-numeric and complete (``data``: "categorical"
    quasi-identifiers or "missing" cells), registered by :func:`register_data_kernel` and chosen by the release's
    stages by what the data holds. Called as ``kernel(Z, k, cats, penalty)``: ``Z`` the masked z-scores (NaN where
    missing), ``cats`` the (ordinal, nominal) codes or None, ``penalty`` per attribute observed in one of two records
    only (docs/methods.md §8.5). It runs under the parameter values ``requires`` and on the ``engines`` named;
    ``about`` names the data for a message and how the kernel treats it, ``otherwise`` what else a user can do,
    ``records`` what the release records about it."""

    data: str
    kernel: Callable
    requires: tuple  # ((parameter, value), ...)
    engines: tuple
    about: str
    otherwise: str
    records: tuple = ()  # ((name, value), ...)


@dataclass(frozen=True)
class Method:
    """A registered partitioner or aggregator.

    ``func`` is the public function: it validates its arguments once (:meth:`check`) and calls ``kernel``,
    the method on validated input. A partitioner's kernel is called as ``kernel(Z, k, **params)`` with ``Z``
    a C-contiguous finite float64 n x d array, n >= k, ``k`` an integer >= 2 and ``params`` the output of
    :meth:`resolve`; one that uses roles also gets ``confidential=`` positions. An aggregator's kernel is
    called as ``kernel(Z, labels, **params)`` with ``labels`` from ``labels.check_labels``. ``inputs``
    replaces the kind's data check (:data:`INPUTS`) for a method with rules of its own; it returns
    (data, second argument, roles). ``caps`` says what it is and accepts (:class:`Capabilities`).
    """

    kind: str
    name: str
    func: Callable
    title: str
    summary: str
    source: str
    params: tuple[Param, ...] = ()
    record_level: bool = True  # partitioners: one label per record (k-anonymous release)
    caps: Capabilities = field(default_factory=Capabilities)
    kernel: Callable | None = None  # None: ``func`` itself (a function that checks its own input)
    inputs: Callable | None = None  # None: the kind's check, INPUTS[kind]

    def __post_init__(self):
        if self.kernel is None:
            object.__setattr__(self, "kernel", self.func)

    def insensitive(self, params: dict[str, Any]) -> bool:
        """Whether a partitioner with these resolved ``params`` is insensitive: replacing one record changes at most
        one member of each group, the property the Laplace aggregation's noise is calibrated to (docs/methods.md
        §7). Registered as ``insensitive={parameter: required value, ...}``; decided by the method and its
        parameters, never by the data."""
        required = self.caps.insensitive
        return required is not None and all(params.get(n) == v for n, v in required)

    def data_kernel(self, data: str, params: dict[str, Any], engine: str) -> DataKernel:
        """The kernel of this partitioner for ``data`` ("categorical" or "missing") under ``params`` on ``engine``,
        or a ``MicroaggError`` naming what can partition such data."""
        dk = _DATA_KERNELS.get((self.kind, self.name, data))
        if dk is not None and engine in dk.engines and all(params.get(n) == v for n, v in dk.requires):
            return dk
        offers = [f"method '{name}'" + "".join(f" with {n} {v!r}" for n, v in d.requires) +
                  f" on the {' or '.join(d.engines)} engine" for (kind, name, dd), d in _DATA_KERNELS.items()
                  if kind == self.kind and dd == data]
        known = next((d for (kind, _, dd), d in _DATA_KERNELS.items() if kind == self.kind and dd == data), None)
        got = f"method '{self.name}'" + "".join(f" {n} {params.get(n)!r}" for n, _ in (dk.requires if dk else ()))
        raise MicroaggError(f"{got} on the {engine} engine cannot partition {known.about if known else data}: only "
                            f"{' or '.join(offers) or 'no method'} can." + (f" {known.otherwise}" if known else ""))

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

    def check(self, data, arg, **given) -> tuple[Any, Any, dict[str, Any]]:
        """The validation of ``func``: (data, second argument, keyword arguments of ``kernel``).

        ``data`` and ``arg`` are ``Z`` and ``k`` (partitioners) or ``Z`` and ``labels`` (aggregators);
        ``given`` are parameters (resolved: checked, defaults filled in) and, for a method that uses roles,
        ``confidential``.
        """
        roles = {r: given.pop(r) for r in ROLES if r in given} if self.caps.uses_roles else {}
        params = self.resolve(given)
        if self.inputs is not None:
            data, arg, roles = self.inputs(data, arg, **roles)
        else:
            data, arg = INPUTS[self.kind](data, arg)
        return data, arg, {**roles, **params}

    def active(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` without the ones that have no effect under the others (``Param.only_with``), e.g. for a
        form that shows every parameter."""
        values = {**self.defaults(), **params}
        names = {p.name for p in self.params}
        return {n: v for n, v in params.items() if n not in names or self.param(n).active(values)}


_REGISTRY: dict[str, dict[str, Method]] = {kind: {} for kind in KINDS}
_DATA_KERNELS: dict[tuple[str, str, str], DataKernel] = {}


def register(kind: str, name: str, *, title: str, summary: str, source: str, params: tuple[Param, ...] = (),
             record_level: bool = True, inputs: Callable | None = None, checks_own_input: bool = False,
             insensitive: dict | None = None, **caps) -> Callable:
    """Decorator registering ``kernel`` as method ``name`` of ``kind``; returns the public function.

    The public function (``Method.func``) has the kernel's signature and docstring; it validates its
    arguments once (``Method.check``) and calls the kernel. With ``checks_own_input`` the decorated
    function validates its arguments itself and is both ``func`` and ``kernel``. The other keywords are the
    method's :class:`Capabilities` (``insensitive`` as ``{parameter: required value}``); an unknown one raises.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    capabilities = Capabilities(**caps, insensitive=None if insensitive is None else tuple(insensitive.items()))

    def deco(kernel: Callable) -> Callable:
        method = Method(kind, name, kernel, title, summary, source, tuple(params), record_level, capabilities,
                        kernel, inputs)
        if not checks_own_input:
            method = replace(method, func=_public(kernel, method.check))
        _REGISTRY[kind][name] = method
        return method.func

    return deco


def register_data_kernel(kind: str, name: str, data: str, kernel: Callable, *, requires: dict, engines: tuple,
                         about: str, otherwise: str, records: dict | None = None) -> None:
    """Register ``kernel`` as what method ``name`` of ``kind`` runs on ``data`` ("categorical" or "missing"):
    :class:`DataKernel`; the release's stages choose it by what the data holds (``Method.data_kernel``)."""
    _DATA_KERNELS[(kind, name, data)] = DataKernel(data, kernel, tuple(requires.items()), tuple(engines), about,
                                                   otherwise, tuple((records or {}).items()))


def _public(kernel: Callable, check: Callable) -> Callable:
    """``kernel`` behind ``check``: the arguments are bound as the kernel's signature binds them (positional
    parameters allowed), checked once, and passed on."""
    signature = inspect.signature(kernel)
    data, arg = list(signature.parameters)[:2]
    rest = [p.name for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD]

    @functools.wraps(kernel)
    def func(*args, **kwargs):
        given = signature.bind(*args, **kwargs).arguments
        for name in rest:
            given.update(given.pop(name, {}))
        Z, second, kw = check(given.pop(data), given.pop(arg), **given)
        return kernel(Z, second, **kw)

    return func


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


def discover(package: str, path) -> list[str]:
    """Import every public module of ``package`` (its folder ``path``) in name order, so that a method written in a
    new file of ``partition/`` or ``aggregate/`` registers itself without another file naming it (README,
    "Architecture"). Modules imported already are not run again; subpackages (``partition/compiled``, the numba
    runtime, imported by the first run that needs it) are left alone. Every method registered in the package becomes
    a function of it (``microagg.partition.gsms`` the partition, not its module); returns the names bound."""
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if not info.name.startswith("_") and not info.ispkg:
            importlib.import_module(f"{package}.{info.name}")
    home = sys.modules[package]
    bound = []
    for kind in KINDS:
        for method in _REGISTRY[kind].values():
            name = method.func.__name__
            if method.func.__module__.rpartition(".")[0] == package and getattr(home, name, None) is not method.func:
                setattr(home, name, method.func)
                bound.append(name)
    return bound
