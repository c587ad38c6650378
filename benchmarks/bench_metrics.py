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
"""

from __future__ import annotations

import argparse
import os
import platform
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated n for Table 2")
    ap.add_argument("--baseline-max", type=int, default=10_000, help="largest n timed with the quadratic baseline")
    ap.add_argument("--evaluate-n", type=int, default=100_000, help="n of Table 3 (0 skips it)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing (the best is printed)")
    ap.add_argument("--evaluate-n", type=int, default=0, help="also time evaluate at this n (Table 3; e.g. 100000)")
    ap.add_argument("--only-large", action="store_true", help="run Table 3 only")
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    ma.partition.mdav(np.arange(12.0).reshape(6, 2), 2)  # compile or load the MDAV kernel before timing
    if args.evaluate_n:
        table_evaluate_large(args.evaluate_n, args.repeat)
    if args.only_large:
        return
    table_evaluate(args.repeat)
    table_dld([int(s) for s in args.sizes.split(",")], args.repeat, args.baseline_max)
    if args.evaluate_n:
        table_evaluate_large(args.evaluate_n, args.repeat)


if __name__ == "__main__":
    main()
