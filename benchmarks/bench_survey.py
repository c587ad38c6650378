"""IL and DLD of releases with missing cells against the complete-data release (docs/methods.md §8).

For every CASC set and k, 5 % of the masked cells are removed at random (a seeded generator, one draw per
``--draws``), the data are microaggregated by MDAV-generic + mean with ``missing="keep"`` and
``missing="impute"``, and compared with the complete data's release:

- IL and DLD of the complete data (the report's ``IL`` and ``DLD``, expected rule);
- the report's own ``IL (observed cells)`` and ``DLD (partial distances)`` of the release with missing cells;
- the same two against the complete originals (what an intruder or an analyst holding the full records sees):
  the release's z-scores against the complete records standardized alike, a released missing cell counting as
  lost, linkage with partial distances over the released cells.

Prints a markdown table, the CPU time of each release and the load average at the start.

    python benchmarks/bench_survey.py               # k = 3, 5, 10, one draw
    python benchmarks/bench_survey.py --draws 3
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

import microagg as ma
from microagg.metrics.survey import partial_dld, weighted_il


def holes(df, share: float, seed: int):
    return df.mask(np.random.default_rng(seed).random(df.shape) < share)


def row(name: str, k: int, seed: int) -> list:
    df = ma.load_dataset(name)
    df = df[[c for c in df.columns if c not in df.attrs.get("roles", {}).get("identifiers", [])]]
    full = ma.microaggregate(df, k, seed=0).report().query("attribute == 'all'").set_index("metric")["value"]
    cells = [f"{full['IL']:.2f}", f"{full['DLD']:.2f}"]
    cpu = []
    for missing in ("keep", "impute"):
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = ma.microaggregate(holes(df, 0.05, seed), k, missing=missing, seed=0)
        rep = rel.report().set_index("metric")["value"]
        cpu.append(time.process_time() - t0)
        Zfull = rel.standardizer.transform(df[rel.masked].to_numpy(float))
        cells += [f"{rep['IL (observed cells)']:.2f} / {weighted_il(Zfull, rel.Zp):.2f}",
                  f"{rep['DLD (partial distances)']:.2f} / {partial_dld(Zfull, rel.Zp):.2f}"]
        if missing == "keep":
            cells.append(f"{100 * rep['observed cells suppressed for k-anonymity'] / df.size:.1f}")
    return [name, str(k), str(seed), *cells, " / ".join(f"{c:.1f}" for c in cpu)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1)
    parser.add_argument("--k", type=int, nargs="+", default=[3, 5, 10])
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    head = ["data", "k", "draw", "IL complete", "DLD complete", "keep: IL observed / vs complete",
            "keep: DLD partial / vs complete", "keep: cells suppressed (%)", "impute: IL observed / vs complete",
            "impute: DLD partial / vs complete", "CPU s keep / impute"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in ("tarragona", "census", "eia"):
        for k in args.k:
            for seed in range(args.draws):
                print("| " + " | ".join(row(name, k, seed)) + " |", flush=True)


if __name__ == "__main__":
    main()
