"""Column roles of a release: which columns are masked (the quasi-identifiers), confidential, kept, keys, strata
and identifiers (Abidi, Ben Yahia & Perera 2018, §2.1; README, "Publishing a release safely"), checked once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..base.checks import is_numeric, plain
from ..base.errors import MicroaggError
from ..data.categories import spec
from ..data.preprocess import select_columns
from .safety import chosen_identifiers, class_ids, key_codes, sampling_weight_columns, weight_reason


@dataclass(frozen=True)
class Roles:
    """The role of every column of a release (``column_roles``)."""

    masked: list[str]
    confidential: list[str]
    kept: list[str]          # released unchanged, the keys included
    names: list[str]
    identifiers: dict        # column -> why it is treated as an identifier (not released)
    keys: list[str]
    strata: list[str]
    ordinal: dict = field(default_factory=dict)  # masked ordinal column -> its order (None: natural sort)
    nominal: list[str] = field(default_factory=list)  # masked nominal columns
    sampling_weights: str | None = None  # never masked; released only if in ``kept`` (docs/methods.md §8.6)


def _names(df: pd.DataFrame, given, what: str) -> list[str]:
    """``given`` (a name or names, None for none) checked: in the data, each once."""
    if given is None:
        return []
    cols = [given] if isinstance(given, str) else [str(c) for c in given]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise MicroaggError(f"columns {dup} are listed more than once in '{what}'.")
    names = [str(c) for c in df.columns]
    missing = [c for c in cols if c not in names]
    if missing:
        raise MicroaggError(f"{what}: columns {missing} are not in the data; available: {names}.")
    return cols


def column_roles(df: pd.DataFrame, columns, keep, confidential, identifiers=None, keys=None, strata=None,
                 ordinal=None, nominal=None, sampling_weights=None) -> Roles:
    """The columns of ``df`` by role, checked: each column in one role, masked ones numeric, at least one masked.

    ``ordinal`` (column -> order, or names taking the natural sort) and ``nominal`` name categorical
    quasi-identifiers, masked by their group's median or mode (``microagg.data.categories``); they may be text and are
    in no other role. ``columns`` then names the continuous quasi-identifiers only.

    Identifiers (given, or detected by ``safety.identifiers`` when ``identifiers`` is None) are neither masked
    nor released; a detected one named in ``columns``, ``keep``, ``keys``, ``strata``, ``confidential`` or
    ``sampling_weights`` is the user's choice and no longer one. A column that looks like a sampling weight
    (``safety.sampling_weight_columns``) and has no role is withheld the same way, its reason saying how to use
    it. The sampling-weight column is never masked (as a number or a category) and is released only if listed in
    ``keep`` (docs/methods.md §8.6). A chosen column that mixes numbers and text is refused. Keys are released
    unmasked. By default the masked columns are the numeric columns in no other role. ``df`` may be an empty frame
    with the data's dtypes (the Dask engine).
    """
    conf = _confidential(df, confidential)
    keys, strata = _names(df, keys, "keys"), _names(df, strata, "strata")
    ordinal, nominal = spec(ordinal, nominal)
    cats = _names(df, list(ordinal), "ordinal") + _names(df, nominal, "nominal")
    keep = [] if keep is None else ([keep] if isinstance(keep, str) else [str(c) for c in keep])
    weight = _weight_column(df, sampling_weights, columns, conf, strata, identifiers, list(ordinal), nominal)
    _check_mixed(df, ([columns] if isinstance(columns, str) else list(map(str, columns or []))) + cats)
    chosen = set(conf) | set(keys) | set(strata) | set(keep) | set(cats) | ({weight} if weight else set()) | \
        (set([columns] if isinstance(columns, str) else map(str, columns)) if columns is not None else set())
    ids = chosen_identifiers(df, identifiers)
    if identifiers is None:
        ids = {c: why for c, why in ids.items() if c not in chosen}
    else:
        clash = [c for c in ids if c in chosen]
        if clash:
            raise MicroaggError(f"columns {clash} are listed in 'identifiers' (not released) and also chosen for the "
                                "release ('columns', 'keep', 'keys', 'strata' or 'confidential'); list each once.")
    weights = [c for c in sampling_weight_columns(df) if c not in chosen and c not in ids]
    ids = {c: ids.get(c) or weight_reason(c) for c in map(str, df.columns) if c in ids or c in weights}
    masked = select_columns(df, columns) if columns is not None else \
        [c for c in select_columns(df, None) if c not in conf and c not in ids and c not in keys
         and c not in strata and c not in keep and c not in cats and c != weight]
    both = [c for c in masked if c in conf]
    if both:
        raise MicroaggError(f"columns {both} are listed both in 'columns' (quasi-identifiers, masked) and in "
                            "'confidential' (released unchanged); list each column once.")
    for what, given in (("columns", masked), ("confidential", conf), ("keep", keep), ("keys", keys),
                        ("strata", strata)):
        twice = [c for c in given if c in cats]
        if twice:
            raise MicroaggError(f"columns {twice} are ordinal or nominal quasi-identifiers (masked by category) and "
                                f"also listed in '{what}'; give each column one role.")
    if not masked and cats:
        raise MicroaggError(f"no continuous quasi-identifier besides the categorical ones {cats}: heterogeneous MDAV "
                            "needs at least one numeric column to mask (name it in 'columns').")
    if not masked:
        withheld = "".join(f" {c} is withheld: {why}." for c, why in ids.items())
        raise MicroaggError("no column left to mask: every numeric column is confidential, an identifier, a key, a "
                            f"stratum or kept.{withheld} Leave at least one quasi-identifier to mask: name it in "
                            "'columns', which also masks a withheld column.")
    names = [str(c) for c in df.columns]
    missing = [c for c in keep if c not in names]
    if missing:
        raise MicroaggError(f"keep: columns {missing} are not in the data; available: {names}.")
    for role, cols in (("masked", masked), ("confidential", conf)):
        for what, given in (("keep", keep), ("keys", keys)):
            overlap = [c for c in given if c in cols]
            if overlap:
                raise MicroaggError(f"columns {overlap} are both {role} and listed in '{what}'; list each column "
                                    "once (keys are released unmasked).")
    masked_strata = [c for c in strata if c in masked]
    if masked_strata:
        raise MicroaggError(f"columns {masked_strata} are both masked and strata: a stratum column is released "
                            "unmasked (list it in 'keys') or not at all.")
    kept = keep + [c for c in keys if c not in keep]
    return Roles(masked, conf, kept, names, ids, keys, strata, ordinal, nominal, weight)


def _weight_column(df: pd.DataFrame, name, columns, conf: list[str], strata: list[str], identifiers,
                   ordinal: list[str], nominal: list[str]) -> str | None:
    """The sampling-weight column, checked: one column of the data, in no role that masks it (as a number or a
    category), stratifies on it or withholds it as an identifier."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise MicroaggError(f"sampling_weights names one column (a string); got {name!r}.")
    (name,) = _names(df, [name], "sampling_weights")
    masked = [columns] if isinstance(columns, str) else list(map(str, columns or []))
    ids = [identifiers] if isinstance(identifiers, str) else list(map(str, identifiers or []))
    for role, cols in (("columns (masked)", masked), ("ordinal", ordinal), ("nominal", nominal),
                       ("confidential", conf), ("strata", strata), ("identifiers", ids)):
        if name in cols:
            raise MicroaggError(f"column '{name}' is the sampling-weight column and also listed in '{role}': a weight "
                                "is never masked; list it only in 'sampling_weights' (and in 'keep' to release it).")
    return name


def sampling_weights(df: pd.DataFrame, name: str | None) -> np.ndarray | None:
    """The sampling weights of column ``name`` (None without), refused unless every one is a finite number > 0."""
    if name is None:
        return None
    s = df[name]
    if not is_numeric(s):
        raise MicroaggError(f"sampling-weight column '{name}' is not numeric ({s.dtype}): weights are positive "
                            "numbers.")
    w = s.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~(np.isfinite(w) & (w > 0)))
    if len(bad):
        raise MicroaggError(f"sampling-weight column '{name}' has {len(bad)} value(s) that are not finite numbers > 0; "
                            f"the first, at row {plain(df.index[bad[0]])}, is {plain(w[bad[0]])}. Every record needs a "
                            "positive weight.")
    return w


def _check_mixed(df: pd.DataFrame, cols: list[str]) -> None:
    """Refuse a chosen column of the data that mixes numbers and text (``[1, '1', 2.0]``): 1 and '1' would be two
    categories that print the same, and no number can be read from the text without a guess."""
    for c in dict.fromkeys(cols):
        if c not in df.columns or not pd.api.types.is_object_dtype(df[c]):
            continue
        cells = df[c].dropna()
        number = cells.map(lambda v: isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)))
        text = cells.map(lambda v: isinstance(v, str))
        if number.any() and text.any():
            raise MicroaggError(f"column '{c}' mixes numbers and text (e.g. {cells[number].iloc[0]!r} and "
                                f"{cells[text].iloc[0]!r}): a number and the same text would be different values "
                                "that print alike. Give the column one type: df[col].astype(str) for categories, "
                                "pd.to_numeric(df[col]) for numbers.")


def _confidential(df: pd.DataFrame, confidential) -> list[str]:
    """The confidential column names, checked: in the data, numeric, each listed once."""
    cols = _names(df, confidential, "confidential")
    return select_columns(df, cols) if cols else []


def stratum_ids(df: pd.DataFrame, strata: list[str], k: int) -> np.ndarray | None:
    """The stratum (0..s-1) of every record, or None without strata; a stratum of fewer than k records is refused
    (merging it into another would mix strata that the user asked to keep apart)."""
    if not strata:
        return None
    codes = key_codes(df, strata)
    ids = class_ids(codes)
    sizes = np.bincount(ids)
    if sizes.min() < k:
        small = np.flatnonzero(sizes < k)
        row = int(np.flatnonzero(ids == small[0])[0])
        name = ", ".join(f"{c}={df[c].iloc[row]}" for c in strata)
        raise MicroaggError(f"stratum {name} has {int(sizes[small[0]])} < k = {k} records ({len(small)} of "
                            f"{len(sizes)} strata are smaller than k): no k-anonymous group can be formed inside it. "
                            "Merge small categories into a larger one, lower k, or stratify on fewer columns.")
    return ids
