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
