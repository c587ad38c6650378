"""The sidebar: one function per section (data, columns and their roles, categories, method, aggregation,
metrics), each returning what it chose; :func:`sidebar` gathers them into a :class:`Setup` for the tabs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from ..base.checks import is_numeric
from ..base.errors import MicroaggError
from ..base.registry import DIFFERENTIAL_PRIVACY, Method, methods
from ..data.categories import MISSING as CATEGORIES_MISSING
from ..data.categories import natural_order
from ..data.io import read_csv
from ..metrics import registry as metric_registry
from ..metrics.risk import RULE_TITLES, RULES
from ..partition.igd import REFINEMENTS, check_refine
from ..privacy.safety import permutation, sampling_weight_columns
from ..privacy.wishes import NAMES as WISHES
from ..release import spec as release_spec
from ..release.spec import AGGREGATION, PARTITION, ROLES, SURVEY, Option, Params, ReleaseSpec
from .cache import datasets, frame_digest, load, specification, upload, upload_digest, withheld
from .state import choose, choose_many, last, remember
from .widgets import k_widgets, parameter_widgets, widget

MAX_UPLOAD_MB = 50  # also set as server.maxUploadSize in .streamlit/config.toml
MAX_RECORDS = 200_000
# The options of the release (release.spec.OPTIONS) that the sidebar draws with widgets of their own: the columns'
# roles, the categories, missing cells, the refinement. Every other choice or yes/no option gets a widget from its
# row (:func:`option_widgets`), in the sidebar's section for its row's section (PLACES; any other section gets a
# header of its own after the aggregation: "Publication").
BESPOKE = frozenset({"columns", "keep", "confidential", "keys", "strata", "ordinal", "nominal", "sampling_weights",
                     "missing", "missing_categories", "refine"})
PLACES = {"columns": (ROLES, SURVEY), "method": (PARTITION,), "aggregation": (AGGREGATION,)}


@dataclass
class Setup:
    """Everything the sidebar chose, passed to the tabs."""

    df: pd.DataFrame
    data_expr: str
    data_args: list
    columns: list
    keep: list
    keys: list
    strata: list
    k: int
    part: Method
    confidential: list
    mparams: dict
    agg: Method
    aparams: dict
    eparams: dict
    dld_rule: str
    cats: tuple = ()  # categorical quasi-identifiers: (column, "ordinal" or "nominal", order or None)
    weight: str | None = None  # the sampling-weight column (docs/methods.md §8.6)
    missing: str = "keep"      # missing cells: keep, impute or refuse (docs/methods.md §8.1)
    missing_categories: str = "refuse"  # missing categories: refuse, impute, category or drop (docs/methods.md §8.8)
    refine: str = "none"
    options: dict = field(default_factory=dict)  # the options drawn from their rows (option_widgets), by name

    @property
    def survey(self) -> bool:
        """Sampling weights or missing cells in the masked columns: the survey release of docs/methods.md §8."""
        return self.weight is not None or bool(self.df[self.masked].isna().to_numpy().any())

    @property
    def release_options(self) -> dict:
        """Every option of the release chosen (``release.spec.OPTIONS``), by name, as ``ReleaseSpec.of`` takes it."""
        return {"columns": tuple(self.masked), "keep": tuple(self.keep), "confidential": tuple(self.confidential),
                "keys": tuple(self.keys), "strata": tuple(self.strata),
                "ordinal": {c: list(o) for c, kind, o in self.cats if kind == "ordinal"},
                "nominal": tuple(c for c, kind, _ in self.cats if kind == "nominal"),
                "sampling_weights": self.weight, "missing": self.missing,
                "missing_categories": self.missing_categories, "refine": self.refine, **self.options}

    def spec_for(self, agg: Method) -> ReleaseSpec:
        """The release specification of the sidebar's choices with aggregation ``agg`` (at its defaults unless it is
        the sidebar's), built once for these choices (``cache.specification``). MicroaggError propagates."""
        aparams = self.aparams if agg.name == self.agg.name else agg.defaults()
        options = self.release_options
        if options.get("shuffle", True) and options.get("seed") is None:  # (a seed of this session's own)
            options = {**options, "seed": session_seed("shuffle", frame_digest(self.df))}
        if agg.caps.privacy == DIFFERENTIAL_PRIVACY and aparams.get("noise_seed") is None:
            aparams = {**aparams, "noise_seed": session_seed("noise", (frame_digest(self.df), self.k, self.part.name,
                                                                       agg.name, Params(self.mparams).key,
                                                                       Params(aparams).key,
                                                                       repr(sorted(options.items()))))}
        return specification(self.k, self.part.name, agg.name, Params(self.mparams), Params(aparams), options)

    @property
    def spec(self) -> ReleaseSpec:
        """The release specification of the sidebar's choices."""
        return self.spec_for(self.agg)

    @property
    def masked(self) -> list:
        return [c for c in self.columns if c not in self.confidential]

    @property
    def mkey(self) -> tuple:
        return tuple(sorted(self.mparams.items()))

    @property
    def ekey(self) -> tuple:
        """The evaluation parameters of the reports: the sidebar's metric options and the wishes Δ and w."""
        return tuple(sorted({**self.eparams, **self.privacy}.items()))

    @property
    def privacy_source(self) -> Method:
        """The aggregation whose Δ and w every SL and breach uses: the sidebar's when it takes them, else the
        first one that does (P3M) with its defaults, so that all aggregations are compared alike."""
        return self.agg if self.agg.caps.personalized else next(m for m in methods("aggregate")
                                                                if m.caps.personalized)

    @property
    def privacy(self) -> dict:
        src = self.privacy_source
        values = self.aparams if src is self.agg else src.defaults()
        return {n: v for n, v in values.items() if n in WISHES}


def session_seed(kind: str, choices) -> int:
    """A seed of ``kind`` whose box is empty, drawn fresh from the OS for this session and these ``choices``, kept in
    the session's state so that its page shows one release, and never shared with another session: the shuffle's
    (per data set: who knew it could put another student's release of the same data back in the input's order) and
    an ε-differentially private release's noise seed (per data, k, methods, parameters and options: who knew it
    could subtract the noise). Freed with the session."""
    seeds = st.session_state.setdefault(f"_{kind}-seeds", {})
    if choices not in seeds:
        seeds[choices] = permutation(0, None)[1]
    return seeds[choices]


def data_section() -> tuple[pd.DataFrame, str, list[str], Callable[[set[str]], None]]:
    """The data source widgets; returns the data, a Python expression and CLI arguments that load it, and what says,
    once the columns are chosen (their names given), which of an upload's text columns the release drops."""
    info = datasets()
    source = st.radio("Source", ["benchmark", "generated", "upload"], horizontal=True, key="source",
                      format_func={"benchmark": "benchmark", "generated": "generated", "upload": "your CSV"}.get)
    if source == "benchmark":
        names = [n for n in info.index if info.loc[n, "kind"] == "benchmark"] + ["survey"]
        name = choose(st.selectbox, "Data set", names, "dataset", "census")
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        return load(name), f"ma.load_dataset({name!r})", ["--dataset", name], _silent
    if source == "generated":
        names = [n for n in info.index if info.loc[n, "kind"] == "generator"]
        name = choose(st.selectbox, "Generator", names, "generator", names[0])
        st.caption(f"{info.loc[name, 'description']} — {info.loc[name, 'source']}")
        n = remember("n", int(st.number_input("records", min_value=10, max_value=MAX_RECORDS, step=500, key="n",
                                              value=last("n", 2000))))
        seed = remember("seed", int(st.number_input("seed", min_value=0, max_value=2**31 - 1, step=1, key="seed",
                                                    value=last("seed", 0))))
        return (load(name, n=n, seed=seed), f"ma.load_dataset({name!r}, n={n}, seed={seed})",
                ["--dataset", name, "--data-param", f"n={n}", "--data-param", f"seed={seed}"], _silent)
    up = st.file_uploader(f"CSV with a header row (at most {MAX_UPLOAD_MB} MB, {MAX_RECORDS:,} records)", type="csv",
                          key="upload")
    if up is None:
        st.info("Upload a CSV file to start, or pick a benchmark data set.")
        st.stop()
    if up.size > MAX_UPLOAD_MB * 2**20:
        st.error(f"The file is {up.size / 2**20:.0f} MB; the dashboard accepts at most {MAX_UPLOAD_MB} MB. "
                 "Use the command line (python -m microagg run --input ...) for larger files.")
        st.stop()
    encoding = choose(st.selectbox, "Encoding", ["utf-8", "latin-1", "cp1252"], "encoding", "utf-8",
                      help="UTF-8 files with or without a byte-order mark; latin-1 or cp1252 for older "
                                 "spreadsheet exports.")
    try:
        data = up.getvalue()
        table = upload(upload_digest(data), up.name, encoding, MAX_RECORDS, data)
    except MicroaggError as exc:
        st.error(exc.shown)
        st.stop()
    df = table.data
    text = {c: note for c in map(str, df.columns) for note in table.notes if note.startswith(f"column '{c}' is text")}
    for note in table.notes:
        if note not in text.values():
            st.info(note)
    dropped = partial(text_dropped, st.empty(), text)  # (filled once the columns are chosen, here on the page)
    if len(df) < 2:
        st.error(f"{up.name} has {len(df)} record(s): microaggregation needs at least 2.")
        st.stop()
    if encoding == "utf-8":
        return df, f"ma.read_csv({up.name!r}).data", ["--input", up.name], dropped
    return (df, f"ma.read_csv({up.name!r}, encoding={encoding!r}).data", ["--input", up.name, "--encoding", encoding],
            dropped)


def _silent(used: set[str]) -> None:
    """A data set without text columns: nothing to say."""


def text_dropped(slot, text: dict[str, str], used: set[str]) -> None:
    """Into ``slot``: the notes of the text columns (``text``: column -> note) that none of the ``used`` columns
    (masked as categories, released unmasked, keys, or withheld as identifiers, which the page says apart) takes,
    which the release therefore drops."""
    left = [note for c, note in text.items() if c not in used]
    if left:
        slot.warning(" ".join(left) + " Text columns are dropped from the release unless you mask them as categories "
                     "('Categorical columns to mask') or list them under 'Columns to release unmasked' or 'Key "
                     "columns'.")


def columns_section(df: pd.DataFrame, data_expr: str):
    """Which columns are masked (numeric, and categorical with their kind), released unmasked, known to an intruder
    (keys) and stratified on, the sampling weights and what to do with missing cells; the rest are dropped.
    Identifiers (``ma.identifiers``, the rule of the API and the command line) are not selected."""
    numeric = [str(c) for c in df.columns
               if is_numeric(df[c])]
    if not numeric:
        st.error("This data has no numeric column: microaggregation needs numbers.")
        st.stop()
    ids = withheld(df)
    weights = sampling_weight_columns(df)  # named like a sampling weight: proposed, never masked by default
    weight = choose(st.selectbox, "Sampling weights", [None, *numeric], f"weight:{data_expr}",
                    weights[0] if weights else None,
                    format_func=lambda c: "none" if c is None else c,
                    help="A survey's design weights (positive numbers): the mean and median become weighted "
                         "and the report adds weighted metrics. Never masked; released only if you keep it "
                         "(an exact weight can single a respondent out). A column named like a weight "
                         "(weight, wgt, pw…) is proposed. docs/methods.md §8.")
    if weights and weight == weights[0]:
        st.caption(f"**{weight}** is named like a sampling weight, so it is proposed here; choose none to leave the "
                   "release unweighted (it is then withheld, unless you mask or keep it).")
    columns = choose_many(st.multiselect, "Columns to mask", numeric, f"columns:{data_expr}",
                          [c for c in numeric if c not in ids and c not in weights and c != weight],
                          help="Numeric columns replaced by group values. Identifiers (record numbers, IDs) are "
                               "left out by default and dropped: a group value of an ID is often a real ID.")
    if weight in columns:
        columns = [c for c in columns if c != weight]
        st.caption(f"**{weight}** is the sampling-weight column: never masked, released only if kept.")
    missing = "keep"
    per_column = df[columns].isna().sum()
    holes, gaps = int(per_column.sum()), [c for c, n in per_column.items() if n]
    if holes:
        named = ", ".join(gaps[:4]) + (f" and {len(gaps) - 4} more columns" if len(gaps) > 4 else "")
        missing = choose(st.radio, f"Missing cells ({holes:,} in {named})", ["keep", "impute", "refuse"],
                         "missing", "keep", horizontal=True,
                         format_func={"keep": "release missing", "impute": "impute group value",
                                      "refuse": "refuse"}.get,
                         help="The records are microaggregated with distances over their observed attributes. "
                              "'release missing' leaves a missing cell missing (and hides a few observed cells "
                              "so that k rows share each missingness pattern); 'impute' releases the group "
                              "value there. Only MDAV (variant generic) groups such records: for another method, "
                              "leave these columns out of 'Columns to mask'. docs/methods.md §8.")
    if ids:
        st.caption("Identifiers, neither masked nor released unless you select them: "
                   + "; ".join(f"**{c}** ({why})" for c, why in ids.items()))
    cats = categories_section(df, data_expr, columns, ids)
    missing_categories = "refuse"
    blanks = int(df[[c for c, _, _ in cats]].isna().to_numpy().sum()) if cats else 0
    if blanks:
        missing_categories = choose(
            st.radio, f"Missing categories ({blanks:,} in the categorical columns)", list(CATEGORIES_MISSING),
            "missing-categories", "refuse", horizontal=True,
            format_func={"refuse": "refuse", "impute": "impute group category", "category": "own category",
                         "drop": "drop records"}.get,
            help="'impute': the records are grouped by their other attributes and a missing category shows its "
                 "group's category; 'own category': missing is a nominal column's category like any other; 'drop': "
                 "the records with a missing category are left out of the release. The report says what was done. "
                 "docs/methods.md §8.8.")
    others = [str(c) for c in df.columns if str(c) not in columns and str(c) not in {c for c, _, _ in cats}]
    keep_col, key_col = st.columns(2)
    keep = choose_many(keep_col.multiselect, "Columns to release unmasked", others, f"keep:{data_expr}", [],
                       help="Released exactly as they are. Every other column not masked is dropped from "
                            "the release. A kept column an intruder may know should be declared a key.")
    keys = choose_many(key_col.multiselect, "Key columns (an intruder may know them)", others, f"keys:{data_expr}",
                       [], help="Released unmasked like kept columns, and counted in the k-anonymity check: "
                                "a row is protected only if k rows share its keys and masked values.")
    stratify = remember("stratify", st.checkbox(
        "Microaggregate inside each combination of the keys (strata)", value=last("stratify", True), key="stratify",
        disabled=not keys, help="Groups never mix records with different keys, so the release stays k-anonymous "
                                "with the keys released. Each combination needs at least k records."))
    return columns, [c for c in keep if c not in keys], keys, (keys if keys and stratify else []), cats, weight, \
        missing, missing_categories


def categories_section(df: pd.DataFrame, data_expr: str, columns: list[str], ids: dict) -> tuple:
    """Categorical quasi-identifiers (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15): a kind per column and,
    for an ordinal one, its order, shown pre-filled with the natural sort for the user to correct."""
    candidates = [str(c) for c in df.columns if str(c) not in columns and str(c) not in ids]
    chosen = choose_many(st.multiselect, "Categorical columns to mask (ordinal or nominal)", candidates,
                         f"cats:{data_expr}", [],
                         help="Text or numbers with few values, such as region or education: each group publishes "
                              "the median (ordinal) or most frequent (nominal) category of its members, so no "
                              "category is invented (heterogeneous MDAV, Domingo-Ferrer & Torra 2005).")
    out = []
    for c in chosen:
        kind = choose(st.radio, f"Kind of {c}", ["nominal", "ordinal"], f"kind:{data_expr}:{c}", "nominal",
                      horizontal=True, help="Nominal: categories without order (region). Ordinal: ordered "
                                            "categories (education); the group value is the lower median.")
        if kind == "nominal":
            out.append((c, kind, None))
            continue
        natural = " < ".join(map(str, natural_order(df[c])))
        text = remember(f"order:{data_expr}:{c}", st.text_input(
            f"Order of {c}, lowest first", value=last(f"order:{data_expr}:{c}", natural), key=f"order:{data_expr}:{c}",
            help="Every category, separated by '<'. Pre-filled with the natural sort (numbers by value, text "
                 "alphabetically with numbers inside compared as numbers): correct it if that is not the order."))
        out.append((c, kind, tuple(v.strip() for v in text.split("<"))))
        if text == natural and not pd.api.types.is_numeric_dtype(df[c]):
            st.caption(f"The order of **{c}** is the natural sort of its text: check it.")
    return tuple(out)


def method_section(df: pd.DataFrame, data_expr: str, columns: list[str]):
    k = k_widgets(len(df))
    parts = {m.title: m for m in methods("partition")}
    part = parts[choose(st.selectbox, "Partitioning method", list(parts), "method", list(parts)[0])]
    st.caption(f"{part.summary} — {part.source}")
    confidential: list[str] = []
    if part.caps.uses_roles:
        default_conf = [c for c in df.attrs.get("roles", {}).get("confidential", []) if c in columns]
        confidential = choose_many(st.multiselect, "Confidential columns", columns, f"conf:{data_expr}", default_conf,
                                   help="Sensitive attributes: released unchanged, and used by this method to "
                                        "shape the groups (diverse, or t-close). The other masked columns are "
                                        "the quasi-identifiers.")
    mparams = parameter_widgets(part, f"p-{part.name}", max(1, len(columns) - len(confidential)),
                                shared=st.session_state.get("aggregation"))
    try:
        refinable, why = check_refine("igd", part) == "igd", ""
    except MicroaggError as exc:
        refinable, why = False, f" Not available here: {exc.shown}"
    refine = choose(st.selectbox, "Refinement", list(REFINEMENTS) if refinable else ["none"], "refine", "none",
                    format_func={"none": "none", "igd": "IGD (iterative group decomposition)"}.get,
                    help="IGD moves records between the method's groups wherever the SSE falls and splits "
                         "groups of 2k or more; never worse, every group k..2k−1 (Khomnotai, Lin, Peng & "
                         "Samanta 2018; docs/methods.md §2.18)." + why)
    return k, part, confidential, mparams, refine


def aggregation_section(n: int, d: int):
    aggs = {m.title: m for m in methods("aggregate")}
    agg = aggs[choose(st.selectbox, "Aggregation", list(aggs), "aggregation", list(aggs)[0])]
    st.caption(f"{agg.summary} — {agg.source}")
    uploads = {p.name: st.session_state.get(f"u-{agg.name}-{p.name}") for p in agg.params if p.array_ok}
    aparams = parameter_widgets(agg, f"a-{agg.name}", d, overridden=[n_ for n_, u in uploads.items() if u is not None])
    for name in uploads:
        p = agg.param(name)
        upload = st.file_uploader(f"{p.label or name} per record (optional CSV: one value per record, or one column "
                                  "per masked attribute)", type="csv", key=f"u-{agg.name}-{name}",
                                  help="When given, it replaces the value in the box above.")
        if upload is not None:
            try:
                aparams[name], notes = per_record(upload, n, d)
            except MicroaggError as exc:
                st.error(f"{p.label or name}: {exc.shown}")
                st.stop()
            for note in notes:
                st.info(f"{p.label or name}: {note}")
    return agg, aparams


def option_widgets(sections: tuple, given: dict) -> dict:
    """A widget for every choice or yes/no option of the release (``release.spec.OPTIONS``) of ``sections`` that has
    no widget of its own (:data:`BESPOKE`), drawn from its row: its choices, default and help, labelled by its name
    (a yes/no option by its command-line flag: "no shuffle" unticked is the default). One that has an effect only
    with options that are not given (``Option.only_with``, read in ``given``: the sidebar's choices so far) is drawn
    disabled and left at its default. Returns the values by name."""
    values = {}
    for o in release_spec.OPTIONS:
        if o.section in sections and drawn(o):
            off = [n for n in o.only_with if _unset(n, given.get(n))]
            value = option_widget(o, off)
            values[o.name] = o.default if off else value
    return values


def drawn(o: Option) -> bool:
    """Whether the sidebar draws option ``o`` from its row: a choice or yes/no option without a widget of its own."""
    return o.name not in BESPOKE and o.kind in ("choice", "bool")


def _unset(name: str, value) -> bool:
    default = release_spec.OPTION[name].default
    return value is None or value == default or (not value and not default)


def option_widget(o: Option, off: list):
    """The widget of one option (:func:`option_widgets`), its value kept across runs that did not draw it."""
    key = f"option-{o.name}"
    common = dict(disabled=bool(off),
                  help=o.help[:1].upper() + o.help[1:] + "." + (f" Needs {' and '.join(off)}." if off else ""))
    if o.kind == "bool":  # ticked: its flag given
        label = o.cli.removeprefix("--").replace("-", " ")
        return remember(key, st.checkbox(label, value=last(key, False), key=key, **common)) != o.default
    label, choices = o.name.replace("_", " "), list(o.choices)
    if len(choices) <= 3:
        return choose(st.radio, label, choices, key, o.default, horizontal=True, **common)
    return choose(st.selectbox, label, choices, key, o.default, **common)


def metrics_section() -> tuple[dict, str]:
    eparams = {"p": widget(metric_registry.PARAMS["p"], "m-p", 1)}
    dld_rule = choose(st.selectbox, "DLD rule (risk-utility map)", list(RULES), "m-dld", RULES[0],
                      format_func=RULE_TITLES.get,
                      help="When an intruder's nearest-neighbour link counts as a disclosure (docs/metrics.md "
                           "§4.6; the report lists every rule).")
    return eparams, dld_rule


def per_record(upload, n: int, d: int) -> tuple[np.ndarray, tuple]:
    """Values of an uploaded CSV (a header row; read by ``io.read_csv``, the reader of every door) as an (n,) or
    (n, d) float array, and the reader's notes on what it converted (decimal commas); MicroaggError says what is
    wrong: the reader's message, a column of text, a missing value, a shape that fits neither."""
    table = read_csv(upload, name=upload.name)
    frame = table.data
    text = [str(c) for c in frame.columns if c not in frame.select_dtypes("number").columns]
    if text:
        said = " ".join(note for note in table.notes if any(f"column '{c}'" in note for c in text))
        raise MicroaggError(f"cannot read {upload.name} as numbers: "
                            + (said or f"{', '.join(map(repr, text))} hold(s) True/False, not numbers."))
    values = frame.to_numpy(dtype=float)
    if values.shape[0] != n or values.shape[1] not in (1, d):
        raise MicroaggError(f"{upload.name} has {values.shape[0]} rows and {values.shape[1]} columns; expected {n} "
                            f"rows and 1 or {d} columns (one value per record, or one per masked attribute).")
    holes = ~np.isfinite(values)
    if holes.any():
        row, col = np.argwhere(holes)[0]
        raise MicroaggError(f"{upload.name} has {int(holes.sum())} missing or infinite value(s), the first in column "
                            f"'{frame.columns[col]}' of record {row + 1}: every record needs a number.")
    return (values[:, 0] if values.shape[1] == 1 else values), table.notes


def sidebar() -> Setup:
    with st.sidebar:
        st.header("Data")
        df, data_expr, data_args, text_dropped_note = data_section()
        columns, keep, keys, strata, cats, weight, missing, missing_categories = columns_section(df, data_expr)
        text_dropped_note({*keep, *keys, *(c for c, _, _ in cats), *withheld(df)})  # (withheld: said below)
        given = {"columns": columns, "keep": keep, "keys": keys, "strata": strata, "sampling_weights": weight,
                 "ordinal": [c for c, kind, _ in cats if kind == "ordinal"],
                 "nominal": [c for c, kind, _ in cats if kind == "nominal"], "missing": missing,
                 "missing_categories": missing_categories}
        options = option_widgets(PLACES["columns"], given)
        st.header("Microaggregation")
        k, part, confidential, mparams, refine = method_section(df, data_expr, columns)
        given.update(options, confidential=confidential, refine=refine)
        options.update(option_widgets(PLACES["method"], given))
        agg, aparams = aggregation_section(len(df), max(1, len(columns) - len(confidential)))
        options.update(option_widgets(PLACES["aggregation"], {**given, **options}))
        shared = {p.name for p in part.params if p.shared} & {p.name for p in agg.params if p.shared}
        mparams = {**mparams, **{name: aparams[name] for name in shared}}  # one value, typed once (the DP bounds)
        placed = {s for sections in PLACES.values() for s in sections}
        for section in dict.fromkeys(o.section for o in release_spec.OPTIONS if o.section not in placed):
            if any(o.section == section and drawn(o) for o in release_spec.OPTIONS):

                st.header(section.capitalize())
                options.update(option_widgets((section,), {**given, **options}))
        st.header("Metrics")
        eparams, dld_rule = metrics_section()
    return Setup(df, data_expr, data_args, columns, keep, keys, strata, k, part, confidential, mparams, agg, aparams,
                 eparams, dld_rule, cats, weight, missing, missing_categories, refine, options)
