"""Time microagg's CSV reader against a plain ``pandas.read_csv`` on the same files; print a table.

    python benchmarks/bench_io.py                 # 500 000 records x 10 columns
    python benchmarks/bench_io.py --n 100000 --repeat 5

Three files of the same N(0, 1) records (6 decimals): plain comma-separated numbers; the first column
written with thousands separators ("12,345.67", quoted); semicolon-separated with decimal commas.
``microagg.data.io.read_csv`` checks every row's width, tells the decimal mark and converts numbers in text form;
pandas reads the second and third files' converted columns as text. Best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

import numpy as np
import pandas as pd

from microagg.data.io import read_csv


def best(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500_000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    df = pd.DataFrame(np.random.default_rng(0).normal(size=(args.n, args.d)).round(6),
                      columns=[f"c{j}" for j in range(args.d)])
    grouped = df.assign(c0=[f"{v:,.2f}" for v in df["c0"] * 1e4])
    print(f"{args.n} records x {args.d} columns; {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'file':<34} {'MB':>6} {'pandas (s)':>11} {'microagg.data.io (s)':>16}")
    with tempfile.TemporaryDirectory() as folder:
        for label, frame, sep, decimal in (("plain, comma-separated", df, ",", "."),
                                           ("thousands separators, quoted", grouped, ",", "."),
                                           ("semicolons, decimal commas", df, ";", ",")):
            path = os.path.join(folder, "data.csv")
            frame.to_csv(path, index=False, sep=sep, decimal=decimal)
            ours = read_csv(path).data
            assert ours.shape == df.shape and all(pd.api.types.is_float_dtype(t) for t in ours.dtypes)
            print(f"{label:<34} {os.path.getsize(path) / 2**20:6.1f} "
                  f"{best(lambda: pd.read_csv(path, sep=sep), args.repeat):11.2f} "  # noqa: B023
                  f"{best(lambda: read_csv(path), args.repeat):16.2f}")  # noqa: B023


if __name__ == "__main__":
    main()
