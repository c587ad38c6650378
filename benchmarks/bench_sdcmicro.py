"""Exact MDAV side by side with sdcMicro's (R), one thread each, same data; partitions compared.

    python benchmarks/bench_sdcmicro.py                                  # sdcMicro installed in R
    python benchmarks/bench_sdcmicro.py --sdcmicro-source ../sdcMicro    # a source checkout of sdcMicro instead
    python benchmarks/bench_sdcmicro.py --sizes 10000 30000 100000 --repeat 2

sdcMicro's ``microaggregation(method = "mdav")`` runs its C++ MDAV (``Mdav``), which weighs every attribute by
1 / (its variance) and is MDAV-generic; microagg's ``mdav`` runs on data standardized the same way. Both get the
same standardized N(0, I) data (d = 10, k = 3, seed 0), written as raw float64 for R. Timed: the C++ call alone on
the R side (``system.time``), ``microagg.partition.mdav`` alone here, on one thread (``MICROAGG_THREADS=1``), after
its kernels are loaded (or compiled) by first calls (``bench_mdav.load_kernels``).
With ``--sdcmicro-source`` (for machines where the package cannot be installed, e.g. without CRAN), sdcMicro's
``src/Mdav.cpp`` is compiled with ``R CMD SHLIB`` (R's default flags, as an install from source does; needs R and
the Rcpp package) into a temporary folder and called the way the package calls it. sdcMicro publishes every
record's group mean; its partition is read off the distinct output rows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checkout holding this script
sys.path.insert(0, HOME)
os.environ["MICROAGG_THREADS"] = "1"

import numpy as np  # noqa: E402
from bench_mdav import load_kernels  # noqa: E402

import microagg as ma  # noqa: E402

R_CALL = """
args <- commandArgs(TRUE)
n <- as.integer(args[2]); d <- as.integer(args[3])
X <- matrix(readBin(args[1], "double", n * d), n, d, byrow = TRUE)
if (args[5] == "") {{
  library(sdcMicro); call <- sdcMicro:::Mdav
}} else {{
  library(Rcpp); dyn.load(args[5]); call <- function(...) .Call("Mdav", ...)
}}
t <- system.time(res <- call(X, matrix(NA_real_, n, d), -999, rep(1, d), {k}L)$Res)
writeBin(as.vector(t(res)), args[4])
cat(t[["user.self"]] + t[["sys.self"]], t[["elapsed"]], "\\n")
"""


def build(source: str, into: str) -> str:
    """sdcMicro's ``src/Mdav.cpp`` from a source checkout, compiled into ``into``; the shared library's path."""
    rcpp = subprocess.run(["Rscript", "-e", 'cat(system.file("include", package = "Rcpp"))'], capture_output=True,
                          text=True, check=True).stdout.strip()
    if not rcpp:
        sys.exit("the R package Rcpp is needed to compile sdcMicro's Mdav.cpp")
    src = os.path.join(os.path.abspath(source), "src")
    for name in ("Mdav.cpp", "Mdav.h", "Framework.h"):
        with open(os.path.join(src, name), "rb") as f, open(os.path.join(into, name), "wb") as g:
            g.write(f.read())
    lib = os.path.join(into, "mdav_sdcmicro.so")
    subprocess.run(["R", "CMD", "SHLIB", "-o", lib, "Mdav.cpp"], cwd=into, check=True, capture_output=True,
                   env=dict(os.environ, PKG_CPPFLAGS=f"-I{rcpp}"))
    return lib


def sdcmicro(Z: np.ndarray, k: int, lib: str, tmp: str) -> tuple[float, float, np.ndarray]:
    """CPU and wall seconds of sdcMicro's MDAV on ``Z`` in R, and its output (group means)."""
    n, d = Z.shape
    data, out, script = (os.path.join(tmp, f) for f in ("z.bin", "out.bin", "call.R"))
    Z.astype(np.float64).tofile(data)
    with open(script, "w") as f:
        f.write(R_CALL.format(k=k))
    res = subprocess.run(["Rscript", script, data, str(n), str(d), out, lib], capture_output=True, text=True,
                         check=True)
    cpu, wall = map(float, res.stdout.split())
    return cpu, wall, np.fromfile(out).reshape(n, d)


def same_partition(labels: np.ndarray, means: np.ndarray) -> bool:
    """Whether the groups of ``labels`` are those of the distinct rows of ``means``."""
    _, theirs = np.unique(means, axis=0, return_inverse=True)
    pairs = np.unique(np.stack([labels, theirs.ravel()]), axis=1).shape[1]
    return pairs == labels.max() + 1 == theirs.max() + 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side per size (alternated)")
    ap.add_argument("--sdcmicro-source", metavar="DIR", help="a source checkout of sdcMicro (compile its Mdav.cpp "
                                                             "instead of loading the installed package)")
    args = ap.parse_args()
    k, d = 3, 10
    with tempfile.TemporaryDirectory() as tmp:
        lib = build(args.sdcmicro_source, tmp) if args.sdcmicro_source else ""
        load_kernels(ma.partition.mdav, max(args.sizes), d)
        which = f"compiled from {args.sdcmicro_source}" if lib else "installed package"
        print(f"MDAV-generic, standardized N(0, I), d = {d}, k = {k}, one thread each; sdcMicro: {which}\n")
        print("| n | microagg: CPU (s) | microagg: wall (s) | sdcMicro: CPU (s) | sdcMicro: wall (s) | CPU ratio "
              "| partitions | load |")
        print("|---|---|---|---|---|---|---|---|")
        for n in args.sizes:
            X = np.random.default_rng(0).standard_normal((n, d))
            Z = (X - X.mean(axis=0)) / X.std(axis=0)
            for _ in range(args.repeat):
                load = os.getloadavg()[0]
                cpu, wall = time.process_time(), time.perf_counter()
                labels = ma.partition.mdav(Z, k)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                r_cpu, r_wall, means = sdcmicro(Z, k, lib, tmp)
                same = "identical" if same_partition(labels, means) else "DIFFER"
                print(f"| {n} | {cpu:.2f} | {wall:.2f} | {r_cpu:.2f} | {r_wall:.2f} | {r_cpu / cpu:.1f}× | {same} "
                      f"| {load:.1f}–{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
