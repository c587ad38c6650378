"""The numpy kernels against the compiled ones, and what a newcomer waits for on a cold machine.

    python benchmarks/bench_engines.py                  # every part
    python benchmarks/bench_engines.py --part cold      # import and first Census release, fresh processes
    python benchmarks/bench_engines.py --part app       # the dashboard's first page, fresh processes
    python benchmarks/bench_engines.py --part bundled   # every method of the MDAV family on the CASC sets
    python benchmarks/bench_engines.py --part crossover --sizes 1000 3000 10000 30000 100000

``cold``: CPU seconds of ``import microagg``, of the first release of Census (``microaggregate(census, 3)``) after
it and of its report (``Release.report()``: every metric), each in a fresh process with an empty ``NUMBA_CACHE_DIR``
of its own (as on a new machine), the median of ``--repeat`` processes. ``app``: the dashboard's first page with its
results (Streamlit's ``AppTest``, the server's side: no browser), wall and CPU seconds, the same way. ``bundled``:
each method of the MDAV family on the standardized CASC sets (k = 3), on the numpy kernels and compiled (warm:
compiled before the timing), best of ``--repeat``, in CPU seconds (the machine's load changes wall time, hardly CPU
time); the compiled kernels and BLAS on one thread (``MICROAGG_THREADS=1``) unless ``--threads`` (then the CPU
of all threads). ``crossover``: MDAV-generic on N(0, I), d = 10, k = 3, on both, one run each (the numpy kernels
take seconds above 10⁴ records); the labels are checked equal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILY = ["mdav", "vmdav", "cvmdav", "md", "iamat"]
APP = """
import json, os, sys, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(os.path.join(os.environ["PYTHONPATH"], "app.py"), default_timeout=900)
t0, c0 = time.perf_counter(), time.process_time()
at.run()
assert not at.exception and at.metric, "no results on the first page"
print(json.dumps({"first page, wall": time.perf_counter() - t0, "first page, CPU": time.process_time() - c0,
                  "numba imported": "numba" in sys.modules}))
"""
COLD = """
import json, time
t0 = time.process_time()
import microagg as ma
t1 = time.process_time()
rel = ma.microaggregate(ma.load_dataset("census"), 3)
t2 = time.process_time()
rel.report()
print(json.dumps({"import": t1 - t0, "first release": t2 - t1, "its report": time.process_time() - t2}))
"""


def cold(repeat: int, code: str = COLD) -> dict:
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=HOME)
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(r[key] for r in runs) if key != "numba imported" else any(r[key] for r in runs)
            for key in runs[0]}


def both(name: str, Z, repeat: int) -> tuple[float, float]:
    """Seconds of ``name`` on ``Z`` on the numpy kernels and compiled (warm); the labels checked equal."""
    from bench_heterogeneous import cpu as timed  # (best CPU seconds of ``repeat`` calls)

    from microagg.base.registry import get_method
    from microagg.partition import kernels

    func = get_method("partition", name).func
    with kernels.use_backend("compiled"):
        func(Z[:50], 3)  # (compiles, or loads from disk, the kernel of this size's engine)
        func(Z, 3)
        c, theirs = timed(lambda: func(Z, 3), repeat)
    with kernels.use_backend("numpy"):
        p, mine = timed(lambda: func(Z, 3), repeat)
    assert (mine == theirs).all(), name
    return p, c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["cold", "app", "bundled", "crossover", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 3000, 10_000, 30_000, 100_000])
    ap.add_argument("--threads", action="store_true", help="the compiled kernels on numba's default threads")
    args = ap.parse_args()
    print("load average:", os.getloadavg())
    if args.part in ("cold", "all"):
        print("cold start (CPU s, median):", cold(args.repeat))
    if args.part in ("app", "all"):
        print("the dashboard's first page (s, median):", cold(args.repeat, APP))
    if not args.threads:
        os.environ["MICROAGG_THREADS"] = "1"
    import numpy as np
    from threadpoolctl import threadpool_limits

    import microagg as ma

    if not args.threads:  # BLAS on one thread too (MD's numpy kernel multiplies matrices); once numpy loaded it
        threadpool_limits(1, user_api="blas")

    if args.part in ("bundled", "all"):
        print("| data | n | method | numpy (CPU s) | compiled, warm (CPU s) | ratio |")
        for data in ("tarragona", "census", "eia"):
            Z = ma.standardize(ma.load_dataset(data))
            for name in FAMILY:
                p, c = both(name, Z, args.repeat)
                print(f"| {data} | {len(Z)} | {name} | {p:.3f} | {c:.3f} | {p / c:.1f} |", flush=True)
    if args.part in ("crossover", "all"):
        print("| n | numpy (CPU s) | compiled, warm (CPU s) | ratio |")
        for n in args.sizes:
            p, c = both("mdav", np.random.default_rng(0).standard_normal((n, 10)), 1)
            print(f"| {n} | {p:.2f} | {c:.2f} | {p / c:.1f} |", flush=True)
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
