"""MHM, GSMS and the IGD refinement against MDAV: CPU time and information loss.

    python benchmarks/bench_heuristics.py                 # CASC sets, k = 3, 5, 10
    python benchmarks/bench_heuristics.py --synthetic 10000 30000 100000 --k 3

For every data set and k each setting runs on the same standardized data; IL = 100 SSE/SST of the partition's
group means; the time is CPU time of this process (``time.process_time``, numba compiled before timing), so
other processes on the machine slow it less than wall time; "+IGD" is the time of the refinement alone, run
on the partition of the row above it. ``--max-quadratic N`` skips the settings whose cost is O(n^2 d) (the MHM
path, GSMS, IGD) above N records, ``--max-two-opt N`` the 2-opt scans (O(n^2 d) each, many of them) above N,
and the table says so. Synthetic data:
the clusters of Mortazavi & Jalili 2017 (``ma.load_dataset("synthetic")``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import microagg as ma
from microagg.base.registry import get_method
from microagg.partition.igd import igd_refine, sse

SETTINGS = [  # (label, method, parameters, quadratic)
    ("MDAV-generic", "mdav", {}, False),
    ("MHM", "mhm", {}, True),
    ("MHM 2-opt", "mhm", {"two_opt": True}, True),
    ("GSMS", "gsms", {}, True),
]
REFINED = ("MDAV-generic", "MHM", "GSMS")  # followed by a "+IGD" row


def timed(func, *args, **kwargs):
    t = time.process_time()
    out = func(*args, **kwargs)
    return out, time.process_time() - t


def rows(name: str, Z: np.ndarray, k: int, cap: int, cap_two_opt: int):
    sst = sse(Z, np.zeros(len(Z), np.int64))
    base = None
    for label, method, params, quadratic in SETTINGS:
        limit = cap_two_opt if params.get("two_opt") else cap
        if quadratic and len(Z) > limit:
            yield name, k, label, None, None, None, f"skipped: O(n²·d){' per scan' if limit < cap else ''} above " \
                f"{limit:,} records"
            continue
        labels, seconds = timed(get_method("partition", method).func, Z, k, **params)
        base = max(seconds, 1e-9) if method == "mdav" else base
        yield name, k, label, 100 * sse(Z, labels) / sst, seconds, np.bincount(labels).max(), \
            f"{seconds / base:.1f}× MDAV's time"
        if label in REFINED:
            if len(Z) > cap:
                yield name, k, label + " +IGD", None, None, None, f"skipped: O(n²·d/k) per round above {cap:,}"
                continue
            out, seconds = timed(igd_refine, Z, labels, k)
            yield name, k, label + " +IGD", 100 * sse(Z, out) / sst, seconds, np.bincount(out).max(), \
                f"refinement alone: {seconds / base:.1f}× MDAV's time"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--synthetic", type=int, nargs="*", default=[])
    ap.add_argument("--max-quadratic", type=int, default=30_000)
    ap.add_argument("--max-two-opt", type=int, default=10_000)
    args = ap.parse_args()
    tiny = ma.standardize(ma.load_dataset("tarragona"))[:60]
    for _, method, params, _ in SETTINGS:  # compile outside the timings
        igd_refine(tiny, get_method("partition", method).func(tiny, 3, **params), 3)
    data = [(n, ma.standardize(ma.load_dataset(n))) for n in ("tarragona", "census", "eia")] if not args.synthetic \
        else [(f"synthetic n={n:,}", ma.standardize(ma.load_dataset("synthetic", n=n))) for n in args.synthetic]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| data | k | method | IL % | CPU s | largest group | note |\n|---|---|---|---|---|---|---|")
    for name, Z in data:
        for k in args.k:
            for row in rows(name, Z, k, args.max_quadratic, args.max_two_opt):
                data_name, kk, label, il, seconds, largest, note = row
                cells = ["–"] * 3 if il is None else [f"{il:.3f}", f"{seconds:.2f}", str(largest)]
                print(f"| {data_name} | {kk} | {label} | {' | '.join(cells)} | {note} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
