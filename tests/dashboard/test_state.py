"""The dashboard never changes a setting behind the user's back (AppTest): every widget keeps its value across
a change of data, in the browser as on the server, and a value the new data cannot take is changed and said; a
warning is shown only for what the user chose."""

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from microagg.base.registry import get_method
from tests.dashboard.test_sidebar import APP, messages

VMDAV, MEDIAN = get_method("partition", "vmdav").title, get_method("aggregate", "median").title
LAPLACE = get_method("aggregate", "laplace").title


def csv(columns, seed=0, n=60) -> bytes:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(50, 10, size=(n, len(columns))).round(1), columns=columns).to_csv(
        index=False).encode()


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["tab"] = "Release"
    return at.run()


def drawn_as(w):
    """What the browser draws for widget ``w`` when it had lost the widget (a run that stopped before drawing it):
    the value the script set, when the element carries one, else the element's default. AppTest itself reads the
    server's value, so this is compared with it."""
    p = w.proto
    if p.set_value:
        return "server"
    if w.type in ("selectbox", "radio"):
        return w.options[p.default] if p.default is not None else None
    if w.type == "multiselect":
        return [w.options[i] for i in p.default]
    if w.type == "number_input":
        return type(w.value)(p.default)
    return p.default


def server_value(w):
    if w.type in ("selectbox", "radio"):
        return w.format_func(w.value)
    if w.type == "multiselect":
        return [w.options[i] for i in w.indices]
    return w.value


def sidebar_widgets(at: AppTest) -> list:
    return [w for kind in ("number_input", "selectbox", "radio", "multiselect", "checkbox", "text_input")
            for w in getattr(at.sidebar, kind) if w.key and w.key != "source"]


def cli(at: AppTest) -> str:
    return next(c.value for c in at.code if c.value.startswith("python -m microagg run"))


def test_settings_keep_their_value_across_a_new_data_source_in_the_browser_as_on_the_server():
    at = start()
    at.number_input(key="k").set_value(10).run()
    at.selectbox(key="method").set_value(VMDAV).run()
    at.selectbox(key="aggregation").set_value(MEDIAN).run()
    at.radio(key="source").set_value("upload").run()  # this run stops at the uploader: nothing below it is drawn
    at.file_uploader[0].set_value(("mine.csv", csv(["a", "b", "c"]), "text/csv")).run()
    assert not at.exception and not at.error, messages(at, "error")
    wrong = {w.key: (drawn_as(w), server_value(w)) for w in sidebar_widgets(at)
             if drawn_as(w) not in ("server", server_value(w))}
    assert not wrong  # before: {'k': (2, 10), 'method': ('MDAV', 'V-MDAV'), 'aggregation': ('Mean', 'Median')}
    assert at.number_input(key="k").value == 10 and "--k 10 --method vmdav --aggregation median" in cli(at)
    at.number_input(key="k").set_value(10).run()  # the next click sends what the box shows
    assert "--k 10 " in cli(at)
    at.radio(key="source").set_value("benchmark").run()  # and back: the data set chosen before, the same settings
    assert at.selectbox(key="dataset").value == "census" and "--k 10 --method vmdav" in cli(at)


def test_a_choice_of_missing_cells_comes_back_with_data_that_has_them():
    at = start()
    at.selectbox(key="dataset").set_value("survey").run()
    at.radio(key="missing").set_value("impute").run()
    at.selectbox(key="dataset").set_value("census").run()  # no missing cell: the choice is not drawn
    assert not [r for r in at.radio if r.key == "missing"] and "--missing" not in cli(at)
    at.selectbox(key="dataset").set_value("survey").run()
    assert at.radio(key="missing").value == "impute" and "--missing impute" in cli(at)


def test_a_value_the_new_data_cannot_take_is_changed_and_said():
    at = start()
    at.number_input(key="k").set_value(1080).run()
    at.radio(key="source").set_value("generated").run()
    at.number_input(key="n").set_value(300).run()
    assert at.number_input(key="k").value == 300 and "--k 300 " in cli(at)
    assert "k = 1,080 is more than the 300 records of this data: k is 300 now." in messages(at, "info")
    at.radio(key="source").set_value("upload").run()
    at.file_uploader[0].set_value(("mine.csv", csv(["a", "b", "c"]), "text/csv")).run()
    key = "columns:ma.read_csv('mine.csv').data"
    at.multiselect(key=key).set_value(["a", "b"]).run()
    at.file_uploader[0].set_value(("mine.csv", csv(["a", "x"], seed=1), "text/csv")).run()  # same name, new columns
    assert not at.exception and not at.error, messages(at, "error")
    assert at.multiselect(key=key).value == ["a"] and "--columns a " in cli(at)
    assert "Columns to mask: b is not in this data, so no longer selected." in messages(at, "caption")


def test_the_aggregation_tab_warns_only_about_the_aggregation_chosen():
    at = start()
    at.session_state["tab"] = "Aggregation"
    at.run()
    assert not at.warning, messages(at, "warning")  # Laplace was not chosen: a note, not a warning
    assert f"Not compared: {LAPLACE}" in messages(at, "caption")
    at.selectbox(key="aggregation").set_value(LAPLACE).run()
    assert "calibrates its noise to an insensitive partition" in messages(at, "error")  # the one chosen, said


def test_a_tab_setting_the_new_partition_cannot_take_is_changed_and_said():
    at = start()
    at.session_state["tab"] = "Partition"
    at.run()
    at.number_input(key="group-pick").set_value(150).run()  # census, k = 5: 216 groups
    at.number_input(key="k").set_value(100).run()  # 10 groups
    assert at.number_input(key="group-pick").value == 9
    assert "Outline one group: 150 is outside -1…9 here, so it is now 9." in messages(at, "caption")
