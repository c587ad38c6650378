"""The dashboard through Streamlit's AppTest: every data source, method and aggregation; errors."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import microagg as ma
from microagg.explore import risk_utility
from microagg.registry import methods

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception, at.exception
    return at


def shown(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def test_app_runs_and_responds_to_k():
    at = start()
    assert shown(at)["Information loss (IL)"] == "9.088 %" and shown(at)["k-anonymous"] == "yes"
    at.number_input(key="k").set_value(3).run()
    assert shown(at)["Information loss (IL)"] == "5.692 %"
    assert shown(at)["Smallest equivalence class"] == "3"


@pytest.mark.parametrize("name", ["tarragona", "census", "eia"])
def test_every_benchmark(name):
    at = start()
    at.selectbox(key="dataset").set_value(name).run()
    assert not at.exception and not at.error
    assert shown(at)["k-anonymous"] == "yes"


def test_generated_data_and_its_size():
    at = start()
    at.radio(key="source").set_value("generated").run()
    at.number_input(key="n").set_value(600).run()
    assert not at.exception and not at.error
    assert "n=600" in "".join(c.value for c in at.code)
    assert any(len(d.value) == 600 for d in at.dataframe)  # the released table has the records asked for


@pytest.mark.filterwarnings("ignore:method 'individual_ranking' groups each attribute")
@pytest.mark.parametrize("method", methods("partition"), ids=lambda m: m.name)
def test_every_method(method):
    at = start()
    at.selectbox(key="method").set_value(method.title).run()
    assert not at.exception and not at.error
    census = ma.load_dataset("census")
    roles = {"confidential": ma.dataset_roles("census")["confidential"]} if method.uses_roles else {}
    rel = ma.microaggregate(census, 5, method=method.name, **roles)  # the sidebar's defaults
    assert shown(at)["Information loss (IL)"] == f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"
    assert shown(at)["k-anonymous"] == ("yes" if method.record_level else "NO")


def test_method_parameters_are_widgets_that_change_the_release():
    at = start()
    at.selectbox(key="method").set_value("V-MDAV").run()
    before = shown(at)["Information loss (IL)"]
    at.sidebar.number_input(key="p-vmdav-gamma").set_value(1.1).run()
    assert not at.exception and not at.error
    assert shown(at)["Information loss (IL)"] != before and shown(at)["k-anonymous"] == "yes"


def test_methods_using_roles_get_the_data_sets_confidential_columns_and_explain_when_none():
    title = next(m.title for m in methods("partition") if m.uses_roles)
    at = start()
    at.selectbox(key="method").set_value(title).run()
    conf = at.sidebar.multiselect(key="conf:ma.load_dataset('census')")
    assert list(conf.value) == ma.dataset_roles("census")["confidential"]
    code = "\n".join(c.value for c in at.code)
    assert "confidential=" in code and "STATETAX" in code
    conf.set_value([]).run()
    assert not at.exception and "confidential" in at.error[0].value


@pytest.mark.parametrize("aggregation", [m.title for m in methods("aggregate")])
def test_every_aggregation(aggregation):
    at = start()
    at.selectbox(key="aggregation").set_value(aggregation).run()
    assert not at.exception and not at.error
    name = next(m.name for m in methods("aggregate") if m.title == aggregation)
    rel = ma.microaggregate(ma.load_dataset("census"), 5, aggregation=name)
    assert shown(at)["Information loss (IL)"] == f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"


def test_variant_changes_the_loss():
    at = start()
    at.selectbox(key="p-mdav-variant").set_value("single").run()
    assert shown(at)["Information loss (IL)"] == "8.884 %"


def test_errors_are_messages_not_tracebacks():
    at = start()
    at.number_input(key="k").set_value(5000).run()
    assert not at.exception
    assert any("larger than the number of records" in e.value for e in at.error)
    at.number_input(key="k").set_value(5).run()
    at.sidebar.multiselect[0].set_value([]).run()
    assert not at.exception and any("at least one numeric column" in w.value for w in at.warning)


def test_release_tab_offers_the_reproducing_commands():
    at = start()
    code = "\n".join(c.value for c in at.code)
    assert "ma.microaggregate(" in code and "python -m microagg run --dataset census --k 5" in code


def test_p3m_parameters_are_widgets():
    at = start()
    at.selectbox(key="aggregation").set_value("P3M (proximity-breach prevention)").run()
    assert not at.exception and not at.error
    assert {"a-p3m-delta", "a-p3m-w", "a-p3m-w_seed"} <= {w.key for w in at.number_input}
    assert {"a-p3m-weights", "a-p3m-solver"} <= {w.key for w in at.selectbox}
    assert at.checkbox(key="a-p3m-relative").value is False
    at.slider(key="a-p3m-alpha").set_value(0.9).run()
    at.selectbox(key="a-p3m-weights").set_value("random").run()
    assert not at.exception and not at.error
    at.slider(key="a-p3m-alpha").set_value(0.0).run()
    assert not at.exception and not at.error


def test_alpha_delta_and_w_change_the_displayed_loss():
    at = start()
    at.selectbox(key="aggregation").set_value("P3M (proximity-breach prevention)").run()
    seen = {shown(at)["Information loss (IL)"]}
    for widget, value in ((at.slider(key="a-p3m-alpha"), 0.9), (at.number_input(key="a-p3m-delta"), 0.3),
                          (at.number_input(key="a-p3m-w"), 0.5)):
        widget.set_value(value).run()
        assert not at.exception and not at.error
        seen.add(shown(at)["Information loss (IL)"])
    assert len(seen) == 4, seen  # each change moved the P3M release, hence its IL


def test_dld_rule_drives_the_risk_utility_map():
    at = start()
    at.selectbox(key="m-dld").set_value("1st_or_2nd").run()
    at.slider(key="ru-k").set_value((3, 4)).run()
    at.button(key="ru-go").click().run()
    assert not at.exception and not at.error
    shown = next(d.value for d in at.dataframe if "SDID" in d.value.columns)
    census = ma.load_dataset("census")
    expected = risk_utility(census, [3, 4], ["mdav"], dld_rule="1st_or_2nd")["DLD"].round(3).tolist()
    assert shown["DLD"].tolist() == pytest.approx(expected)
    assert shown["DLD"].tolist() != pytest.approx(risk_utility(census, [3, 4])["DLD"].round(3).tolist())
