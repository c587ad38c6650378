"""Time exact MDAV against a plain numpy baseline; print a table (and peak memory).

    python benchmarks/bench_mdav.py            # n = 10^3, 10^4, 10^5 (+ the benchmark data sets)
    python benchmarks/bench_mdav.py --million  # also n = 10^6 (a few minutes)
    python benchmarks/bench_mdav.py --against ../other-checkout --sizes 100000 1000000 --threads 1
                                               # this checkout and another one side by side, CPU and wall
    python benchmarks/bench_mdav.py --against ../other-checkout --method vmdav --sizes 30000
                                               # the same for a method of the family sharing MDAV's engine
    python benchmarks/bench_mdav.py --huge 10000000 --threads 2
                                               # one run on 10^7 records, labels spot-checked step by step
    python benchmarks/bench_mdav.py --scaling 1 2 4 8 16 --sizes 1000000
                                               # the same run on 1, 2, ... threads: speedup over one thread, CPU
                                               # time, labels compared with the one-thread run (a many-core machine)
    python benchmarks/bench_mdav.py --scaling 16 --sizes 1000000 --parallel-min 131072
                                               # the same with passes split only from 131 072 remaining records
    python benchmarks/bench_mdav.py --passes 1 2 16 --sizes 400000
                                               # one pass cut into 1, 2, 16 ranges run in turn on one thread:
                                               # what a split costs beyond the records it reads

Data: standardized N(0, I), d = 10, k = 3, MDAV-generic. The baseline is the
textbook numpy MDAV (full distance vectors over the remaining records for every
query); it is timed only up to --baseline-max records (default 10^5) because it
is quadratic. Both produce the same labels, which is checked.
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

import numba
import numpy as np

import microagg as ma

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checkout holding this script


def sqdists(Z: np.ndarray, ids: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Squared distances of the rows ``ids`` of ``Z`` to ``q``, summed attribute by attribute as the engine does."""
    acc = np.zeros(len(ids))
    for t in range(Z.shape[1]):
        acc += (Z[ids, t] - q[t]) ** 2
    return acc


def numpy_mdav(Z: np.ndarray, k: int) -> np.ndarray:
    """MDAV-generic in plain numpy (the baseline): fancy indexing over the remaining records."""
    n = len(Z)
    labels = np.full(n, -1)
    rem = np.arange(n)
    S = Z.sum(axis=0)
    g = 0

    def dist(q):
        return sqdists(Z, rem, q)

    def take(q):
        nonlocal rem, g, S
        dq = dist(q)
        members = rem[np.lexsort((rem, dq))[:k]]
        labels[members] = g
        S = S - Z[np.sort(members)].sum(axis=0)
        rem = rem[labels[rem] < 0]
        g += 1

    while len(rem) >= 3 * k:
        r = rem[np.argmax(dist(S / len(rem)))]
        s = rem[np.argmax(dist(Z[r]))]
        take(Z[r])
        take(Z[s])
    if len(rem) >= 2 * k:
        take(Z[rem[np.argmax(dist(S / len(rem)))]])
    labels[rem] = g
    return labels


def spot_check(Z: np.ndarray, labels: np.ndarray, k: int, pairs: int) -> list[tuple[int, int, bool]]:
    """Replay ``pairs`` steps of MDAV-generic, spread over the run, from ``labels`` alone (for sizes where the whole
    baseline would take days): group g is taken to have been formed in order, so the records labelled >= g
    remained before it. Each replayed step computes, with direct numpy, the centroid of those records (running sum:
    rows summed in row order, then every earlier group's members subtracted in ascending row order, as MDAV's
    engine keeps it, so the float64 values are the same), r farthest from it, r's k nearest, s farthest from r (again
    among the rest if s fell into r's group) and s's k nearest, lowest row first among equal distances; returns
    (g, records remaining, both groups equal to the labels')."""
    n = len(Z)
    order = np.lexsort((np.arange(n), labels))  # removal order: by group, then ascending rows
    m = labels.max() + 1
    last = (n - 3 * k) // (2 * k)  # the two-group steps run while at least 3k records remain
    out = []
    for g in sorted({2 * int(j) for j in np.linspace(0, last, pairs)}):
        rows = np.flatnonzero(labels >= g)
        gone = order[: n - len(rows)]
        S = np.cumsum(np.concatenate([Z, -Z[gone]]), axis=0)[-1]
        c = S / len(rows)

        def farthest(ids, q):
            dq = sqdists(Z, ids, q)
            return ids[np.flatnonzero(dq == dq.max())[0]]

        def nearest(ids, q):
            return np.sort(ids[np.lexsort((ids, sqdists(Z, ids, q)))[:k]])

        r = farthest(rows, c)
        group_r = nearest(rows, Z[r])
        rest = np.setdiff1d(rows, group_r)
        s = farthest(rows, Z[r])
        if s in group_r:
            s = farthest(rest, Z[r])
        group_s = nearest(rest, Z[s])
        same = (np.array_equal(np.flatnonzero(labels == g), group_r) and g + 1 < m
                and np.array_equal(np.flatnonzero(labels == g + 1), group_s))
        out.append((g, len(rows), same))
    return out


def timed(f, *args):
    t0 = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - t0, out


def load_kernels(func, n: int, d: int = 10) -> None:
    """Load (or compile) the kernels that ``func`` will run on n records before it is timed: those of runs on the
    brute-force engine (below 1 200 records), of small runs on the screened one, and of runs with the integer copy
    (from 32 768 records on), as far as n reaches."""
    warm = np.random.default_rng(1).standard_normal((40_000, d))
    for m in (50, 2_000, 40_000):
        if m <= n:
            func(warm[:m], 3)


def child(n: int, method: str = "mdav", parallel_min: int | None = None) -> None:
    """One size in a fresh process: time and peak resident memory of microagg's ``method`` (MDAV) alone; with
    ``parallel_min``, the engine's passes split over threads only from that many remaining records."""
    if parallel_min:
        from microagg.partition.compiled import engine

        engine.PARALLEL_MIN = parallel_min
    Z = np.random.default_rng(0).standard_normal((n, 10))
    func = getattr(ma.partition, method)
    load_kernels(func, n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    t, lab = timed(func, Z, 3)
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    np.save(sys.argv[-1], lab)
    print(json.dumps({"t": t, "cpu": cpu, "extra_mb": (peak - before) / 1024, "data_mb": Z.nbytes / 2**20}))


def run_child(n: int, out: str, checkout: str | None = None, threads: int | None = None, method: str = "mdav",
              parallel_min: int | None = None) -> dict:
    """``child(n, method, parallel_min)`` in a fresh process, importing microagg from ``checkout`` (default: the
    checkout holding this script, whatever is installed), on ``threads`` threads."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(checkout or HOME) + os.pathsep + env.get("PYTHONPATH", "")
    if threads:
        env["MICROAGG_THREADS"] = str(threads)
    extra = ["--parallel-min", str(parallel_min)] if parallel_min else []
    res = subprocess.run([sys.executable, __file__, "--child", str(n), "--method", method, *extra, out],
                         capture_output=True, text=True, env=env)
    if res.returncode:
        sys.exit(f"the run on {n} records failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def against(other: str, sizes: list[int], threads: int | None, method: str = "mdav") -> None:
    """This checkout and ``other`` on the same N(0, I) data, alternating per size; labels compared."""
    print(f"{method}, this checkout vs {other}: N(0, I), d = 10, k = 3, threads {threads or 'auto'}\n")
    print("| n | this: CPU (s) | this: wall (s) | other: CPU (s) | other: wall (s) | CPU ratio | labels | load |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            load = os.getloadavg()[0]
            a = run_child(n, f"{tmp}/a.npy", None, threads, method)
            b = run_child(n, f"{tmp}/b.npy", other, threads, method)
            load = f"{load:.1f}–{os.getloadavg()[0]:.1f}"
            same = "identical" if np.array_equal(np.load(f"{tmp}/a.npy"), np.load(f"{tmp}/b.npy")) else "DIFFER"
        print(f"| {n} | {a['cpu']:.2f} | {a['t']:.2f} | {b['cpu']:.2f} | {b['t']:.2f} | {b['cpu'] / a['cpu']:.2f}× "
              f"| {same} | {load} |", flush=True)


def scaling(sizes: list[int], counts: list[int], parallel_min: int | None = None) -> None:
    """Each size on each thread count in turn, in fresh processes: wall and CPU time, the speedup over the first
    count, and the labels compared with the first count's."""
    split = f"passes split from {parallel_min} remaining records" if parallel_min else "the engine's split threshold"
    print(f"MDAV-generic, N(0, I), d = 10, k = 3; threads {counts}; {os.cpu_count()} cores; {split}\n")
    print("| n | threads | wall (s) | CPU (s) | speedup | CPU / first's | labels | load |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            first = None
            for t in counts:
                load = os.getloadavg()[0]
                info = run_child(n, f"{tmp}/{t}.npy", None, t, parallel_min=parallel_min)
                load = f"{load:.1f}–{os.getloadavg()[0]:.1f}"
                first = first or (t, info)
                same = np.array_equal(np.load(f"{tmp}/{t}.npy"), np.load(f"{tmp}/{first[0]}.npy"))
                print(f"| {n} | {t} | {info['t']:.2f} | {info['cpu']:.2f} | {first[1]['t'] / info['t']:.2f}× | "
                      f"{info['cpu'] / first[1]['cpu']:.2f} | {'identical' if same else 'DIFFER'} | {load} |",
                      flush=True)


def huge(n: int, threads: int | None, pairs: int) -> None:
    """One timed run of MDAV on n records of N(0, I) (d = 10, k = 3), then ``spot_check``."""
    with tempfile.TemporaryDirectory() as tmp:
        load = os.getloadavg()[0]
        info = run_child(n, f"{tmp}/labels.npy", None, threads)
        print(f"MDAV-generic, N(0, I), n = {n}, d = 10, k = 3, threads {threads or 'auto'}: {info['t']:.1f} s wall, "
              f"{info['cpu']:.1f} s CPU, {info['extra_mb']:.0f} MB beyond the data ({info['data_mb']:.0f} MB), load "
              f"{load:.1f}–{os.getloadavg()[0]:.1f}", flush=True)
        labels = np.load(f"{tmp}/labels.npy")
    for g, remaining, same in spot_check(np.random.default_rng(0).standard_normal((n, 10)), labels, 3, pairs):
        print(f"groups {g} and {g + 1} ({remaining} records remaining): {'identical' if same else 'DIFFER'}",
              flush=True)


def passes(n: int, splits: list[int], repeat: int = 15, queries: int = 300) -> None:
    """Time single passes of the engine, cut into each of ``splits`` ranges run one after another on one thread.

    The queries are the ``queries`` records farthest from the centroid (as MDAV's r and s are), on two states of the
    index: fresh, and with the outer half of the records removed. The pass about r seeks the farthest record and the
    k nearest, that about s the k nearest only. Best of ``repeat`` repetitions, alternated between the splits.
    """
    from microagg.partition.compiled import engine

    numba.set_num_threads(1)
    Z = np.random.default_rng(0).standard_normal((n, 10))
    radius = ((Z - Z.mean(0)) ** 2).sum(1)
    states = {}
    for chunks in splits:
        states[chunks] = []
        for removed in (0.0, 0.5):
            _, alive, _, zmax2, cand = engine.start(Z, chunks)
            alive[np.argsort(-radius)[:int(removed * n)]] = False
            c0, _, rid, _, screen = engine.build_index(Z, alive, Z[alive].mean(0), zmax2, chunks, cand,
                                                       np.int64(engine.PARALLEL_MIN), np.int64(engine.SHELLS))
            states[chunks].append((screen, Z[rid[:queries]].copy()))
    print(f"N(0, I) {n} x 10, k = 3, one thread; µs a query, best of {repeat} (load {os.getloadavg()[0]:.1f})")
    print("| ranges | pass about r (farthest and k nearest) | pass about s (k nearest) |")
    print("|---|---|---|")
    best = {(c, far): np.inf for c in splits for far in (True, False)}
    for far in (True, False):
        for chunks in splits:  # (the first call of each compiles or loads the kernels)
            engine.around(Z, states[chunks][0][1][0], 3, far, states[chunks][0][0])
        for _ in range(repeat):
            for chunks in splits:
                t = time.perf_counter()
                for screen, qs in states[chunks]:
                    for q in qs:
                        engine.around(Z, q, 3, far, screen)
                best[chunks, far] = min(best[chunks, far], (time.perf_counter() - t) / (2 * queries) * 1e6)
    for chunks in splits:
        print(f"| {chunks} | {best[chunks, True]:.1f} | {best[chunks, False]:.1f} |")
    print(f"(load {os.getloadavg()[0]:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--million", action="store_true", help="also time n = 10^6")
    ap.add_argument("--baseline-max", type=int, default=100_000)
    ap.add_argument("--against", metavar="CHECKOUT", help="time another checkout (the folder holding its microagg/) "
                                                         "side by side, CPU and wall, labels compared")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10**5], help="sizes for --against (default 10^5)")
    ap.add_argument("--threads", type=int, help="threads of the --against and --huge runs (default: auto)")
    ap.add_argument("--method", default="mdav", choices=["mdav", "vmdav", "cvmdav", "md", "iamat"],
                    help="partitioner of the --against runs (default: mdav)")
    ap.add_argument("--huge", type=int, metavar="N", help="time one run on N records (--threads), labels spot-checked "
                                                          "by replaying steps with numpy (the baseline is too slow)")
    ap.add_argument("--scaling", type=int, nargs="+", metavar="THREADS",
                    help="time --sizes on each of these thread counts, labels compared with the first")
    ap.add_argument("--pairs", type=int, default=8, help="steps replayed for --huge (default 8)")
    ap.add_argument("--parallel-min", type=int, metavar="N", help="--scaling runs split passes over threads only from "
                                                                  "N remaining records (default: the engine's)")
    ap.add_argument("--passes", type=int, nargs="+", metavar="RANGES",
                    help="time single passes of --sizes[0] records cut into these numbers of ranges, one thread")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("labels_out", nargs="?", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.method, args.parallel_min)
    if args.against:
        return against(args.against, args.sizes, args.threads, args.method)
    if args.huge:
        return huge(args.huge, args.threads, args.pairs)
    if args.scaling:
        return scaling(args.sizes, args.scaling, args.parallel_min)
    if args.passes:
        return passes(args.sizes[0], args.passes)

    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, "
          f"python {platform.python_version()}, numba threads {numba.get_num_threads()}")
    t_compile, _ = timed(ma.partition.mdav, np.random.default_rng(0).standard_normal((50, 3)), 3)
    print(f"first call (kernel compile or cache load): {t_compile:.2f} s\n")

    print("| data | n | d | k | microagg (s) | numpy baseline (s) | ratio | peak memory beyond the data (MB) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("tarragona", "census", "eia"):
        Z = ma.standardize(ma.load_dataset(name))
        t, lab = timed(ma.partition.mdav, Z, 3)
        tb, labb = timed(numpy_mdav, Z, 3)
        assert np.array_equal(lab, labb)
        print(f"| {name} | {len(Z)} | {Z.shape[1]} | 3 | {t:.4f} | {tb:.3f} | {tb / t:.0f}× | |")
    sizes = [10**3, 10**4, 10**5] + ([10**6] if args.million else [])
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            out = f"{tmp}/labels.npy"
            info = run_child(n, out)
            lab = np.load(out)
        t, peak = info["t"], info["extra_mb"]
        if n <= args.baseline_max:
            Z = np.random.default_rng(0).standard_normal((n, 10))
            tb, labb = timed(numpy_mdav, Z, 3)
            assert np.array_equal(lab, labb)
            base, ratio = f"{tb:.2f}", f"{tb / t:.0f}×"
        else:
            base, ratio = "—", "—"
        print(f"| N(0, I) | {n} | 10 | 3 | {t:.3f} | {base} | {ratio} | {peak:.0f} (data: {info['data_mb']:.0f}) |",
              flush=True)


if __name__ == "__main__":
    main()
