"""The dashboard through Streamlit's AppTest: every data source, method and aggregation; errors; every widget at
the extremes of its range."""

import pkgutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import microagg as ma
from microagg.base.registry import DIFFERENTIAL_PRIVACY, methods
from microagg.lab.explore import risk_utility
from microagg.metrics.risk import RULES

APP = str(Path(__file__).resolve().parents[2] / "app.py")
P3M = "P3M (proximity-breach prevention)"


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300).run()
    assert not at.exception, at.exception
    return at


def shown(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def open_tab(at: AppTest, name: str) -> AppTest:
    at.session_state["tab"] = name
    return at.run()


def ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_app_runs_and_responds_to_k():
    at = start()
    assert shown(at)["Information loss (IL)"] == "9.088 %" and shown(at)["k-anonymous"] == "yes"
    at.number_input(key="k").set_value(3).run()
    assert shown(at)["Information loss (IL)"] == "5.692 %"
    assert shown(at)["Smallest equivalence class"] == "3" and at.slider(key="k-slider").value == 3
    at.slider(key="k-slider").set_value(7).run()
    assert at.number_input(key="k").value == 7 and shown(at)["Smallest equivalence class"] == "7"


@pytest.mark.parametrize("name", ["tarragona", "census", "eia"])
def test_every_benchmark(name):
    at = start()
    at.selectbox(key="dataset").set_value(name).run()
    ok(at)
    assert shown(at)["k-anonymous"] == "yes"


def test_generated_data_and_its_size():
    at = start()
    at.radio(key="source").set_value("generated").run()
    at.number_input(key="n").set_value(600).run()
    open_tab(at, "Release")
    ok(at)
    assert "n=600" in "".join(c.value for c in at.code)
    assert any(len(d.value) == 600 for d in at.dataframe)  # the released table has the records asked for


@pytest.mark.filterwarnings("ignore:method 'individual_ranking' groups each attribute")
@pytest.mark.parametrize("method", methods("partition"), ids=lambda m: m.name)
def test_every_method(method):
    at = start()
    at.selectbox(key="method").set_value(method.title).run()
    assert not at.exception and not at.error
    census = ma.load_dataset("census")
    roles = {"confidential": ma.dataset_roles("census")["confidential"]} if method.caps.uses_roles else {}
    rel = ma.microaggregate(census, 5, method=method.name, **roles)  # the sidebar's defaults
    assert shown(at)["Information loss (IL)"] == f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"
    assert shown(at)["k-anonymous"] == ("yes" if method.record_level else "NO")
    groups = shown(at)["Groups" if method.record_level else "Groups (all attributes)"]  # univariate: every column's
    assert groups == f"{sum(len(np.unique(c)) for c in rel.labels.reshape(len(rel.labels), -1).T):,}"
    caveat = [w.value for w in at.warning if "not k-anonymous" in w.value]
    assert bool(caveat) == (not method.record_level)  # said on the page, not only in the server's terminal


def test_method_parameters_are_labelled_widgets_that_change_the_release():
    at = start()
    at.selectbox(key="method").set_value("V-MDAV").run()
    before = shown(at)["Information loss (IL)"]
    gamma = at.sidebar.number_input(key="p-vmdav-gamma")
    assert gamma.label == "gain factor γ" and "`gamma`" in gamma.help
    gamma.set_value(1.1).run()
    ok(at)
    assert shown(at)["Information loss (IL)"] != before and shown(at)["k-anonymous"] == "yes"


def test_advanced_parameters_sit_in_an_expander():
    at = start()
    at.selectbox(key="method").set_value("HM-pfsom").run()
    advanced = next(e for e in at.sidebar.expander if e.label == "Advanced")
    inside = {w.key for w in advanced.number_input}
    assert {"p-hmpfsom-tol", "p-hmpfsom-max_iter", "p-hmpfsom-eta"} <= inside
    assert "p-hmpfsom-c" not in inside and at.number_input(key="p-hmpfsom-c").label.startswith("sub-microdata")


def test_methods_using_roles_get_the_data_sets_confidential_columns_and_explain_when_none():
    title = next(m.title for m in methods("partition") if m.caps.uses_roles)
    at = start()
    at.selectbox(key="method").set_value(title).run()
    conf = at.sidebar.multiselect(key="conf:ma.load_dataset('census')")
    assert list(conf.value) == ma.dataset_roles("census")["confidential"]
    open_tab(at, "Release")
    code = "\n".join(c.value for c in at.code)
    assert "confidential=" in code and "STATETAX" in code
    assert any("exact values" in i.value and "STATETAX" in i.value for i in at.info)
    at.sidebar.multiselect(key="conf:ma.load_dataset('census')").set_value([]).run()
    assert not at.exception and "confidential" in at.error[0].value


# a differentially private aggregation needs bounds typed first: tests/dashboard/test_sidebar_dp.py
@pytest.mark.parametrize("aggregation", [m.title for m in methods("aggregate")
                                         if m.caps.privacy != DIFFERENTIAL_PRIVACY])
def test_every_aggregation(aggregation):
    at = start()
    at.selectbox(key="aggregation").set_value(aggregation).run()
    ok(at)
    name = next(m.name for m in methods("aggregate") if m.title == aggregation)
    rel = ma.microaggregate(ma.load_dataset("census"), 5, aggregation=name)
    assert shown(at)["Information loss (IL)"] == f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"


def test_variant_changes_the_loss():
    at = start()
    at.selectbox(key="p-mdav-variant").set_value("single").run()
    assert shown(at)["Information loss (IL)"] == "8.884 %"


def test_refinement_lowers_the_loss_and_is_offered_only_where_it_keeps_the_guarantee():
    at = start()
    at.number_input(key="k").set_value(3).run()
    at.selectbox(key="refine").set_value("igd").run()
    ok(at)
    assert float(shown(at)["Information loss (IL)"].rstrip(" %")) < 5.692  # MDAV's IL at k = 3, refined
    at.selectbox(key="method").set_value("k-anonymous t-closeness").run()
    assert at.selectbox(key="refine").options == ["none"]


def test_errors_are_messages_and_keep_the_open_tab():
    at = start()
    open_tab(at, "Release")
    at.sidebar.multiselect[0].set_value([]).run()
    assert not at.exception and any("at least one numeric column" in e.value for e in at.error)
    assert at.session_state["tab"] == "Release"
    at.sidebar.multiselect[0].set_value(["AGI", "FICA"]).run()
    ok(at)
    assert at.session_state["tab"] == "Release" and any("columns=['AGI', 'FICA']" in c.value for c in at.code)


def test_k_follows_the_data():
    at = start()
    assert at.number_input(key="k").max == 1080 and at.slider(key="k-slider").max == 300
    at.number_input(key="k").set_value(1080).run()
    ok(at)
    assert shown(at)["Groups"] == "1"
    at.radio(key="source").set_value("generated").run()
    at.number_input(key="n").set_value(300).run()
    ok(at)
    assert at.number_input(key="k").value == 300 and at.number_input(key="k").max == 300


def test_release_tab_offers_the_reproducing_commands_and_a_short_report():
    at = open_tab(start(), "Release")
    code = "\n".join(c.value for c in at.code)
    assert "ma.microaggregate(" in code and "python -m microagg run --dataset census --k 5" in code
    head = next(d.value for d in at.dataframe if list(d.value.columns) == ["metric", "value", "unit", "direction"])
    assert len(head) <= 12 and head.set_index("metric").loc["IL", "value"] == "9.09"


def test_p3m_parameters_are_widgets():
    at = start()
    at.selectbox(key="aggregation").set_value(P3M).run()
    ok(at)
    assert {"a-p3m-delta", "a-p3m-w", "a-p3m-w_seed"} <= {w.key for w in at.number_input}
    assert {"a-p3m-weights", "a-p3m-solver"} <= {w.key for w in at.selectbox}
    assert at.checkbox(key="a-p3m-relative").value is False
    assert at.number_input(key="a-p3m-delta").label == "Δ, minimum distance wished (z units)"
    at.slider(key="a-p3m-alpha").set_value(0.9).run()
    at.selectbox(key="a-p3m-weights").set_value("random").run()
    ok(at)
    at.slider(key="a-p3m-alpha").set_value(0.0).run()
    ok(at)


def test_inputs_another_choice_overrides_are_disabled():
    at = start()
    at.selectbox(key="aggregation").set_value(P3M).run()
    assert not at.number_input(key="a-p3m-w").disabled and at.number_input(key="a-p3m-w_seed").disabled
    at.selectbox(key="a-p3m-weights").set_value("random").run()
    assert at.number_input(key="a-p3m-w").disabled and not at.number_input(key="a-p3m-w_seed").disabled


def test_settings_survive_switching_the_aggregation():
    at = start()
    at.selectbox(key="aggregation").set_value(P3M).run()
    at.slider(key="a-p3m-alpha").set_value(0.9).run()
    at.number_input(key="a-p3m-delta").set_value(0.3).run()
    at.number_input(key="a-p3m-w").set_value(0.5).run()
    loss = shown(at)["Information loss (IL)"]
    at.selectbox(key="aggregation").set_value("Mean").run()
    at.selectbox(key="aggregation").set_value(P3M).run()
    ok(at)
    assert (at.slider(key="a-p3m-alpha").value, at.number_input(key="a-p3m-delta").value,
            at.number_input(key="a-p3m-w").value) == (0.9, 0.3, 0.5)
    assert shown(at)["Information loss (IL)"] == loss


def test_alpha_delta_and_w_change_the_displayed_loss():
    at = start()
    at.selectbox(key="aggregation").set_value(P3M).run()
    seen = {shown(at)["Information loss (IL)"]}
    for widget, value in ((at.slider(key="a-p3m-alpha"), 0.9), (at.number_input(key="a-p3m-delta"), 0.3),
                          (at.number_input(key="a-p3m-w"), 0.5)):
        widget.set_value(value).run()
        ok(at)
        seen.add(shown(at)["Information loss (IL)"])
    assert len(seen) == 4, seen  # each change moved the P3M release, hence its IL


def test_dld_rule_drives_the_risk_utility_map_which_is_marked_stale_not_recomputed():
    at = open_tab(start(), "Risk & utility")
    at.selectbox(key="m-dld").set_value("1st_or_2nd").run()
    at.slider(key="ru-k").set_value((3, 4)).run()
    assert not any("SDID" in d.value.columns for d in at.dataframe)  # on demand only
    at.button(key="ru-go").click().run()
    ok(at)
    table = next(d.value for d in at.dataframe if "SDID" in d.value.columns)
    census = ma.load_dataset("census")
    both = ["noise", "rank_swap"]  # the comparison methods are on the map by default
    expected = risk_utility(census, [3, 4], ["mdav"], dld_rule="1st_or_2nd", baselines=both)["DLD"].tolist()
    assert table["DLD"].tolist() == pytest.approx(expected)
    assert table["method"].iloc[0] == ma.registry.get_method("partition", "mdav").title  # as the sidebar names it
    assert table["DLD"].tolist() != pytest.approx(risk_utility(census, [3, 4], baselines=both)["DLD"].tolist())
    assert not any("earlier settings" in w.value for w in at.warning)
    at.selectbox(key="m-dld").set_value("expected").run()  # a later change: the old map stays, marked
    ok(at)
    assert any("earlier settings" in w.value for w in at.warning)
    assert next(d.value for d in at.dataframe if "SDID" in d.value.columns)["DLD"].tolist() == pytest.approx(expected)


def test_a_warning_of_the_run_that_no_caveat_covers_is_on_the_page():
    """HM-pfsom at k = 300 on Census: its sub-microdata cannot hold two confidential classes of k records each, so
    its groups are k-anonymous but not diverse. The run says so, and the page shows it, once."""
    at = start()
    at.selectbox(key="method").set_value(ma.registry.get_method("partition", "hmpfsom").title).run()
    at.number_input(key="k").set_value(300).run()
    ok(at)
    assert shown(at)["k-anonymous"] == "yes"
    notes = [w.value for w in at.warning if "single confidential class" in w.value]
    assert len(notes) == 1 and notes[0].startswith("HM-pfsom: 2 of 2 sub-microdata")


def test_what_the_maps_runs_say_is_shown_under_the_map(monkeypatch):
    """A warning said by one of the map's runs (here added to the real sweep, as a run's kernel says it) is shown
    under the map, in the session that computed it."""
    from microagg.base.said import say
    from microagg.dashboard.tabs import risk

    def saying(*args, **kwargs):
        say("a run of the map said this")
        return risk_utility(*args, **kwargs)

    monkeypatch.setattr(risk, "risk_utility", saying)
    at = open_tab(start(), "Risk & utility")
    at.slider(key="ru-k").set_value((3, 4)).run()
    assert not any("runs said" in e.label for e in at.expander)
    at.button(key="ru-go").click().run()
    ok(at)
    said = [e for e in at.expander if e.label == "What the map's runs said (1)"]
    assert len(said) == 1 and "a run of the map said this" in said[0].markdown[0].value


# --------------------------------------------------------------------------- every widget at its extremes


def extremes(w) -> list:
    """The values at the ends of a widget's range (every option of a choice)."""
    kind = type(w).__name__
    if kind in ("NumberInput", "Slider"):
        if isinstance(w.value, tuple):
            return [(w.min, w.min), (w.min, w.max), (w.max, w.max)]
        return [w.min, w.max]
    if kind in ("Selectbox", "Radio", "SelectSlider"):  # (options without a format_func)
        return list(dict.fromkeys([w.options[0], w.options[-1]]))
    if kind == "Checkbox":
        return [True, False]
    return []


def drive(at: AppTest, keys) -> list[str]:
    """Set every widget of ``keys`` to each extreme value and back; return the errors shown (never a traceback)."""
    messages = []
    for key in keys:
        w = _widget(at, key)
        if w is None or w.disabled:
            continue
        start_value = w.value
        for value in extremes(w):
            w = _widget(at, key)
            if w is None or w.disabled:
                break
            w.set_value(value).run()
            assert not at.exception, (key, value, at.exception)
            messages += [f"{key}={value!r}: {e.value}" for e in at.error]
        w = _widget(at, key)
        if w is not None and not w.disabled:
            w.set_value(start_value).run()
    return messages


def _widget(at: AppTest, key: str):
    for tree in (at.sidebar, at.main):
        for w in tree:
            if getattr(w, "key", None) == key and hasattr(w, "set_value"):
                return w
    return None


def widget_keys(tree, prefix: str = "") -> list[str]:
    return [w.key for w in tree if hasattr(w, "set_value") and w.key and w.key.startswith(prefix)
            and type(w).__name__ not in ("Multiselect", "Button")]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", methods("partition"), ids=lambda m: m.name)
def test_every_method_parameter_and_k_at_their_extremes(method):
    """On 300 generated records: k from 2 to n, and each of the method's parameters at both ends of its widget's
    range, one at a time. A value the method rejects is a message on the page, never a traceback."""
    at = start()
    at.radio(key="source").set_value("generated").run()
    at.number_input(key="n").set_value(300).run()
    at.selectbox(key="method").set_value(method.title).run()
    if method.caps.uses_roles:
        conf = next(w for w in at.sidebar.multiselect if w.key.startswith("conf:"))
        conf.set_value(list(conf.options[-2:])).run()
    assert drive(at, ["k"]) == []  # k = 2 and k = n are valid for every method
    messages = drive(at, widget_keys(at.sidebar, f"p-{method.name}-"))
    assert all("parameter" in m or "sub-microdata" in m or "classes" in m for m in messages), messages


@pytest.mark.parametrize("source", ["census", "eia", "generated"])
def test_every_tab_widget_at_its_extremes_for_each_data_source(source):
    """Every widget of every tab (MDAV step by step included) at both ends of its range, at k = 2, k = 150 and
    k = n, for each data source; the risk-utility map and the heat-map computed at the ends of their k range."""
    at = start()
    at.session_state["demo-open"] = True  # the MDAV step-by-step expander: its widgets are drawn only while open
    if source == "generated":
        at.radio(key="source").set_value("generated").run()
        drive(at, ["n", "seed"])
        at.number_input(key="n").set_value(400).run()
    else:
        at.selectbox(key="dataset").set_value(source).run()
    n = at.number_input(key="k").max
    for k in (min(150, n), n):
        at.number_input(key="k").set_value(k).run()
        for tab in ("Partition", "Aggregation", "Release"):
            open_tab(at, tab)
            ok(at)
            assert drive(at, widget_keys(at.main)) == []
            if tab == "Partition":
                at.radio(key="axes").set_value("two attributes").run()
                assert drive(at, ["axis-x", "axis-y"]) == []
    at.number_input(key="k").set_value(5).run()
    open_tab(at, "Risk & utility")
    for value in ((2, 2), (at.slider(key="ru-k").max,) * 2):
        at.slider(key="ru-k").set_value(value).run()
        at.button(key="ru-go").click().run()
        ok(at)
    assert drive(at, ["ru-axes", "m-p"]) == []
    for rule in (RULES[0], RULES[-1]):
        at.selectbox(key="m-dld").set_value(rule).run()
        ok(at)
    open_tab(at, "Personalized privacy")
    for value in ((2, 2), (at.slider(key="sl-k").max,) * 2):
        at.slider(key="sl-k").set_value(value).run()
        at.select_slider(key="sl-alpha").set_value(3).run()
        at.button(key="sl-go").click().run()
        ok(at)


def test_p3m_parameters_at_their_extremes():
    at = start()
    at.selectbox(key="dataset").set_value("tarragona").run()
    at.selectbox(key="aggregation").set_value(P3M).run()
    messages = drive(at, widget_keys(at.sidebar, "a-p3m-") + ["m-p"])
    at.selectbox(key="a-p3m-weights").set_value("random").run()
    messages += drive(at, ["a-p3m-w_seed"])
    assert messages == []
    open_tab(at, "Personalized privacy")
    ok(at)


def test_the_step_by_step_demo_follows_the_sidebar_and_avoids_identifiers():
    at = start()
    at.selectbox(key="dataset").set_value("eia").run()
    at.number_input(key="k").set_value(150).run()  # a sample of at least 2k = 300 records
    at.selectbox(key="p-mdav-variant").set_value("classic").run()
    at.session_state["demo-open"] = True
    at.run()
    ok(at)
    assert at.number_input(key="demo-size").min == 300
    assert at.selectbox(key="demo-variant:classic").value == "classic"
    assert "UTILITYID" not in at.multiselect(key="demo-pair").value


def test_every_tab_module_draws_one_tab_of_the_table():
    """README, "Architecture": a tab is a function ``tab_<module>`` in a module of dashboard/tabs/ and one line of
    ``page.TABS``; the page shows the table's tabs in its order."""
    from microagg.dashboard import page, tabs

    modules = {m.name for m in pkgutil.iter_modules(tabs.__path__)} - {"common"}
    assert {f.__module__.rsplit(".", 1)[1] for f in page.TABS.values()} == modules
    assert all(f.__name__ == "tab_" + f.__module__.rsplit(".", 1)[1] for f in page.TABS.values())
    assert [t.label for t in start().tabs] == list(page.TABS)
