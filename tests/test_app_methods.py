from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def method_box(at):
    return next(s for s in at.sidebar.selectbox if s.label == "Partitioning method")


@pytest.mark.filterwarnings("ignore:method 'individual_ranking' groups each attribute")
def test_app_offers_every_method_and_handles_per_attribute_labels():
    at = AppTest.from_file(APP, default_timeout=300).run()
    assert {"V-MDAV", "CV-MDAV", "IAMAT", "MD (maximum distance)", "Single-axis projection",
            "Individual ranking (univariate)"} <= set(method_box(at).options)
    method_box(at).set_value("Individual ranking (univariate)").run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["k-anonymous"] == "NO"
    method_box(at).set_value("V-MDAV").run()
    at.sidebar.number_input(key="p-vmdav-gamma").set_value(1.1).run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["k-anonymous"] == "yes"
