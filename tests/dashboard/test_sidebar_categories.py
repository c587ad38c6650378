"""The dashboard with categorical quasi-identifiers (docs/methods.md §2.15): an uploaded CSV with text columns,
a kind chosen per column, an ordinal order corrected, and the release showing the masked categories."""

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
EXPR = "ma.read_csv('mine.csv').data"


def survey_csv(n: int = 60) -> bytes:
    rng = np.random.default_rng(5)
    rows = [f"{rng.integers(20, 80)},{rng.integers(900, 5000)},{rng.choice(['N', 'S', 'E'])},"
            f"{rng.choice(['low', 'mid', 'high'])}" for _ in range(n)]
    return ("age,income,region,edu\n" + "\n".join(rows) + "\n").encode()


def test_upload_choose_kinds_and_release_categories():
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.radio(key="source").set_value("upload").run()
    at.file_uploader[0].set_value(("mine.csv", survey_csv(), "text/csv")).run()
    assert "Categorical columns to mask" in " ".join(str(w.value) for w in at.warning)
    at.multiselect(key=f"cats:{EXPR}").set_value(["region", "edu"]).run()
    at.radio(key=f"kind:{EXPR}:edu").set_value("ordinal").run()
    order = at.text_input(key=f"order:{EXPR}:edu")
    assert order.value == "high < low < mid"  # the natural sort, shown and flagged for checking
    assert "natural sort" in " ".join(str(c.value) for c in at.caption)
    order.set_value("low < mid < high").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    released = at.dataframe[0].value
    assert list(released.columns) == ["age", "income", "region", "edu"]
    assert set(released["edu"]) <= {"low", "mid", "high"} and released.groupby(list(released.columns)).size().min() >= 3
    code = " ".join(str(c.value) for c in at.code)
    assert "ordinal={'edu': ['low', 'mid', 'high']}" in code and "--nominal region" in code

    order.set_value("low < mid").run()  # a category left out of the order: one message
    assert "not in its order" in " ".join(str(e.value) for e in at.error) and not at.exception


def test_blank_categories_get_a_choice_in_the_sidebar_said_in_the_report():
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.radio(key="source").set_value("upload").run()
    text = survey_csv().decode().splitlines()
    text[5] = ",".join(text[5].split(",")[:2] + ["", text[5].split(",")[3]])  # one blank region
    at.file_uploader[0].set_value(("mine.csv", ("\n".join(text) + "\n").encode(), "text/csv")).run()
    at.multiselect(key=f"cats:{EXPR}").set_value(["region"]).run()
    assert "'region' has 1 missing value(s) of 60" in " ".join(str(e.value) for e in at.error)  # refused by default
    for option in ("impute", "category", "drop"):
        at.radio(key="missing-categories").set_value(option).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        released = at.dataframe[0].value
        assert len(released) == (59 if option == "drop" else 60) and [m.value for m in at.metric][-1] == "yes"
        assert f"--missing-categories {option}" in " ".join(str(c.value) for c in at.code)
        report = at.dataframe[1].value.set_index("metric")["value"]
        assert report["k-anonymous"] == "yes"
    at.session_state["report-open"] = True
    at.run()
    full = next(d.value for d in at.dataframe if "source" in d.value.columns)
    assert "records left out (a category missing)" in set(full["metric"])
    for tab in ("Partition", "Aggregation"):  # the tabs draw the records released
        at.session_state["tab"] = tab
        at.run()
        assert not at.exception and not at.error, [e.value for e in at.error]
