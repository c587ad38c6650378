"""What around the masked columns could give a respondent away: identifiers, the index, key columns, row order.

``identifiers(df)`` names the columns treated as direct identifiers (never masked nor released unless chosen):
the ones a bundled data set declares (``df.attrs["roles"]["identifiers"]``), or, for other data, a column
whose name says so (id, ID, *_id, key, ssn, ...) or whose values look like record numbers. ``key_codes``
turns the key columns an intruder knows (categorical or numeric) into integer codes for the k-anonymity check
(docs/metrics.md §4.13); ``permutation`` is the seeded shuffle of the released rows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .errors import MicroaggError

# id, ID, Id, user_id, user-id, user id, userId, UserID, id_number, key, ssn, uuid, guid
_ID_NAME = re.compile(r"^(id|key|ssn|uuid|guid)$|^id[_\s.-]|[_\s.-](id|key|ssn)$", re.IGNORECASE)
_CAMEL_ID = re.compile(r"[a-z](Id|ID)$")  # case-sensitive: userId, UserID, but not paid or valid


def _name_says_id(name: str) -> bool:
    return bool(_ID_NAME.search(name) or _CAMEL_ID.search(name))


def _record_numbers(s: pd.Series) -> bool:
    """Every value a distinct non-negative whole number, either increasing down the file or filling at least half
    of their range (1..n in any order): a record number. Measurements that happen to be distinct whole numbers
    (incomes) are neither."""
    if len(s) < 3 or not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        return False
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if not (np.isfinite(v).all() and (v == np.round(v)).all() and v.min() >= 0 and len(np.unique(v)) == len(v)):
        return False
    return bool((np.diff(v) > 0).all() or np.ptp(v) < 2 * len(v))


def identifiers(df: pd.DataFrame) -> dict[str, str]:
    """Columns of ``df`` treated as identifiers, each with the reason: ``{column: reason}``.

    A bundled data set declares its identifiers (``attrs["roles"]["identifiers"]``, e.g. EIA's UTILITYID) and
    then only those count; for other data a column is an identifier when its name says so (id, ID, *_id, *Id,
    id_*, key, ssn, uuid, guid) or when its values look like record numbers: distinct non-negative whole numbers,
    increasing down the file or filling at least half of their range (1..n in any order).
    ``microaggregate`` neither masks nor releases them unless they are named in ``columns``, ``keep`` or
    ``identifiers``.
    """
    names = [str(c) for c in df.columns]
    declared = df.attrs.get("roles", {}).get("identifiers")
    if declared is not None:
        return {c: "declared by the data set" for c in names if c in declared}
    out = {}
    for c, col in zip(names, df.columns):
        if _name_says_id(c):
            out[c] = "its name marks an identifier"
        elif _record_numbers(df[col]):
            out[c] = "its values look like record numbers (distinct whole numbers)"
    return out


def chosen_identifiers(df: pd.DataFrame, given) -> dict[str, str]:
    """``{column: reason}`` of the identifiers: ``given`` (a list, ``[]`` for none) or, if None, detected."""
    if given is None:
        return identifiers(df)
    cols = [given] if isinstance(given, str) else [str(c) for c in given]
    names = [str(c) for c in df.columns]
    missing = [c for c in cols if c not in names]
    if missing:
        raise MicroaggError(f"identifiers: columns {missing} are not in the data; available: {names}.")
    return {c: "named in 'identifiers'" for c in names if c in cols}


def meaningful_index(df: pd.DataFrame) -> str | None:
    """A description of ``df``'s index when it carries information (a name, or anything but 0, 1, ..., n-1)."""
    idx = df.index
    plain = isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1 and idx.name is None
    if plain:
        return None
    names = [n for n in idx.names if n is not None]
    return f"index {', '.join(map(str, names))!r}" if names else f"an index of {idx.dtype} labels"


def key_codes(df: pd.DataFrame, cols: list[str]) -> np.ndarray:
    """Integer codes (n x len(cols)) of the key columns: equal values share a code, missing values one of their
    own."""
    if not cols:
        return np.empty((len(df), 0), dtype=np.int64)
    return np.column_stack([pd.factorize(df[c], use_na_sentinel=False)[0] for c in cols]).astype(np.int64)


def class_ids(codes: np.ndarray) -> np.ndarray:
    """One id per distinct row of ``codes`` (n x m integer codes; all 0 when m = 0)."""
    if codes.shape[1] == 0:
        return np.zeros(len(codes), dtype=np.int64)
    return np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


def permutation(n: int, seed) -> tuple[np.ndarray, int]:
    """A uniformly random order of ``n`` rows and the seed that gives it (drawn from the OS when ``seed`` is None:
    a fixed default seed would let anyone who knows it undo the shuffle)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**63)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MicroaggError(f"seed must be a non-negative integer; got {seed!r}.")
    return np.random.default_rng(int(seed)).permutation(n), int(seed)


def uniform_patterns(missing: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """The cells to release as missing so that every group's rows fall into missingness patterns of at least k
    rows (docs/methods.md §8.5): ``missing`` (n x d) the missing cells, ``labels`` the groups (each of >= k).

    In a group, while some pattern is shared by fewer than k members, the smallest such class (the first in
    the sorted order of patterns on a tie) is merged with the class that costs the fewest cells to suppress
    (both take the union of their patterns; ties to the first class). The number of classes falls by one each
    time, so at worst the whole group shares one pattern; only observed cells are ever added.
    """
    out = np.asarray(missing, dtype=bool).copy()
    mixed = np.flatnonzero(out.any(axis=1))
    for g in np.unique(labels[mixed]):
        rows = np.flatnonzero(labels == g)
        P = out[rows]
        while True:
            pats, inverse, counts = np.unique(P, axis=0, return_inverse=True, return_counts=True)
            inverse = inverse.reshape(-1)
            if counts.min() >= k:
                break
            a = int(np.argmin(counts))
            cost = counts[a] * (pats & ~pats[a]).sum(axis=1) + counts * (pats[a] & ~pats).sum(axis=1)
            cost[a] = np.iinfo(np.int64).max
            b = int(np.argmin(cost))
            P[(inverse == a) | (inverse == b)] = pats[a] | pats[b]
        out[rows] = P
    return out
