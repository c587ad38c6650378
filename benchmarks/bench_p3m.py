"""Time P3M's dual solver against scipy trust-constr in the same run; print a table.

    python benchmarks/bench_p3m.py              # Tarragona, Census, EIA; k = 3, 10; w = 0.001 and random
    python benchmarks/bench_p3m.py --k 3 4 5 10

Setting of Mortazavi & Jalili 2017, Tables 2-3: MDAV classic partition (not timed), alpha = 0.5, Delta = 0.1 absolute,
w = 0.001 or w = RandomState(1).rand(d, n).T. "dual" is ``p3m_solve(..., solver="dual")`` (the default),
best of --repeat runs, including validation and the problem set-up; "trust-constr" is the same call with
``solver="trust-constr"`` (scipy, from delta = 0, exact gradient and Hessian), one run. Objectives are
summed over the attributes; "certified" counts attributes whose dual bound closes the gap.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import scipy

import microagg as ma
from microagg.aggregate import p3m_solve


def timed(repeat, *args, **kwargs):
    """Best wall time of ``repeat`` calls of p3m_solve(*args, **kwargs), and the last result."""
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = p3m_solve(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, nargs="+", default=[3, 10])
    ap.add_argument("--data", nargs="+", default=["tarragona", "census", "eia"])
    ap.add_argument("--repeat", type=int, default=5, help="runs of the dual solver (the best is kept)")
    args = ap.parse_args()

    print(f"# P3M: dual solver vs scipy trust-constr — {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}")
    print()
    print("| data | n x d | k | w | dual (s) | trust-constr (s) | ratio | dual objective | trust-constr objective "
          "| dual bound | certified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst = np.inf
    for name in args.data:
        Z = ma.standardize(ma.load_dataset(name))
        for k in args.k:
            labels = ma.partition.mdav(Z, k, variant="classic")
            for weights in ("given", "random"):
                p3m_solve(Z, labels, weights=weights)       # warm-up (imports, caches)
                t_dual, ours = timed(args.repeat, Z, labels, weights=weights)
                t_tc, ref = timed(1, Z, labels, weights=weights, solver="trust-constr")
                ratio = t_tc / t_dual
                worst = min(worst, ratio)
                assert ours.success and ref.success
                better = "≤" if (ours.objective <= ref.objective + 1e-9 * np.abs(ref.objective)).all() else ">"
                print(f"| {name} | {Z.shape[0]} x {Z.shape[1]} | {k} | {'0.001' if weights == 'given' else 'rand'} "
                      f"| {t_dual:.3f} | {t_tc:.2f} | {ratio:.0f}× | {ours.objective.sum():.4f} {better} "
                      f"| {ref.objective.sum():.4f} | {ours.dual_bound.sum():.4f} "
                      f"| {int(ours.certified.sum())}/{len(ours.status)} |", flush=True)
    print()
    print(f"smallest speed-up: {worst:.0f}×; '≤' means the dual solver's objective is no worse on every attribute.")


if __name__ == "__main__":
    main()
