import numpy as np
import pandas as pd

import microagg as ma
from microagg.figures import plots


def test_group_sizes_counts_every_attribute_of_per_attribute_labels():
    labels = np.column_stack([[0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 2]])
    fig = plots.group_sizes(labels, 2)
    bars = dict(zip(fig.data[0].x, fig.data[0].y))
    assert bars == {2: 2, 3: 2, 4: 1}  # attribute 0: sizes 3, 4; attribute 1: sizes 2, 2, 3
    assert "every attribute" in fig.layout.title.text


def test_group_sizes_of_record_labels():
    fig = plots.group_sizes(np.array([0, 0, 1, 1, 1]), 2)
    assert dict(zip(fig.data[0].x, fig.data[0].y)) == {2: 1, 3: 1} and fig.layout.title.text == "Group sizes"


def test_tradeoff_over_k_puts_loss_above_risk_on_one_k_axis_with_the_bound_of_k_anonymity():
    frame = pd.DataFrame({"method": ["mdav"] * 3, "k": [5, 2, 3], "IL": [9.0, 3.0, 5.0], "DLD": [16.0, 48.0, 29.0]})
    fig = plots.tradeoff_over_k(frame)
    loss, risk, bound = fig.data
    assert list(loss.x) == [2, 3, 5] and list(loss.y) == [3.0, 5.0, 9.0] and loss.yaxis == "y"
    assert list(risk.y) == [48.0, 29.0, 16.0] and risk.yaxis == "y2" and risk.line.color == loss.line.color
    assert fig.layout.yaxis.domain[0] > fig.layout.yaxis2.domain[1]  # two panels, not two axes on one plot
    assert fig.layout.xaxis.matches == "x2"
    assert np.allclose(bound.y, 100 / np.array(bound.x)) and list(bound.x) == [2, 3, 4, 5] and bound.yaxis == "y2"
    assert len(plots.tradeoff_over_k(frame.assign(SDID=frame["DLD"]), risk="SDID").data) == 2  # 100/k: DLD only


def test_method_comparison_writes_times_and_hatches_releases_that_are_not_k_anonymous():
    frame = pd.DataFrame({"run": ["MDAV", "ranking"], "method": ["mdav", "individual_ranking"], "k": [3, 3],
                          "IL": [5.7, 0.1], "DLD": [29.0, 90.0], "groups": [360, 4680], "k-anonymous": [True, False],
                          "seconds": [0.012, 2.5]})
    bar = plots.method_comparison(frame).data[0]
    assert list(bar.y) == ["MDAV", "ranking"] and list(bar.x) == [5.7, 0.1]
    assert list(bar.text) == ["12 ms", "2.5 s"] and list(bar.marker.pattern.shape) == ["", "/"]


def test_p3m_certificate_shows_a_closed_gap_per_attribute():
    Z = ma.standardize(ma.load_dataset("census").iloc[:60, :3])
    res = ma.aggregate.p3m_solve(Z, ma.partition.mdav(Z, 3, "classic"))
    fig = plots.p3m_certificate(res, names=["a", "b", "c"])
    shown = {x: y for trace in fig.data for x, y in zip(trace.x, trace.y)}
    assert set(shown) == {"a", "b", "c"} and all(1e-16 <= y for y in shown.values())
    assert {trace.name for trace in fig.data} == set(res.status) and fig.layout.yaxis.type == "log"



def test_group_sizes_marks_2k_minus_1_only_for_bounded_methods_and_bins_wide_ranges():
    labels = np.repeat(np.arange(4), [5, 6, 9, 5])
    marks = [a.text for a in plots.group_sizes(labels, 5, bounded=True).layout.annotations]
    assert marks == ["k", "2k−1"]
    assert [a.text for a in plots.group_sizes(labels, 5).layout.annotations] == ["k"]
    wide = np.repeat(np.arange(3), [150, 400, 900])  # sizes spread over 750 records: bins, not 750 bars
    bar = plots.group_sizes(wide, 150).data[0]
    assert len(bar.x) == 3 and sum(bar.y) == 3 and bar.width > 1


def test_partition_scatter_outlines_a_few_groups_not_hundreds():
    rng = np.random.default_rng(0)
    xy = rng.standard_normal((1000, 2))
    labels = np.arange(1000) // 5  # 200 groups
    fig = plots.partition_scatter(xy, labels)
    groups = [t for t in fig.data if (t.name or "").startswith("group ") and "centroids" not in t.name]
    assert len(groups) == 6 and all(len(t.x) == 5 for t in groups)
    chosen = plots.partition_scatter(xy, labels, highlight=[42])
    named = [t.name for t in chosen.data if (t.name or "").startswith("group 4")]
    assert named == ["group 42 (5)"]
