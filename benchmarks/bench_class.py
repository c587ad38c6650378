"""A class on one server: N students open the dashboard together and each makes a few widget changes, seconds apart.

    python benchmarks/bench_class.py                          # N = 1, 10, 30; 5 changes each; one server
    python benchmarks/bench_class.py --students 30 --changes 3
    python benchmarks/bench_class.py --servers 2              # two server processes behind one address
    python benchmarks/bench_class.py --driver browser         # each student a headless Chromium context instead
    python benchmarks/bench_class.py --students 30 --rounds 3 # three classes in turn on one server (memory after each)

Starts ``streamlit run app.py`` (fresh; numba's compiled kernels are read from disk) and opens the page once,
as the lecturer does before the class, making the same changes with a k no student takes (so every tab has been
drawn once and what it imports is loaded, but no student finds a result computed for it), then drives N sessions
at once. By
default each student is a session in Streamlit's own client protocol (``class_client.Page``: the websocket a
browser tab opens, the widget values it sends, every element of each run read to its end), so that what is
measured is the server, not thirty browsers sharing its cores; ``--driver browser`` drives one headless Chromium
(Playwright), one browser context per student, and times what a student sees on the page. Each student opens the
page (timed to the end of its first run), then, after a pause of 1 to 4 s, makes each change of :data:`CHANGES` in
turn (the first ``--changes``), each timed from the key press, click or message to the end of the run it starts.
Students take k from a few values, as a class following its lecturer does, so some settings are shared and some
are not. A student succeeds when every page and change ended with its results and no error within five minutes.
In a browser, a run's end is read from the page's websocket (a run of milliseconds may never show as running on
the page), and a click after which no run ended within 10 s (lost: Chromium on a busy machine) is made again, counted
in the table, and timed from the first.

Reported per N: students that succeeded, page open and change latency (median, p95, max), the server's CPU
(seconds, and % of one core over the run) and resident memory (after the lecturer's page, at its peak, and after
the sessions closed and the server's ``disconnectedSessionTTL`` passed), the driver's own CPU, and the one-minute load.
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

from bench_browser import ARGS, ROOT, cpu_seconds
from class_client import FINISHED, Page
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from microagg.dashboard import serve

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
    """Student ``i``'s changes in order: (title, widget key and value for the protocol driver, browser action); the
    lecturer (``i`` < 0) takes k = 7, which neither a student nor the page at its start has."""
    k = (3, 4, 6)[i % 3] if i >= 0 else 7
    return [(f"k {k}", ("k", k), lambda page: type_number(page, "k (minimum group size)", k)),
            ("method V-MDAV", ("method", "V-MDAV"), lambda page: choose(page, "Partitioning method", "V-MDAV")),
            ("tab Risk & utility", ("tab", "Risk & utility"), lambda page: open_tab(page, "Risk & utility")),
            ("aggregation P3M", ("aggregation", P3M), lambda page: choose(page, "Aggregation", P3M)),
            ("tab Release", ("tab", "Release"), lambda page: open_tab(page, "Release"))]


CHANGES = [title for title, *_ in changes(0)]


STATE = """() => `script ${document.querySelector('[data-test-script-state]')
 ?.getAttribute('data-test-script-state')}, ${document.querySelectorAll('[data-stale="true"]').length} stale`"""


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


class Runs:
    """The runs a page's websocket reported finished (``script_finished`` messages, read as the browser receives
    them): a run of a few milliseconds may never show as running on the page, so the page's run state alone misses
    it."""

    def __init__(self, page):
        self.finished = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(payload))
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished == FINISHED:
                self.finished += 1

    async def after(self, count: int, seconds: float) -> bool:
        """Whether a run ends after the first ``count`` within ``seconds``."""
        deadline = time.perf_counter() + seconds
        while self.finished <= count:
            if time.perf_counter() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True


async def student(browser, url: str, i: int, n_changes: int, timeout: float, out: dict) -> None:
    rng = random.Random(i)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    runs = Runs(page)
    record = out[i] = {"open": None, "changes": [], "error": None, "again": 0}
    title = "page open"
    try:
        t0 = time.perf_counter()
        await page.goto(url, timeout=timeout * 1000)
        await page.wait_for_selector("text=Information loss (IL)", timeout=timeout * 1000)
        await settled(page, timeout)
        record["open"] = time.perf_counter() - t0
        for title, _, action in changes(i)[:n_changes]:
            await asyncio.sleep(rng.uniform(1, 4))
            before = runs.finished
            t0 = time.perf_counter()
            await action(page)
            for _ in range(3):  # a click the browser lost (no run ended within 10 s) is made again, and counted
                if await runs.after(before, 10):
                    break
                record["again"] += 1
                await action(page)
            if not await runs.after(before, timeout):
                raise TimeoutError(f"no run ended within {timeout:.0f} s")
            await settled(page, timeout)
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


async def student_by_protocol(url: str, i: int, n_changes: int, timeout: float, out: dict) -> None:
    """``student`` without a browser: the same changes, sent in Streamlit's client protocol (``class_client``), each
    timed from sending it to the end of its run."""
    rng = random.Random(i)
    page = Page(url)
    record = out[i] = {"open": None, "changes": [], "error": None, "again": 0}
    title = "page open"
    try:
        record["open"] = await page.open(timeout)
        if page.errors:
            raise RuntimeError(page.errors[0])
        for title, (key, value), _ in changes(i)[:n_changes]:
            await asyncio.sleep(rng.uniform(1, 4))
            record["changes"].append((title, await page.change(key, value, timeout)))
            if page.errors:
                raise RuntimeError(page.errors[0])
    except Exception as exc:  # noqa: BLE001 - a student without every result: counted, said below
        record["error"] = f"{title}: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    finally:
        await page.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_server(count: int, port: int, options: list[str]) -> tuple[subprocess.Popen, list[int]]:
    """One ``streamlit run app.py`` on ``port``, or ``count`` of them behind it (``microagg.dashboard.serve``); the
    process to stop and the processes to measure (the balancer and its servers)."""
    streamlit = ["--server.headless", "true", "--server.disconnectedSessionTTL", str(TTL), *options]
    if count == 1:
        cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port), *streamlit]
    else:
        cmd = [sys.executable, "-m", "microagg.dashboard.serve", "--processes", str(count), "--port", str(port), "--",
               *streamlit]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not serve.answering(port, proc):
        raise SystemExit("streamlit did not start")
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    pids = [proc.pid] + ([int(c) for c in children.read_text().split()] if count > 1 else [])
    return proc, pids


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def students(n: int, first: int, args, out: dict, n_changes: int) -> None:
    """Students ``first`` .. ``first + n - 1`` (negative: the lecturer, one per server) on ``args.driver``."""
    urls = [f"http://127.0.0.1:{args.port}"] * n
    if args.driver == "protocol":
        await asyncio.gather(*(student_by_protocol(url, i, n_changes, args.timeout, out)
                               for i, url in zip(range(first, first + n), urls)))
        return
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=args.chromium, args=ARGS)
        await asyncio.gather(*(student(browser, url, i, n_changes, args.timeout, out)
                               for i, url in zip(range(first, first + n), urls)))
        await browser.close()


async def run_class(n: int, args) -> list[dict]:
    """``args.rounds`` classes of ``n`` students, one after the other, on one server started for them."""
    proc, pids = start_server(args.servers, args.port, args.option)
    try:
        # the lecturer opens the page before the class, and tries the changes on each server (every tab drawn once)
        await students(args.servers, -args.servers, args, {}, args.changes)
        await asyncio.sleep(2)
        mem0 = sum(rss_mb(p) for p in pids)
        return [await one_class(n, args, pids, mem0) for _ in range(args.rounds)]
    finally:
        proc.terminate()
        proc.wait(timeout=60)


async def one_class(n: int, args, pids: list[int], mem0: float) -> dict:
    """One class of ``n`` students on the running server; ``mem0``: its memory after the lecturer's page."""
    cpu0, wall0, load0 = sum(cpu_seconds(p) for p in pids), time.perf_counter(), os.getloadavg()[0]
    driver0 = time.process_time()
    peak = [sum(rss_mb(p) for p in pids)]

    async def watch():
        while True:
            peak[0] = max(peak[0], sum(rss_mb(p) for p in pids))
            await asyncio.sleep(0.5)

    watcher = asyncio.create_task(watch())
    out: dict = {}
    await students(n, 0, args, out, args.changes)
    cpu = sum(cpu_seconds(p) for p in pids) - cpu0
    wall = time.perf_counter() - wall0
    driver = time.process_time() - driver0
    load1 = os.getloadavg()[0]
    await asyncio.sleep(TTL + 20)  # the closed sessions' state dropped (the TTL, then Streamlit's sweep)
    watcher.cancel()
    after = sum(rss_mb(p) for p in pids)
    ok = [r for r in out.values() if r["error"] is None and len(r["changes"]) == args.changes]
    opens = [r["open"] for r in out.values() if r["open"] is not None]
    moves = [t for r in out.values() for _, t in r["changes"]]
    return {"n": n, "ok": len(ok), "opens": opens, "moves": moves, "cpu": cpu, "wall": wall, "mem0": mem0,
            "peak": peak[0], "after": after, "load": (load0, load1), "driver": driver,
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
    ap.add_argument("--servers", type=int, default=1, help="server processes behind --port (from 2: "
                                                          "python -m microagg.dashboard.serve --processes N)")
    ap.add_argument("--port", type=int, default=8640)
    ap.add_argument("--rounds", type=int, default=1, help="classes of N students one after the other on the same "
                                                         "server (memory after each: what stays for the next class)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a page or a change may take")
    ap.add_argument("--option", action="append", default=[], help="another option for streamlit run, e.g. "
                                                                 "--option=--server.maxUploadSize=10")
    ap.add_argument("--driver", choices=["protocol", "browser"], default="protocol",
                    help="protocol (default): each student a session in Streamlit's client protocol, no browser; "
                         "browser: each student a context of one headless Chromium (Playwright)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    how = ("students in Streamlit's client protocol from this machine (no browsers)" if args.driver == "protocol"
           else "browsers on the same machine")
    print(f"{args.servers} server process(es); {os.cpu_count()} cores; {args.changes} changes per student "
          f"({', '.join(CHANGES[:args.changes])}); {how}\n")
    print("| students | succeeded | clicks made again | page open, median / p95 / max (s) | "
          "change, median / p95 / max (s) | server CPU (s; % of one core) | "
          "server memory, lecturer's page / peak / after (MB) | driver CPU (s) | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    for n in args.students:
        for c, r in enumerate(asyncio.run(run_class(n, args))):
            label = f"{r['n']}" + (f" (class {c + 1})" if args.rounds > 1 else "")
            print(f"| {label} | {r['ok']}/{r['n']} | {r['again']} | {triple(r['opens'])} | {triple(r['moves'])} | "
                  f"{r['cpu']:.0f}; {100 * r['cpu'] / r['wall']:.0f} % | {r['mem0']:.0f} / {r['peak']:.0f} / "
                  f"{r['after']:.0f} | {r['driver']:.0f} | {r['load'][0]:.1f} → {r['load'][1]:.1f} |", flush=True)
            for error in r["errors"][:5]:
                print(f"  N={n}: {error}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
