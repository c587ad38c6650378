"""Digests and time of whole releases: for a restructuring that must change nothing.

Prints, for every bundled CASC set and a spread of methods and aggregations, a digest of the published file
(``Release.to_csv``, a fixed shuffle seed) and of the report's overall rows, then the seconds taken by the
releases and their reports after a warm-up. Run it in two checkouts and compare:

    python benchmarks/bench_release.py > after.txt      # and the same in the other checkout > before.txt
    diff before.txt after.txt                            # only the last line (the time) may differ
"""

from __future__ import annotations

import hashlib
import time
import warnings

import microagg as ma

CASES = [(ds, m, "mean", {}) for ds in ("tarragona", "census", "eia")
         for m in ("mdav", "vmdav", "cvmdav", "md", "iamat", "projection", "individual_ranking")]
CASES += [(ds, "mdav", agg, {}) for ds in ("tarragona", "census", "eia") for agg in ("median", "p3m")]
CASES += [("census", "mdav", "mean", {"renormalize": True}),
          ("census", "hmpfsom", "mean", {"confidential": ["FICA"], "method_params": {"seed": 0}})]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main() -> None:
    warnings.simplefilter("ignore")
    ma.microaggregate(ma.load_dataset("census"), 3)  # compile the kernels first
    start = time.perf_counter()
    for ds, method, aggregation, kw in CASES:
        rel = ma.microaggregate(ma.load_dataset(ds), 4, method=method, aggregation=aggregation, seed=7, **kw)
        report = rel.report()
        overall = report[report["attribute"] == "all"].set_index("metric")["value"].astype(str)
        print(ds, method, aggregation, sorted(kw), digest(rel.to_csv()), digest(repr(sorted(overall.items()))))
    print(f"{time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
