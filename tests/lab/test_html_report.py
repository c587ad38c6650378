"""The self-contained HTML report of a release (microagg.lab.html_report): contents, atomic writing, and an EIA report
that opens offline in headless Chromium with every plot drawn."""

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.lab.html_report import closeness, html_report, linkage_ratios

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots"  # git-ignored: look at them after a run
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def eia_report(tmp_path_factory):
    rel = ma.microaggregate(ma.load_dataset("eia"), 5, seed=11)
    path = tmp_path_factory.mktemp("report") / "report.html"
    assert html_report(rel, path, data='ma.load_dataset("eia")', data_args=["--dataset", "eia"]) is None
    return rel, path


def test_contents(eia_report):
    rel, path = eia_report
    text = path.read_text(encoding="utf-8")
    for heading in ("Parameters", "Data", "Headline metrics", "Risk-utility position", "Group sizes",
                    "Per-record risk", "Recipe", "Versions and seeds"):
        assert f"<h2>{heading}</h2>" in text
    assert "Keep this file private" in text and "seed=11" in text and "--seed 11" in text
    assert "UTILITYID (declared by the data set)" in text  # withheld, and said so
    assert not re.search(r"""<script[^>]+src=|<link[^>]+href=["']?https?:""", text)  # nothing fetched
    assert text.count("Plotly.newPlot") == 3
    # the riskiest records are shown by their row in the released (shuffled) file, never by an identifier
    ratio = linkage_ratios(rel.Z, rel.Zp)
    surest = int(np.lexsort((np.argsort(rel.order), ratio))[0])
    row = int(np.flatnonzero(rel.order == surest)[0])
    table = text.split("row in the released file (0 = first data row)")[1]
    assert re.search(r"<td>(\d+)</td>", table).group(1) == str(row)


def test_refuses_to_overwrite(eia_report, tmp_path):
    rel, made = eia_report
    path = tmp_path / "report.html"
    shutil.copy(made, path)
    with pytest.raises(ma.MicroaggError, match="already exists"):
        html_report(rel, path, sweep_ks=None)
    with pytest.raises(ma.MicroaggError, match="is the input file"):
        html_report(rel, tmp_path / "in.csv", inputs=[tmp_path / "in.csv"], sweep_ks=None)
    assert html_report(rel, path, sweep_ks=None, force=True) is None
    assert "No sweep over k: not asked for." in path.read_text(encoding="utf-8")


def test_closeness_of_a_t_close_release():
    df = ma.load_dataset("census")
    rel = ma.microaggregate(df, 5, method="tcloseness", confidential=ma.dataset_roles("census")["confidential"],
                            t=0.25, seed=1)
    reached = closeness(rel)
    assert list(reached) == rel.confidential and 0 < max(reached.values()) <= 0.25
    assert "t-closeness of STATETAX: largest EMD of a class" in html_report(rel, sweep_ks=None)
    assert closeness(ma.microaggregate(df, 5, seed=1)) == {}  # no confidential column: nothing to say


def test_linkage_ratios():
    Z = np.array([[0.0], [1.0], [3.0]])
    Zp = np.array([[0.2], [0.8], [1.5]])
    # own distance over the nearest other original: 0.2/0.8, 0.2/0.8, 1.5/0.5
    assert np.allclose(linkage_ratios(Z, Zp), [0.25, 0.25, 3.0])


def test_cli_report(tmp_path, capsys):
    from microagg.cli import main

    out = tmp_path / "r.html"
    assert main(["run", "--dataset", "census", "--k", "5", "--seed", "3", "--report", str(out)]) == 0
    assert "--report r.html" not in out.read_text(encoding="utf-8")  # the recipe writes the release, not a report
    assert main(["run", "--dataset", "census", "--k", "5", "--report", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    src = tmp_path / "in.csv"
    ma.load_dataset("census").to_csv(src, index=False)
    assert main(["run", "--input", str(src), "--k", "5", "--report", str(src), "--force"]) == 2
    assert "is the input file" in capsys.readouterr().err


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt install chromium)")
def test_opens_offline_with_every_plot(eia_report):
    from playwright.sync_api import sync_playwright

    _, path = eia_report
    requests = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                    "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.route("**/*", lambda route: (requests.append(route.request.url), route.continue_()
                                          if route.request.url.startswith("file:") else route.abort()))
        page.goto(path.as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3", timeout=60_000)
        plotted = page.eval_on_selector_all(".js-plotly-plot", "els => els.map(e => e.querySelectorAll("
                                            "'g.trace path.point, g.trace g.point path').length)")  # markers, bars
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "html_report_eia.png"), full_page=True)
        browser.close()
    assert len(plotted) == 3 and min(plotted) > 0, plotted  # three plots, each with drawn marks
    assert [u for u in requests if not u.startswith("file:")] == []  # no network request


def test_a_differentially_private_release_states_its_accounting():
    """ε, every attribute's bounds, sensitivity and noise scale, and the noise seed (docs/methods.md §7.3)."""
    rel = ma.microaggregate(ma.load_dataset("uniform", n=300, d=2), 20, method="insensitive_mdav",
                            aggregation="laplace", bounds="0:40000,0:40000", epsilon=4.0, noise_seed=11)
    page = html_report(rel, sweep_ks=None)
    section = page[page.index("<h2>Differential privacy</h2>"):page.index("<h2>Data</h2>")]
    scale = rel.report().query("metric == 'DP Laplace scale b_j'")["value"]
    assert len(scale) == 2 and all(f"{v:g}"[:5] in section.replace(",", "") for v in scale)
    assert "differential privacy ε" in section and "[0, 40000]" in section and "DP sensitivity" in section
    assert re.search(r"noise_seed of laplace</td>\s*<td>11<", page)
    private = page[page.index('<p class="private">'):page.index("</p>", page.index('<p class="private">'))]
    assert "seed of the Laplace noise" in private  # the file that holds the noise seed says why it is private


SURVEY_ORDER = list(ma.datasets.SURVEY_EDUCATION)


def cell(page: str, label: str) -> str:
    """The value beside ``label`` in the report's tables."""
    return re.search(rf"<td>{re.escape(label)}</td>\s*<td>([^<]*)</td>", page).group(1)


@pytest.mark.parametrize("case", ["weights", "missing cells", "imputed, categories", "keys and strata",
                                  "strata not released", "given labels"])
def test_every_release_the_api_makes_has_a_report(case):
    df = ma.load_dataset("survey")
    options = {"weights": dict(columns=["household_size"], sampling_weights="weight"),
               "missing cells": dict(columns=["age", "household_size"]),
               "imputed, categories": dict(columns=["age"], missing="impute", sampling_weights="weight",
                                           nominal=["region"], ordinal={"education": SURVEY_ORDER}),
               "keys and strata": dict(columns=["household_size"], keys=["region"], strata=["region"]),
               "strata not released": dict(columns=["household_size"], strata=["region"]),
               "given labels": dict(columns=["household_size"], labels=np.arange(len(df)) // 4)}[case]
    rel = ma.microaggregate(df, 4, seed=2, **options)
    page = html_report(rel)  # before: refused, or "columns ['region'] are not in the data", "unknown method"
    assert page.count("Plotly.newPlot") == 3 and cell(page, "k-anonymous") == "True"
    swept = "No sweep over k" not in page
    assert swept == (case in ("keys and strata", "strata not released"))
    if rel.survey is not None:
        assert ("No sweep over k: sampling weights or missing cells" in page) == (rel.categories is None)
        assert cell(page, "sampling weights") == ("weight: not released" if "sampling_weights" in options else "none")
        assert ("IL (observed cells)" in page) == rel.missing_cells
    if case == "given labels":
        assert "a given partition" in page and "labels=labels" in page and "only through the Python API" in page


def test_the_sweep_reruns_the_release_in_its_strata():
    df = ma.load_dataset("survey")
    rel = ma.microaggregate(df, 3, columns=["household_size"], keys=["region"], strata=["region"], seed=2)
    page = html_report(rel, sweep_ks=(3, 5))
    again = ma.lab.explore.risk_utility(df, [3, 5], {"MDAV": ("mdav", {"variant": "generic"})},
                                        columns=["household_size"],
                                    keys=["region"], strata=["region"], shuffle=False)
    il = again.set_index("k").loc[3, "IL"]
    report = rel.report().set_index("metric")
    assert np.isclose(il, float(report.loc["IL", "value"])) and "No sweep" not in page


def test_the_sweep_stops_at_the_smallest_stratum():
    """A stratum of 6 records: the sweep's k = 10 cannot run in it, so the sweep takes k = 2, 3, 5 (the release's
    k among them) rather than refuse the whole report; with every stratum below 3 records there is no other k."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.normal(size=36), "y": rng.normal(size=36), "region": ["A"] * 30 + ["E"] * 6})
    rel = ma.microaggregate(df, 3, columns=["x", "y"], keys=["region"], strata=["region"], seed=1)
    page = html_report(rel)
    assert "No sweep" not in page and cell(page, "k-anonymous") == "True"
    swept = re.findall(r"k=(\d+)", page)
    assert {"2", "3", "5"} <= set(swept) and "10" not in swept
    tiny = pd.DataFrame({"x": rng.normal(size=8), "region": ["A", "B", "C", "D"] * 2})
    page = html_report(ma.microaggregate(tiny, 2, columns=["x"], keys=["region"], strata=["region"], seed=1))
    assert "No sweep over k: no other k between 2 and the smallest stratum (2 records)" in page


def test_linkage_ratios_with_missing_cells():
    Z = np.array([[0.0, np.nan], [1.0, 5.0], [3.0, 5.0]])
    Zp = np.array([[0.2, np.nan], [0.8, 5.0], [1.5, 5.0]])
    # partial distances (d/|O| over the attributes observed in both): row 0 0.08 against 1.28; row 1 0.04 against
    # 1.28 and 4.84; row 2 2.25 against 4.5 and 0.25 (squared)
    assert np.allclose(linkage_ratios(Z, Zp), [0.25, 0.2 / np.sqrt(1.28), 3.0])


def test_cli_report_of_a_survey_release_with_keys_and_strata(tmp_path, capsys):
    from microagg.cli import main

    src, out, report = tmp_path / "survey.csv", tmp_path / "out.csv", tmp_path / "r.html"
    ma.load_dataset("survey").to_csv(src, index=False)
    assert main(["run", "--input", str(src), "--k", "3", "--columns", "age,household_size", "--sampling-weights",
                 "weight", "--keys", "region", "--strata", "region", "--seed", "5", "--out", str(out),
                 "--report", str(report)]) == 0, capsys.readouterr().err  # before: exit 2, --out written alone
    page = report.read_text(encoding="utf-8")
    assert "--sampling-weights weight" in page and "--keys region --strata region" in page
    assert out.exists() and "region" in out.read_text(encoding="utf-8").splitlines()[0]


def test_cli_writes_nothing_when_the_report_cannot_be_made(tmp_path, capsys, monkeypatch):
    from microagg import cli

    def broken(*args, **kwargs):
        raise ma.MicroaggError("the report failed")

    monkeypatch.setattr(cli, "html_report", broken)
    out, report = tmp_path / "out.csv", tmp_path / "r.html"
    assert cli.main(["run", "--dataset", "tarragona", "--k", "3", "--out", str(out), "--report", str(report)]) == 2
    assert "the report failed" in capsys.readouterr().err
    assert not out.exists() and not report.exists()  # before: --out written, then exit 2


def test_the_report_recipe_loads_the_same_data(tmp_path):
    from microagg.cli import main

    report = tmp_path / "r.html"
    assert main(["run", "--dataset", "synthetic", "--data-param", "n=300", "--data-param", "seed=5", "--k", "3",
                 "--report", str(report)]) == 0
    page = report.read_text(encoding="utf-8")
    assert "ma.load_dataset(&#x27;synthetic&#x27;, n=300, seed=5)" in page
    assert "--dataset synthetic --data-param n=300 --data-param seed=5" in page


def test_the_page_says_what_links_rows_beyond_the_masked_columns():
    """Kept columns that break k-anonymity, rows in the input's order and the input's index are said on the page as
    in ``Release.report()``, not only in its parameter table."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "age": rng.integers(18, 90, 300) * 1.0})
    with pytest.warns(UserWarning):
        risky = ma.microaggregate(df, 5, columns=["a", "b"], keep=["age"], shuffle=False, keep_index=True)
    page = html_report(risky, sweep_ks=None)
    assert re.search(r"k-anonymous with the kept columns known</td>\s*<td>no: not with age known", page)
    assert re.search(r"row order</td>\s*<td>input order", page) and re.search(r"input index</td>\s*<td>the input", page)
    plain = html_report(ma.microaggregate(df, 5, columns=["a", "b"]), sweep_ks=None)
    assert "kept columns known" not in plain and "input index" not in plain
    assert re.search(r"row order</td>\s*<td>shuffled", plain)
