"""Differentially private microaggregation against MDAV: time and information loss (docs/methods.md §7).

    python benchmarks/bench_dp.py            # CASC sets (k = 3, 10, 50) and synthetic n = 10^4, 10^5
    python benchmarks/bench_dp.py --quick    # without n = 10^5

For each data set and k: the CPU time of insensitive MDAV's partition over MDAV-generic's (the two alternated,
best of 3, ``time.process_time``), the IL (100 SSE/SST, z-scores) of the group means of MDAV, insensitive MDAV and
individual ranking (fixed groups), and the IL of the ε-DP releases (Laplace aggregation) at ε = 1 and 10, mean
over 5 noise seeds. The bounds are each column's own minimum and maximum: the tightest box, which a real release
must not take from the data, so the DP figures are the best case.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import microagg as ma
from microagg.aggregate.dp import laplace
from microagg.metrics import information_loss
from microagg.partition.insensitive import insensitive_mdav


def cpu(func, *args, **kwargs) -> tuple[float, object]:
    t0 = time.process_time()
    out = func(*args, **kwargs)
    return time.process_time() - t0, out


def row(name: str, X: np.ndarray, k: int) -> dict:
    Z = ma.standardize(X)
    B = np.column_stack([X.min(axis=0), X.max(axis=0)])
    t_mdav, t_ins = [], []
    for _ in range(3):  # alternated, so that a change of load hits both
        t, mdav = cpu(ma.partition.mdav, Z, k)
        t_mdav.append(t)
        t, ins = cpu(insensitive_mdav, X, k, bounds=B)
        t_ins.append(t)
    ir = ma.partition.individual_ranking(X, k)
    out = {"data": name, "n": len(X), "d": X.shape[1], "k": k, "MDAV s": min(t_mdav), "insensitive s": min(t_ins),
           "IL MDAV": information_loss(Z, ma.aggregate.mean(Z, mdav)),
           "IL insensitive": information_loss(Z, ma.aggregate.mean(Z, ins)),
           "IL IR": information_loss(Z, ma.aggregate.mean(Z, ir))}
    std = ma.data.preprocess.Standardizer.fit(X)
    for eps in (1.0, 10.0):
        for label, lab in (("insensitive", ins), ("IR", ir)):
            il = [information_loss(Z, std.transform(laplace(X, lab, eps, B, seed))) for seed in range(5)]
            out[f"IL DP {label} ε={eps:g}"] = float(np.mean(il))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}")
    rows = []
    for name in ("tarragona", "census", "eia"):
        X = ma.load_dataset(name).to_numpy(dtype=float)
        rows += [row(name, X, k) for k in (3, 10, 50)]
    for n in (10_000,) if args.quick else (10_000, 100_000):
        rows.append(row("synthetic", ma.load_dataset("synthetic", n=n).to_numpy(dtype=float), 10))
    print(f"load average {os.getloadavg()}")
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r.values()) + " |")


if __name__ == "__main__":
    main()
