"""microagg.io: the CSV reader, spreadsheet-safe atomic writing and the output checks."""

import io
import os

import numpy as np
import pandas as pd
import pytest

from microagg.errors import MicroaggError
from microagg.io import check_output, neutralise, read_csv, write_csv


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
