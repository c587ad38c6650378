"""Block partitioning and the Dask engine against exact MDAV: IL penalty, speed-up, memory; print tables.

    python benchmarks/bench_scale.py                        # blocks vs exact MDAV at n = 10^5, several B
    python benchmarks/bench_scale.py --million              # also n = 10^6 (exact MDAV once: minutes)
    python benchmarks/bench_scale.py --dask 1000000 10000000 --workdir DIR   # the Dask engine on a LocalCluster

Data: N(0, I), d = 10, k = 3, MDAV-generic, generated in chunks of 10^6 rows (chunk i from
``default_rng([0, i])``), so every size is a prefix of the larger ones and the Dask input (one Parquet
file per chunk, written to --workdir or a temporary directory) holds the same records. IL is
partition IL (Chettri, Paul & Dutta, Eq. 4) on the z-scores of all n records.

Table 0, the split rule: IL penalty of blocks cut along the first principal axis (the engine's rule)
and along the attribute of largest variance, MDAV k = 3, on the CASC sets and on N(0, I). Table 1, in
process: exact MDAV (``partition.mdav``) on one thread and on numba's threads (at 10^6 only
with --exact-all-cores), ``block_partition`` on one thread and on all cores (Python threads, one
block each); best of --repeat runs (exact MDAV at 10^6: one run); the speed-up compares one thread
with one thread; "per block" is the one-thread time divided by the number of blocks (what a cluster
core pays per block). Table 2, the Dask engine
(``scale.microaggregate_dask``) on a LocalCluster of 2 worker processes x 1 thread: wall time of the
whole call and of each pass (cluster start-up excluded), peak resident memory of each worker
(distributed's system monitor, sampled every 0.5 s).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time

import numba
import numpy as np
import pandas as pd

import microagg as ma
from microagg.metrics import partition_information_loss
from microagg.partition import block_partition, split_blocks

CHUNK = 1_000_000
D, K = 10, 3


def synthetic(n: int) -> np.ndarray:
    """The first n records of the benchmark's N(0, I_10) stream."""
    chunks = [np.random.default_rng([0, i]).standard_normal((min(CHUNK, n - s), D)) for i, s in
              enumerate(range(0, n, CHUNK))]
    return np.concatenate(chunks)


def timed(f, *args, **kwargs):
    t0 = time.perf_counter()
    out = f(*args, **kwargs)
    return time.perf_counter() - t0, out


def best(repeat: int, f, *args, **kwargs):
    """Best wall time of ``repeat`` runs (the machine is shared: the minimum is the least disturbed run)."""
    runs = [timed(f, *args, **kwargs) for _ in range(repeat)]
    return min(t for t, _ in runs), runs[0][1]


def one_thread(f, *args, **kwargs):
    """``f`` with numba's kernels on one thread (thread-local setting)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return f(*args, **kwargs)
    finally:
        numba.set_num_threads(threads)


def in_process(n: int, sizes: list[int], exact_il: dict, exact_all_cores: bool, repeat: int) -> None:
    Z = ma.standardize(synthetic(n))
    reps = repeat if n < 1_000_000 else 1
    t_exact, labels = best(reps, one_thread, ma.partition.mdav, Z, K)
    t_exact_all = f"{best(reps, ma.partition.mdav, Z, K)[0]:.2f}" if exact_all_cores else "not run"
    il_exact = exact_il[n] = partition_information_loss(Z, labels)
    print(f"| {n} | exact MDAV | 1 | {t_exact:.2f} | {t_exact_all} | — | 1× | {il_exact:.4f} | — |", flush=True)
    for B in sizes:
        blocks = int(split_blocks(Z, K, B).max()) + 1
        t_one, lab1 = best(repeat, one_thread, block_partition, Z, K, block_size=B, n_jobs=1)
        t_all, lab = best(repeat, block_partition, Z, K, block_size=B)
        assert np.array_equal(lab, lab1) and np.bincount(lab).min() >= K
        il = partition_information_loss(Z, lab)
        print(f"| {n} | {B} | {blocks} | {t_one:.2f} | {t_all:.2f} | {t_one / blocks * 1000:.1f} | "
              f"{t_exact / t_one:.0f}× | {il:.4f} | {100 * (il / il_exact - 1):+.2f} % |", flush=True)


def widest_attribute_blocks(Z: np.ndarray, B: int) -> np.ndarray:
    """The split rule not chosen: median cuts on the attribute of largest variance (same tree otherwise)."""
    out = np.empty(len(Z), dtype=np.int64)
    stack, b = [np.arange(len(Z))], 0
    while stack:
        idx = stack.pop()
        if len(idx) <= B:
            out[idx], b = b, b + 1
            continue
        values = Z[idx]
        order = np.argsort(values[:, int(np.argmax(values.var(axis=0)))], kind="stable")
        stack += [np.sort(idx[order[len(idx) // 2:]]), np.sort(idx[order[:len(idx) // 2]])]
    return out


def split_rules() -> None:
    """IL penalty of the principal-axis split (the engine's) and of the widest-attribute split."""
    cases = [(name, ma.standardize(ma.load_dataset(name)), (100, 300, 1000)) for name in ("tarragona", "census", "eia")]
    cases.append(("N(0, I) 10^5", ma.standardize(synthetic(100_000)), (3000, 10_000, 30_000)))
    for name, Z, sizes in cases:
        exact = partition_information_loss(Z, ma.partition.mdav(Z, K))
        for B in sizes:
            pca = partition_information_loss(Z, block_partition(Z, K, block_size=B))
            wide = partition_information_loss(Z, block_partition(Z, K, block_size=B,
                                                                 blocks=widest_attribute_blocks(Z, B)))
            print(f"| {name} | {len(Z)} x {Z.shape[1]} | {B} | {exact:.4f} | "
                  f"{pca:.4f} ({100 * (pca / exact - 1):+.1f} %) | {wide:.4f} ({100 * (wide / exact - 1):+.1f} %) |",
                  flush=True)


def write_parquet(n: int, folder: str) -> str:
    """The first n records as Parquet files of up to 10^6 rows; returns the glob pattern."""
    need = n * D * 8 * 3
    free = shutil.disk_usage(folder).free
    if free < need:
        raise SystemExit(f"{folder}: {free / 2**30:.1f} GiB free, {need / 2**30:.1f} GiB needed for n = {n}")
    for i, s in enumerate(range(0, n, CHUNK)):
        X = np.random.default_rng([0, i]).standard_normal((min(CHUNK, n - s), D))
        pd.DataFrame(X, columns=[f"x{j}" for j in range(D)]).to_parquet(f"{folder}/part-{i:04d}.parquet", index=False)
    return f"{folder}/part-*.parquet"


def on_dask(sizes: list[int], block_size: int, workdir: str | None, exact_il: dict) -> None:
    from distributed import Client, LocalCluster

    from microagg.release.scale import microaggregate_dask

    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for n in sizes:
            folder = os.path.join(tmp, f"in-{n}")
            os.makedirs(folder)
            t_write, pattern = timed(write_parquet, n, folder)
            t_start = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
                    Client(cluster) as client:
                t_start = time.perf_counter() - t_start
                t, rel = timed(microaggregate_dask, pattern, K, scheduler=client, block_size=block_size,
                               out=os.path.join(tmp, f"out-{n}"))
                peak = client.run(lambda dask_worker: max(dask_worker.monitor.quantities["memory"]))
            rep = rel.report()
            rep = rep[rep["attribute"] == "all"].set_index("metric")["value"]
            il = float(rep["IL"])
            penalty = f"{100 * (il / exact_il[n] - 1):+.2f} %" if n in exact_il else "—"
            phases = ", ".join(f"{p} {s:.1f}" for p, s in rel.timings.items())
            mem = " / ".join(f"{m / 2**20:.0f}" for m in peak.values())
            print(f"| {n} | {block_size} | {t:.1f} | {phases} | {mem} | {rep['blocks']} | {rep['partitions written']} "
                  f"| {il:.4f} | {penalty} | {float(rep['DLD']):.2f} | (write {t_write:.0f} s, start {t_start:.1f} s)",
                  flush=True)
            shutil.rmtree(folder)
            shutil.rmtree(os.path.join(tmp, f"out-{n}"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--million", action="store_true", help="also n = 10^6 in process (exact MDAV: minutes)")
    ap.add_argument("--exact-all-cores", action="store_true", help="also time exact MDAV on numba's threads")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing, best taken (exact MDAV at 10^6: one)")
    ap.add_argument("--blocks", type=int, nargs="+", default=[1000, 3000, 10_000, 30_000, 50_000, 100_000])
    ap.add_argument("--dask", type=int, nargs="*", default=[], help="sizes for the Dask engine")
    ap.add_argument("--dask-block-size", type=int, default=ma.partition.DEFAULT_BLOCK_SIZE)
    ap.add_argument("--workdir", help="directory for the Dask engine's Parquet input and output (default: temp)")
    args = ap.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
          f"python {platform.python_version()}, numba threads {numba.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    ma.partition.mdav(np.random.default_rng(0).standard_normal((50, 3)), 3)  # load the compiled kernel
    exact_il: dict[int, float] = {}
    print("\n| data | n x d | B | IL exact MDAV | IL, principal axis (penalty) | IL, widest attribute (penalty) |")
    print("|---|---|---|---|---|---|")
    split_rules()
    print("\n| n | B | blocks | 1 thread (s) | all cores (s) | per block, 1 thread (ms) | speed-up, 1 thread | "
          "IL | IL penalty |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in [100_000] + ([1_000_000] if args.million else []):
        in_process(n, args.blocks, exact_il, args.exact_all_cores or n < 1_000_000, args.repeat)
    if args.dask:
        print("\n| n | B | wall (s) | passes (s) | peak memory per worker (MB) | blocks | partitions | IL | "
              "IL penalty vs exact | DLD on a sample (%) | |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        on_dask(args.dask, args.dask_block_size, args.workdir, exact_il)
    print(f"\nload average after the run: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
