import numpy as np
import pandas as pd
import pytest

from microagg.base.checks import as_matrix, check_finite, check_int, check_k, check_size, columns, percent, plain
from microagg.base.errors import MicroaggError


@pytest.mark.parametrize("value,want", [(3, 3), (3.0, 3), (np.int64(4), 4)])
def test_integers_and_integral_floats_are_accepted(value, want):
    got = check_int(value, 1, "n must be an integer >= 1")
    assert got == want and type(got) is int


@pytest.mark.parametrize("value", [True, False, 2.5, "3", None])
def test_bools_fractions_and_text_are_refused(value):
    with pytest.raises(MicroaggError, match="n must be an integer >= 0; got"):
        check_int(value, 0, "n must be an integer >= 0")


def test_k_of_one_says_why():
    with pytest.raises(MicroaggError, match="k = 1 would release every record unchanged"):
        check_k(1)


def test_matrix_and_size():
    assert as_matrix([1.0, 2.0]).shape == (2, 1)
    with pytest.raises(MicroaggError, match="empty"):
        as_matrix(np.empty((0, 2)))
    with pytest.raises(MicroaggError, match="3 records but k = 5"):
        check_size(3, 5)


def test_columns_by_name_or_position():
    assert columns(None, 3).tolist() == [0, 1, 2]
    assert columns(["b", 0], 3, ["a", "b", "c"]).tolist() == [1, 0]
    for bad, match in ((["z"], "unknown column"), ([0, 0], "more than once"), ([], "is empty"), ([5], "positions")):
        with pytest.raises(MicroaggError, match=match):
            columns(bad, 3, ["a", "b", "c"])


def test_percent_is_strictly_inside_0_100():
    assert percent(5) == 5.0
    for bad in (0, 100, True, "5"):
        with pytest.raises(MicroaggError, match="percentage"):
            percent(bad)


@pytest.mark.parametrize("values,want", [([1, 2], True), ([1.5, None], True), ([True, False], False),
                                         ([1 + 2j, 3j], False), (["1", "2"], False), ([None, None], False)])
def test_is_numeric_means_real_numbers(values, want):
    import pandas as pd

    from microagg.base.checks import is_numeric

    assert is_numeric(pd.Series(values)) is want



def test_messages_write_row_labels_and_values_as_python_writes_them():
    assert plain(np.int64(7)) == "7" and plain(np.float64(0.0)) == "0.0" and plain("r7") == "'r7'"
    X = np.arange(20.0).reshape(10, 2)
    X[2, 0] = np.inf
    with pytest.raises(MicroaggError, match=r"column 'a' has 1 non-finite value\(s\); the first, at index 14, is inf"):
        check_finite(X, ["a", "b"], index=np.arange(10) * 7)  # (rows left out or reordered: the label only)
    with pytest.raises(MicroaggError, match=r"the first, in record 3 \(index 2\), is inf"):
        check_finite(X, ["a", "b"], index=pd.RangeIndex(10))  # (every row of the input, in order: its record too)


def test_every_column_with_non_finite_values_is_named_at_once():
    X = np.arange(20.0).reshape(10, 2)
    X[[4, 6], 0] = np.inf
    X[8, 1] = np.nan
    with pytest.raises(MicroaggError, match=r"column 'a' has 2 non-finite value\(s\); the first, in record 5 "
                                            r"\(index 4\), is infinite; column 'b' has 1 non-finite value\(s\); the "
                                            r"first, in record 9 \(index 8\), is missing"):
        check_finite(X, ["a", "b"])
