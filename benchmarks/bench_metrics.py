"""Time the metrics against plain numpy baselines; print tables.

    python benchmarks/bench_metrics.py                      # evaluate on the benchmark sets; DLD up to 10^5
    python benchmarks/bench_metrics.py --baseline-max 100000  # also time the quadratic baseline at 10^5

Table 1: ``microagg.evaluate`` (every metric, per-attribute rows included) of an MDAV classic k = 3
release of Tarragona, Census and EIA, and the same call with ``Release.report``.

Table 3 (``--evaluate-n 100000 --only-large``): evaluate at n records, d = 10, and each registered computation.

Table 2: DLD on standardized N(0, I) data, d = 10, masked by MDAV-generic k = 3 + mean (the
partition is not timed). "original -> masked" is the search behind the rules expected and
lowest_index (and SDID); "masked -> original" the search behind 1st / 2nd / 1st_or_2nd (Chettri, Paul & Dutta
Eq. 5). The baseline computes exact distances to every record in chunks (no tree) with the same
tie rules; the script checks that both give the same values. Times are the best of --repeat runs;
the CPU time of that run (summed over the search threads) shows the work when the machine is
shared, and the load average at the start is printed.

Table 3: ``microagg.evaluate`` of an MDAV k = 3 release of N(0, I) data, n = 10^5, d = 10 (the partition is
not timed).

Table 4 (``--widths 10,50,100,200 --width-n 500``; ``--width-cases 10000x100`` adds cases): the cost of the report
against the width. For each n x d of N(0, I) data, in a fresh process: ``microaggregate(df, 3)`` (the release
alone), its default ``Release.report()``, their ratio, the process's peak memory, and every registered computation
timed on its own (``--per-metric``). Table 5 (``--cli 500x200``): the same as whole commands, a script that reads the
CSV, releases and writes it, against ``python -m microagg run`` (release and default report), wall time and peak
memory of each process (``/usr/bin/time``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import scipy

import microagg as ma
from microagg.metrics.risk import Linkage


def best_of(repeat: int, func, *args, **kwargs):
    """Best wall time of ``repeat`` runs, the CPU time of that run (all threads) and the result."""
    best, cpu, out = np.inf, np.nan, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = func(*args, **kwargs)
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    return best, cpu, out


def _chunks(n_rows: int, n_cols: int):
    step = max(1, 4_000_000 // max(n_cols, 1))
    return range(0, n_rows, step), step


def _distances(Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    acc = np.zeros((len(Q), len(P)))
    for t in range(Q.shape[1]):
        acc += (Q[:, None, t] - P[None, :, t]) ** 2
    return acc


def baseline_forward(Z: np.ndarray, Zp: np.ndarray) -> float:
    """DLD expected: each original against every masked record; 1/|ties| if the own one is among the nearest."""
    n = len(Z)
    score = np.empty(n)
    starts, step = _chunks(n, n)
    for s in starts:
        acc = _distances(Z[s:s + step], Zp)
        tied = acc == acc.min(axis=1, keepdims=True)
        rows = np.arange(s, s + len(acc))
        score[rows] = tied[np.arange(len(acc)), rows] / tied.sum(axis=1)
    return 100.0 * score.mean()


def baseline_reverse(Z: np.ndarray, Zp: np.ndarray) -> float:
    """DLD 1st or 2nd: each masked record against every original; argmin keeps the lowest index among ties."""
    n = len(Z)
    linked = 0
    starts, step = _chunks(n, n)
    for s in starts:
        acc = _distances(Zp[s:s + step], Z)
        rows = np.arange(len(acc))
        first = acc.argmin(axis=1)
        acc[rows, first] = np.inf
        second = acc.argmin(axis=1)
        own = np.arange(s, s + len(acc))
        linked += int(((first == own) | (second == own)).sum())
    return 100.0 * linked / n


def _dld(Z: np.ndarray, Zp: np.ndarray, rule: str) -> float:
    return Linkage(Z, Zp).dld(rule)


def table_evaluate(repeat: int) -> None:
    print("\nTable 1: evaluate (every metric) of an MDAV classic k = 3 release")
    print("| data | n | d | metric rows | evaluate (s) | Release.report (s) |")
    print("|---|---|---|---|---|---|")
    for name in ("tarragona", "census", "eia"):
        df = ma.load_dataset(name)
        rel = ma.microaggregate(df, 3, variant="classic", identifiers=[], shuffle=False)  # all d columns, paired
        t_eval, _, table = best_of(repeat, ma.evaluate, df, rel.protected, rel.labels)
        t_rep, _, _ = best_of(repeat, rel.report)
        print(f"| {name} | {len(df)} | {df.shape[1]} | {len(table)} | {t_eval:.3f} | {t_rep:.3f} |")


def table_dld(sizes: list[int], repeat: int, baseline_max: int) -> None:
    print("\nTable 2: DLD on N(0, I), d = 10, MDAV k = 3 + mean (partition not timed)")
    print("| n | search | DLD (%) | microagg (s) | its CPU time (s) | numpy baseline (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        Z = np.random.default_rng(0).normal(size=(n, 10))
        Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 3))
        for label, rule, baseline in (("original -> masked (expected)", "expected", baseline_forward),
                                      ("masked -> original (1st or 2nd)", "1st_or_2nd", baseline_reverse)):
            t_ours, cpu, ours = best_of(repeat, _dld, Z, Zp, rule)
            if n <= baseline_max:
                t_base, _, base = best_of(1, baseline, Z, Zp)
                assert abs(base - ours) < 1e-9, (n, rule, ours, base)
                cells = f"{t_base:.2f} | {t_base / t_ours:.0f}×"
            else:
                cells = "— | —"
            print(f"| {n} | {label} | {ours:.3f} | {t_ours:.3f} | {cpu:.2f} | {cells} |")


def table_evaluate_large(n: int, repeat: int) -> None:
    """evaluate at n records, d = 10, and the time of each registered computation (one run each)."""
    from microagg.metrics.registry import computations
    from microagg.metrics.report import context

    print(f"\nTable 3: evaluate of N(0, I), n = {n}, d = 10, MDAV k = 3 + mean (partition not timed)")
    df = pd.DataFrame(np.random.default_rng(0).normal(size=(n, 10)), columns=[f"x{t}" for t in range(10)])
    rel = ma.microaggregate(df, 3, shuffle=False)
    t_eval, cpu, table = best_of(repeat, ma.evaluate, df, rel.protected, rel.labels)
    print(f"evaluate: {t_eval:.2f} s (CPU {cpu:.2f} s), {len(table)} rows")
    ctx = context(df.to_numpy(), rel.protected.to_numpy(), rel.Z, rel.Zp, list(df.columns), rel.labels)
    print("| module | metrics | seconds |")
    print("|---|---|---|")
    for comp in computations():
        t0 = time.perf_counter()
        ctx.results(comp)
        names = ", ".join(m.name for m in comp.metrics)
        print(f"| {comp.func.__module__.rsplit('.', 1)[-1]} | {names[:60]} | {time.perf_counter() - t0:.3f} |")


def one_width(n: int, d: int) -> dict:
    """Release and default report of N(0, I) n x d data in this process, then every computation on its own."""
    from microagg.metrics.registry import computations
    from microagg.metrics.report import context

    df = pd.DataFrame(np.random.default_rng(0).normal(size=(n, d)), columns=[f"x{t}" for t in range(d)])
    t0 = time.perf_counter()
    rel = ma.microaggregate(df, 3)
    t_release = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = rel.report()
    t_report = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    X = df[rel.masked].to_numpy()
    ctx = context(X, rel.in_input_order()[rel.masked].to_numpy(), rel.Z, rel.Zp, rel.masked, rel.labels, k=3)
    each = {}
    for comp in computations():
        if ctx.applies(comp):
            t0 = time.perf_counter()
            ctx.results(comp)
            each[", ".join(m.name for m in comp.metrics)[:40]] = time.perf_counter() - t0
    pmse = report[(report["metric"] == "pMSE") & (report["attribute"] == "all")]
    return {"n": n, "d": d, "release": t_release, "report": t_report, "peak_mb": peak, "rows": len(report),
            "pmse_source": pmse["source"].iloc[0] if len(pmse) else "", "each": each}


def table_widths(cases: list[tuple[int, int]], per_metric: bool) -> None:
    """Table 4: each case in a fresh process (peak memory of that case alone)."""
    print("\nTable 4: release and default report of N(0, I), MDAV k = 3 + mean, each case in a fresh process")
    print("| n | d | release (s) | report (s) | report / release | peak memory (MB) | rows | slowest computation (s) |")
    print("|---|---|---|---|---|---|---|---|")
    results = []
    for n, d in cases:
        out = subprocess.run([sys.executable, __file__, "--one-width", f"{n}x{d}"], capture_output=True, text=True)
        if out.returncode:
            print(f"| {n} | {d} | failed: {out.stderr.strip().splitlines()[-1]} |")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(r)
        name, worst = max(r["each"].items(), key=lambda item: item[1])
        print(f"| {n} | {d} | {r['release']:.2f} | {r['report']:.2f} | {r['report'] / r['release']:.1f} | "
              f"{r['peak_mb']:.0f} | {r['rows']} | {name} {worst:.2f} |")
    for r in results:
        print(f"pMSE at {r['n']} x {r['d']}: {r['pmse_source']}")
    if per_metric and results:
        print("\nEvery computation on its own (s)")
        print("| computation | " + " | ".join(f"{r['n']} × {r['d']}" for r in results) + " |")
        print("|---|" + "---|" * len(results))
        for name in results[0]["each"]:
            print(f"| {name} | " + " | ".join(f"{r['each'].get(name, float('nan')):.3f}" for r in results) + " |")


def _timed(command: list[str]) -> tuple[float, float]:
    """Wall time (s) and peak memory (MB) of a command, by /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as log:
        t0 = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", log.name, *command], check=True, capture_output=True)
        wall = time.perf_counter() - t0
        return wall, int(log.read().strip().splitlines()[-1]) / 1024


def table_cli(cases: list[tuple[int, int]]) -> None:
    """Table 5: a release script against ``python -m microagg run`` (release + default report), whole processes."""
    print("\nTable 5: whole commands on a CSV of N(0, I), MDAV k = 3 + mean")
    print("| n | d | release script (s) | its peak (MB) | microagg run, with report (s) | its peak (MB) | ratio |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n, d in cases:
            data, out = os.path.join(tmp, f"x{n}_{d}.csv"), os.path.join(tmp, "out.csv")
            pd.DataFrame(np.random.default_rng(0).normal(size=(n, d)),
                         columns=[f"x{t}" for t in range(d)]).to_csv(data, index=False)
            script = (f"import microagg as ma; rel = ma.microaggregate(ma.read_csv({data!r}).data, 3); "
                      f"rel.to_csv({out!r}, force=True)")
            t_rel, m_rel = _timed([sys.executable, "-c", script])
            t_run, m_run = _timed([sys.executable, "-m", "microagg", "run", "--input", data, "--k", "3",
                                   "--out", out, "--force"])
            print(f"| {n} | {d} | {t_rel:.2f} | {m_rel:.0f} | {t_run:.2f} | {m_run:.0f} | {t_run / t_rel:.1f} |")


def _cases(text: str) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in case.split("x")) for case in text.split(",") if case]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated n for Table 2")
    ap.add_argument("--baseline-max", type=int, default=10_000, help="largest n timed with the quadratic baseline")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing (the best is printed)")
    ap.add_argument("--evaluate-n", type=int, default=0, help="also time evaluate at this n (Table 3; e.g. 100000)")
    ap.add_argument("--only-large", action="store_true", help="run Table 3 only")
    ap.add_argument("--widths", default="", help="comma-separated d for Table 4 (e.g. 10,50,100,200)")
    ap.add_argument("--width-n", type=int, default=500, help="n of Table 4's widths")
    ap.add_argument("--width-cases", default="", help="more cases for Table 4, e.g. 10000x100")
    ap.add_argument("--per-metric", action="store_true", help="Table 4: every computation's time per case")
    ap.add_argument("--cli", default="", help="cases n x d for Table 5, e.g. 500x200")
    ap.add_argument("--one-width", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_width:
        print(json.dumps(one_width(*_cases(args.one_width)[0])))
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    ma.partition.mdav(np.arange(12.0).reshape(6, 2), 2)  # compile or load the MDAV kernel before timing
    widths = [(args.width_n, int(d)) for d in args.widths.split(",") if d] + _cases(args.width_cases)
    if widths or args.cli:
        if widths:
            table_widths(widths, args.per_metric)
        if args.cli:
            table_cli(_cases(args.cli))
        return
    if not args.only_large:
        table_evaluate(args.repeat)
        table_dld([int(s) for s in args.sizes.split(",")], args.repeat, args.baseline_max)
    if args.evaluate_n:
        table_evaluate_large(args.evaluate_n, args.repeat)


if __name__ == "__main__":
    main()
