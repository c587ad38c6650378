"""Time the dashboard's re-run after one widget change, with warm caches; print a table.

    python benchmarks/bench_app.py                           # EIA, k = 5, MDAV; 5 repeats per change
    python benchmarks/bench_app.py --data census --repeat 10
    python benchmarks/bench_app.py --against old/app.py      # this app and another, alternated in one process

Server time of one script run through Streamlit's ``AppTest`` (the app code, the cached stages, the
figures and tables it builds; not the browser's rendering or the websocket), and the CPU time of the
thread that ran it. Each change is applied, undone and applied again so that the timed run finds its
stages in the cache when the change allows it (the partition is reused when only an aggregation or
metric parameter moves). "cold" is the first run of a change whose stages are not cached yet.
Target of the dashboard: < 300 ms for a widget change on EIA with the partition cached.

A server compiles ``app.py`` once and keeps the bytecode (``ScriptCache``); ``AppTest`` compiles it again
on every run (0.1–0.2 s for the single-file app of before 2026-11-27; the entry is a few lines now, the page
a package imported once). The runs here share one cache, as the server does; ``--compile-each-run`` times them
as ``AppTest`` does by default (the tables before 2026-11-24).

With ``--against OTHER``, both apps run in turn in one process (same load), each change's warm runs
alternating between them; the ratio is this app's median over the other's. The two share Streamlit's
cache of functions whose code is identical (the partition): the second app's cold run of a change uses a
value of its own so that it is cold too.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from streamlit.runtime.scriptrunner import script_runner
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, local_script_runner

APP = str(Path(__file__).resolve().parent.parent / "app.py")
P3M = "P3M (proximity-breach prevention)"
CPU = {"last": 0.0}  # CPU seconds of the thread that ran the last script run


def _timed_script(run):
    def wrapped(self, *args, **kwargs):
        t0 = time.thread_time()
        try:
            return run(self, *args, **kwargs)
        finally:
            CPU["last"] = time.thread_time() - t0

    return wrapped


def timed_run(at: AppTest) -> tuple[float, float]:
    """Wall and CPU seconds of one run of the script."""
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    if at.exception or at.error:
        raise SystemExit(f"the app failed: {at.exception or at.error}")
    return elapsed, CPU["last"]


def start(app: str, data: str, k: int) -> tuple[AppTest, float, float]:
    at = AppTest.from_file(app, default_timeout=600)
    first = timed_run(at)[0]
    at.selectbox(key="dataset").set_value(data)
    at.number_input(key="k").set_value(k)
    return at, first, timed_run(at)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="eia")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--app", default=APP)
    ap.add_argument("--against", help="another app.py to time in the same process, alternated with this one")
    ap.add_argument("--compile-each-run", action="store_true", help="compile app.py on every run, as AppTest does")
    args = ap.parse_args()

    script_runner.ScriptRunner._run_script = _timed_script(script_runner.ScriptRunner._run_script)
    if not args.compile_each_run:
        shared = ScriptCache()
        local_script_runner.ScriptCache = lambda: shared
    apps = [args.app] + ([args.against] if args.against else [])
    sessions = [start(app, args.data, args.k) for app in apps]
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; data {args.data}, "
          f"k = {args.k}; first page load {', '.join(f'{s[1]:.2f}' for s in sessions)} s (kernel warm-up), switch "
          f"to {args.data} {', '.join(f'{s[2]:.2f}' for s in sessions)} s; apps: {', '.join(apps)}; bytecode "
          f"{'compiled on every run' if args.compile_each_run else 'compiled once'}\n")

    # (what changes, widget key and kind, value A, value B, the second app's cold value, aggregation selected first)
    changes = [
        ("k (new partition, then cached)", ("k", "number_input"), args.k + 1, args.k, args.k + 2, "Mean"),
        ("aggregation mean -> median", ("aggregation", "selectbox"), "Median", "Mean", "Median", "Mean"),
        ("metric p (SDID interval)", ("m-p", "number_input"), 10.0, 5.0, 12.0, "Mean"),
        ("P3M alpha", ("a-p3m-alpha", "slider"), 0.7, 0.5, 0.75, P3M),
        ("P3M Delta", ("a-p3m-delta", "number_input"), 0.2, 0.1, 0.25, P3M),
        ("P3M w", ("a-p3m-w", "number_input"), 0.01, 0.001, 0.02, P3M),
    ]
    names = ["this app", "other app"][:len(apps)]
    head = " | ".join(f"{n}: cold / warm median / warm max (ms) | {n}: warm CPU median (ms)" for n in names)
    print(f"| widget change | {head} |" + (" ratio of warm medians (wall, CPU) |" if args.against else "")
          + " load average (1 min) |")
    print("|---|" + "---|---|" * len(apps) + ("---|" if args.against else "") + "---|")
    for title, (key, kind), a, b, alt, aggregation in changes:
        loads, rows = [os.getloadavg()[0]], []
        for i, (at, _, _) in enumerate(sessions):
            if at.selectbox(key="aggregation").value != aggregation:
                at.selectbox(key="aggregation").set_value(aggregation)
                timed_run(at)
            getattr(at, kind)(key=key).set_value(a if i == 0 else alt)
            rows.append({"cold": timed_run(at)[0], "wall": [], "cpu": []})
            getattr(at, kind)(key=key).set_value(b)
            timed_run(at)
        for _ in range(args.repeat):
            for (at, _, _), row in zip(sessions, rows):
                getattr(at, kind)(key=key).set_value(a)
                wall, cpu = timed_run(at)
                row["wall"].append(wall)
                row["cpu"].append(cpu)
                getattr(at, kind)(key=key).set_value(b)
                timed_run(at)
        loads.append(os.getloadavg()[0])
        cells = " | ".join(f"{1000 * r['cold']:.0f} / {1000 * statistics.median(r['wall']):.0f} / "
                           f"{1000 * max(r['wall']):.0f} | {1000 * statistics.median(r['cpu']):.0f}" for r in rows)
        ratio = ""
        if args.against:
            ratio = (f" {statistics.median(rows[0]['wall']) / statistics.median(rows[1]['wall']):.2f}, "
                     f"{statistics.median(rows[0]['cpu']) / statistics.median(rows[1]['cpu']):.2f} |")
        print(f"| {title} | {cells} |{ratio} {min(loads):.1f}–{max(loads):.1f} |", flush=True)


if __name__ == "__main__":
    main()
