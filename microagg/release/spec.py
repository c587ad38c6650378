"""The release specification: every option of a release in one frozen, validated value (README, "Architecture").

``ReleaseSpec.of(k, **options)`` builds it from the keywords of ``microaggregate``, :func:`from_cli` from the
command line's flags (which :func:`add_arguments` adds to a parser) and the dashboard from its widgets. Each field
is described in :data:`OPTIONS` like a method's ``Param`` (its kind, default, help, section and flag), so that the
command line, the recipe (:meth:`ReleaseSpec.python_call`, :meth:`ReleaseSpec.argv`) and the HTML report read and
render every option generically; an option added here reaches all of them. An engine accepts the options of its
``accepts`` (``release.engines``). What needs the data (that columns exist, are numeric, hold k records) is
checked by ``privacy.roles`` and the stages when the release is made; everything else is checked here, once.

Names on the command line (``--columns a,b``, ``--ordinal 'col=low<high'``) are written by :func:`join_names` and
read by :func:`split_names`: a name holding the separator, a quote, ``=`` or ``<``, or spaces at its ends, is put
in double quotes with any quote inside doubled, as in a CSV file (``--columns '"income, net",age'``), so that any
column or category name can be given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ..base.checks import check_k
from ..base.errors import MicroaggError
from ..base.labels import GIVEN
from ..base.registry import DIFFERENTIAL_PRIVACY, Method, get_method, methods
from ..data.categories import MISSING as CATEGORIES_MISSING
from ..data.categories import spec as category_spec
from ..partition.igd import REFINEMENTS
from ..privacy.safety import permutation
from .engines import MEMORY, Blocks, Dask, Memory, engine_of

MISSING = ("keep", "impute", "refuse")  # missing cells of masked columns (docs/methods.md §8.1)
STRATA_SCALING = ("file", "stratum")  # the z-scores the partition measures distances on (docs/methods.md §5)
QUOTED = (",", "=", "<", '"')  # a name holding one of them is quoted on the command line
ENGINE_SETTINGS = {"block_size": "Blocks", "n_jobs": "Blocks", "blocks": "Blocks", "out": "Dask",
                   "scheduler": "Dask"}


@dataclass(frozen=True)
class Option:
    """One option of a release, described for the command line, the recipe, the HTML report and the dashboard.

    ``kind``: "names" (column names, a tuple; ``None`` for "not given" where the default is None), "name" (one
    column or None), "ordinal" (column → its categories from lowest to highest, or None for the natural sort),
    "choice" (one of ``choices``), "bool", "seed" (an integer >= 0 or None) or "engine". ``flag`` is the command
    line's (``--name-with-dashes`` unless given; a bool that defaults to True is turned off by its flag). ``only_with``:
    the options it has an effect with only, each given (not at its default), like a ``Param``'s ``only_with``:
    without them the specification refuses it, and the dashboard draws its widget disabled."""

    name: str
    kind: str
    default: Any
    help: str
    section: str
    choices: tuple = ()
    flag: str = ""
    metavar: str = ""
    only_with: tuple = ()

    @property
    def cli(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


ROLES, PARTITION, AGGREGATION, SURVEY, PUBLICATION, ENGINE = ("data roles", "partition", "aggregation",
                                                               "survey data", "publication", "engine")
OPTIONS: tuple[Option, ...] = (
    Option("columns", "names", None, "the continuous quasi-identifiers to mask (default: every numeric column in no "
           "other role)", ROLES, metavar="COLS"),
    Option("keep", "names", (), "columns released unmasked (every other column not masked is dropped)", ROLES,
           metavar="COLS"),
    Option("confidential", "names", (), "confidential columns: released unchanged, read by methods that use roles "
           "(hmpfsom, tcloseness); the masked columns are the quasi-identifiers", ROLES, metavar="COLS"),
    Option("identifiers", "names", None, "identifier columns, neither masked nor released (default: detected: "
           "declared by the data set, a name like id/*_id/key/ssn, or values that look like record numbers; '' for "
           "none); naming a column in columns or keep releases it", ROLES, metavar="COLS"),
    Option("keys", "names", (), "key columns an intruder may know (categorical or numeric): released unmasked and "
           "counted in the k-anonymity check", ROLES, metavar="COLS"),
    Option("strata", "names", (), "columns to microaggregate inside each combination of their values (each needs "
           ">= k records), so that keys on the same columns stay k-anonymous", ROLES, metavar="COLS"),
    Option("strata_scaling", "choice", "file", "with strata: the z-scores the partition measures distances on, the "
           "whole file's (file) or each stratum's own (stratum, as sdcMicro does; docs/methods.md §5)", ROLES,
           choices=STRATA_SCALING, only_with=("strata",)),
    Option("ordinal", "ordinal", (), "an ordinal quasi-identifier (text or numbers), masked by its group's lower "
           "median, with its categories from lowest to highest, e.g. 'education=none<primary<secondary'; without "
           "'=...' numbers take their order and text its natural sort, with a warning (Domingo-Ferrer & Torra 2005)",
           ROLES, metavar="COL[=a<b<c]"),
    Option("nominal", "names", (), "nominal quasi-identifiers (categories without order), masked by their group's "
           "mode (Domingo-Ferrer & Torra 2005)", ROLES, metavar="COLS"),
    Option("sampling_weights", "name", None, "column of sampling weights (finite, > 0): weighted mean/median and "
           "weighted metrics; never masked, released only if also kept (docs/methods.md §8)", SURVEY, metavar="COL"),
    Option("missing", "choice", "keep", "missing cells in masked columns: keep (microaggregated, released missing), "
           "impute (released as the group value) or refuse (stop with an error)", SURVEY, choices=MISSING),
    Option("missing_categories", "choice", "refuse", "missing cells in ordinal or nominal columns: refuse (stop, "
           "naming the column), impute (the group's category), category (a nominal column's own category) or drop "
           "(leave those records out) (docs/methods.md §8.8)", SURVEY, choices=CATEGORIES_MISSING),
    Option("refine", "choice", "none", "igd: refine the method's groups by iterative group decomposition, moving "
           "records where the SSE falls (docs/methods.md §2.18)", PARTITION, choices=REFINEMENTS),
    Option("renormalize", "bool", False, "restore unit variance (Mortazavi & Jalili 2017, Eq. 5)", AGGREGATION),
    Option("shuffle", "bool", True, "release the rows in the input's order (links them to anyone holding the "
           "original's order)", PUBLICATION, flag="--no-shuffle"),
    Option("seed", "seed", None, "seed of the shuffle of the released rows (default: a fresh one; whoever knows it "
           "and the original can undo the shuffle)", PUBLICATION, metavar="N"),
    Option("keep_index", "bool", False, "release the input's row labels (the first column of a written file): "
           "they link every released row to its record in the input, whatever the shuffle", PUBLICATION),
    Option("engine", "engine", MEMORY, "where the partition is computed: memory (all records at once), blocks "
           "(inside blocks of at most --block-size records) or dask (blocks on a Dask cluster)", ENGINE),
)
OPTION = {o.name: o for o in OPTIONS}


class Params(Mapping):
    """A method's resolved parameters as a frozen mapping: hashable and comparable (an array by its bytes), so
    that a specification holding them can key a cache."""

    __slots__ = ("_items", "_key")

    def __init__(self, items: Mapping | None = None):
        self._items = dict(items or {})
        self._key = tuple((n, _token(v)) for n, v in sorted(self._items.items()))

    def __getitem__(self, name):
        return self._items[name]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    @property
    def key(self) -> tuple:
        """(name, value) pairs, sorted, an array as its shape, type and a digest of its bytes: hashable, and read
        alike by Streamlit's hasher (which samples large arrays)."""
        return self._key

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, Params) and self._key == other._key

    def __repr__(self):
        return repr(self._items)

    def __reduce__(self):
        return Params, (self._items,)


def _token(value):
    if isinstance(value, np.ndarray):
        return "array", value.shape, str(value.dtype), hashlib.sha256(np.ascontiguousarray(value).tobytes()).digest()
    return value


@dataclass(frozen=True)
class ReleaseSpec:
    """Every option of a release (:data:`OPTIONS`), ``k``, the partitioner and the aggregation with their resolved
    parameters; ``method`` is ``GIVEN`` for a partition given as ``labels=``. Made by :meth:`of` (or
    :func:`from_cli`), which validates it; the release keeps it resolved (``Release.spec``: the columns masked, the
    seeds drawn) for its recipe."""

    k: int
    method: str = "mdav"
    method_params: Params = Params()
    aggregation: str = "mean"
    aggregation_params: Params = Params()
    columns: tuple | None = None
    keep: tuple = ()
    confidential: tuple = ()
    identifiers: tuple | None = None
    keys: tuple = ()
    strata: tuple = ()
    strata_scaling: str = "file"
    ordinal: tuple = ()  # ((column, (category, ...) or None), ...)
    nominal: tuple = ()
    sampling_weights: str | None = None
    missing: str = "keep"
    missing_categories: str = "refuse"
    refine: str = "none"
    renormalize: bool = False
    shuffle: bool = True
    seed: int | None = None
    keep_index: bool = False
    engine: Memory | Blocks | Dask = MEMORY
    labels_given: bool = False  # the partition was given as labels= (``method``, if not GIVEN, says how it was made)

    @classmethod
    def of(cls, k, method: str | None = None, aggregation: str = "mean", method_params: dict | None = None,
           aggregation_params: dict | None = None, labels_given: bool = False, **options) -> ReleaseSpec:
        """The specification of ``microaggregate(data, k, method, aggregation, ..., **options)``, validated: every
        option of :data:`OPTIONS` by its kind, the methods and their parameters (keywords go to the partitioner or
        the aggregation that declares them, ``method_params``/``aggregation_params`` name them explicitly), the
        engine's acceptance of every option given and the rules that tie options together. ``labels_given``: the
        partition is given (``labels=``); without ``method`` it is recorded as ``GIVEN``."""
        engine = engine_of(options.pop("engine", MEMORY))
        settings = sorted(set(options) & set(ENGINE_SETTINGS))
        if settings:
            raise MicroaggError(f"{settings} are settings of an engine, not of microaggregate: pass them to it, e.g. "
                                f"engine=microagg.engines.{ENGINE_SETTINGS[settings[0]]}({settings[0]}=...).")
        given = {name: _checked(OPTION[name], options.pop(name)) for name in list(options) if name in OPTION}
        k = check_k(k)
        if labels_given and method is None and (method_params or set(options) - _names(aggregation)):
            raise MicroaggError("method parameters were given with labels= but no method=: name the method that made "
                                "the labels, or leave its parameters out.")
        part, agg, mp, ap = resolve_methods(method or "mdav", aggregation, options, method_params, aggregation_params)
        if agg.caps.privacy == DIFFERENTIAL_PRIVACY and ap.get("noise_seed") is None:
            ap = {**ap, "noise_seed": permutation(0, None)[1]}  # a fresh seed, recorded like the shuffle's
        spec = cls(k, GIVEN if labels_given and method is None else part.name, Params({} if labels_given and
                   method is None else mp), agg.name, Params(ap), engine=engine, labels_given=labels_given, **given)
        spec.check(part, agg, labels_given, method_params, aggregation_params)
        return spec

    def check(self, part: Method, agg: Method, labels_given: bool, method_params: dict | None,
              aggregation_params: dict | None) -> None:
        """The rules between options (each option is valid on its own): refinement and labels, a seed without the
        shuffle, renormalize and an aggregation that keeps the moments, the shuffle's seed against a method's own,
        the engine's table."""
        if self.refine != "none" and labels_given:
            raise MicroaggError(f"refine={self.refine!r} refines a partition computed here by the memory or blocks "
                                "engine: not with labels= (refine them with microagg.partition.igd_refine).")
        if self.seed is not None and not self.shuffle and not isinstance(self.engine, Dask):  # (Dask: its samples)
            raise MicroaggError(f"seed={self.seed} seeds the shuffle of the released rows, and shuffle=False "
                                "(--no-shuffle) publishes them in the input's order: leave the seed out.")
        if self.renormalize and agg.caps.preserves_moments:
            raise MicroaggError(f"renormalize=True cannot be combined with aggregation '{agg.name}': it already "
                                "preserves every attribute's mean and variance, and rescaling would undo what it "
                                "optimized. Call it without renormalize.")
        clash = [m for m in (part, agg) if "seed" in {p.name for p in m.params}
                 and "seed" not in ((method_params if m is part else aggregation_params) or {})]
        if self.seed is not None and clash:
            raise MicroaggError(f"'seed' seeds the shuffle of the released rows, and {clash[0].kind} "
                                f"'{clash[0].name}' takes a 'seed' too: pass that one in "
                                f"{'method' if clash[0] is part else 'aggregation'}_params={{'seed': ...}} (then seed= "
                                "is the shuffle's).")
        if part.caps.uses_roles and self.method != GIVEN and not self.confidential:
            raise MicroaggError(f"method '{part.name}' ({part.title}) needs confidential attributes: pass "
                                "confidential=[...] naming the sensitive columns (the others are the "
                                "quasi-identifiers).")
        for o in OPTIONS:
            without = [n for n in o.only_with if getattr(self, n) == OPTION[n].default]
            if without and getattr(self, o.name) != o.default:
                raise MicroaggError(f"{o.name}={getattr(self, o.name)!r} needs {' and '.join(without)} ({o.help}): "
                                    f"give {'them' if len(without) > 1 else 'it'}, or leave {o.name} out.")
        if self.strata_scaling != "file" and part.caps.units == "original":
            raise MicroaggError(f"strata_scaling={self.strata_scaling!r} scales each stratum on its own for the "
                                f"partition: it needs a method that works on z-scores (not '{part.name}', which "
                                "works in the data's own units). Leave it out.")
        accepts = self.engine.accepts
        refused = [] if accepts is None else \
            [o.name for o in OPTIONS if o.kind != "engine" and getattr(self, o.name) != o.default
             and o.name not in accepts] + (["labels"] if labels_given and "labels" not in accepts else [])
        if refused:
            raise MicroaggError(f"the {type(self.engine).__name__} engine does not take "
                                f"{', '.join(map(repr, refused))}: {self.engine.refuses} Leave them out, or use the "
                                "memory engine.")
        self.engine.check_methods(part, agg)
        if agg.caps.privacy == DIFFERENTIAL_PRIVACY:
            self._check_private(part, agg, labels_given)

    def _check_private(self, part: Method, agg: Method, labels_given: bool) -> None:
        """An ε-differentially private aggregation calibrates its noise to an insensitive partition: refuse every
        partition but one of a method registered ``insensitive`` with its required parameters
        (``Method.insensitive``), decided by the method, never by whether other groups happen to equal the
        insensitive ones on these data (that coincidence would make the release itself depend on the data); and it
        covers the noisy columns only: refuse columns released unchanged beside them (kept, keys, confidential, the
        index) and strata or blocks, whose partitions the noise does not account for (docs/methods.md §7.3)."""
        if self.method == GIVEN or not part.insensitive(self.method_params):
            allowed = " or ".join(f"'{m.name}'" + "".join(f" with {n}={v!r}" for n, v in m.caps.insensitive)
                                  for m in methods("partition") if m.caps.insensitive is not None)
            given = "labels computed elsewhere" if self.method == GIVEN else \
                f"method '{part.name}'" + "".join(f" with {n}={self.method_params[n]!r}" for n in
                                                  dict(part.caps.insensitive or ()) if n in self.method_params)
            raise MicroaggError(f"aggregation '{agg.name}' calibrates its noise to an insensitive partition, made by "
                                f"{allowed} (docs/methods.md §7); got {given}. Whether a release is "
                                "ε-differentially private depends on the method, not on whether its groups happen to "
                                "equal the insensitive ones on these data, so no other partition is taken; no release "
                                "was made.")
        if not self.shuffle:
            raise MicroaggError(f"aggregation '{agg.name}' with shuffle=False (--no-shuffle): the rows would keep the "
                                "input's order, so the rows sharing a noisy value would name each record's group, "
                                "which its noise does not account for. Leave the shuffle on; no release was made.")
        unchanged = [name for name in ("keep", "keys", "confidential", "strata", "keep_index") if getattr(self, name)]
        if self.engine.name != "memory":
            unchanged.append(f"engine '{self.engine.name}'")
        if unchanged:
            raise MicroaggError(f"aggregation '{agg.name}' makes the masked columns ε-differentially private; "
                                f"{', '.join(unchanged)} would release columns unchanged beside them or partition "
                                "inside strata or blocks, which its noise does not account for: leave them out (mask "
                                "every column you release); no release was made.")

    @property
    def partitioner(self) -> Method | None:
        """The registered partitioner (None for a partition given as ``labels=``)."""
        return None if self.method == GIVEN else get_method("partition", self.method)

    @property
    def aggregator(self) -> Method:
        return get_method("aggregate", self.aggregation)

    def key(self) -> tuple:
        """Every field as (name, value), a method's parameters by their :class:`Params` key (an array by a digest of
        its bytes): what a cache of releases is keyed on (the dashboard's, shared by its sessions)."""
        return tuple((f.name, v.key if isinstance(v, Params) else v) for f in fields(self)
                     for v in [getattr(self, f.name)])

    def given(self) -> dict[str, Any]:
        """The options that differ from their defaults, by name (in :data:`OPTIONS` order)."""
        return {o.name: getattr(self, o.name) for o in OPTIONS if getattr(self, o.name) != o.default}

    def resolved(self, **values) -> ReleaseSpec:
        """This specification with ``values`` filled in by the release (the columns masked, the seeds drawn)."""
        return replace(self, **values)

    def python_call(self, data: str) -> str:
        """``ma.microaggregate(...)`` that makes this release again; ``data`` is the expression of the input."""
        arrays = [n for n, v in self.parameters().items() if isinstance(v, np.ndarray)]
        args = [f"k={self.k}", *(["labels=labels"] if self.labels_given else []),
                *([f"method={self.method!r}"] if self.method != GIVEN else []), f"aggregation={self.aggregation!r}"]
        args += [f"{name}={_python(OPTION[name], value)}" for name, value in self.given().items()]
        values = {n: f"{n}_values" if n in arrays else repr(v) for n, v in self.parameters().items()}
        own = {key: [n for n in (m.params if m else ()) if n.name in OPTION and n.name in values]
               for key, m in (("method", self.partitioner), ("aggregation", self.aggregator))}
        args += [f"{n}={v}" for n, v in values.items() if n not in OPTION]
        for key, names in own.items():  # a parameter named like an option (a method's seed) goes in its dict
            if names:
                args.append(f"{key}_params={{{', '.join(f'{p.name!r}: {values[p.name]}' for p in names)}}}")
        body = ",\n    ".join(args)
        load = "".join(f"{n}_values = ...  # the {self.parameters()[n].shape} array of {n} values you uploaded\n"
                       for n in arrays)
        if self.labels_given:
            load += "labels = ...  # the partition you gave as labels= (one group number per record, input order)\n"
        imports = "import microagg as ma\n" + ("import pandas as pd\n" if "pd." in data else "")
        return (f"{imports}\ndf = {data}\n{load}rel = ma.microaggregate(\n    df,\n    {body},\n)\n"
                "rel.to_csv(\"release.csv\")\nprint(rel.report())")

    def argv(self) -> tuple[list[str], list[str]]:
        """The command line's arguments of this release (after ``run`` and the data's), and the parameters given as
        arrays, which have none (only the Python API takes them)."""
        if self.labels_given:
            raise MicroaggError("a release of a partition given as labels= has no command line: only the Python API "
                                "takes labels.")
        params = self.parameters()
        arrays = [n for n, v in params.items() if isinstance(v, np.ndarray)]
        argv = ["--k", str(self.k), "--method", self.method, "--aggregation", self.aggregation]
        for name, value in self.given().items():
            argv += _argv(OPTION[name], value)
        argv += [a for n, v in params.items() if n not in arrays for a in ("--param", f"{n}={v}")]
        return argv, arrays

    def parameters(self) -> dict[str, Any]:
        """The partitioner's and the aggregation's parameters together (names they share have one value)."""
        return {**self.method_params, **self.aggregation_params}

    def option_rows(self) -> list[tuple[str, str]]:
        """(name, value) of every option of this release (:data:`OPTIONS`), for a reader (the HTML report)."""
        return [(o.name, "detected" if o.name == "identifiers" and self.identifiers is None else
                 _shown(getattr(self, o.name))) for o in OPTIONS]


def resolve_methods(method: str, aggregation: str, params: dict, method_params: dict | None,
                    aggregation_params: dict | None) -> tuple[Method, Method, dict, dict]:
    """The registered partitioner and aggregator and their validated parameters (defaults filled in): keywords go
    to the one that declares them; a name both declare must be given in ``method_params``/``aggregation_params``
    unless both declare it ``shared`` (one quantity, e.g. the DP methods' attribute bounds): then it goes to both."""
    part = get_method("partition", method)
    agg = get_method("aggregate", aggregation)
    mnames, anames = {p.name for p in part.params}, {p.name for p in agg.params}
    shared = {p.name for p in part.params if p.shared} & {p.name for p in agg.params if p.shared}
    both = sorted(set(params) & mnames & anames - shared)
    if both:
        raise MicroaggError(f"parameter(s) {both} are accepted by both method '{part.name}' and aggregation "
                            f"'{agg.name}': pass them in method_params= or aggregation_params=.")
    unknown = sorted(set(params) - mnames - anames)
    if unknown:
        raise MicroaggError(f"parameter(s) {unknown} are not accepted by method '{part.name}' (accepts: "
                            f"{', '.join(sorted(mnames)) or 'none'}) nor by aggregation '{agg.name}' (accepts: "
                            f"{', '.join(sorted(anames)) or 'none'}).")
    mp, ap = ({n: v for n, v in params.items() if n in names} for names in (mnames, anames))
    for where, direct, extra in (("method_params", mp, method_params), ("aggregation_params", ap, aggregation_params)):
        twice = sorted(set(direct) & set(extra or {}))
        if twice:
            raise MicroaggError(f"parameter(s) {twice} given both as keywords and in {where}: give each once.")
    return part, agg, part.resolve({**mp, **(method_params or {})}), agg.resolve({**ap, **(aggregation_params or {})})


def _names(aggregation: str) -> set[str]:
    return {p.name for p in get_method("aggregate", aggregation).params}


def _checked(option: Option, value):
    """``value`` of ``option`` in its canonical form, or a ``MicroaggError`` naming the option."""
    kind, name = option.kind, option.name
    if value is None and kind in ("names", "ordinal"):
        return option.default  # not given
    if kind == "names":
        names = [value] if isinstance(value, str) else list(value) if _iterable(value) else None
        if names is None:
            raise MicroaggError(f"'{name}' must be a column name or a list of them; got {value!r}.")
        names = [str(c) for c in names]
        twice = sorted({c for c in names if names.count(c) > 1})
        if twice:
            raise MicroaggError(f"columns {twice} are listed more than once in '{name}'.")
        return tuple(names)
    if kind == "name":
        if value is not None and not isinstance(value, str):
            raise MicroaggError(f"{name} names one column (a string); got {value!r}.")
        return value
    if kind == "ordinal":
        return tuple((c, None if o is None else tuple(o)) for c, o in category_spec(value, None)[0].items())
    if kind == "choice":
        if not isinstance(value, str) or value not in option.choices:
            raise MicroaggError(f"{name} must be one of {', '.join(map(repr, option.choices))}; got {value!r}.")
        return value
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise MicroaggError(f"'{name}' must be True or False; got {value!r}.")
        return bool(value)
    if kind == "seed":
        return None if value is None else permutation(0, value)[1]
    raise AssertionError(f"option kind {kind!r}")  # pragma: no cover - programming error in OPTIONS


def _iterable(value) -> bool:
    return hasattr(value, "__iter__") and not isinstance(value, (bytes, Mapping))


def _python(option: Option, value) -> str:
    """The Python literal of ``value`` of ``option`` (an engine as the call that makes it)."""
    if option.kind == "names":
        return repr(list(value))
    if option.kind == "ordinal":
        return repr({c: None if o is None else list(o) for c, o in value})
    if option.kind == "engine":
        return value.call()
    return repr(value)


def _argv(option: Option, value) -> list[str]:
    """The command line's arguments of ``value`` of ``option``."""
    if option.kind == "bool":
        return [option.cli]
    if option.kind == "names":
        return [option.cli, join_names(value)]
    if option.kind == "ordinal":
        return [a for c, o in value for a in (option.cli, join_names([c], "=") + ("" if o is None else
                                                                              "=" + join_names(o, "<")))]
    if option.kind == "engine":
        return value.argv()
    return [option.cli, str(value)]


def _shown(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, (Memory, Blocks, Dask)):
        return value.name
    if isinstance(value, np.ndarray):
        return f"one value per record ({value.shape})"
    return str(value)


# ----------------------------------------------------------------------------- the command line


def add_arguments(parser) -> None:
    """Add every option of :data:`OPTIONS` to ``parser`` (``python -m microagg run``), with ``--k``, ``--method``,
    ``--aggregation`` and ``--param``; the engine's flags (``--engine``, ``--block-size``, ``--scheduler``) are the
    command's own, since they also say where a Dask release is written."""
    parser.add_argument("--k", type=int, required=True, help="minimum group size (integer >= 2)")
    parser.add_argument("--method", default="mdav", help="partitioning method (see 'methods')")
    parser.add_argument("--aggregation", default="mean", help="aggregation (see 'methods')")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a method or aggregation parameter, e.g. variant=classic (repeatable)")
    for o in OPTIONS:
        if o.kind == "engine":
            continue
        if o.kind == "bool":
            parser.add_argument(o.cli, dest=o.name, action="store_true", help=o.help)
        elif o.kind == "choice":
            parser.add_argument(o.cli, dest=o.name, choices=o.choices, default=o.default, help=o.help)
        elif o.kind == "seed":
            parser.add_argument(o.cli, dest=o.name, type=int, metavar=o.metavar, help=o.help)
        elif o.kind == "ordinal":
            parser.add_argument(o.cli, dest=o.name, action="append", default=[], metavar=o.metavar,
                                help=o.help + " (repeatable)")
        else:
            parser.add_argument(o.cli, dest=o.name, metavar=o.metavar,
                                help=o.help + ("; comma-separated, a name with a comma in double quotes"
                                               if o.kind == "names" else ""))


def cli_options(args) -> dict[str, Any]:
    """The options given on the command line (parsed by a parser made with :func:`add_arguments`), for
    :meth:`ReleaseSpec.of`: the ones left at their default are left out. A list of names that is empty ('') names
    no column: for ``--identifiers`` that is "none", for ``--columns`` a refusal (as ``columns=[]``: the columns
    to mask are never chosen for the user who named none), for the others their default; empty names are
    skipped."""
    out = {}
    for o in OPTIONS:
        if o.kind == "engine":
            continue
        raw = getattr(args, o.name)
        if o.kind == "bool":
            value = (not raw) if o.default else raw
        elif o.kind == "names":
            value = None if raw is None else [c for c in split_names(raw, flag=o.cli) if c]
            if value == [] and o.name == "columns":
                raise MicroaggError(f"{o.cli} names no column: name the columns to mask, or leave {o.cli} out to "
                                    "mask every numeric column.")
            if value == [] and o.name != "identifiers":
                value = None
        elif o.kind == "ordinal":
            value = _ordinal(raw) or None
        else:
            value = raw
        if value is not None and value != o.default:
            out[o.name] = value
    return out


def _ordinal(items: list[str]) -> dict[str, list[str] | None]:
    """``--ordinal COLUMN`` (natural sort) or ``--ordinal 'COLUMN=low<mid<high'`` (repeatable, names quoted as in
    :func:`split_names`) as a dict."""
    out = {}
    for item in items:
        name, i, sep = next_name(item, 0, "=", "--ordinal")
        order = item[i:] if sep else None
        if not name or (sep and not order.strip()):
            raise MicroaggError(f"--ordinal expects COLUMN or COLUMN=low<...<high; got {item!r}.")
        if name in out:
            raise MicroaggError(f"--ordinal {name} is given twice; give it once.")
        out[name] = split_names(order, "<", "--ordinal") if sep else None
    return out


def join_names(names, sep: str = ",") -> str:
    """``names`` as one command-line value separated by ``sep``, each quoted where :func:`split_names` needs it."""
    def quoted(name: str) -> str:
        if name and name == name.strip() and not any(c in name for c in QUOTED):
            return name
        return '"' + name.replace('"', '""') + '"'

    return sep.join(quoted(str(n)) for n in names)


def split_names(text: str, sep: str = ",", flag: str = "--columns") -> list[str]:
    """The names of one command-line value, separated by ``sep`` (module docstring): a quoted name is taken as
    written, ``""`` inside it standing for one quote; an unquoted one is stripped of spaces at its ends."""
    names, i = [], 0
    while True:
        name, i, found = next_name(text, i, sep, flag)
        names.append(name)
        if not found:
            return names


def next_name(text: str, i: int, seps: str, flag: str) -> tuple[str, int, str]:
    """(the name starting at ``text[i]``, where the next one starts, the separator after it or "" at the end)."""
    j = len(text) - len(text[i:].lstrip())
    if not text.startswith('"', j):
        end = min((k for k in (text.find(s, j) for s in seps) if k >= 0), default=len(text))
        return text[j:end].strip(), end + 1, text[end:end + 1]
    parts, j = [], j + 1
    while True:
        end = text.find('"', j)
        if end < 0:
            raise MicroaggError(f"{flag} {text!r}: a quote is opened and not closed; write a quote inside a quoted "
                                'name twice, e.g. "say ""hi""".')
        parts.append(text[j:end])
        if not text.startswith('"', end + 1):
            break
        parts.append('"')
        j = end + 2
    name, rest = "".join(parts), text[end + 1:]
    after = len(text) - len(rest.lstrip())
    if after < len(text) and text[after] not in seps:
        raise MicroaggError(f"{flag} {text!r}: {text[after:]!r} follows the quoted name {name!r}; separate names "
                            f"with {' or '.join(map(repr, seps))}.")
    return name, after + 1, text[after:after + 1]
