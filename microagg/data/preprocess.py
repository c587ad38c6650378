"""Validation of user data, z-scores, destandardization and renormalization.

Mortazavi & Jalili 2017, §2.1 (z-scores with the population sd), Eq. 5 (renormalization) and
Eq. 6 (destandardization); Abidi, Ben Yahia & Perera 2018, §4.1 (min-max scaling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.checks import check_finite, is_numeric
from ..base.errors import MicroaggError


def as_frame(data) -> pd.DataFrame:
    """Wrap an array-like as a DataFrame (columns ``x0, x1, ...``); DataFrames pass as they are, except that
    column labels that are not strings (``pd.DataFrame(array)``: 0, 1, ...) become strings ("0", "1", ...)
    in a new frame sharing the data; an unnamed Series becomes column ``x0``. Columns of several levels (a
    MultiIndex) or without a name (None, NaN, "") are refused: their names would not survive a CSV."""
    if isinstance(data, pd.DataFrame):
        if isinstance(data.columns, pd.MultiIndex):
            raise MicroaggError(f"the data's columns have {data.columns.nlevels} levels (a pandas MultiIndex, e.g. "
                                f"{data.columns[0]!r}): give each column one name, e.g. df.columns = "
                                "['_'.join(map(str, c)) for c in df.columns].")
        unnamed = [j for j, c in enumerate(data.columns) if (c == "" if isinstance(c, str) else pd.isna(c))]
        if unnamed:
            raise MicroaggError(f"column {unnamed[0] + 1} of the data has no name ({data.columns[unnamed[0]]!r}); "
                                "name every column.")
        if all(isinstance(c, str) for c in data.columns):
            return data
        return data.rename(columns=str)
    if isinstance(data, pd.Series):
        return data.to_frame(name="x0" if data.name is None else str(data.name))
    arr = np.asarray(data)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise MicroaggError(f"data must be 2-D (records x attributes); got an array of shape {arr.shape}.")
    return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])


def select_columns(df: pd.DataFrame, columns: Sequence[str] | None = None) -> list[str]:
    """Check ``columns`` against ``df`` and return them; ``None`` means every numeric column.

    Raises on duplicate names, unknown names and non-numeric selected columns.
    """
    names = [str(c) for c in df.columns]
    dup = sorted({c for c in names if names.count(c) > 1})
    if dup:
        raise MicroaggError(f"duplicate column names {dup}: rename them so that every column is unique.")
    complex_ = [str(c) for c in df.columns if pd.api.types.is_complex_dtype(df[c])]
    if complex_ and (columns is None or set(complex_) & set([columns] if isinstance(columns, str) else columns)):
        raise MicroaggError(f"columns {complex_} hold complex numbers: microaggregation needs real numbers. "
                            "Split them into real and imaginary parts (two columns) if both matter, or drop them.")
    if columns is None:
        cols = [str(c) for c in df.columns if is_numeric(df[c])]
        if not cols:
            raise MicroaggError("the data have no numeric column to microaggregate.")
        return cols
    if isinstance(columns, str):
        columns = [columns]
    cols = [str(c) for c in columns]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise MicroaggError(f"columns {dup} are listed more than once in 'columns'.")
    if not cols:
        raise MicroaggError("'columns' is empty: select at least one numeric column.")
    missing = [c for c in cols if c not in names]
    if missing:
        raise MicroaggError(f"columns {missing} are not in the data; available: {names}.")
    bad = [f"'{c}' ({df[c].dtype})" for c in cols if not is_numeric(df[c])]
    if bad:
        raise MicroaggError(
            f"column {', '.join(bad)} is not numeric: microaggregation needs numbers. "
            "Drop it from 'columns' (or convert it), or mask it as a category with 'nominal' or 'ordinal'."
        )
    return cols


def numeric_matrix(df: pd.DataFrame, columns: Sequence[str] | None = None, min_rows: int = 1,
                   missing: bool = False) -> np.ndarray:
    """Validated float64 copy of ``df[columns]``: no infinity, at least ``min_rows`` rows; no NaN unless
    ``missing`` (then missing cells stay NaN, and a column with no observed value is refused)."""
    df = as_frame(df)
    cols = select_columns(df, columns)
    if len(df) == 0:
        raise MicroaggError("the data are empty (0 records).")
    X = df[cols].to_numpy(dtype=np.float64, copy=True)
    if missing:
        empty = [c for c, seen in zip(cols, (~np.isnan(X)).any(axis=0)) if not seen]
        if empty:
            raise MicroaggError(f"columns {empty} have no observed value: nothing can be microaggregated in them. "
                                "Leave them out of the masked columns.")
    check_finite(np.where(np.isnan(X), 0.0, X) if missing else X, cols, index=df.index)
    if len(X) < min_rows:
        raise MicroaggError(
            f"the data have {len(X)} records but k = {min_rows}: a k-anonymous release needs at "
            "least k records. Lower k or supply more records."
        )
    return X


@dataclass(frozen=True)
class Standardizer:
    """Per-attribute mean and population sd (Mortazavi & Jalili 2017, §2.1).

    A constant attribute gets ``sd = 1``: its z-scores are 0 and it is restored exactly. ``fit`` computes
    them on each column divided by its largest magnitude, so that values from 1e-300 to 1e300 neither
    underflow nor overflow when squared.
    """

    mean: np.ndarray
    sd: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray) -> Standardizer:
        X = np.asarray(X, dtype=np.float64)
        if np.isnan(X).any():  # missing cells: the moments of the observed ones (docs/methods.md §8.1)
            return cls._fit(X, np.nanmax, np.nanmean, np.nanstd)
        return cls._fit(X, np.max, np.mean, np.std)

    @classmethod
    def _fit(cls, X, top, mean, std) -> Standardizer:
        scale = top(np.abs(X), axis=0) if len(X) else np.ones(X.shape[1:])
        scale = np.where((scale > 0) & np.isfinite(scale), scale, 1.0)
        Xs = X / scale
        mean = mean(Xs, axis=0) * scale
        sd = std(Xs, axis=0) * scale
        sd = np.where(sd > 0, sd, 1.0)
        return cls(mean=mean, sd=sd)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """z = (v - mean) / sd."""
        return (np.asarray(X, dtype=np.float64) - self.mean) / self.sd

    def inverse(self, Z: np.ndarray) -> np.ndarray:
        """v' = z' sd + mean (Mortazavi & Jalili 2017, Eq. 6 and Eq. 18)."""
        return np.asarray(Z, dtype=np.float64) * self.sd + self.mean


def check_scale(X: np.ndarray, names: Sequence[str], std: Standardizer) -> np.ndarray:
    """z-scores of ``X`` with ``std``, refusing a column whose values float64 cannot standardize (z-scores
    or their squared distances overflow, or the spread is below the smallest normal number), naming it."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Z = std.transform(X)
        back = std.inverse(Z)
    missing = np.isnan(X)
    top = np.nanmax(np.abs(X), axis=0) if len(X) else np.zeros(X.shape[1])
    for j, name in enumerate(names):
        if not (np.isfinite(Z[:, j]) | missing[:, j]).all() or not (np.isfinite(back[:, j]) | missing[:, j]).all():
            raise MicroaggError(f"column '{name}' has values up to {top[j]:.3g}: its deviations from the mean overflow "
                                "float64 (largest about 1.8e308), so it cannot be standardized. Rescale it (e.g. "
                                "divide by 1e10) and try again.")
        with np.errstate(over="ignore"):  # (a spread past float64's largest is inf: not below the threshold)
            spread = np.nanmax(X[:, j]) - np.nanmin(X[:, j]) if len(X) else 0.0
        if std.sd[j] < np.finfo(np.float64).tiny and spread > 0:
            raise MicroaggError(f"column '{name}' varies by only {spread:.3g}: below the smallest normal "
                                "float64 (2.2e-308), it cannot be standardized. Rescale it (e.g. multiply by 1e10) "
                                "and try again.")
    return Z


def standardize(data, columns: Sequence[str] | None = None) -> np.ndarray:
    """z-scores (population sd) of the numeric ``columns`` of ``data`` as an n x d float array."""
    X = numeric_matrix(as_frame(data), columns)
    return Standardizer.fit(X).transform(X)


def destandardize(Z: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Back to original units with the original data's mean and sd (Mortazavi & Jalili 2017, Eq. 6)."""
    return Standardizer(np.asarray(mean, float), np.asarray(sd, float)).inverse(Z)


def renormalize(Zp: np.ndarray) -> np.ndarray:
    """Restore mean 0 and unit population variance per attribute (Mortazavi & Jalili 2017, Eq. 5).

    For mean aggregation the masked mean is already 0, so this is Eq. 5's
    ``x' = C_j / sigma_TC``; for other aggregators the mean is removed first.
    An attribute whose masked values are all equal (sigma_TC = 0) is left centred
    at 0 rather than divided by zero.
    """
    Zp = np.asarray(Zp, dtype=np.float64)
    centred = Zp - Zp.mean(axis=0)
    s = centred.std(axis=0)
    return np.where(s > 0, centred / np.where(s > 0, s, 1.0), 0.0)


def minmax_scale(X) -> np.ndarray:
    """Every column mapped to [0, 1] by (v - min v) / (max v - min v) (Abidi, Ben Yahia & Perera 2018, §4.1;
    docs/methods.md §1.5).

    A constant column becomes 0. Affine in each column, so z-scores and raw values give the same result.
    """
    X = np.asarray(X, dtype=np.float64)
    low = X.min(axis=0)
    span = X.max(axis=0) - low
    return np.where(span > 0, (X - low) / np.where(span > 0, span, 1.0), 0.0)
