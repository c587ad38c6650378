"""A class on one server: N students open the dashboard together and each makes a few widget changes, seconds apart.

    python benchmarks/bench_class.py                          # N = 1, 10, 30; 5 changes each; one server
    python benchmarks/bench_class.py --students 30 --changes 3
    python benchmarks/bench_class.py --servers 2              # two server processes, students split between them

Starts ``streamlit run app.py`` (fresh; numba's compiled kernels are read from disk) and opens the page once,
as the lecturer does before the class (the default page is then cached), then drives N real sessions: one headless
Chromium (Playwright), one browser context per student, all at once. Each student opens the page (timed to the
first results on it), then, after a pause of 1 to 4 s, makes each change of :data:`CHANGES` in turn (the first
``--changes``), each timed from the key press or click to the end of the run it starts with nothing left stale.
Students take k from a few values, as a class following its lecturer does, so some settings are shared and some
are not. A student succeeds when every page and change ended with its results and no error within five minutes.
A click that started no run within 10 s (the browser lost it: Chromium on a busy machine) is made again, counted
in the table, and timed from the first.

Reported per N: students that succeeded, page open and change latency (median, p95, max), the server's CPU
(seconds, and % of one core over the run) and resident memory (after that first page, at its peak, and after the
sessions closed and the server's ``disconnectedSessionTTL`` passed). The browsers run on the same machine as the
server, so on a small machine the times are upper bounds; the one-minute load average is printed beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_browser import ARGS, DONE, ROOT, WATCH, cpu_seconds
from playwright.async_api import TimeoutError as PlaywrightTimeout

P3M = "P3M (proximity-breach prevention)"
TTL = 15  # the servers' disconnectedSessionTTL here: how long a closed session's state is kept (default 120 s)


def sidebar(page):
    return page.locator('[data-testid="stSidebar"]')


async def choose(page, label: str, option: str) -> None:
    box = sidebar(page).get_by_role("combobox", name=label)
    await box.focus()
    await box.press("ArrowDown")
    await page.locator('[role="option"]').filter(has_text=option).first.click()


async def type_number(page, label: str, value) -> None:
    box = sidebar(page).get_by_role("spinbutton", name=label).first
    await box.fill(str(value))
    await box.press("Enter")


async def open_tab(page, name: str) -> None:
    await page.get_by_role("tab", name=name).click()


def changes(i: int) -> list:
    """Student ``i``'s changes in order: (title, action)."""
    k = (3, 4, 6)[i % 3]
    return [(f"k {k}", lambda page: type_number(page, "k (minimum group size)", k)),
            ("method V-MDAV", lambda page: choose(page, "Partitioning method", "V-MDAV")),
            ("tab Risk & utility", lambda page: open_tab(page, "Risk & utility")),
            ("aggregation P3M", lambda page: choose(page, "Aggregation", P3M)),
            ("tab Release", lambda page: open_tab(page, "Release"))]


CHANGES = [title for title, _ in changes(0)]


STATE = """() => `script ${document.querySelector('[data-test-script-state]')
 ?.getAttribute('data-test-script-state')},
 ran ${window.__ran}, finished ${window.__finished},
 ${document.querySelectorAll('[data-stale="true"]').length} stale`"""


async def settled(page, timeout: float) -> None:
    await page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=timeout * 1000)
    await page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=timeout * 1000)


async def failed(page) -> str | None:
    """The text of an error or exception on the page, if any."""
    for kind in ("stException", "stAlertContentError"):
        box = page.locator(f'[data-testid="{kind}"]')
        if await box.count():
            return (await box.first.inner_text())[:200]
    return None


async def student(browser, url: str, i: int, n_changes: int, timeout: float, out: dict) -> None:
    rng = random.Random(i)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    record = out[i] = {"open": None, "changes": [], "error": None, "again": 0}
    title = "page open"
    try:
        t0 = time.perf_counter()
        await page.goto(url, timeout=timeout * 1000)
        await page.wait_for_selector("text=Information loss (IL)", timeout=timeout * 1000)
        await settled(page, timeout)
        record["open"] = time.perf_counter() - t0
        for title, action in changes(i)[:n_changes]:
            await asyncio.sleep(rng.uniform(1, 4))
            await page.evaluate(WATCH)
            t0 = time.perf_counter()
            await action(page)
            for _ in range(3):  # a click the browser lost (no run started within 10 s) is made again, and counted
                try:
                    await page.wait_for_function("() => window.__ran", timeout=10_000, polling=100)
                    break
                except PlaywrightTimeout:
                    record["again"] += 1
                    await action(page)
            await page.wait_for_function(DONE, timeout=timeout * 1000, polling=100)
            record["changes"].append((title, time.perf_counter() - t0))
            problem = await failed(page)
            if problem:
                raise RuntimeError(f"{title}: {problem}")
    except Exception as exc:  # noqa: BLE001 - a student without every result: counted, said below
        try:  # what the page was doing
            state = await page.evaluate(STATE)
        except Exception:  # noqa: BLE001 - a closed page says nothing
            state = "?"
        record["error"] = f"{title}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]} ({state})"
    finally:
        await context.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_servers(count: int, port: int, options: list[str]) -> list[subprocess.Popen]:
    import urllib.request

    procs = [subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                               str(port + j), "--server.headless", "true", "--server.disconnectedSessionTTL",
                               str(TTL), *options], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for j in range(count)]
    for j in range(count):
        for _ in range(480):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port + j}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise SystemExit("streamlit did not start")
    return procs


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def run_class(n: int, args) -> dict:
    from playwright.async_api import async_playwright

    procs = start_servers(args.servers, args.port, args.option)
    pids = [p.pid for p in procs]
    try:
        out: dict = {}
        async with async_playwright() as p:  # the lecturer opens the page before the class (per server)
            browser = await p.chromium.launch(executable_path=args.chromium, args=ARGS)
            await asyncio.gather(*(student(browser, f"http://127.0.0.1:{args.port + j}", -1 - j, 0, args.timeout, out)
                                   for j in range(args.servers)))
            await browser.close()
        await asyncio.sleep(2)
        mem0 = sum(rss_mb(p) for p in pids)
        cpu0, wall0, load0 = sum(cpu_seconds(p) for p in pids), time.perf_counter(), os.getloadavg()[0]
        peak = [mem0]

        async def watch():
            while True:
                peak[0] = max(peak[0], sum(rss_mb(p) for p in pids))
                await asyncio.sleep(0.5)

        watcher = asyncio.create_task(watch())
        out = {}
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=args.chromium, args=ARGS)
            await asyncio.gather(*(student(browser, f"http://127.0.0.1:{args.port + i % args.servers}", i,
                                           args.changes, args.timeout, out) for i in range(n)))
            await browser.close()
        cpu = sum(cpu_seconds(p) for p in pids) - cpu0
        wall = time.perf_counter() - wall0
        load1 = os.getloadavg()[0]
        await asyncio.sleep(TTL + 20)  # the closed sessions' state dropped (the TTL, then Streamlit's sweep)
        watcher.cancel()
        after = sum(rss_mb(p) for p in pids)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
    ok = [r for r in out.values() if r["error"] is None and len(r["changes"]) == args.changes]
    opens = [r["open"] for r in out.values() if r["open"] is not None]
    moves = [t for r in out.values() for _, t in r["changes"]]
    return {"n": n, "ok": len(ok), "opens": opens, "moves": moves, "cpu": cpu, "wall": wall, "mem0": mem0,
            "peak": peak[0], "after": after, "load": (load0, load1),
            "errors": [r["error"] for r in out.values() if r["error"]],
            "again": sum(r["again"] for r in out.values())}


def triple(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} / {pct(values, 0.95):.2f} / {max(values):.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, nargs="+", default=[1, 10, 30])
    ap.add_argument("--changes", type=int, default=len(CHANGES), choices=range(1, len(CHANGES) + 1),
                    help=f"how many of the changes each student makes, in this order: {', '.join(CHANGES)}")
    ap.add_argument("--servers", type=int, default=1, help="server processes (ports --port, --port + 1, ...); "
                                                          "student i uses server i mod --servers")
    ap.add_argument("--port", type=int, default=8640)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a page or a change may take")
    ap.add_argument("--option", action="append", default=[], help="another option for streamlit run, e.g. "
                                                                 "--option=--server.maxUploadSize=10")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    print(f"{args.servers} server process(es); {os.cpu_count()} cores; {args.changes} changes per student "
          f"({', '.join(CHANGES[:args.changes])}); browsers on the same machine\n")
    print("| students | succeeded | clicks made again | page open, median / p95 / max (s) | "
          "change, median / p95 / max (s) | server CPU (s; % of one core) | "
          "server memory, first page / peak / after (MB) | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for n in args.students:
        r = asyncio.run(run_class(n, args))
        print(f"| {r['n']} | {r['ok']}/{r['n']} | {r['again']} | {triple(r['opens'])} | {triple(r['moves'])} | "
              f"{r['cpu']:.0f}; {100 * r['cpu'] / r['wall']:.0f} % | {r['mem0']:.0f} / {r['peak']:.0f} / "
              f"{r['after']:.0f} | {r['load'][0]:.1f} → {r['load'][1]:.1f} |", flush=True)
        for error in r["errors"][:5]:
            print(f"  N={n}: {error}", file=sys.stderr, flush=True)

if __name__ == "__main__":
    main()
