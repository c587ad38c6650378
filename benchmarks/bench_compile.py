"""Time the first call of the compiled partitioners on a machine (numba compiling with an empty cache).

    python benchmarks/bench_compile.py                                   # MDAV, then V-MDAV, MD, IAMAT, CV-MDAV
    python benchmarks/bench_compile.py --against ../other-checkout --repeat 3   # two checkouts, alternated
    python benchmarks/bench_compile.py mdav --sizes 2000 40000                 # then first MDAV calls on more records

Each run is a fresh process with an empty ``NUMBA_CACHE_DIR`` of its own, so numba compiles every kernel it meets
(as on a new machine), with ``MICROAGG_BACKEND=compiled`` (below ``kernels.CROSSOVER`` records "auto" would take the
numpy kernels and compile nothing); the methods run in the order given, on 500 x 5 records of N(0, I), k = 3, so a
later method pays only for the kernels the earlier ones did not compile. Reported: CPU seconds of each first call
(process time, numba's compiler runs in the calling thread) and the kernels compiled (numba's ``numba:compile``
events, which it raises on cache misses only). ``--sizes`` adds first MDAV calls on more records, one thread: from
``brute.MAX`` (1 200) records MDAV runs on the screened engine, from 32 768 with its integer copy, each a kernel
compiled separately. ``--large`` is ``--sizes 40000``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

DEFAULT = ["mdav", "vmdav", "md", "iamat", "cvmdav"]
HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checkout holding this script


def child(methods: list[str], sizes: list[int]) -> None:
    """In this process: the first call of each method, CPU seconds and kernels compiled."""
    from numba.core import event

    compiled = [0]

    class Count(event.Listener):
        def on_start(self, ev) -> None:
            compiled[0] += 1

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", Count())
    import numpy as np

    import microagg  # noqa: F401  (registers the methods)
    from microagg.base.registry import get_method

    Z = np.random.default_rng(0).standard_normal((500, 5))
    calls = [(m, Z) for m in methods] + [("mdav", np.random.default_rng(0).standard_normal((n, 5))) for n in sizes]
    out = []
    for name, data in calls:
        compiled[0] = 0
        cpu = time.process_time()
        get_method("partition", name).func(data, 3)
        out.append({"method": name, "n": len(data), "cpu": time.process_time() - cpu, "kernels": compiled[0]})
    print(json.dumps(out))


def run(checkout: str | None, methods: list[str], sizes: list[int]) -> list[dict]:
    """``child`` in a fresh process with an empty numba cache, importing microagg from ``checkout`` (default: the
    checkout holding this script, whatever is installed)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, MICROAGG_THREADS="1", MICROAGG_BACKEND="compiled")
        env["PYTHONPATH"] = os.path.abspath(checkout or HOME) + os.pathsep + env.get("PYTHONPATH", "")
        args = [sys.executable, __file__, "--child", *methods, "--sizes", *map(str, sizes)]
        res = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("methods", nargs="*", default=DEFAULT, help="partitioners, in the order they are first called")
    ap.add_argument("--against", metavar="CHECKOUT", help="another checkout (the folder holding its microagg/), "
                                                          "run alternately with this one")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--sizes", type=int, nargs="*", default=[], metavar="N",
                    help="then first MDAV calls on N records each, one thread")
    ap.add_argument("--large", action="store_true", help="--sizes 40000")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = args.sizes + ([40_000] if args.large else [])
    if args.child:
        return child(args.methods, sizes)
    sides = [("this", None)] + ([("other", args.against)] if args.against else [])
    print("First call with an empty numba cache: CPU s (kernels compiled); 500 x 5, k = 3, one thread\n")
    rows: dict[str, list[str]] = {}
    for _ in range(args.repeat):
        for label, checkout in sides:
            load = os.getloadavg()[0]
            for r in run(checkout, args.methods, sizes):
                key = f"| {r['method']} ({r['n']}) | {label}"
                rows.setdefault(key, []).append(f"{r['cpu']:.1f} ({r['kernels']})")
            rows.setdefault(f"| load | {label}", []).append(f"{load:.1f}")
    print("| first call | checkout | " + " | ".join(f"run {i + 1}" for i in range(args.repeat)) + " |")
    print("|---|---|" + "---|" * args.repeat)
    for key, vals in rows.items():
        print(f"{key} | " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main()
