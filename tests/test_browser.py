"""The dashboard in a real headless browser (Chromium driven by Playwright)."""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "tests" / "screenshots"  # git-ignored: look at them after a run
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt install chromium)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                             str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ})
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: " + proc.stdout.read().decode(errors="replace")[-2000:])
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.goto(server)
        yield pg
        browser.close()


def idle(page):
    """Wait until the app has finished its run (Streamlit's running indicator is gone)."""
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=180_000)
    page.wait_for_timeout(500)


def loss(page) -> str:
    return page.locator('[data-testid="stMetricValue"]').first.inner_text()


def shoot(page, name: str):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert (SHOTS / f"{name}.png").stat().st_size > 10_000


def test_dashboard_renders_results_and_charts(page):
    page.wait_for_selector("text=Information loss (IL)", timeout=180_000)
    page.wait_for_selector("text=9.088 %", timeout=60_000)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    assert page.locator(".js-plotly-plot").count() >= 2
    page.get_by_role("tab", name="Release").click()
    page.wait_for_selector("text=Download the release (CSV)", timeout=60_000)
    shoot(page, "release")
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download the release (CSV)").click()
    header, *rows = Path(download.value.path()).read_text().splitlines()
    assert header.startswith("AFNLWGT,") and len(rows) == 1080  # Census, every record released
    page.get_by_role("tab", name="Partition").click()
    shoot(page, "partition")


def test_changing_k_in_the_browser_updates_the_loss(page):
    box = page.get_by_role("spinbutton", name="k (minimum group size)")
    box.fill("3")
    box.press("Enter")
    page.wait_for_selector("text=5.692 %", timeout=60_000)


def test_moving_the_alpha_slider_updates_the_metrics(page):
    idle(page)
    box = page.get_by_role("combobox", name="Aggregation")
    box.focus()
    box.press("ArrowDown")  # opens the list (a click on the focused box may not)
    page.locator('[role="option"]').filter(has_text="P3M").first.click()
    page.wait_for_selector("text=alpha", timeout=60_000)
    idle(page)
    before = loss(page)
    thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="alpha") \
        .get_by_role("slider")
    thumb.focus()
    for _ in range(20):  # alpha 0.5 -> 0.7 in steps of 0.01
        thumb.press("ArrowRight")
    page.wait_for_selector("text=0.70", timeout=30_000)
    page.wait_for_function("v => document.querySelector('[data-testid=\"stMetricValue\"]').innerText !== v", arg=before,
                           timeout=120_000)
    idle(page)
    assert loss(page) != before and loss(page).endswith(" %")
    for tab, name in (("Aggregation", "aggregation"), ("Personalized privacy", "privacy"),
                      ("Risk & utility", "risk")):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(1500)
        shoot(page, name)
