"""Reading user CSV files and writing releases without losing, distorting or destroying data.

``read_csv`` is the one CSV reader of the API, the command line, the dashboard and the Dask engine:
it detects the delimiter (comma, semicolon, tab) and the decimal mark, converts numbers written as
text (thousands separators, percent signs) and says so, keeps codes written with leading zeros (a postcode
02134) and True/False columns as they are, and refuses what it cannot read faithfully
(ragged rows, duplicate or missing headers, empty files, undecodable bytes) with a message naming
the problem. ``write_csv`` writes atomically (a temporary file in the same directory, then a rename)
and neutralises cells a spreadsheet would run as a formula (``spreadsheet_safe``);
``check_output`` refuses an output that is the input, exists, or cannot be written, before any work.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..base.checks import is_numeric
from ..base.errors import MicroaggError

DELIMITERS = (",", ";", "\t")
SNIFF_ROWS = 2000  # records from which the decimal mark is told
MISSING = frozenset({"", "NA", "N/A", "NaN", "nan", "NULL", "null"})
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # cells a spreadsheet reads as a formula
_PLAIN = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?i:inf(?:inity)?)"
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


@dataclass(frozen=True)
class CsvTable:
    """A CSV file as read: ``data`` (numbers as float or int columns, text as strings, missing cells NaN; read
    from a path, ``data.attrs["source"]`` is its absolute path, so that a release of it never overwrites it), the
    ``delimiter`` and ``decimal`` mark found, and ``notes``: one sentence per conversion made and per
    text column, to be shown to the user."""

    data: pd.DataFrame
    delimiter: str
    decimal: str
    notes: tuple[str, ...] = ()

    @property
    def text_columns(self) -> list[str]:
        return [str(c) for c in self.data.columns if not is_numeric(self.data[c])]


def read_csv(source, encoding: str | None = None, name: str | None = None) -> CsvTable:
    """Read a CSV file (a path, or a binary or text file object such as an upload) with a header row.

    ``encoding`` defaults to UTF-8; a byte-order mark (a spreadsheet's "CSV UTF-8") is read as one, not as part
    of the first column's name, whatever the encoding's spelling and for text sources too. Raises
    ``MicroaggError`` naming the problem: an empty file, a header without records, a row with more or fewer
    fields than the header (its line), a duplicate or empty column name, bytes the encoding cannot decode.
    """
    name = name or _name(source)
    text = _decode(_bytes(source, name), encoding or "utf-8", name)
    skip, first = _first_line(text)
    if first is None:
        raise MicroaggError(f"{name} is empty: a CSV file needs a header row naming the columns, then one row per "
                            "record.")
    delimiter = _delimiter(first)
    raw = next(csv.reader([first], delimiter=delimiter))
    header = [h.strip() for h in raw]
    _check_header(header, name, raw)
    _check_fields(text, delimiter, name)
    head = _parse(text, skip, delimiter, header, ".", name, rows=SNIFF_ROWS)
    if head is None:
        raise MicroaggError(f"{name} has a header row ({', '.join(header)}) but no records.")
    texts = [c for c in header if not _is_parsed(head[c])]
    decimal = _decimal(head[texts], delimiter) if texts else "."
    raw = _parse(text, skip, delimiter, header, decimal, name)
    commas = [c for c in texts if is_numeric(raw[c])] if decimal == "," else []  # numbers with decimal commas
    texts = [c for c in header if not _is_parsed(raw[c])]
    codes = _zero_padded(text, skip, delimiter, header, name)
    data, notes = {}, []
    for c in header:
        if c in codes:
            data[c], note = codes[c]
            notes.append(note)
        elif c in texts:
            cells = raw[c].astype(object).where(raw[c].notna(), "").astype(str)
            data[c], note = _column(cells, c, decimal)
            notes += [note] if note else []
            if decimal == "," and is_numeric(data[c]) and cells.str.contains(",", regex=False).any():
                commas.append(c)
        else:
            data[c] = raw[c]
    if commas:
        notes.insert(0, f"{name}: {_DELIMITER_NAMES[delimiter]}-separated with decimal commas (1,5 read as 1.5).")
    frame = pd.DataFrame(data)
    if isinstance(source, (str, os.PathLike)):
        frame.attrs["source"] = os.path.abspath(os.fspath(source))  # never written over (``check_output``)
    return CsvTable(frame, delimiter, decimal, tuple(notes))


def _first_line(text: str) -> tuple[int, str | None]:
    """(number of lines before it, the first non-blank line), or (0, None) for a blank text."""
    start, skipped = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if line.strip():
            return skipped, line.rstrip("\r")
        if end < 0:
            break
        start, skipped = end + 1, skipped + 1
    return 0, None


def _parse(text: str, skip: int, delimiter: str, header: list[str], decimal: str, name: str,
           rows: int | None = None) -> pd.DataFrame | None:
    """The first ``rows`` records (default all; the lines after the header, of checked widths) with pandas' C
    parser: numbers as numbers, the rest as text; None if there are none."""
    try:
        raw = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, skiprows=skip + 1, decimal=decimal,
                          keep_default_na=False, na_values=[], skip_blank_lines=True, engine="c", nrows=rows)
    except pd.errors.EmptyDataError:
        return None
    except pd.errors.ParserError as exc:
        raise MicroaggError(f"cannot read {name} as CSV: {exc}") from None
    if raw.empty:
        return None
    raw.columns = header
    return raw


def _is_parsed(values: pd.Series) -> bool:
    """Read by the parser as numbers or as True/False (kept as they are); anything else is text to look at."""
    return is_numeric(values) or pd.api.types.is_bool_dtype(values)


def _zero_padded(text: str, skip: int, delimiter: str, header: list[str], name: str) -> dict[str, tuple]:
    """``{column: (its cells as written, a note)}`` for every column with a code written with leading zeros
    (02134): such a column holds codes (postcodes, municipality or occupation codes), kept as text, since as
    numbers 02134 and 2134 would be one value and the zeros lost. The whole file is read as text only when a
    field starts with 0 and a digit."""
    if not re.search(rf'[{re.escape(delimiter)}\n" ]0\d', text):  # a field's first digit: after the header
        return {}
    try:
        raw = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, skiprows=skip + 1, dtype=str,
                          keep_default_na=False, na_values=[], skip_blank_lines=True, engine="c")
    except pd.errors.ParserError as exc:
        raise MicroaggError(f"cannot read {name} as CSV: {exc}") from None
    raw.columns = header
    out = {}
    for c in header:
        cells = raw[c].str.strip()
        padded = cells.str.fullmatch(r"0\d+")
        if padded.any():
            out[c] = (cells.where(~cells.isin(MISSING)).astype(object),
                      f"column '{c}' holds codes written with leading zeros (e.g. {cells[padded].iloc[0]!r}): kept "
                      "as text, as written, not read as numbers.")
    return out


def csv_header(f, encoding: str | None = None, name: str = "the CSV input") -> list[str]:
    """The column names of the binary CSV file object ``f``, from its first non-blank line only (delimiter detected
    as by :func:`read_csv`)."""
    head = _decode(f.readline(1 << 20), encoding or "utf-8", name)
    while head and not head.strip():
        head = _decode(f.readline(1 << 20), encoding or "utf-8", name)
    if not head.strip():
        raise MicroaggError(f"{name} is empty: a CSV file needs a header row naming the columns, then one row per "
                            "record.")
    raw = next(csv.reader([head.rstrip("\r\n")], delimiter=_delimiter(head)))
    _check_header([h.strip() for h in raw], name, raw)
    return [h.strip() for h in raw]


def _name(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "the CSV input"))


def _bytes(source, name: str) -> bytes | str:
    if isinstance(source, (str, os.PathLike)):
        if os.path.isdir(source):
            raise MicroaggError(f"{name} is a directory, not a CSV file.")
        try:
            with open(source, "rb") as f:
                return f.read()
        except OSError as exc:
            raise MicroaggError(f"cannot read {name}: {exc.strerror or exc}.") from None
    if hasattr(source, "seek"):
        with contextlib.suppress(OSError, ValueError):
            source.seek(0)
    return source.read()


def _decode(data: bytes | str, encoding: str, name: str) -> str:
    """The text of ``data``, without the byte-order mark (U+FEFF) a UTF encoding may begin with: it is never data."""
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    for start, end, what, todo in BINARY:
        if data.startswith(start) and data.endswith(end):
            raise MicroaggError(f"{name} is {what}, not a CSV text file: {todo}.")
    try:
        utf8 = codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
    except LookupError:
        raise MicroaggError(f"unknown encoding {encoding!r}; use a Python codec name such as utf-8, latin-1 or "
                            "cp1252.") from None
    skip = len(codecs.BOM_UTF8) if utf8 and data.startswith(codecs.BOM_UTF8) else 0  # skipped without a copy
    try:
        return str(memoryview(data)[skip:], "utf-8" if utf8 else encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        at = exc.start + skip
        bad = f"{name} is not valid {encoding} (byte {at}: {data[at:at + 1]!r})"
        raise MicroaggError(f"{bad}; give its encoding, e.g. --encoding latin-1 (encoding='latin-1' in Python).",
                            on_page=f"{bad}; choose its encoding in the Encoding box (latin-1 and cp1252 are "
                                    "common).") from None


UNPACK = "give the CSV inside it (decompress or unpack it first)"
BINARY = ((b"\x1f\x8b", b"", "a gzip-compressed file", UNPACK),  # (first and last bytes, what it is, what to do)
          (b"PK\x03\x04", b"", "a zip archive (or a spreadsheet)", UNPACK),
          (b"PAR1", b"PAR1", "a Parquet file", "read it with --engine dask (a folder of Parquet files), or write it "
           "as CSV"),
          (b"\xfd7zXZ\x00", b"", "an xz-compressed file", UNPACK),
          (b"\xd0\xcf\x11\xe0", b"", "an old Excel or Office file", "save it as CSV"))


def _delimiter(header: str) -> str:
    """The candidate that splits the header into the most fields (quotes respected); comma on a tie."""
    outside = re.sub(r'"[^"]*"', "", header)
    counts = {d: outside.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] > counts[","] else ","


def _check_fields(text: str, delimiter: str, name: str) -> None:
    """Refuse the first row (blank lines aside) with more or fewer fields than the header, naming its line.
    Without quotes a field count is a delimiter count; with quotes, Python's csv module parses the rows."""
    if '"' not in text:
        counts = ((i, line.count(delimiter) + 1) for i, line in enumerate(text.splitlines(), 1) if line.strip())
    else:
        rows = csv.reader(io.StringIO(text), delimiter=delimiter)
        try:
            counts = [(rows.line_num, len(row)) for row in rows if row and (len(row) > 1 or row[0].strip())]
        except csv.Error as exc:
            raise MicroaggError(f"cannot read {name} as CSV, line {rows.line_num}: {exc}.") from None
    width = None
    for line, fields in counts:
        if width is None:
            width = fields
        elif fields != width:
            hint = (" Numbers with a decimal comma must be quoted (\"1,5\") or the file separated by semicolons."
                    if delimiter == "," and fields > width else "")
            raise MicroaggError(f"{name}, line {line}: {fields} field(s) where the header has {width} "
                                f"({_DELIMITER_NAMES[delimiter]}-separated). Every row needs one value per column; "
                                f"fix or remove that row.{hint}")


def _check_header(header: list[str], name: str, raw: list[str]) -> None:
    """Every name of ``header`` (``raw``'s, spaces at their ends removed) given, unique, and not all numbers (a file
    without a header row: its first record would be released as the column names)."""
    empty = [j + 1 for j, h in enumerate(header) if not h]
    if empty:
        raise MicroaggError(f"{name}: column {empty[0]} has no name in the header row; name every column.")
    numbers = [_number_pattern(".", False), _number_pattern(",", False)]
    if header != [str(j) for j in range(len(header))] and all(  # (0, 1, ...: a frame's default names, written)
            any(re.fullmatch(p, h) for p in numbers) for h in header):
        shown = ", ".join(header[:4]) + (", ..." if len(header) > 4 else "")
        raise MicroaggError(f"{name}: every name in the header row is a number ({shown}): the file seems to have no "
                            "header row, and its first record would be read as the column names (and released as "
                            "them). Add a first line naming the columns (names such as years need a letter: y2019).")
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        spaced = [r for r, h in zip(raw, header) if h in dup and r != h]
        why = (f" (spaces at the ends of a name are not part of it: {', '.join(map(repr, spaced))})" if spaced
               else "")
        raise MicroaggError(f"{name}: duplicate column names {dup} in the header row{why}; rename them so that "
                            "every column is unique.")


def _number_pattern(decimal: str, grouped: bool) -> str:
    d, t = re.escape(decimal), re.escape("." if decimal == "," else ",")
    if grouped:
        return rf"[+-]?\d{{1,3}}(?:{t}\d{{3}})+(?:{d}\d+)?"
    return rf"[+-]?(?:\d+(?:{d}\d*)?|{d}\d+)(?:[eE][+-]?\d+)?|[+-]?(?i:inf(?:inity)?)"


def _decimal(records: pd.DataFrame, delimiter: str) -> str:
    """',' if more cells are unambiguous decimal-comma numbers (1,5 or 1.234,5) than decimal-point ones
    (1.5 or 1,234.5), or on a tie with some of them in a semicolon- or tab-separated file; else '.'."""
    cells = pd.Series(records.to_numpy().ravel()).astype(str).str.strip().str.rstrip("%")  # (a whole number beyond
    # 64 bits comes from the parser as a Python int in a column of objects)
    comma = cells.str.fullmatch(r"[+-]?(?:\d+,(?:\d{1,2}|\d{4,})|0,\d+|\d{1,3}(?:\.\d{3})+,\d+)").sum()
    point = cells.str.fullmatch(r"[+-]?(?:\d+\.(?:\d{1,2}|\d{4,})|0\.\d+|\d{1,3}(?:,\d{3})+\.\d+)").sum()
    if comma != point:
        return "," if comma > point else "."
    ambiguous = cells.str.fullmatch(r"[+-]?\d+,\d+").sum()
    return "," if delimiter != "," and ambiguous else "."


def _numbers(cells: pd.Series) -> pd.Series:
    """Cells that all read as numbers, as numbers; whole numbers beyond 64 bits (which pandas keeps as Python ints,
    or refuses beyond the 4300 digits Python converts) are read as floats, beyond float64's range infinite like
    1e400, which a release then refuses by name."""
    try:
        out = pd.to_numeric(cells)
    except ValueError:
        out = None
    return cells.astype("float64") if out is None or out.dtype == object else out  # (from the text: never an int
    # too large to convert)


def _column(values: pd.Series, name: str, decimal: str) -> tuple[pd.Series, str]:
    """The column as numbers if every non-missing cell is one (converting text forms), else as text."""
    cells = values.str.strip()
    missing = cells.isin(MISSING)
    present = cells[~missing]
    if present.empty:
        return pd.Series(float("nan"), index=values.index, dtype="float64"), ""
    if decimal == "." and present.str.fullmatch(_PLAIN).all():
        return _numbers(cells.where(~missing)), ""
    percent = present.str.endswith("%")
    body = present.str.removesuffix("%").str.strip()
    grouped = body.str.fullmatch(_number_pattern(decimal, True))
    plain = body.str.fullmatch(_number_pattern(decimal, False))
    if not (grouped | plain).all():
        first = present[~(grouped | plain)].iloc[0]
        return values.where(~missing), f"column '{name}' is text (e.g. {first!r}), not numbers."
    thousands = "." if decimal == "," else ","
    clean = body.where(~grouped, body.str.replace(thousands, "", regex=False))
    clean = clean.str.replace(decimal, ".", regex=False) if decimal == "," else clean
    out = _numbers(clean.reindex(values.index))
    what = [w for w, used in (("thousands separators", grouped.any()), ("percent signs (values kept in percent)",
                                                                        percent.any())) if used]
    note = f"column '{name}': numbers written with {' and '.join(what)} converted to numbers." if what else ""
    return out, note


# ----------------------------------------------------------------------------- writing


def neutralise(df: pd.DataFrame, index: bool = False) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names starting with ``= + - @``, tab or CR start with a single
    quote, so that a spreadsheet shows them as text instead of running them as a formula (the usual rule
    against CSV injection); with ``index`` also the index labels and the index names (every level of a
    MultiIndex). Text is any label or cell held as a string, whatever the dtype (object, pandas' ``str`` and
    ``string``, categories). Numbers, including negative ones, are left as they are."""
    out = df.copy()
    for c in out.columns:
        if _text_dtype(out[c].dtype):
            out[c] = out[c].astype(object).map(_safe)
    out.columns = _safe_labels(out.columns)
    if index:
        out.index = _safe_labels(out.index)
    return out


def _safe(value):
    """``value`` with a single quote before it if it is text a spreadsheet would run as a formula."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def _text_dtype(dtype) -> bool:
    return pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype | pd.CategoricalDtype)


def _safe_labels(labels: pd.Index) -> pd.Index:
    """``labels`` (an index or the columns) with text labels and names made safe, level by level."""
    if isinstance(labels, pd.MultiIndex):
        levels = [_safe_labels(labels.get_level_values(j)) for j in range(labels.nlevels)]
        return pd.MultiIndex.from_arrays(levels, names=[_safe(n) for n in labels.names])
    out = labels.astype(object).map(_safe) if _text_dtype(labels.dtype) else labels.copy()
    return out.rename(_safe(labels.name))


def write_csv(df: pd.DataFrame, path=None, spreadsheet_safe: bool = True, **kwargs):
    """Write ``df`` as CSV to ``path`` atomically (a temporary file in the same directory, renamed when complete:
    a failure leaves no partial file); ``path=None`` returns the text. ``spreadsheet_safe`` applies
    :func:`neutralise`. Other keywords go to ``DataFrame.to_csv``."""
    if spreadsheet_safe:
        df = neutralise(df, index=kwargs.get("index", True))
        for name in ("index_label", "header", "na_rep"):  # labels and cells given here are written too
            given = kwargs.get(name)
            if isinstance(given, str):
                kwargs[name] = _safe(given)
            elif isinstance(given, Sequence):
                kwargs[name] = [_safe(v) for v in given]
    if path is None or hasattr(path, "write"):
        return df.to_csv(path, **kwargs)
    with _atomic(path, kwargs.pop("encoding", "utf-8")) as f:
        df.to_csv(f, **kwargs)
    return None


def write_text(text: str, path) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, like :func:`write_csv` (e.g. an HTML report)."""
    with _atomic(path, "utf-8") as f:
        f.write(text)


@contextlib.contextmanager
def _atomic(path, encoding: str):
    """A text file in the folder of ``path``, renamed to ``path`` when complete: a failure leaves no partial file."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding=encoding) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_output(path, inputs: Sequence = (), force: bool = False, directory: bool = False) -> str:
    """Refuse an output ``path`` before any work: the same file as one of ``inputs`` (also through a link or
    another spelling), an existing file unless ``force``, a missing or unwritable folder, a directory where a
    file is expected (or a file where a directory is, with ``directory``). Returns the absolute path."""
    shown = os.fspath(path)
    full = os.path.abspath(shown)
    for given in inputs:
        if isinstance(given, (str, os.PathLike)) and same_file(full, given):
            raise MicroaggError(f"the output {shown} is the input file: writing it would destroy the original "
                                "data. Choose another output name.")
    folder = os.path.dirname(full)
    if not os.path.isdir(folder):
        raise MicroaggError(f"cannot write {shown}: the folder {folder} does not exist. Create it first.")
    if not os.access(folder, os.W_OK):
        raise MicroaggError(f"cannot write {shown}: the folder {folder} is not writable.")
    if os.path.isdir(full) and not directory:
        raise MicroaggError(f"the output {shown} is a directory; give a file name, e.g. "
                            f"{os.path.join(shown, 'release.csv')}.")
    if os.path.islink(full):  # (a link would be replaced by the file, its target left as it was)
        raise MicroaggError(f"the output {shown} is a symbolic link (to {os.readlink(full)}); give the path of the "
                            "file itself, or a new name.")
    if os.path.exists(full) and not (os.path.isfile(full) or os.path.isdir(full)):
        raise MicroaggError(f"the output {shown} is not a regular file (a device, a pipe or a socket): the release "
                            "is written to a file, replacing it whole. Give a file name.")
    limit = _name_max(folder)
    if not directory and len(os.fsencode(os.path.basename(full))) + TMP_EXTRA > limit:
        raise MicroaggError(f"cannot write {shown}: its name is too long for this file system (at most "
                            f"{limit - TMP_EXTRA} bytes). Choose a shorter name.")
    if os.path.exists(full) and directory and not os.path.isdir(full):
        raise MicroaggError(f"the output {shown} is a file; give a directory for the Parquet files.")
    if os.path.exists(full) and not force and not (directory and not os.listdir(full)):
        raise MicroaggError(f"the output {shown} already exists; choose a new name, or pass --force (force=True) to "
                            "replace it.")
    return full


TMP_EXTRA = 14  # bytes :func:`_atomic`'s temporary file adds to a name ("." + "." + 8 random + ".tmp")


def _name_max(folder: str) -> int:
    """The longest file name ``folder``'s file system allows, in bytes (255 where it cannot say)."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return 255
    return limit if limit > 0 else 255  # (-1: no limit the system will say)


def same_file(a, b) -> bool:
    """Whether the paths ``a`` and ``b`` name one file, existing or not (through links, another spelling, a folder
    reached through a link)."""
    a, b = os.path.abspath(os.fspath(a)), os.path.abspath(os.fspath(b))
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)
