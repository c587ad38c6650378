"""The dashboard's upload path through Streamlit's AppTest: hostile CSV files give one message, never a
traceback; numbers in text form are converted and said; all-identical data release with IL undefined; a file of
P3M's w per record is read by the same reader, with its messages."""

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import microagg as ma
import microagg.base.advice

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def upload(content: bytes, name: str = "mine.csv") -> AppTest:
    """The dashboard with ``content`` uploaded and the Release tab open (only the open tab runs)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.radio(key="source").set_value("upload").run()
    at.file_uploader[0].set_value((name, content, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def messages(at: AppTest, kind: str) -> str:
    return " ".join(str(e.value) for e in getattr(at, kind))


@pytest.mark.parametrize(("content", "expected"), [
    (b"income,age\n123,45,30\n200,10,40\n150,20,50\n", "line 2: 3 field(s) where the header has 2"),
    (b"a,b\n1,2\n3\n", "line 3: 1 field(s)"),
    (b"", "is empty"),
    (b"a,b\n", "has a header row (a, b) but no records"),
    (b"a,a\n1,2\n3,4\n", "duplicate column names ['a']"),
    ("größe,b\n1,2\n3,4\n".encode("latin-1"), "not valid utf-8"),
    (b"name,city\nann,x\nbob,y\n", "no numeric column"),
])
def test_bad_uploads_are_one_message(content, expected):
    at = upload(content)
    assert expected in messages(at, "error")
    assert not at.metric  # nothing computed


def test_numbers_in_text_form_are_converted_and_said():
    rows = "".join(f'"{1000 + 37 * j:,}",{j}%,{j * j}\n' for j in (i * 5 % 12 for i in range(12)))  # no row numbers
    at = upload(f"amount,share,sq\n{rows}".encode())
    assert not at.error
    assert "'amount': numbers written with thousands separators" in messages(at, "info")
    assert "'share': numbers written with percent signs" in messages(at, "info")
    assert [m.label for m in at.metric][0] == "Information loss (IL)"


def test_semicolons_decimal_commas_and_bom():
    rows = "".join(f"{i},5;{(i * 7) % 13},25\n" for i in range(12))
    at = upload(("\ufeffx;y\n" + rows).encode())
    assert not at.error and "decimal commas" in messages(at, "info")


def test_a_text_column_is_dropped_with_a_warning():
    rows = "".join(f"{i},{i * i % 7},=name{i % 4}\n" for i in range(12))  # (repeated: not an identifier)
    at = upload(f"a,b,who\n{rows}".encode())
    assert "'who' is text" in messages(at, "warning") and "dropped" in messages(at, "warning")
    assert "'Key columns'" in messages(at, "warning")  # a key is released too: never said to be dropped
    assert not at.error
    assert "who" not in at.dataframe[0].value.columns
    at.multiselect(key="keep:ma.read_csv('mine.csv').data").set_value(["who"]).run()  # released: no longer dropped
    assert not any("is text" in w.value for w in at.warning) and "who" in at.dataframe[0].value.columns


def test_latin1_upload_with_the_encoding_option():
    at = upload("größe,b\n".encode("latin-1") + b"".join(f"{i},{i % 5}\n".encode() for i in range(12)))
    assert "not valid utf-8" in messages(at, "error")
    assert "the Encoding box" in messages(at, "error") and "--encoding" not in messages(at, "error")  # the page's
    at.selectbox(key="encoding").set_value("latin-1").run()
    assert not at.error and not at.exception
    assert "--encoding latin-1" in " ".join(c.value for c in at.code)


def test_when_every_numeric_column_is_left_out_the_page_says_why():
    at = upload(b"x,y\n1,2\n3,4\n5,7\n2,9\n")  # four records: each column's values fill their range
    said = messages(at, "error")
    assert "Select at least one numeric column to mask" in said
    assert "x is left out as an identifier (its values look like record numbers" in said and "y is left out" in said


def test_all_identical_records_release_with_il_undefined():
    at = upload(b"a,b\n" + b"5,1\n" * 12)
    assert not at.error and not at.exception
    assert {m.label: m.value for m in at.metric}["Information loss (IL)"] == "undefined"


def test_a_parameter_without_effect_is_greyed_out_and_not_passed():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="aggregation").set_value("P3M (proximity-breach prevention)").run()
    assert not at.number_input(key="a-p3m-w").disabled and at.number_input(key="a-p3m-w_seed").disabled
    at.selectbox(key="a-p3m-weights").set_value("random").run()
    assert not at.error and not at.exception
    assert at.number_input(key="a-p3m-w").disabled and not at.number_input(key="a-p3m-w_seed").disabled


def test_the_scale_hint_is_shown_above_the_threshold(monkeypatch):
    monkeypatch.setattr(microagg.base.advice, "HINT_SECONDS", 0.0)
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert "--engine blocks" in messages(at, "info")


def per_record(content: bytes, name: str = "w.csv") -> AppTest:
    """The dashboard with P3M chosen and ``content`` uploaded as its w per record."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="aggregation").set_value("P3M (proximity-breach prevention)").run()
    next(u for u in at.file_uploader if u.key == "u-p3m-w").set_value((name, content, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def test_a_per_record_file_is_read_by_the_csv_reader_and_its_conversion_said():
    """Decimal commas (a spreadsheet in a comma-decimal locale) are read as the reader of every door reads them,
    said on the page, and the release is the API's with the same w."""
    census = ma.load_dataset("census")
    w = np.round(np.linspace(0.001, 0.9, len(census)), 3)
    at = per_record(("w\n" + "\n".join(f'"{v:g}"'.replace(".", ",") for v in w) + "\n").encode())
    assert not at.error, messages(at, "error")
    assert "w.csv: comma-separated with decimal commas (1,5 read as 1.5)." in messages(at, "info")
    assert at.number_input(key="a-p3m-w").disabled
    rel = ma.microaggregate(census, 5, aggregation="p3m", w=w)
    assert {m.label: m.value for m in at.metric}["Information loss (IL)"] == \
        f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"


@pytest.mark.parametrize(("rows", "expected"), [
    (["0.5"] * 1079 + ["0.1,0.2"], "w.csv, line 1081: 2 field(s) where the header has 1"),
    (["0.5"] * 1079 + ["abc"], "cannot read w.csv as numbers: column 'w' is text (e.g. 'abc'), not numbers."),
    (["0.5"] * 1079 + ['""'], "w.csv has 1 missing or infinite value(s), the first in column 'w' of record 1080"),
    (["0.5"] * 10, "w.csv has 10 rows and 1 columns; expected 1080 rows"),
])
def test_a_bad_per_record_file_is_one_message_naming_the_problem(rows, expected):
    at = per_record(("w\n" + "\n".join(rows) + "\n").encode())
    assert len(at.error) == 1 and messages(at, "error").startswith("w, importance of each wish: ")
    assert expected in messages(at, "error")


def test_every_tab_draws_a_release_with_a_w_per_record():
    """An uploaded array is part of the report's and the heat-map's keys (an array is not hashable as it is)."""
    at = per_record(("w\n" + "\n".join(["0.2", "0.6"] * 540) + "\n").encode())
    for tab in ("Partition", "Aggregation", "Risk & utility", "Personalized privacy", "Release"):
        at.session_state["tab"] = tab
        at.run()
        assert not at.exception and not at.error, (tab, at.exception, messages(at, "error"))
    at.session_state["tab"] = "Personalized privacy"
    at.run()
    at.button(key="sl-go").click().run()
    at.run()
    assert not at.exception and not any("earlier settings" in str(w.value) for w in at.warning)


def test_a_new_release_option_gets_a_widget_from_its_row_and_reaches_the_release(monkeypatch):
    """A release option added as one row of OPTIONS (and its field) is drawn in the sidebar from the row, under a
    header of its section, and the value ticked there is the release's: its recipe carries it."""
    from dataclasses import dataclass

    from microagg.dashboard import cache
    from microagg.release import spec

    row = spec.Option("tidy", "bool", False, "sort the released columns by name", "tidying")

    @dataclass(frozen=True)
    class Tidy(spec.ReleaseSpec):
        tidy: bool = False

    monkeypatch.setattr(spec, "OPTIONS", (*spec.OPTIONS, row))
    monkeypatch.setitem(spec.OPTION, "tidy", row)
    monkeypatch.setattr(cache, "ReleaseSpec", Tidy)
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    box = at.sidebar.checkbox(key="option-tidy")
    assert box.label == "tidy" and box.value is False and box.help.startswith("Sort the released columns by name")
    assert "Tidying" in [h.value for h in at.sidebar.header]
    code = " ".join(c.value for c in at.code)
    assert "tidy" not in code
    box.check().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    code = " ".join(c.value for c in at.code)
    assert "tidy=True" in code and "--tidy" in code


def test_a_text_column_withheld_as_an_identifier_is_not_also_said_to_be_dropped_as_text():
    rows = "".join(f"{i},{(i * 7) % 5},code-{i * 13 % 17}\n" for i in range(12))  # distinct text codes
    at = upload(f"a,b,ref\n{rows}".encode())
    assert "ref** (its values are text codes" in " ".join(c.value for c in at.sidebar.caption)
    assert not any("'ref' is text" in w.value for w in at.warning)


def test_exact_cells_of_a_column_with_one_value_are_said_to_say_nothing():
    rows = "".join(f"{(i * 7919) % 101 / 10},{(i * 31) % 23},7.0\n" for i in range(30))
    at = upload(f"x,y,c\n{rows}".encode())
    said = messages(at, "info")
    assert "of the masked cells are published exactly" in said and "every cell of c, which holds one" in said
