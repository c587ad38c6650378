"""Simple microaggregation (docs/methods.md §2.19): consecutive rows, whatever their values."""

import numpy as np

import microagg as ma


def test_groups_are_consecutive_rows_and_the_last_takes_the_rest():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((23, 3))
    labels = ma.partition.simple(Z, 5)
    assert list(labels) == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 8
    assert np.array_equal(ma.partition.simple(Z[::-1], 5), labels)  # the values play no part
    assert list(ma.partition.simple(Z[:7], 4)) == [0] * 7  # k <= n < 2k: one group


def test_sorting_first_is_what_it_is_a_benchmark_for():
    df = ma.load_dataset("census")
    simple = ma.microaggregate(df, 3, method="simple", seed=0)
    single = ma.microaggregate(df, 3, method="projection", seed=0)
    il = {r: rel.report().set_index("metric")["value"]["IL"] for r, rel in (("simple", simple), ("pca", single))}
    assert simple.anonymity["k_anonymous"] and il["simple"] > 2 * il["pca"]
