"""microagg.data.io: the CSV reader, spreadsheet-safe atomic writing and the output checks."""

import csv as csvlib
import io
import os
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.base.errors import MicroaggError
from microagg.cli import main
from microagg.data.io import FORMULA_START, check_output, csv_header, neutralise, read_csv, write_csv

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def csv(tmp_path, text, name="in.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_delimiters_are_detected(tmp_path, sep):
    table = read_csv(csv(tmp_path, f"a{sep}b\n1{sep}2.5\n3{sep}4\n"))
    assert table.delimiter == sep and table.decimal == "."
    assert table.data.to_dict("list") == {"a": [1, 3], "b": [2.5, 4.0]}


def test_decimal_commas_in_a_semicolon_file(tmp_path):
    table = read_csv(csv(tmp_path, "x;y\n1,5;2\n2,25;3\n1.234,5;-0,5\n"))
    assert table.decimal == ","
    assert table.data["x"].tolist() == [1.5, 2.25, 1234.5] and table.data["y"].tolist() == [2, 3, -0.5]
    assert any("decimal commas" in n for n in table.notes)


def test_quoted_decimal_commas_in_a_comma_file(tmp_path):
    table = read_csv(csv(tmp_path, 'a,b\n"1,5",1\n"2,75",2\n'))
    assert table.decimal == "," and table.data["a"].tolist() == [1.5, 2.75]


def test_thousands_separators_and_percent_signs_are_converted_and_told(tmp_path):
    table = read_csv(csv(tmp_path, 'a,b,c\n"12,345",12%,7\n"1,234",13.5%,8\n"2,000",14%,9\n'))
    assert table.data["a"].tolist() == [12345, 1234, 2000]
    assert table.data["b"].tolist() == [12, 13.5, 14]  # kept in percent, as written
    assert table.data["c"].tolist() == [7, 8, 9]
    notes = " ".join(table.notes)
    assert "'a'" in notes and "thousands" in notes and "'b'" in notes and "percent" in notes and "'c'" not in notes


def test_a_number_that_only_looks_grouped_is_text(tmp_path):
    table = read_csv(csv(tmp_path, 'a,b\n"12,34",1\n"1,5,6",2\n'))
    assert table.text_columns == ["a"] and "is text" in table.notes[0]


def test_one_field_more_than_the_header_is_refused_naming_the_line(tmp_path):
    # the common trap: unquoted decimal commas give every row one field more than the header
    with pytest.raises(MicroaggError, match=r"line 2: 3 field\(s\) where the header has 2.*decimal comma"):
        read_csv(csv(tmp_path, "income,age\n123,45,30\n200,10,40\n"))


def test_a_later_ragged_row_is_refused_naming_its_line(tmp_path):
    with pytest.raises(MicroaggError, match=r"line 5: 1 field\(s\) where the header has 2"):
        read_csv(csv(tmp_path, "a,b\n1,2\n\n3,4\n5\n6,7\n"))  # the blank line 3 is skipped, not counted as a row
    with pytest.raises(MicroaggError, match=r"line 3: 3 field\(s\)"):
        read_csv(csv(tmp_path, "a;b\n1;2\n3;4;5\n"))


@pytest.mark.parametrize("header", ["a,a", "a,b,a"])
def test_duplicate_headers_are_refused(tmp_path, header):
    width = header.count(",") + 1
    with pytest.raises(MicroaggError, match=r"duplicate column names \['a'\]"):
        read_csv(csv(tmp_path, header + "\n" + ",".join(["1"] * width) + "\n"))


def test_names_equal_once_their_end_spaces_are_removed_are_refused_saying_so(tmp_path):
    with pytest.raises(MicroaggError, match=r"\['a'\] in the header row \(spaces at the ends of a name are not part "
                                            r"of it: 'a '\)"):
        read_csv(csv(tmp_path, "a,a ,b\n1,2,3\n"))


@pytest.mark.parametrize("header, refused", [("1.5,2,30", True), ("2019,2020,2021", True), ("-1;2,5;3e4", True),
                                              ("0,1,2", False), ("PAR1,PAR2,x", False), ("x1,2,3", False),
                                              ("1a,2b,3c", False)])
def test_a_header_of_numbers_is_a_record_and_refused(header, refused):
    """A file without a header row: its first record would be read, and released, as the column names. The names
    0, 1, ... are a frame's default ones (a release of pd.DataFrame(array), written), not a record."""
    sep = ";" if ";" in header else ","
    data = (header + "\n" + "\n".join(sep.join(["7"] * 3) for _ in range(4)) + "\n").encode()
    if refused:
        with pytest.raises(MicroaggError, match="every name in the header row is a number"):
            read_csv(io.BytesIO(data))
        with pytest.raises(MicroaggError, match="every name in the header row is a number"):
            csv_header(io.BytesIO(data))
    else:
        assert list(read_csv(io.BytesIO(data)).data.columns) == header.split(sep)


def test_compressed_and_binary_files_are_named():
    import gzip
    with pytest.raises(MicroaggError, match="is a gzip-compressed file, not a CSV text file"):
        read_csv(io.BytesIO(gzip.compress(b"a,b\n1,2\n")))
    with pytest.raises(MicroaggError, match="is a Parquet file.*--engine dask"):
        read_csv(io.BytesIO(b"PAR1\x15\x04 rest of the file PAR1"))


def test_an_output_name_the_file_system_cannot_take_is_refused_before_any_work(tmp_path, monkeypatch):
    with pytest.raises(MicroaggError, match="its name is too long"):
        check_output(tmp_path / ("r" * 250 + ".csv"))
    assert check_output(tmp_path / ("r" * 200 + ".csv"))
    monkeypatch.setattr(os, "pathconf", lambda *a: -1)  # a file system that sets no limit
    assert check_output(tmp_path / ("r" * 200 + ".csv"))


def test_an_unnamed_column_is_refused(tmp_path):
    with pytest.raises(MicroaggError, match="column 1 has no name"):
        read_csv(csv(tmp_path, ",a\n0,1\n1,2\n"))


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_empty_files_say_so(tmp_path, text):
    with pytest.raises(MicroaggError, match="is empty: a CSV file needs a header row"):
        read_csv(csv(tmp_path, text))


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_an_empty_file():
    with pytest.raises(MicroaggError, match="/dev/null is empty"):
        read_csv("/dev/null")


def test_header_only_missing_file_and_directory(tmp_path):
    with pytest.raises(MicroaggError, match=r"has a header row \(a, b\) but no records"):
        read_csv(csv(tmp_path, "a,b\n"))
    with pytest.raises(MicroaggError, match="cannot read .*nothing.csv"):
        read_csv(tmp_path / "nothing.csv")
    with pytest.raises(MicroaggError, match="is a directory"):
        read_csv(tmp_path)


def test_utf8_with_and_without_bom_and_other_encodings(tmp_path):
    plain = read_csv(csv(tmp_path, "größe,b\n1,2\n3,4\n", "a.csv")).data
    bom = read_csv(csv(tmp_path, "\ufeffgröße,b\n1,2\n3,4\n", "b.csv")).data
    assert list(plain.columns) == list(bom.columns) == ["größe", "b"]
    latin = csv(tmp_path, "größe,b\n1,2\n3,4\n", "c.csv", encoding="latin-1")
    with pytest.raises(MicroaggError, match="not valid utf-8.*--encoding latin-1"):
        read_csv(latin)
    assert list(read_csv(latin, encoding="latin-1").data.columns) == ["größe", "b"]
    with pytest.raises(MicroaggError, match="unknown encoding 'klingon'"):
        read_csv(latin, encoding="klingon")


@pytest.mark.parametrize("encoding", [None, "utf-8", "UTF8", "utf_8", "U8", "utf-8-sig"])
def test_a_byte_order_mark_is_never_part_of_a_name(tmp_path, encoding):
    path = csv(tmp_path, "\ufeffid;x\r\n1;2,5\r\n2;3,5\r\n")
    assert list(read_csv(path, encoding=encoding).data.columns) == ["id", "x"]
    with open(path, "rb") as f:
        assert csv_header(f, encoding) == ["id", "x"]
    with open(path, encoding="utf-8") as f:  # a text source keeps the mark: still not a name
        assert list(read_csv(f).data.columns) == ["id", "x"]
    utf16 = csv(tmp_path, "\ufeffid,x\n1,2\n", "u16.csv", encoding="utf-16-le")
    assert list(read_csv(utf16, encoding="utf-16-le").data.columns) == ["id", "x"]
    with pytest.raises(MicroaggError, match=r"not valid .* \(byte 9: b'\\xff'\)"):  # counted from the mark
        read_csv(io.BytesIO(b"\xef\xbb\xbfa,b\n1,\xff\n"), encoding=encoding)


def test_a_spreadsheet_file_is_read_alike_in_every_door(tmp_path, monkeypatch, capsys):
    """Excel's "CSV UTF-8" (a byte-order mark, Windows line ends) through the dashboard, the API, the command line
    and the Dask engine: the same columns, the identifier withheld in all four, and the dashboard's own recipes
    run on the same file."""
    from distributed import Client, LocalCluster
    from streamlit.testing.v1 import AppTest

    from microagg.release.scale import microaggregate_dask

    rng = np.random.default_rng(4)
    rows = "".join(f"{1000 + i},{rng.normal():.4f},{rng.integers(0, 90)}\r\n" for i in range(30))
    content = ("\ufeffid,income,age\r\n" + rows).encode()
    path = csv(tmp_path, content, "mine.csv")
    expected = ["income", "age"]

    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.radio(key="source").set_value("upload").run()
    at.file_uploader[0].set_value(("mine.csv", content, "text/csv")).run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value.columns) == expected

    rel = ma.microaggregate(str(path), 3)
    assert list(rel.protected.columns) == expected and "id" in rel.identifiers

    monkeypatch.chdir(tmp_path)
    assert main(["run", "--input", "mine.csv", "--k", "3", "--out", "cli.csv"]) == 0
    assert pd.read_csv("cli.csv").columns.tolist() == expected
    assert "--sampling-weights to choose): id (" in capsys.readouterr().err

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        dask = microaggregate_dask(str(path), 3, out=str(tmp_path / "dask"), scheduler=client,
                              encoding="utf-8")
        assert list(dask.protected.columns) == expected
        assert dask.report().set_index("metric").loc["identifiers (not released)", "value"].startswith("id (")

    snippet, command = (c.value for c in at.code[-2:])
    exec(snippet, {})  # noqa: S102 - the dashboard's recipe, run as pasted
    assert pd.read_csv("release.csv").columns.tolist() == expected
    os.unlink("release.csv")
    assert main(shlex.split(command)[3:]) == 0
    assert pd.read_csv("release.csv").columns.tolist() == expected


def test_text_columns_missing_cells_and_file_objects(tmp_path):
    table = read_csv(io.BytesIO(b"id,name,x\n1,Ann,\n2,Bob,3.5\n3,,NA\n"), name="upload.csv")
    assert table.text_columns == ["name"]
    assert any("'name' is text" in n for n in table.notes)
    assert np.isnan(table.data["x"][0]) and np.isnan(table.data["x"][2]) and table.data["x"][1] == 3.5
    assert read_csv(io.StringIO("a,b\n1,2\n")).data.shape == (1, 2)


def test_quoted_fields_keep_their_delimiters(tmp_path):
    table = read_csv(csv(tmp_path, 'a,b\n1,"x, y"\n2,"z"\n'))
    assert table.data["b"].tolist() == ["x, y", "z"]


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_codes_with_leading_zeros_stay_text_as_written(tmp_path, sep):
    rows = [f"02134{sep}1.5{sep}0.5", f"10001{sep}2{sep}007", f"{sep}3{sep}1", f"NA{sep}4{sep}2"]
    table = read_csv(csv(tmp_path, f"zip{sep}x{sep}n\n" + "\n".join(rows) + "\n"))
    data = table.data
    assert data["zip"].tolist()[:2] == ["02134", "10001"] and data["zip"].isna().tolist()[2:] == [True, True]
    assert data["n"].tolist() == ["0.5", "007", "1", "2"]  # one code with leading zeros: the column is codes
    assert data["x"].tolist() == [1.5, 2, 3, 4] and table.text_columns == ["zip", "n"]
    assert any("'zip' holds codes written with leading zeros (e.g. '02134')" in n for n in table.notes)
    plain = read_csv(csv(tmp_path, "a,b\n0.5,0\n10,-0.25\n", "plain.csv")).data  # 0.5 and 0 are numbers
    assert plain["a"].tolist() == [0.5, 10] and plain["b"].tolist() == [0, -0.25]


def test_a_true_false_column_is_read_as_booleans(tmp_path):
    path = csv(tmp_path, "flag,x\nTrue,1.5\nFalse,2\nTrue,3\n")
    table = read_csv(path)
    assert table.data["flag"].tolist() == [True, False, True] and table.data["flag"].dtype == bool
    holes = read_csv(csv(tmp_path, "flag,x\nTrue,1.5\n,2\nFalse,3\n", "holes.csv")).data
    assert holes["flag"].tolist()[::2] == ["True", "False"] and np.isnan(holes["flag"][1])


def test_neutralise_quotes_formula_text_but_not_numbers():
    df = pd.DataFrame({"=cmd": ["=1+2", "+x", "-y", "@z", "\tt", "\rr", "plain", None], "v": np.arange(8) - 3.5})
    out = neutralise(df)
    assert list(out.columns) == ["'=cmd", "v"]
    assert out["'=cmd"].tolist()[:7] == ["'=1+2", "'+x", "'-y", "'@z", "'\tt", "'\rr", "plain"]
    assert out["v"].tolist() == df["v"].tolist()  # -3.5 is a number, not a formula
    assert df.columns[0] == "=cmd" and df.iloc[0, 0] == "=1+2"  # the input is not modified


def test_write_csv_is_safe_by_default_and_can_be_turned_off(tmp_path):
    df = pd.DataFrame({"t": ["=HYPERLINK(1)", "ok"], "v": [-1.5, 2.0]})
    write_csv(df, tmp_path / "safe.csv", index=False)
    assert (tmp_path / "safe.csv").read_text().splitlines() == ["t,v", "'=HYPERLINK(1),-1.5", "ok,2.0"]
    assert write_csv(df, None, spreadsheet_safe=False, index=False).splitlines()[1] == "=HYPERLINK(1),-1.5"


formula_cells = st.builds(lambda start, rest: start + rest, st.sampled_from(FORMULA_START), st.text(max_size=8))
labels = st.one_of(formula_cells, st.text(max_size=6))


def unsafe_fields(text: str) -> list[str]:
    """The fields of a written CSV that a spreadsheet would run as a formula (numbers such as -1.5 are not). Python's
    csv writer leaves a carriage return inside a field unquoted, which its reader refuses: read it as another
    character."""
    rows = csvlib.reader(io.StringIO(text.replace("\r", "\u2028")))
    fields = [f.replace("\u2028", "\r") for row in rows for f in row]

    def number(f):
        try:
            float(f)
        except ValueError:
            return False
        return True

    return [f for f in fields if f.startswith(FORMULA_START) and not number(f)]


@settings(max_examples=60, deadline=None)
@given(values=st.lists(labels, min_size=2, max_size=5), names=st.lists(st.one_of(st.none(), labels), min_size=3,
                                                                         max_size=3),
       dtype=st.sampled_from([object, "str", "string", "category"]), multi=st.booleans())
def test_any_text_index_and_name_is_quoted_in_every_written_csv(values, names, dtype, multi):
    n = len(values)
    index = pd.Index(values, dtype=dtype, name=names[0])
    if multi:
        index = pd.MultiIndex.from_arrays([index, pd.Index(values[::-1], dtype=dtype)], names=names[:2])
    df = pd.DataFrame({"=x": pd.Series(values, dtype=dtype, index=index), "v": -np.arange(n) - 0.5}, index=index)
    assert unsafe_fields(write_csv(df)) == []
    assert unsafe_fields(write_csv(df.rename_axis(columns=names[2]))) == []
    assert unsafe_fields(write_csv(df, index_label=names[2] or "=i", na_rep="=na")) == []
    assert write_csv(df.reset_index(drop=True), index=False, spreadsheet_safe=False).startswith("=x,")


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("previous\n")

    def broken(self, f, **kwargs):
        f.write("half a rel")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(OSError):
        write_csv(pd.DataFrame({"a": [1]}), target)
    assert target.read_text() == "previous\n"
    assert os.listdir(tmp_path) == ["out.csv"]


def test_check_output_refusals(tmp_path, monkeypatch):
    src = csv(tmp_path, "a\n1\n")
    monkeypatch.chdir(tmp_path)
    for same in (src, "in.csv", "./in.csv", str(tmp_path / "sub" / ".." / "in.csv")):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(MicroaggError, match="is the input file"):
            check_output(same, [src], force=True)
    (tmp_path / "link.csv").symlink_to(src)
    with pytest.raises(MicroaggError, match="is the input file"):
        check_output("link.csv", ["in.csv"], force=True)
    with pytest.raises(MicroaggError, match="folder .*missing does not exist"):
        check_output(tmp_path / "missing" / "out.csv")
    with pytest.raises(MicroaggError, match="is a directory; give a file name"):
        check_output(tmp_path / "sub")
    (tmp_path / "old.csv").write_text("x")
    with pytest.raises(MicroaggError, match="already exists.*--force"):
        check_output("old.csv")
    assert check_output("old.csv", force=True) == str(tmp_path / "old.csv")
    assert check_output("new.csv", [src]) == str(tmp_path / "new.csv")


@pytest.fixture(scope="module")
def spreadsheet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("writers")
    rng = np.random.default_rng(6)
    pd.DataFrame({"a": rng.normal(size=24), "b": rng.normal(size=24)}).to_csv(folder / "in.csv", index=False)
    return folder


def _write(writer, source, read, target, force):
    """Write with ``writer`` to ``target``: True if written, False if refused (MicroaggError, or exit status 2)."""
    if writer.startswith("--"):
        code = main(["run", "--input", str(source), "--k", "3", writer, str(target), *(["--force"] * force)])
        assert code in (0, 2)
        return code == 0
    rel = ma.microaggregate(str(source) if read == "path" else read_csv(source).data, 3)
    try:
        if writer == "to_csv":
            rel.to_csv(target, force=force)
        else:
            ma.html_report(rel, target, sweep_ks=None, force=force)
    except MicroaggError:
        return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writer=st.sampled_from(["to_csv", "html_report", "--out", "--report"]),
       target=st.sampled_from(["new", "existing", "input", "input, spelled otherwise"]), force=st.booleans(),
       read=st.sampled_from(["path", "ma.read_csv"]))
def test_no_writer_overwrites_without_force_nor_ever_the_input(spreadsheet, writer, target, force, read):
    source = spreadsheet / "in.csv"
    original = source.read_bytes()
    path = {"new": spreadsheet / "new.out", "existing": spreadsheet / "old.out", "input": source,
            "input, spelled otherwise": spreadsheet / "." / "sub" / ".." / "in.csv"}[target]
    (spreadsheet / "sub").mkdir(exist_ok=True)
    (spreadsheet / "old.out").write_text("previous\n")
    (spreadsheet / "new.out").unlink(missing_ok=True)
    written = _write(writer, source, read, path, force)
    assert source.read_bytes() == original  # the input, never
    assert written == (target == "new" or (target == "existing" and force))
    if target == "existing":
        assert ((spreadsheet / "old.out").read_text() == "previous\n") != force


@pytest.mark.parametrize("digits", [25, 4300, 4400])
def test_whole_numbers_beyond_64_bits_read_as_floats_not_a_crash(digits):
    """pandas keeps a whole number beyond 64 bits as a Python int, and Python converts at most 4300 digits (a
    ValueError beyond): such numbers read as floats, infinite beyond float64's range like 1e400, which a release then
    refuses naming its column and record."""
    table = ma.read_csv(io.StringIO(f"Inc,Age\n1.5,{'9' * digits}\n2.5,30\n3.5,31\n"))
    assert table.data["Age"].dtype == np.float64 and table.data["Age"].iloc[1:].tolist() == [30.0, 31.0]
    assert table.data["Age"].iloc[0] == float("9" * digits)
    if digits > 308:
        with pytest.raises(ma.MicroaggError, match="column 'Age' has 1 non-finite value.*in record 1"):
            ma.microaggregate(table.data, 2)
