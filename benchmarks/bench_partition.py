"""Every partitioning method on the benchmark data and on synthetic data: time and information loss.

    python benchmarks/bench_partition.py            # CASC sets (k = 3, 10) and synthetic n = 10^4, 10^5
    python benchmarks/bench_partition.py --quick    # without n = 10^5

The "which method when" table: for each data set and k, every registered method
(with its default parameters, plus the settings worth comparing) timed on the same
standardized data, with IL = 100 SSE/SST of the partition's group means, the
number of groups, the largest group and whether the release is k-anonymous as whole
records. "× MDAV" is the time over MDAV-generic's on the same data. The synthetic
set is that of Mortazavi & Jalili 2017 (10 normal clusters in 10 dimensions). At n = 10^5 each method
runs in a fresh process, which also reports its peak resident memory beyond what
the process held before the call (the input itself is listed separately).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

import numba
import numpy as np

import microagg as ma
from microagg.base.registry import get_method
from microagg.metrics import partition_information_loss

SETTINGS = [  # (label, method, parameters)
    ("MDAV-generic", "mdav", {}),
    ("MDAV one group/iteration", "mdav", {"variant": "single"}),
    ("V-MDAV γ=0.2", "vmdav", {}),
    ("V-MDAV γ=1.1", "vmdav", {"gamma": 1.1}),
    ("CV-MDAV (literal)", "cvmdav", {}),
    ("IAMAT", "iamat", {}),
    ("MD", "md", {}),
    ("projection PCA", "projection", {}),
    ("projection PCA, optimal", "projection", {"grouping": "optimal"}),
    ("projection z-sum", "projection", {"axis": "zsum"}),
    ("individual ranking", "individual_ranking", {}),
    ("individual ranking, optimal", "individual_ranking", {"grouping": "optimal"}),
]


def synthetic(n: int) -> np.ndarray:
    return ma.standardize(ma.load_dataset("synthetic", n=n))


def measure(Z: np.ndarray, k: int, method: str, params: dict) -> dict:
    func = get_method("partition", method).func
    t0 = time.perf_counter()
    labels = func(Z, k, **params)
    t = time.perf_counter() - t0
    lab = labels if labels.ndim == 2 else labels[:, None]
    sizes = np.concatenate([np.bincount(lab[:, j]) for j in range(lab.shape[1])])
    record_level = get_method("partition", method).record_level
    k_anon = bool(np.unique(ma.aggregate.mean(Z, labels), axis=0, return_counts=True)[1].min() >= k)
    return {"t": t, "il": partition_information_loss(Z, labels), "groups": int(sizes.size // lab.shape[1]),
            "largest": int(sizes.max()), "k_anonymous": k_anon, "record_level": record_level}


def child(n: int, k: int, index: int) -> None:
    """One method on synthetic n in a fresh process: time, IL and peak resident memory of the call."""
    label, method, params = SETTINGS[index]
    Z = synthetic(n)
    get_method("partition", method).func(Z[:60], 3, **params)  # load (or compile) the kernel first
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = measure(Z, k, method, params)
    out["extra_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    out["data_mb"] = Z.nbytes / 2**20
    print(json.dumps(out))


def row(data: str, n: int, d: int, k: int, label: str, res: dict, base: float, memory: str = "") -> str:
    anon = "yes" if res["k_anonymous"] else ("no (per attribute)" if not res["record_level"] else "NO")
    return (f"| {data} | {n} | {d} | {k} | {label} | {res['t']:.3f} | {res['t'] / base:.1f}× | {res['il']:.4f} | "
            f"{res['groups']} | {res['largest']} | {anon} |" + (f" {memory} |" if memory else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip n = 10^5")
    ap.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(*args.child)

    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, "
          f"python {platform.python_version()}, numba threads {numba.get_num_threads()}")
    warm = np.random.default_rng(0).standard_normal((60, 3))
    t0 = time.perf_counter()
    for _, method, params in SETTINGS:
        get_method("partition", method).func(warm, 3, **params)
    print(f"first calls of every method (kernel compile or cache load): {time.perf_counter() - t0:.1f} s\n")

    print("| data | n | d | k | method | time (s) | × MDAV | IL % | groups | largest | k-anonymous |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cases = [(name, ma.standardize(ma.load_dataset(name)), k) for name in ("tarragona", "census", "eia")
             for k in (3, 10)]
    cases += [("synthetic", synthetic(10**4), k) for k in (3, 10)]
    for data, Z, k in cases:
        base = None
        for label, method, params in SETTINGS:
            res = measure(Z, k, method, params)
            base = base or res["t"]
            print(row(data, len(Z), Z.shape[1], k, label, res, base), flush=True)
    if args.quick:
        return
    print("\n| data | n | d | k | method | time (s) | × MDAV | IL % | groups | largest | k-anonymous | "
          "peak memory beyond the data (MB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in (3, 10):
        base = None
        for index, (label, _, _) in enumerate(SETTINGS):
            proc = subprocess.run([sys.executable, __file__, "--child", str(10**5), str(k), str(index)],
                                  capture_output=True, text=True, check=True)
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            base = base or res["t"]
            print(row("synthetic", 10**5, 10, k, label, res, base,
                      f"{res['extra_mb']:.0f} (data: {res['data_mb']:.0f})"), flush=True)


if __name__ == "__main__":
    main()
