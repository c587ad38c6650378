"""Time k-anonymous t-closeness (``method="tcloseness"``) against MDAV on the same quasi-identifiers; print tables.

    python benchmarks/bench_tcloseness.py              # CASC sets and N(0, I) up to 20 000 records
    python benchmarks/bench_tcloseness.py --max-n 5000

Table 1: the partition on the CASC sets' z-scores with the loaders' roles (``dataset_roles``), k = 5, both
variants at t = 0.1 and 0.25: seconds, groups, merges (groups before the merging step minus groups after) and
MDAV-generic's time on the quasi-identifiers alone. Table 2: N(0, I), 4 quasi-identifiers and 1 confidential
attribute (distinct values), k = 5, t = 0.1: the t-closeness-first construction is O(n²·d/k'). Times are the best
of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import microagg as ma
from microagg.base.registry import get_method
from microagg.partition import tcloseness as tc


def best_of(fn, repeat: int) -> tuple[float, object]:
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
        if best is None or wall < best[0]:
            best = (wall, out)
    return best


def before_merging(Z, k, conf, t, variant) -> int:
    """Groups the construction forms before the merging step."""
    Q = np.ascontiguousarray(np.delete(Z, conf, axis=1))
    if variant == "tfirst":
        return int(tc._t_first(Q, tc._mean_rank(Z[:, conf]), k, t).max()) + 1
    return int(get_method("partition", "mdav").kernel(Q, k, variant="generic").max()) + 1


def run(name: str, Z: np.ndarray, conf: list[int], k: int, ts, repeat: int) -> None:
    mdav, _ = best_of(lambda: ma.partition.mdav(np.delete(Z, conf, axis=1), k), repeat)
    for t in ts:
        for variant in tc.VARIANTS:
            secs, labels = best_of(lambda t=t, v=variant: tc.t_closeness(Z, k, confidential=conf, t=t, variant=v),
                                   repeat)
            groups = int(labels.max()) + 1
            merges = before_merging(Z, k, conf, t, variant) - groups
            print(f"| {name} | {len(Z)} | {Z.shape[1] - len(conf)} / {len(conf)} | {k} | {t} | {variant} | "
                  f"{secs:.3f} | {groups} | {merges} | {mdav:.3f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-n", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    header = "| data | n | QIs / confidential | k | t | variant | seconds | groups | merges | MDAV on the QIs (s) |"
    print(header + "\n|" + "---|" * 10)
    ma.partition.mdav(np.random.default_rng(0).normal(size=(50, 3)), 3)  # compile once, outside the timings
    for name in ("tarragona", "census", "eia"):
        df = ma.load_dataset(name)
        roles = ma.dataset_roles(name)
        cols = roles["qi"] + roles["confidential"]
        Z = ma.standardize(df[cols])
        run(name, Z, list(range(len(roles["qi"]), len(cols))), 5, (0.1, 0.25), args.repeat)
    print("\n" + header + "\n|" + "---|" * 10)
    rng = np.random.default_rng(1)
    for n in (5_000, 10_000, 20_000):
        if n > args.max_n:
            break
        Z = np.column_stack([rng.normal(size=(n, 4)), rng.permutation(n) / n])
        run("N(0, I)", Z, [4], 5, (0.1,), 1)


if __name__ == "__main__":
    main()
