"""One release through every door: the bundled survey (sampling weights, missing cells, an ordinal quasi-identifier,
a key released and stratified on, a kept column) made in the dashboard (AppTest), by the command line and by the
API gives the same published file, the same report and the same HTML report figures."""

import re
import shlex

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import microagg as ma
from microagg.cli import main
from microagg.data.datasets import SURVEY_EDUCATION
from microagg.figures import tables
from tests.dashboard.test_sidebar import APP, messages

EXPR = "ma.load_dataset('survey')"
K = 4


def dashboard(missing: str) -> AppTest:
    """The survey set up in the sidebar, with the Release tab open and the full report shown."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["tab"] = "Release"
    at.session_state["report-open"] = True
    at.run()
    at.selectbox(key="dataset").set_value("survey").run()
    at.selectbox(key=f"weight:{EXPR}").set_value("weight").run()
    at.multiselect(key=f"columns:{EXPR}").set_value(["age", "household_size"]).run()
    at.multiselect(key=f"cats:{EXPR}").set_value(["education"]).run()
    at.radio(key=f"kind:{EXPR}:education").set_value("ordinal").run()
    at.text_input(key=f"order:{EXPR}:education").set_value(" < ".join(SURVEY_EDUCATION)).run()
    at.multiselect(key=f"keep:{EXPR}").set_value(["income"]).run()
    at.multiselect(key=f"keys:{EXPR}").set_value(["region"]).run()
    at.radio(key="missing").set_value(missing).run()
    at.number_input(key="k").set_value(K).run()
    assert not at.exception and not at.error, messages(at, "error")
    return at


def table(at: AppTest, columns: list[str]) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if list(d.value.columns) == columns)


@pytest.mark.filterwarnings("ignore:aggregation 'median' publishes")
@pytest.mark.parametrize("missing", ["keep", "impute"])
def test_the_dashboard_the_command_line_and_the_api_publish_the_same_survey_release(missing, tmp_path, capsys):
    at = dashboard(missing)
    python, command = (next(c.value for c in at.code if c.value.startswith(start))
                       for start in ("import microagg", "python -m microagg run"))
    seed = int(re.search(r"seed=(\d+)", python).group(1))

    rel = ma.microaggregate(ma.load_dataset("survey"), K, columns=["age", "household_size"],
                            ordinal={"education": list(SURVEY_EDUCATION)}, keep=["income"], keys=["region"],
                            strata=["region"], sampling_weights="weight", missing=missing, seed=seed)
    assert rel.anonymity["k_anonymous"] and rel.protected["age"].isna().any() == (missing == "keep")

    out, page = tmp_path / "release.csv", tmp_path / "report.html"
    argv = ["run", "--dataset", "survey", "--k", str(K), "--columns", "age,household_size", "--ordinal",
            "education=" + "<".join(SURVEY_EDUCATION), "--keep", "income", "--keys", "region", "--strata", "region",
            "--sampling-weights", "weight", "--missing", missing, "--seed", str(seed), "--out", str(out),
            "--report", str(page)]
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out

    # the published file: the API's, the command line's, the dashboard's table and its own command's
    assert out.read_text(encoding="utf-8") == rel.to_csv()
    shown = at.dataframe[0].value
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), rel.protected.reset_index(drop=True),
                                  check_dtype=False)
    again = tmp_path / "again.csv"
    dashboard_argv = shlex.split(command)[3:]
    dashboard_argv[dashboard_argv.index("--out") + 1] = str(again)
    assert main(dashboard_argv) == 0 and again.read_bytes() == out.read_bytes()

    # the report: printed by the command line, shown by the dashboard (headline and full), made by the API
    report = rel.report()
    assert tables.overall_text(report) in printed
    headline = tables.headline(report)
    pd.testing.assert_frame_equal(table(at, list(headline.columns)).reset_index(drop=True), headline)
    full = tables.formatted(report)
    pd.testing.assert_frame_equal(table(at, list(full.columns)).reset_index(drop=True).astype(str),
                                  full.reset_index(drop=True).astype(str))
    metric = {m.label: m.value for m in at.metric}
    values = report[report["attribute"] == "all"].set_index("metric")["value"]
    assert metric["k-anonymous"] == "yes" and int(metric["Smallest equivalence class"]) == values[
        "smallest equivalence class"] >= K
    assert metric["Information loss (IL)"] == f"{float(values['IL (observed cells)']):.3f} %"

    # the HTML report of the command line holds the API's figures
    html = page.read_text(encoding="utf-8")
    made = ma.html_report(rel, data="ma.load_dataset('survey')", data_args=["--dataset", "survey"])
    section = re.compile(r"<h2>Headline metrics</h2>.*?</table>", re.S)
    assert section.search(html).group(0) == section.search(made).group(0)
    for name in ("IL (observed cells)", "DLD (partial distances)", "IL (weighted)"):
        assert f"<td>{name}" in html and name in set(headline["metric"])
    assert f"<td>{tables.format_value(values['IL (weighted)'], '%')}</td>" in section.search(html).group(0)
