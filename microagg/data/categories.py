"""Ordinal and nominal quasi-identifiers as integer codes (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15).

An **ordinal** column has an order of its categories: given by the user (``ordinal={"education": ["primary",
"secondary", "tertiary"]}``), or, when the order is ``None``, the natural sort of its values: numbers by value,
text by a digit-aware sort ("2 rooms" before "10 rooms") announced in a note, since the alphabet is rarely the
order that matters; an ordered pandas Categorical takes its own order. Its code is the category's position in the
order. A **nominal** column has no order; its code is the category's rank of first appearance in the file.
Categories are kept as they are (text stays text); a released category is always one of the column's own
(``Categories.decode``). A column whose categories are unique per record (an identifier, or nearly: at least
half of the records, and at least 10, hold a category no other record holds) is refused: its group's mode or
median would publish such a respondent's own value.

A missing cell (docs/methods.md §8.8) is refused unless ``missing`` says otherwise: ``"category"`` makes it a
nominal column's own category (a level that is missing), ``"impute"`` gives it the code ``MISSING_CODE``, which the
partition reads as unknown and the group value replaces (``"drop"`` removes its row before: ``drop_rows``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError

ORDINAL, NOMINAL = "ordinal", "nominal"
# a column is refused as an identifier when at least this share of its records, and at least this many, hold a
# category of their own: fewer distinct values are categories of a small file, not codes of its records
UNIQUE_SHARE, UNIQUE_MIN = 0.5, 10
MISSING = ("refuse", "category", "impute", "drop")  # what to do with a missing category (docs/methods.md §8.8)
MISSING_CODE = -1  # the code of a missing cell with missing="impute": no category


@dataclass(frozen=True)
class Categories:
    """The ordinal and nominal quasi-identifiers: ``names`` (input order), ``kinds``, ``levels`` (the categories
    of each column; in order for an ordinal one, by first appearance for a nominal one), ``codes`` (n x c, the
    index of every record's category in ``levels``) and ``notes`` (orders taken from the natural sort)."""

    names: list[str]
    kinds: list[str]
    levels: list[np.ndarray]
    codes: np.ndarray
    notes: tuple[str, ...] = ()

    def columns(self, kind: str) -> list[int]:
        """Positions (in ``names``) of the columns of ``kind``."""
        return [j for j, kd in enumerate(self.kinds) if kd == kind]

    def decode(self, codes: np.ndarray) -> dict[str, np.ndarray]:
        """``{column: categories}`` of the n x c ``codes``: each value taken from the column's own levels, missing
        where the code is ``MISSING_CODE`` (a group none of whose members has a category)."""
        out = {}
        for j, c in enumerate(self.names):
            values, unknown = self.levels[j][codes[:, j]], codes[:, j] == MISSING_CODE
            if unknown.any():
                values = values.astype(np.float64 if values.dtype.kind in "iuf" else object)
                values[unknown] = np.nan
            out[c] = values
        return out

    def orders(self) -> dict[str, list]:
        """The category order of every ordinal column (as recorded in a release's parameters)."""
        return {self.names[j]: self.levels[j].tolist() for j in self.columns(ORDINAL)}


def spec(ordinal, nominal) -> tuple[dict[str, list | None], list[str]]:
    """``ordinal`` (a dict column -> order or None, a column name or a list of names, which take the natural
    sort) and ``nominal`` (a name or names) checked for form: each column once."""
    if ordinal is None:
        ordinal = {}
    elif isinstance(ordinal, str):
        ordinal = {ordinal: None}
    elif not isinstance(ordinal, dict):
        ordinal = {str(c): None for c in ordinal}
    nominal = [] if nominal is None else [nominal] if isinstance(nominal, str) else [str(c) for c in nominal]
    for name, order in ordinal.items():
        if order is not None and (isinstance(order, str) or not hasattr(order, "__iter__")):
            raise MicroaggError(f"ordinal: the order of '{name}' must be a list of its categories from lowest to "
                                f"highest (or None for the natural sort); got {order!r}.")
    both = sorted(set(map(str, ordinal)) & set(nominal))
    dup = sorted({c for c in nominal if nominal.count(c) > 1})
    if both or dup:
        raise MicroaggError(f"columns {both or dup} are listed {'both as ordinal and nominal' if both else 'twice in '}"
                            f"{'' if both else 'nominal'}: give each categorical column one kind, once.")
    return {str(c): (None if o is None else list(o)) for c, o in ordinal.items()}, nominal


def natural_key(value) -> tuple:
    """Sort key of the natural order of text: runs of digits compare as numbers ("2 rooms" < "10 rooms")."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
                 for part in re.split(r"(\d+)", str(value)) if part)


def natural_order(col: pd.Series) -> list:
    """The distinct values of ``col`` in their natural order: numbers by value, text by :func:`natural_key`; the
    categories of an ordered pandas Categorical in its own order."""
    if _ordered(col):
        return list(col.cat.categories)
    seen = pd.unique(col.dropna())
    return sorted(seen) if pd.api.types.is_numeric_dtype(col) else sorted(seen, key=natural_key)


def drop_rows(df: pd.DataFrame, ordinal: dict, nominal: list[str]) -> pd.DataFrame:
    """``df`` without the rows that miss a category of an ordinal or nominal quasi-identifier (``missing="drop"``)."""
    names = [c for c in map(str, df.columns) if c in ordinal or c in nominal]
    return df[~df[names].isna().any(axis=1)] if names else df


def encode(df: pd.DataFrame, ordinal: dict[str, list | None], nominal: list[str],
           missing: str = "refuse") -> Categories | None:
    """The codes of the categorical quasi-identifiers of ``df`` (None without any), checked: every value of an
    ordinal column in its given order, an order listing each category once, and a missing cell refused, a nominal
    column's own category (``missing="category"``) or coded ``MISSING_CODE`` (``"impute"``)."""
    if missing not in MISSING:
        raise MicroaggError(f"missing_categories must be one of {MISSING}; got {missing!r}.")
    names = [c for c in map(str, df.columns) if c in ordinal or c in nominal]
    if not names:
        return None
    levels, codes, kinds, notes = [], [], [], []
    for c in names:
        col = df[c]
        _check_missing(col, c, c in nominal, missing)
        if c in nominal:
            code, uniq = pd.factorize(col, sort=False, use_na_sentinel=missing != "category")
            kinds.append(NOMINAL)
        else:
            uniq, note = _order(col.dropna(), c, ordinal[c])
            notes += [note] if note else []
            code = pd.Index(uniq).get_indexer(col)  # -1 (MISSING_CODE) where a cell is missing
            kinds.append(ORDINAL)
        levels.append(np.asarray(uniq, dtype=None if pd.api.types.is_numeric_dtype(col) else object))
        codes.append(np.asarray(code, dtype=np.int64))
        _check_not_unique(codes[-1], c, kinds[-1], levels[-1])
    return Categories(names, kinds, levels, np.column_stack(codes), tuple(notes))


def _check_not_unique(code: np.ndarray, name: str, kind: str, levels: np.ndarray) -> None:
    """Refuse a categorical column whose categories are unique per record or nearly (at least ``UNIQUE_SHARE`` of
    the records, and ``UNIQUE_MIN``, alone in theirs): the lower median of a group is always one member's category
    and the mode of a group of distinct categories is one too, so most groups would publish a real respondent's own
    value on every one of their rows. Refused rather than warned: masking such a column cannot hide it, only
    spread it. A missing cell (``MISSING_CODE``) holds no category and is not counted alone."""
    seen = code >= 0
    alone = np.zeros(len(code), dtype=bool)
    alone[seen] = np.bincount(code[seen], minlength=len(levels))[code[seen]] == 1
    if alone.sum() >= UNIQUE_MIN and alone.mean() >= UNIQUE_SHARE:
        first = levels[code[np.flatnonzero(alone)[0]]]
        first = first.item() if isinstance(first, np.generic) else first
        raise MicroaggError(f"{kind} column '{name}' is unique per record: {100 * alone.mean():.0f} % of the records "
                            f"hold a category no other record holds (e.g. {first!r}), so the "
                            f"{'lower median' if kind == ORDINAL else 'mode'} of a group would publish a respondent's "
                            f"own value (an identifier, or nearly). Leave it out of '{kind}' (identifiers=[...] "
                            "withholds it), or merge its categories so that each is shared by several records.")


def _check_missing(col: pd.Series, name: str, nominal: bool, missing: str) -> None:
    """Refuse the missing cells of a categorical column unless ``missing`` says what to do with them, naming the
    choices (docs/methods.md §8.8)."""
    holes = int(col.isna().sum())
    if not holes or missing in ("impute", "drop") or (missing == "category" and nominal):
        return
    if missing == "category":
        raise MicroaggError(f"ordinal column '{name}' has {holes} missing value(s), which have no place in its order: "
                            "missing_categories='category' applies to nominal columns; use 'impute' or 'drop'.")
    raise MicroaggError(f"categorical column '{name}' has {holes} missing value(s) of {len(col)}. Say what to do with "
                        "them (docs/methods.md §8.8): missing_categories='impute' (the group's category, the "
                        "partition reading them as unknown), 'category' (a nominal column's own category) or "
                        "'drop' (leave those records out); --missing-categories on the command line, 'Missing "
                        "categories' in the dashboard.")


def _order(col: pd.Series, name: str, order: list | None) -> tuple[np.ndarray, str | None]:
    """The categories of an ordinal column in order, and a note when the natural sort of text chose it."""
    seen = pd.unique(col)
    if order is None and _ordered(col):
        return np.asarray(col.cat.categories, dtype=object), None
    if order is None:
        if pd.api.types.is_numeric_dtype(col):
            return np.sort(seen), None
        ranked = natural_order(col)
        if len({natural_key(v) for v in ranked}) != len(ranked):
            raise MicroaggError(f"ordinal column '{name}' has categories that differ only in letter case; give their "
                                f"order: ordinal={{'{name}': [...]}}.")
        return np.asarray(ranked, dtype=object), (
            f"ordinal column '{name}': no order given, so its categories are taken in natural sort order "
            f"{ranked}; pass ordinal={{'{name}': [lowest, ..., highest]}} (--ordinal '{name}=a<b<c') if that is "
            "not their order.")
    if len(set(map(str, order))) != len(order):
        raise MicroaggError(f"ordinal: the order of '{name}' lists a category more than once: {order}.")
    if all(isinstance(v, str) for v in order) and pd.api.types.is_numeric_dtype(col):
        lookup = {text: v for v in seen for text in (str(v), f"{v:g}")}  # the command line gives numbers as text
        order = [lookup.get(v, v) for v in order]
    index = pd.Index(order)
    unknown = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(seen)[index.get_indexer(seen) < 0]]
    if unknown:
        raise MicroaggError(f"ordinal column '{name}' has categories {unknown[:5]} that are not in its order {order}: "
                            "list every category, from lowest to highest.")
    return np.asarray(order, dtype=None if pd.api.types.is_numeric_dtype(col) else object), None


def _ordered(col: pd.Series) -> bool:
    """Whether ``col`` is an ordered pandas Categorical (its categories then carry their order)."""
    return isinstance(col.dtype, pd.CategoricalDtype) and bool(col.cat.ordered)
