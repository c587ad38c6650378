from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def test_app_runs_and_responds_to_k():
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Information loss (IL)"] == "9.088 %" and metrics["k-anonymous"] == "yes"
    at.sidebar.number_input[0].set_value(3).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Information loss (IL)"] == "5.692 %" and metrics["Smallest group"] == "3"


def test_app_switches_method_variant_and_aggregation():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.sidebar.selectbox(key="p-mdav-variant").set_value("single").run()
    assert {m.label: m.value for m in at.metric}["Information loss (IL)"] == "8.884 %"
    at.sidebar.selectbox[-1].set_value("Median").run()
    assert not at.exception and not at.error


def test_app_offers_p3m_with_its_parameters():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.sidebar.selectbox[-1].set_value("P3M (proximity-breach prevention)").run()
    assert not at.exception and not at.error
    keys = {w.key for w in at.sidebar.number_input} | {w.key for w in at.sidebar.selectbox}
    assert {"a-p3m-alpha", "a-p3m-delta", "a-p3m-w", "a-p3m-w_seed", "a-p3m-weights", "a-p3m-solver"} <= keys
    assert at.sidebar.checkbox(key="a-p3m-relative").value is False
    at.sidebar.number_input(key="a-p3m-alpha").set_value(0.9).run()
    at.sidebar.selectbox(key="a-p3m-weights").set_value("random").run()
    assert not at.exception and not at.error
    at.sidebar.number_input(key="a-p3m-alpha").set_value(0.0).run()
    assert not at.exception and not at.error
