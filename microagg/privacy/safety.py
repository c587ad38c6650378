"""What around the masked columns could give a respondent away: identifiers, the index, key columns, row order.

``identifiers(df)`` names the columns treated as direct identifiers (never masked nor released unless chosen):
the ones a bundled data set declares (``df.attrs["roles"]["identifiers"]``), or, for other data, a column
whose name says so (id, ID, *_id, key, ssn, ...) or whose values look like record numbers or codes, judged on its
observed cells so that a missing cell or a stray text value does not hide it. ``sampling_weight_columns`` names
the columns that look like a survey's sampling weights (withheld, and proposed as ``sampling_weights``).
``key_codes`` turns the key columns an intruder knows (categorical or numeric) into integer codes for the
k-anonymity check (docs/metrics.md §4.13); ``permutation`` is the seeded shuffle of the released rows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..base.checks import is_numeric
from ..base.errors import MicroaggError

# id, ID, Id, user_id, user-id, user id, userId, UserID, id_number, key, ssn, uuid, guid; caseid, seqn, serial(no),
# recno, respid; patient_number, account_num, case_nr, phone_no (a number of a person, a case, an account: not
# rooms_number); "Unnamed: 0", "index", "level_0" (a CSV's saved row labels, a reset index, as pandas names them);
# identity numbers of other languages and registers (dni, nif, cpf, curp, cedula, nss, personnummer, identificador,
# mrn, nhs number, iban), survey files' record and household numbers (idx, rowid, hhid, idhogar, idpersona, personid,
# persnr, hhnr, lfd_nr, folio, noindiv, respondent); "level_0" (a reset index)
_ID_NAME = re.compile(r"^(id|key|ssn|uuid|guid|caseid|seqn|serial|serialno|recno|respid|level_0|idx|rowid|hhid|"
                      r"dni|nif|nie|cpf|curp|rut|cedula|nss|personnummer|identificador|identifier|ident|mrn|iban|"
                      r"respondent|persnr|hhnr|lfd[_\s.-]?nr|folio|noindiv|"
                      r"id(persona|hogar|vivienda|individuo|indiv|pers|hh|household)|"
                      r"(person|tax|house|household|hh|family|respondent|patient|client|customer|member|user|case|"
                      r"record|child)id)$|^nhs[_\s.-]?(number|num|nr|no)$|^id[_\s.-]|"
                      r"[_\s.-](id|key|ssn)$|^unnamed:\s*\d+$|(^|[_\s.-])(patient|case|account|record|serial|"
                      r"phone|customer|client|member|respondent|person|policy|claim|passport|licen[cs]e|employee|"
                      r"student|social[_\s.-]?security)[_\s.-]?(number|num|nr|no)$", re.IGNORECASE)
_CAMEL_ID = re.compile(r"[a-z](Id|ID)$|^(Id|ID)[A-Z][a-z]")  # case-sensitive: userId, UserID, IdPersona, but not
# paid, valid, Idaho or IDENTITY
# names that mark an identifier only when the values are distinct too: a contact (a phone number, an email, a
# passport's number) is one, a survey's indicator of owning a phone or a passport (0/1) or a count of emails is not
# (a saved row label, "index", is caught by its values: record numbers)
_CONTACT_NAME = re.compile(r"^(phone|telephone|tel[eé]fono|mobile|passport)$|"
                           r"(^|[_\s.-])(e[_\s.-]?mail|email)([_\s.-]|$)", re.IGNORECASE)
DISTINCT = 0.9  # share of a column's observed values that must differ for a contact name to mark an identifier
# a word of a column name that names a sampling weight: weight(s) alone or after a survey prefix (pweight,
# final_weight, dweight), any word ending in wgt or wght (finalwgt, afnlwgt, pspwght), wt as a whole word or
# after a survey prefix (perwt, hhwt), pw and the pw... forms of survey files (pwgtp, pwt, pweight)
_WEIGHT_WORD = re.compile(r"(?:p|f|a|i|d|an|hh|per|pers|person|fin|final|samp|sample|sampling|survey|design|base|"
                          r"calib|post|rep)?weights?\d*|[a-z]*wg(?:h)?tp?s?\d*|(?:per|hh|asec|p)?wts?\d*|"
                          r"pw(?:gtp?|t|eight)?\d*")
# words that make a weight a physical one (a body weight, a parcel's weight), never a sampling weight
_PHYSICAL = frozenset({"kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "g", "gr", "gram", "grams", "lb", "lbs",
                       "pound", "pounds", "oz", "ounce", "ounces", "st", "stone", "ton", "tons", "tonne", "tonnes",
                       "body", "birth", "baby", "infant", "net", "gross", "dry", "wet", "mol", "molecular", "atomic",
                       "bmi", "height", "gain", "loss", "change"})
MIN_RECORDS = 3  # observed values a value rule needs: two points always lie on a line


def _name_says_id(name: str) -> bool:
    return bool(_ID_NAME.search(name) or _CAMEL_ID.search(name))


def _words(name: str) -> list[str]:
    """The words of a column name, split at non-alphanumerics and camelCase: finalWeight -> final, weight."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", re.sub(r"[^A-Za-z0-9]+", " ", name))]


def _numbers(s: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """(observed values, their row positions) of a column of numbers, or of a text column most of whose observed
    cells read as numbers (the rest, e.g. a stray 'n/a', taken as missing); None for any other column."""
    if pd.api.types.is_bool_dtype(s) or isinstance(s.dtype, pd.CategoricalDtype):
        return None
    if not is_numeric(s):
        if pd.api.types.is_complex_dtype(s) or not (pd.api.types.is_object_dtype(s) or
                                                    pd.api.types.is_string_dtype(s)):
            return None
        seen = s.dropna()
        if 2 * seen.nunique() <= len(seen):  # record numbers are distinct and most of the observed cells
            return None
        s = pd.to_numeric(s.astype(str).str.strip(), errors="coerce")
        if 2 * int(s.notna().sum()) <= len(seen):
            return None
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    rows = np.flatnonzero(~np.isnan(v))
    return v[rows], rows


def _record_numbers(s: pd.Series) -> str | None:
    """Why the observed values of ``s`` look like record numbers, or None: at least 3 distinct non-negative whole
    numbers that either fill at least half of their range (1..n in any order, some records or cells missing) or
    number the rows down the file by a constant step (1001, 1002, ... or 5, 10, 15, ..., every missing cell
    skipped by the same step). A sorted measurement (incomes in ascending order) rises by uneven steps over a range
    far wider than its count, so it is neither."""
    found = _numbers(s)
    if found is None:
        return None
    v, rows = found
    if len(v) < MIN_RECORDS or not np.isfinite(v).all() or v.min() < 0 or (v != np.round(v)).any() or \
            v.max() >= 2**53 or len(np.unique(v)) < len(v):
        return None
    if np.ptp(v) < 2 * len(v):
        return "its values look like record numbers (distinct whole numbers filling most of their range)"
    step = (v[-1] - v[0]) / (rows[-1] - rows[0])
    if step == np.round(step) and (v == v[0] + step * (rows - rows[0])).all():
        return f"its values look like record numbers (whole numbers rising by a constant step of {abs(step):g})"
    return None


def _codes(s: pd.Series) -> str | None:
    """Why ``s`` looks like codes of records, or None: text (or categories) whose observed values are all
    distinct, at least 3 of them: one code per record, whatever its pattern (A-0012, 00017, a name)."""
    text = pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s) or \
        isinstance(s.dtype, pd.CategoricalDtype)
    seen = s.dropna()
    if not text or len(seen) < MIN_RECORDS or not seen.astype(str).is_unique:
        return None
    return "its values are text codes, a distinct one on every record"


def identifiers(df: pd.DataFrame) -> dict[str, str]:
    """Columns of ``df`` treated as identifiers, each with the reason: ``{column: reason}``.

    A bundled data set declares the roles of its columns (``attrs["roles"]``: its identifiers, e.g. EIA's
    UTILITYID, and the others as quasi-identifiers, confidential or weights); the rules below judge every column it
    does not declare: pandas carries ``attrs`` through copies and slices, so a frame made from a bundled set keeps
    its declaration while a column added to it (an ssn, a customer number) may be anything. A column is an
    identifier when its name says so (id, ID, *_id, *Id,
    id_*, key, ssn, uuid, guid, caseid, seqn, serial, recno, respid, the number of a patient, case, account, phone,
    ... (patient_number, account_num, case_nr), and "Unnamed: 0", the name pandas gives a CSV's saved row labels),
    when its values look like record numbers (at least 3 distinct non-negative whole numbers filling at least half
    of their range, in any order, or rising or falling down the file by one constant step) or when it is text with
    a distinct value on every record. The values rules look at
    the observed cells only: a missing cell, or a stray text cell ('n/a', '-') among numbers, does not hide a record
    number. A measurement sorted in ascending order is not a record number: its steps are uneven and its range far
    wider than its count. ``microaggregate`` neither masks nor releases them unless they are named in ``columns``,
    ``keep`` or ``identifiers``.
    """
    names = [str(c) for c in df.columns]
    declared, known = _declared(df, "identifiers")
    out = {}
    for j, c in enumerate(names):
        s = df.iloc[:, j]
        why = "declared by the data set" if c in declared else None if c in known else \
            "its name marks an identifier" if _name_says_id(c) else \
            "its name marks a contact and its values are distinct" if _contact(c, s) else \
            _codes(s) or _record_numbers(s)
        if why:
            out[c] = why
    return out


def _contact(name: str, s: pd.Series) -> bool:
    """Whether ``name`` names a contact (:data:`_CONTACT_NAME`) and the observed values nearly all differ
    (:data:`DISTINCT`)."""
    seen = s.dropna()
    return bool(_CONTACT_NAME.search(name)) and len(seen) >= MIN_RECORDS and seen.nunique() >= DISTINCT * len(seen)


def _declared(df: pd.DataFrame, role: str) -> tuple[set, set]:
    """(the columns a bundled data set declares in ``role``, every column it declares in any role)."""
    roles = df.attrs.get("roles", {})
    given = {str(c) for v in roles.values() if isinstance(v, (list, tuple)) for c in v}
    return {str(c) for c in roles.get(role) or ()}, given


def sampling_weight_columns(df: pd.DataFrame) -> list[str]:
    """The columns of ``df`` that look like a survey's sampling weights (docs/methods.md §8.6), in column order.

    A bundled data set declares them (``attrs["roles"]["weights"]``, none for the benchmarks: Census's AFNLWGT is
    declared a quasi-identifier); the rule below judges every column it does not declare (a frame made from a
    bundled set keeps its ``attrs``): a column is one when a word of its name names a weight (weight, weights,
    *_weight, pweight, dweight, wgt, finalwgt, *wgt, *wght, wt as a word, perwt, hhwt, pw, pwgtp, ...) and none
    makes it a physical weight (kg, lb, body, birth, net, gain, ...: ``weight_kg``, ``body_weight`` are not), and
    every value is a finite number > 0.
    A body weight named plain ``weight`` is taken for a sampling weight: name it ``weight_kg``, or name it in
    ``columns`` to mask it. ``microaggregate`` withholds such a column (neither masked nor released) unless it is
    given a role, and the dashboard proposes the first one as the sampling weights.
    """
    names = [str(c) for c in df.columns]
    declared, known = _declared(df, "weights")
    out = []
    for j, c in enumerate(names):
        if c in declared:
            out.append(c)
            continue
        words = _words(c)
        if c in known:
            continue
        if not any(_WEIGHT_WORD.fullmatch(w) for w in words) or _PHYSICAL.intersection(words):
            continue
        s = df.iloc[:, j]
        if is_numeric(s):
            w = s.to_numpy(dtype=np.float64, na_value=np.nan)
            if (np.isfinite(w) & (w > 0)).all():
                out.append(c)
    return out


def weight_reason(name: str) -> str:
    """Why a column that looks like a sampling weight is withheld, and how to use it."""
    return (f"its name marks a sampling weight: sampling_weights='{name}' (--sampling-weights {name}) weights the "
            "release, keep releases it, columns masks it")


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
