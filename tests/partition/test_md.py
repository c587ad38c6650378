import importlib

import numpy as np
import pytest

import microagg as ma

from .reference_methods import reference_md


@pytest.mark.parametrize("tail", ["generic", "classic"])
@pytest.mark.parametrize("name,k", [("census", 3), ("tarragona", 5), ("census", 10)])
def test_engine_equals_brute_force_reference(benchmark_z, name, k, tail, backend):
    Z = benchmark_z[name]
    assert np.array_equal(ma.partition.md(Z, k, tail), reference_md(Z, k, tail))


def test_on_clustered_data_with_duplicates(benchmark_z, backend):
    Z = benchmark_z["eia"][::4]  # clustered, with duplicate rows
    for tail in ("generic", "classic"):
        assert np.array_equal(ma.partition.md(Z, 3, tail), reference_md(Z, 3, tail))


@pytest.mark.parametrize("seed", range(6))
def test_tie_heavy_integers_and_high_dimension(seed, backend):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(int(rng.integers(20, 120)), int(rng.integers(1, 4)))).astype(float)
    W = rng.standard_normal((150, 10))
    for k in (2, 3, 5):
        for tail in ("generic", "classic"):
            assert np.array_equal(ma.partition.md(X, k, tail), reference_md(X, k, tail)), (k, tail)
            assert np.array_equal(ma.partition.md(W, k, tail), reference_md(W, k, tail)), (k, tail)


def test_threaded_passes_equal_reference(compiled):
    module = importlib.import_module("microagg.partition.md")
    W = np.random.default_rng(7).standard_normal((200, 6))
    for generic in (True, False):
        labels = compiled.threads.run(module.md_kernel.compiled(), W, 3, generic, parallel_min=0, threads=2)
        assert np.array_equal(labels, reference_md(W, 3, "generic" if generic else "classic"))


def test_identical_records(backend):
    labels = ma.partition.md(np.ones((11, 2)), 3)
    assert list(labels) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2]


def test_group_sizes(benchmark_z):
    Z = benchmark_z["tarragona"]
    generic = np.bincount(ma.partition.md(Z, 4))
    assert (generic[:-1] == 4).all() and 4 <= generic[-1] <= 7
    classic = np.bincount(ma.partition.md(Z, 4, "classic"))
    assert classic.min() >= 4 and classic.sum() == len(Z)


def test_bad_tail():
    with pytest.raises(ma.MicroaggError, match="'tail'.*one of"):
        ma.partition.md(np.zeros((10, 2)), 2, tail="short")
