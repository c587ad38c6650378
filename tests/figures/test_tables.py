import numpy as np
import pandas as pd

from microagg.figures import tables


def test_values_are_formatted_by_unit():
    f = tables.format_value
    assert f(14014.0, "pairs") == "14,014" and f(np.int64(216), "groups") == "216"
    assert f(9.088435, "%") == "9.09" and f(10.0, "%") == "10.00"
    assert f(5.002445, "records") == "5.002" and f(5.0, "records") == "5"
    assert f(2675.855508, "z units") == "2,676" and f(0.013962, "") == "0.01396"
    assert f(-0.0, "") == "0" and f(1e-16, "") == "1.0e-16"
    assert f(True, "") == "yes" and f("11 of 11", "") == "11 of 11" and f(float("nan"), "%") == "n/a"


def test_headline_keeps_the_overall_rows_it_names_in_order():
    report = pd.DataFrame({"metric": ["SL", "IL", "IL", "k-anonymous", "SSE"],
                           "attribute": ["all", "all", "x", "all", "all"],
                           "value": [61.88034, 9.088435, 3.0, True, 1276.0], "unit": ["%", "%", "%", "", "z units²"],
                           "direction": ["higher is better", "lower is better", "lower is better", "", ""],
                           "source": [""] * 5})
    head = tables.headline(report)
    assert head["metric"].tolist() == ["IL", "SL", "k-anonymous"] and head["value"].tolist() == ["9.09", "61.88", "yes"]


def test_il_of_identical_records_reads_undefined_and_other_missing_values_n_a():
    report = pd.DataFrame({"metric": ["IL", "SDID"], "attribute": ["all", "all"], "value": [np.nan, np.nan],
                           "unit": ["%", "%"]})
    assert tables.formatted(report)["value"].tolist() == [tables.UNDEFINED, "n/a"]
    assert tables.formatted(report)["unit"].tolist() == ["", "%"]  # "undefined %" would read as a percentage


def test_infinite_and_huge_values_are_formatted():
    """An infinite or huge figure (a noise scale, a sensitivity, a loss) is written, never an OverflowError."""
    f = tables.format_value
    assert f(float("inf"), "original units") == "inf" and f(-np.inf, "groups") == "-inf" and f(np.inf, "%") == "inf"
    assert f(4e296, "original units") == "4e+296" and f(-1.5e300, "") == "-1.5e+300" and f(2e20, "records") == "2e+20"
    assert f(12345678901234567890, "") == "12,345,678,901,234,567,890"  # an exact integer stays exact
    assert f(123456.0, "original units") == "123,456"


def test_a_metric_not_computed_reads_so_with_its_reason_in_the_source():
    report = pd.DataFrame({"metric": ["DLD", "SDID"], "attribute": ["all", "all"], "value": [np.nan, np.nan],
                           "unit": ["%", "%"], "source": ["not computed: float64 failed (...); Eq. 7", "Eq. 8"]})
    assert tables.formatted(report)["value"].tolist() == ["not computed", "n/a"]
    assert tables.formatted(report)["unit"].tolist() == ["", "%"]
