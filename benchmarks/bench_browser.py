"""Time the dashboard where the user is: widget change -> settled page in Chromium, on EIA; print a table.

    python benchmarks/bench_browser.py                      # port 8620, 5 repeats per change
    python benchmarks/bench_browser.py --repeat 9 --chromium /usr/bin/chromium
    python benchmarks/bench_browser.py --app old/app.py     # another version of the dashboard, same measurements

Starts ``streamlit run app.py`` on a port, opens it in headless Chromium (Playwright), and reports:

- the cold first page: seconds from starting the server to the first message on the page and to the first
  results (IL shown), and whether the numba kernels were already compiled on this machine;
- for each widget change (k, method, aggregation, P3M's α, Δ and w), the median and largest time from the
  key press or click to a settled page (Streamlit's running indicator gone and no element marked stale);
- the server's CPU use over 30 s while the page stays open and nobody touches it (% of one core).

The one-minute load average is printed beside every figure: on a busy machine the times grow with it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
P3M = "P3M (proximity-breach prevention)"


def load() -> float:
    return os.getloadavg()[0]


def kernels_cached() -> bool:
    """Whether numba holds MDAV's compiled kernels on disk (in ``NUMBA_CACHE_DIR`` when it is set)."""
    where = os.environ.get("NUMBA_CACHE_DIR")
    return any((Path(where) if where else ROOT / "microagg" / "partition" / "__pycache__").rglob("mdav.*.nbi"))


def start_server(port: int, app: Path = ROOT / "app.py") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.port",
                             str(port), "--server.headless", "true"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise SystemExit("streamlit did not start")


WATCH = """() => {
  const app = document.querySelector('[data-test-script-state]');
  window.__ran = false; window.__finished = false;
  if (window.__watched !== app) {
    window.__watched = app;
    new MutationObserver(() => {
      const state = app.getAttribute('data-test-script-state');
      if (state === 'running') window.__ran = true;
      else if (window.__ran && state === 'notRunning') window.__finished = true;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  }
}"""
DONE = "() => window.__finished && !document.querySelector('[data-stale=\"true\"]')"


def settled(page, timeout: float = 300.0) -> None:
    """Wait until no run is going on and nothing on the page is stale (after the first page or a set-up step)."""
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=timeout * 1000)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=timeout * 1000)


def choose(page, label: str, option: str) -> None:
    box = page.get_by_role("combobox", name=label)
    box.focus()
    box.press("ArrowDown")
    page.locator('[role="option"]').filter(has_text=option).first.click()


def type_number(page, label: str, value) -> None:
    box = page.get_by_role("spinbutton", name=label).first
    box.fill(str(value))
    box.press("Enter")


def nudge_slider(page, label: str, key: str) -> None:
    thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text=label) \
        .get_by_role("slider")
    thumb.focus()
    thumb.press(key)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(page, action) -> float:
    """Seconds from ``action`` to the end of the run it starts (seen by a watcher of Streamlit's run state, so
    that a run shorter than the running indicator's delay is timed too) with no element left stale."""
    page.evaluate(WATCH)
    t0 = time.perf_counter()
    action()
    page.wait_for_function(DONE, timeout=300_000, polling="raf")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=8620)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="time only the changes whose title contains this text")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--app", type=Path, default=ROOT / "app.py", help="the app to serve (another version, say)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    cached = kernels_cached()
    load0 = load()
    t0 = time.perf_counter()
    proc = start_server(args.port, args.app.resolve())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{args.port}")
            page.wait_for_selector("h1", timeout=300_000)
            first = time.perf_counter() - t0
            page.wait_for_selector("text=Information loss (IL)", timeout=600_000)
            results = time.perf_counter() - t0
            settled(page)
            print(f"cold first page: title and sidebar after {first:.1f} s, results after {results:.1f} s "
                  f"(numba kernels {'already' if cached else 'not yet'} compiled; load {load0:.2f})\n")
            timed(page, lambda: choose(page, "Data set", "eia"))
            rows = []

            def measure(title, there, back):
                if args.only not in title:
                    return
                there_t, back_t, loads = [], [], []
                for _ in range(args.repeat):
                    loads.append(load())
                    there_t.append(timed(page, there))
                    back_t.append(timed(page, back))
                times = there_t + back_t
                rows.append((title, statistics.median(times), max(times), statistics.mean(loads)))

            measure("k 5 -> 6 (box)", lambda: type_number(page, "k (minimum group size)", 6),
                    lambda: type_number(page, "k (minimum group size)", 5))
            measure("method MDAV -> V-MDAV", lambda: choose(page, "Partitioning method", "V-MDAV"),
                    lambda: choose(page, "Partitioning method", "MDAV"))
            measure("aggregation mean -> median", lambda: choose(page, "Aggregation", "Median"),
                    lambda: choose(page, "Aggregation", "Mean"))
            timed(page, lambda: choose(page, "Aggregation", P3M))
            measure("P3M α ± 0.01 (slider)", lambda: nudge_slider(page, "α", "ArrowRight"),
                    lambda: nudge_slider(page, "α", "ArrowLeft"))
            measure("P3M Δ 0.1 -> 0.2 (box)", lambda: type_number(page, "Δ, minimum distance wished (z units)", 0.2),
                    lambda: type_number(page, "Δ, minimum distance wished (z units)", 0.1))
            measure("P3M w 0.001 -> 0.01 (box)", lambda: type_number(page, "w, importance of each wish", 0.01),
                    lambda: type_number(page, "w, importance of each wish", 0.001))
            page.wait_for_timeout(5000)
            c0, w0 = cpu_seconds(proc.pid), time.perf_counter()
            page.wait_for_timeout(30_000)
            idle_cpu = 100 * (cpu_seconds(proc.pid) - c0) / (time.perf_counter() - w0)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"EIA, Chromium headless, {args.repeat} changes each way; {os.cpu_count()} cores\n")
    print("| widget change | median (s) | max (s) | load average (1 min) |")
    print("|---|---|---|---|")
    for title, med, worst, avg in rows:
        print(f"| {title} | {med:.2f} | {worst:.2f} | {avg:.2f} |")
    print(f"\nidle server with the page open: {idle_cpu:.2f} % of one core over 30 s (load {load():.2f})")


if __name__ == "__main__":
    main()
