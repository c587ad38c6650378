"""The course helpers: data without identifiers, the widgets' ranges, the lessons' measures and the figures."""

import ipywidgets as widgets
import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.base.controls import control
from microagg.base.errors import MicroaggError
from microagg.lab import course


@pytest.fixture(scope="module")
def tarragona():
    Z = ma.standardize(ma.load_dataset("tarragona"))
    return Z, ma.partition.mdav(Z, 3, "classic")


def test_load_drops_the_identifier_and_nothing_else():
    full, eia = ma.load_dataset("eia"), course.load("eia")
    assert "UTILITYID" not in eia and list(eia.columns) == [c for c in full.columns if c != "UTILITYID"]
    pd.testing.assert_frame_equal(course.load("census"), ma.load_dataset("census"))


def test_controls_follow_the_registry_and_exclude_w_of_one():
    w = course.control("w")
    assert w.value == 0.001 and w.min == 0.0 and w.max < 1
    assert course.control("alpha").value == 0.5 and course.control("delta", 0.3).value == 0.3
    assert isinstance(course.control("flag", True), widgets.Checkbox)
    assert course.control("who", ["a", "b"]).options == ("a", "b")
    assert course.control("data").options == course.DATASETS
    assert all(not course.control(name).continuous_update for name in ("k", "alpha", "delta", "w"))
    with pytest.raises(MicroaggError, match="no course control"):
        course.control("gamma")


# the course's widget kind for each kind of control (base.controls)
KINDS = {"FloatSlider": "slider", "IntSlider": "slider", "BoundedFloatText": "number", "BoundedIntText": "number",
         "Dropdown": "choice", "Checkbox": "bool", "Text": "text"}


@pytest.mark.parametrize("name", ["alpha", "delta", "w", "w_seed", "weights", "relative", "solver", "p", "tolerance"])
def test_a_parameter_widget_is_drawn_from_its_control(name):
    """The range, step, default, label and help of the dashboard's widget (``base.controls.control``)."""
    p = {**ma.metrics.registry.PARAMS, **{q.name: q for q in ma.registry.get_method("aggregate", "p3m").params}}[name]
    c, widget = control(p), course.control(name)
    assert KINDS[type(widget).__name__] == c.kind
    assert (widget.value, widget.description, widget.tooltip) == (c.default, c.label, c.help)
    if c.kind in ("slider", "number"):
        assert (widget.min, widget.max, widget.step) == (c.low, c.high, c.step)
    assert not getattr(widget, "continuous_update", False)


def test_a_value_outside_the_range_is_refused_not_moved():
    assert course.control("delta", 0.3).value == 0.3
    with pytest.raises(MicroaggError, match="outside"):
        course.control("delta", 20.0)


def test_compare_aggregations_shows_the_medians_exact_cells(tarragona):
    _, labels = tarragona
    table = course.compare_aggregations(ma.load_dataset("tarragona"), labels)
    assert list(table.index) == ["mean", "mean, renormalized", "median", "P3M"]
    exact = table["cells published exactly (%)"]
    assert exact["median"] > 30 and exact["P3M"] == 0 and exact["mean, renormalized"] == 0
    assert table.loc["mean", "IL (%)"] == table["IL (%)"].min()


def test_the_exact_cells_of_the_comparison_are_those_of_the_release_report():
    """The course's table counts the cells published exactly on the values as published, like the report and the
    dashboard: on Census, MDAV, k = 5 it gave 0.15 % / 1.39 % (z-scores) where the file has 0.19 % / 1.48 %."""
    census = ma.load_dataset("census")
    labels = ma.partition.mdav(ma.standardize(census), 5)
    table = course.compare_aggregations(census, labels)
    for name, options in (("mean", {}), ("median", {"aggregation": "median"}),
                          ("mean, renormalized", {"renormalize": True}), ("P3M", {"aggregation": "p3m"})):
        rel = ma.microaggregate(census, 5, labels=labels, method="mdav", shuffle=False, **options)
        values = rel.report(metrics=["exact cells", "exact records", "IL", "PIL", "SDID"]).query("attribute == 'all'")
        got = values.set_index("metric")["value"]
        assert table.loc[name, "cells published exactly (%)"] == got["exact cells"], name
        assert table.loc[name, "records with an exact cell (%)"] == got["exact records"], name
        for column, metric in (("IL (%)", "IL"), ("PIL (%)", "PIL"), ("SDID (%)", "SDID")):  # on the z-scores
            assert table.loc[name, column] == pytest.approx(got[metric], rel=1e-9), (name, metric)
    assert table.loc["mean", "cells published exactly (%)"] > ma.metrics.risk.exact_cells(
        ma.standardize(census), ma.aggregate.mean(ma.standardize(census), labels))[0]  # z-scores miss some


def test_objective_split_adds_up_to_the_solvers_objective(tarragona):
    Z, labels = tarragona
    res = ma.aggregate.p3m_solve(Z, labels, alpha=0.5, delta=0.1, w=0.001)
    split = course.p3m_objective_split(Z, labels, res.Zp, 0.5, 0.1, 0.001)
    assert split.sum() == pytest.approx(res.objective.sum(), rel=1e-9)
    assert split["α·Σγ², breaching cells"] < 1e-3 * split["α·Σγ², far cells"]


def test_p3m_risk_utility_scores():
    frame = course.p3m_risk_utility(["tarragona"], ks=(3,))
    assert list(frame["aggregation"]) == ["mean, renormalized", "P3M"]
    assert np.allclose(frame["DR"], (frame["DLD"] + frame["SDID"]) / 2)
    assert np.allclose(frame["SI"], (frame["DR"] + frame["PIL"]) / 2)
    assert frame.loc[1, "SDID"] < frame.loc[0, "SDID"]  # Tarragona k = 3: P3M lowers the interval disclosure


def test_breach_plot_puts_exactly_the_breaches_in_the_band(tarragona):
    Z, labels = tarragona
    Zp = ma.renormalize(ma.aggregate.mean(Z, labels))
    fig = course.breach_plot(Z, {"mean": Zp}, 2, 0.1, "TREASURY")
    inside = [t for t in fig.data if t.name.startswith("breach")][0]
    assert len(inside.y) == ma.metrics.breaches(Z, Zp, 0.1)[:, 2].sum()
    assert np.all(np.abs(inside.y) < 0.1)
    band = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(band) == 1 and (band[0].y0, band[0].y1) == (-0.1, 0.1)


def test_mdav_step_keeps_record_r_visible_and_legend_colours_per_group():
    xy = ma.standardize(ma.load_dataset("census")[["PTOTVAL", "EMCONTRB"]].iloc[:30])
    trace = ma.partition.mdav_steps(xy, 3, "classic")
    fig = course.mdav_step(xy, trace, 2, ("x", "y"))
    assert fig.data[0].name.startswith("reference") and fig.data[0].marker.symbol == "star-open"
    groups = [t for t in fig.data if (t.name or "").startswith("group")]
    assert [t.marker.color for t in groups] == course.PALETTE[:2]
    ring = fig.data[-1]
    assert (ring.x[0], ring.y[0]) == tuple(xy[trace.steps.seed[1]])


def test_projection_axis_is_the_first_principal_axis():
    xy = ma.standardize(ma.load_dataset("tarragona")[["SALES", "LABOR.COSTS"]].iloc[:40])
    fig = course.projection_scatter(xy, ma.partition.projection(xy, 4))
    axis = fig.data[0]
    direction = np.array([axis.x[1] - axis.x[0], axis.y[1] - axis.y[0]])
    u = ma.partition.univariate.principal_axis(xy)
    assert abs(abs(direction @ u) - np.linalg.norm(direction)) < 1e-9


def test_ru_map_labels_only_the_ends():
    frame = pd.DataFrame({"method": ["a"] * 4 + ["b"] * 4, "k": [2, 3, 5, 8] * 2, "IL": [1, 2, 3, 4] * 2,
                          "DLD": [4, 3, 2, 1] * 2})
    fig = course.ru_map(frame)
    assert list(fig.data[0].text) == ["k=2", "", "", "k=8"] and fig.data[1].text is None
    assert list(fig.data[1].marker.size) == sorted(fig.data[1].marker.size)


def test_heatmap_writes_every_value():
    grid = pd.DataFrame({"k": [3, 3, 5, 5], "alpha": [0, 1, 0, 1], "SL": [10.0, 20.0, 30.0, 40.0]})
    fig = course.heatmap(grid)
    assert fig.data[0].texttemplate == "%{z:.1f}" and fig.data[0].z.tolist() == [[10, 20], [30, 40]]


def test_gaps_has_one_row_per_cell():
    table = pd.DataFrame({"table": ["T2", "T2"], "row": ["MDAV", "MDAV"], "data": ["census", "eia"], "k": [3, 4],
                          "published": ["5.692", "0.482"], "ours": [5.6922, 0.5], "match": [True, False]})
    fig = course.gaps(table)
    assert sorted(y for t in fig.data for y in t.y) == ["census · 3", "eia · 4"]  # the columns that vary
    assert [t.text[0] for t in fig.data] == ["+0.0002", "+0.018"]


def test_certificate_legend_clears_the_attribute_names(tarragona):
    Z, labels = tarragona
    fig = course.certificate(ma.aggregate.p3m_solve(Z, labels), list(range(13)))
    assert fig.layout.legend.y >= 1 and {t.name for t in fig.data} <= {"optimal", "local", "infeasible"}
