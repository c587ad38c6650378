"""Heterogeneous MDAV (Domingo-Ferrer & Torra 2005; docs/methods.md §2.15): CPU time and loss on the survey example
and on generated households, beside numeric MDAV on the same continuous columns alone.

    python benchmarks/bench_heterogeneous.py          # the example (975 complete rows) and 10^4 households,
                                                      # then the whole example released with weights and missing cells

k = 3; continuous quasi-identifiers age and household_size (income is confidential, the weight not masked),
ordinal education, nominal region; complete rows only. CPU seconds (``time.process_time``) of the partition
alone, the best of 3 runs, alternating the two methods; IL of the continuous columns (docs/metrics.md §4.1), the
share of changed categories and the ordinal shift (§4.25), each computed on the release.
"""

from __future__ import annotations

import os
import time

import numpy as np

import microagg as ma
from microagg.data.categories import NOMINAL, ORDINAL, encode, spec
from microagg.metrics.categorical import changed_categories, ordinal_shift
from microagg.partition.heterogeneous import mdav_heterogeneous
from microagg.release.stages import category_values

CONTINUOUS = ["age", "household_size"]


def cpu(call, repeat: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = call()
        best = min(best, time.process_time() - t)
    return best, out


def run(name: str, df) -> None:
    df = df.dropna()
    Z = ma.standardize(df, CONTINUOUS)
    cats = encode(df, *spec({"education": list(ma.datasets.SURVEY_EDUCATION)}, ["region"]))
    P, N = (cats.codes[:, cats.columns(kind)] for kind in (ORDINAL, NOMINAL))
    mdav_heterogeneous(Z[:50], P[:50], N[:50], 3)  # compiled before timing
    t_het, labels = cpu(lambda: mdav_heterogeneous(Z, P, N, 3))
    t_num, plain = cpu(lambda: ma.partition.mdav(Z, 3))
    released = category_values(cats, labels)
    changed = changed_categories(cats.codes, released)
    shift = ordinal_shift(P, released[:, cats.columns(ORDINAL)], [len(cats.levels[j]) for j in cats.columns(ORDINAL)])
    il_het = ma.metrics.information_loss(Z, ma.aggregate.mean(Z, labels))
    il_num = ma.metrics.information_loss(Z, ma.aggregate.mean(Z, plain))
    # numeric MDAV on the continuous columns, its groups then taking the categories' median and mode
    plain_changed = changed_categories(cats.codes, category_values(cats, plain))
    print(f"| {name} | {len(df)} | {t_het:.3f} | {t_num:.4f} | {il_het:.2f} | {il_num:.2f} | "
          f"{changed[0]:.1f} / {changed[1]:.1f} | {plain_changed[0]:.1f} / {plain_changed[1]:.1f} | {shift[0]:.1f} |")


def all_three() -> None:
    """The whole survey example (1000 rows, 25 missing cells) released with its sampling weights, missing cells and
    both categorical quasi-identifiers (docs/methods.md §2.15, §8): CPU seconds of ``microaggregate`` (partition,
    aggregation, checks), best of 3, and the report's IL over the observed cells, weighted IL and changed categories."""
    df = ma.load_dataset("survey")
    kw = dict(sampling_weights="weight", nominal=["region"], ordinal={"education": list(ma.datasets.SURVEY_EDUCATION)},
              seed=0)
    print("| missing | CPU s (release) | IL (observed cells) | IL (weighted) | changed categories (%) | cells hidden |")
    print("|---|---|---|---|---|---|")
    for missing in ("keep", "impute"):
        ma.microaggregate(df, 3, missing=missing, **kw)  # compiled before timing
        t, rel = cpu(lambda missing=missing: ma.microaggregate(df, 3, missing=missing, **kw))
        v = rel.report().query("attribute == 'all'").set_index("metric")["value"]
        print(f"| {missing} | {t:.3f} | {v['IL (observed cells)']:.2f} | {v['IL (weighted)']:.2f} | "
              f"{v['changed categories']:.1f} | {v['observed cells suppressed for k-anonymity']} |")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| data | n | heterogeneous MDAV (CPU s) | numeric MDAV (CPU s) | IL heterogeneous | IL numeric | changed "
          "region / education, heterogeneous (%) | the same after numeric MDAV (%) | ordinal shift (%) |")
    print("|---|---|---|---|---|---|---|---|---|")
    run("survey example", ma.load_dataset("survey"))
    run("households", ma.load_dataset("households", n=10_000, seed=1))
    all_three()
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
