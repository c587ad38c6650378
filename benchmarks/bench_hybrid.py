"""Time HM-pfsom end to end and by stage; print tables.

    python benchmarks/bench_hybrid.py            # CASC sets (Abidi, Ben Yahia & Perera 2018 roles) and N(0, I) up to
    10^5 records
    python benchmarks/bench_hybrid.py --max-n 10000

Table 1: ``microaggregate(..., method="hmpfsom")`` on the CASC sets with the role
split of Abidi, Ben Yahia & Perera 2018 (EIA: MONTH + the
ten revenue and sales columns), z-scores, PCAES choosing c (2..10) and the classes of every sub-microdata;
stages: the QI split (one PFCM per candidate c), the confidential classes (one PFCM per candidate per
sub-microdata) and the diversity-constrained groups (Algorithm 2's loop, one iteration per group).
Table 2: N(0, I) data, d = 10 of which 3 confidential, k = 3, with c = 5 and cs = 3 fixed (one PFCM per level)
and with PCAES choosing both. Times are the best of ``--repeat`` runs; "CPU" is the process CPU time of that run.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

import numpy as np

import microagg as ma
from microagg.base.registry import get_method
from microagg.partition.hybrid import PFCM_PARAMS, _form_groups, hm_pfsom_steps
from microagg.partition.pfcm import select_pfcm


def best_of(fn, repeat: int):
    best = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        if best is None or wall < best[0]:
            best = (wall, cpu, out)
    return best


def stages(Z: np.ndarray, k: int, conf: list[int], **params) -> dict:
    """Seconds spent in the QI split and the groups of a run with ``params`` (the rest of the total is the classes)."""
    tr = hm_pfsom_steps(Z, k, conf, **params)
    p = get_method("partition", "hmpfsom").resolve(params)
    t0 = time.perf_counter()
    select_pfcm(tr.scaled[:, tr.qi], p["c"], p["c_max"], p["pcaes"], p["seed"], k, **{n: p[n] for n in PFCM_PARAMS})
    split = time.perf_counter() - t0
    t0 = time.perf_counter()
    for j in range(tr.c):
        rows = np.flatnonzero(tr.sub == j)
        _form_groups(tr.scaled[rows][:, tr.qi], tr.classes[rows], k, tr.centres[j])
    groups = time.perf_counter() - t0
    return {"split": split, "groups": groups, "c": tr.c, "cs": "/".join(map(str, tr.cs)),
            "groups formed": int(tr.labels.max()) + 1}


def casc(repeat: int) -> None:
    print("| data | n | QIs / confidential | k | c | classes | groups | total (s) | CPU (s) | QI split (s) | "
          "groups (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, kwargs in (("tarragona", {}), ("census", {}), ("eia", {"variant": "abidi"})):
        df = ma.load_dataset(name, **kwargs)
        conf = df.attrs["roles"]["confidential"]
        for k in (3, 5, 10):
            wall, cpu, rel = best_of(lambda df=df, conf=conf, k=k: ma.microaggregate(
                df, k, method="hmpfsom", confidential=conf), repeat)
            Z = np.hstack([rel.Z, ma.standardize(df[conf])])
            st = stages(Z, k, list(range(len(rel.masked), Z.shape[1])))
            print(f"| {name} | {len(df)} | {len(rel.masked)} / {len(conf)} | {k} | {st['c']} | {st['cs']} | "
                  f"{st['groups formed']} | {wall:.2f} | {cpu:.2f} | {st['split']:.2f} | {st['groups']:.3f} |")


def synthetic(max_n: int, repeat: int) -> None:
    print("\n| n | d (confidential) | k | c, cs | total (s) | CPU (s) | QI split (s) | groups (s) | groups formed |")
    print("|---|---|---|---|---|---|---|---|---|")
    conf = [7, 8, 9]
    for n in (1_000, 10_000, 100_000):
        if n > max_n:
            break
        Z = np.random.default_rng(0).normal(size=(n, 10))
        settings = [("5, 3 fixed", {"c": 5, "cs": 3})]
        if n <= 10_000:
            settings.append(("PCAES", {}))
        for label, params in settings:
            wall, cpu, _ = best_of(lambda Z=Z, params=params: hm_pfsom_steps(Z, 3, conf, **params), repeat)
            st = stages(Z, 3, conf, **params)
            print(f"| {n} | 10 (3) | 3 | {label} | {wall:.2f} | {cpu:.2f} | {st['split']:.2f} | {st['groups']:.3f} | "
                  f"{st['groups formed']} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # single-class sub-microdata warnings are not the subject here
    print(f"{platform.platform()}, Python {platform.python_version()}, numpy {np.__version__}\n")
    casc(args.repeat)
    synthetic(args.max_n, args.repeat)


if __name__ == "__main__":
    main()
