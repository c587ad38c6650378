"""Time the dashboard's re-run after one widget change, with warm caches; print a table.

    python benchmarks/bench_app.py               # EIA, k = 5, MDAV; 5 repeats per change
    python benchmarks/bench_app.py --data census --repeat 10

Server time of one script run through Streamlit's ``AppTest`` (the app code, the cached stages, the
figures and tables it builds; not the browser's rendering or the websocket). Each change is applied,
undone and applied again so that the timed run finds its stages in the cache when the change allows it
(the partition is reused when only an aggregation or metric parameter moves). "cold" is the first run
of a change whose stages are not cached yet. Target of the dashboard: < 300 ms for a widget change on EIA
with the partition cached.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
P3M = "P3M (proximity-breach prevention)"


def timed_run(at: AppTest) -> float:
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    if at.exception or at.error:
        raise SystemExit(f"the app failed: {at.exception or at.error}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="eia")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    at = AppTest.from_file(APP, default_timeout=600)
    first = timed_run(at)
    at.selectbox(key="dataset").set_value(args.data)
    at.number_input(key="k").set_value(args.k)
    load = timed_run(at)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; data {args.data}, "
          f"k = {args.k}; first page load {first:.2f} s (kernel warm-up), switch to {args.data} {load:.2f} s\n")

    # (what changes, widget getter, value A, value B, aggregation to select first)
    changes = [
        ("k (new partition, then cached)", lambda: at.number_input(key="k"), args.k + 1, args.k, "Mean"),
        ("aggregation mean -> median", lambda: at.selectbox(key="aggregation"), "Median", "Mean", "Mean"),
        ("metric p (SDID interval)", lambda: at.number_input(key="m-p"), 10.0, 5.0, "Mean"),
        ("P3M alpha", lambda: at.slider(key="a-p3m-alpha"), 0.7, 0.5, P3M),
        ("P3M Delta", lambda: at.number_input(key="a-p3m-delta"), 0.2, 0.1, P3M),
        ("P3M w", lambda: at.number_input(key="a-p3m-w"), 0.01, 0.001, P3M),
    ]
    print("| widget change | cold run (ms) | warm run, median (ms) | warm run, max (ms) |")
    print("|---|---|---|---|")
    for title, get, a, b, aggregation in changes:
        if at.selectbox(key="aggregation").value != aggregation:
            at.selectbox(key="aggregation").set_value(aggregation)
            timed_run(at)
        get().set_value(a)
        cold = timed_run(at)
        warm = []
        for _ in range(args.repeat):
            get().set_value(b)
            timed_run(at)
            get().set_value(a)
            warm.append(timed_run(at))
        get().set_value(b)
        timed_run(at)
        print(f"| {title} | {1000 * cold:.0f} | {1000 * statistics.median(warm):.0f} | {1000 * max(warm):.0f} |")


if __name__ == "__main__":
    main()
