import importlib

import numpy as np
import pytest

import microagg as ma
from microagg.lab.reproduce import published
from microagg.metrics import partition_information_loss
from microagg.partition import kernels

from .reference_methods import product_iamat, reference_iamat

GIVES = {  # docs/reproductions.md §3 "literal IAMAT gives" (an independent implementation)
    "tarragona": (15.6073, 19.2677, 22.6214),
    "census": (5.3736, 7.2467, 8.9322),
}


@pytest.mark.parametrize("name", sorted(GIVES))
def test_oommen_table2_iamat(benchmark_z, name):
    Z = benchmark_z[name]
    for k, pub, gives in zip(published.K_OOMMEN, published.OOMMEN_IL["IAMAT"][name], GIVES[name]):
        ours = partition_information_loss(Z, ma.partition.iamat(Z, k))
        assert ours == pytest.approx(gives, abs=1e-4)
        assert ours == pytest.approx(float(pub), rel=published.IAMAT_RELATIVE_TOLERANCE)


@pytest.mark.parametrize("name,k", [("tarragona", 3), ("tarragona", 5), ("census", 4), ("eia", 3), ("eia", 6)])
def test_engine_equals_log_domain_reference(benchmark_z, name, k, backend):
    Z = benchmark_z[name]
    assert np.array_equal(ma.partition.iamat(Z, k), reference_iamat(Z, k))


@pytest.mark.parametrize("seed", range(4))
def test_engine_equals_reference_on_random_and_high_dimensional_data(seed, backend):
    module = importlib.import_module("microagg.partition.iamat")
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((int(rng.integers(50, 300)), int(rng.integers(2, 12))))
    for k in (2, 3, 5, 8):
        assert np.array_equal(ma.partition.iamat(Z, k), reference_iamat(Z, k)), k
        if backend == "compiled":  # passes split over threads
            runtime = kernels.runtime()
            threaded = runtime.threads.run(module.iamat_kernel.compiled(), Z, k, parallel_min=0, threads=2)
            assert np.array_equal(threaded, reference_iamat(Z, k)), k


@pytest.mark.parametrize("seed", range(6))
def test_engine_equals_reference_on_tie_heavy_integers(seed, backend):
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(int(rng.integers(30, 150)), int(rng.integers(1, 5)))).astype(float)
    for k in (2, 3, 4, 6):
        assert np.array_equal(ma.partition.iamat(Z, k), reference_iamat(Z, k)), k


def test_products_of_associations_underflow_where_logs_do_not(benchmark_z):
    # the reason for the log domain: float32 products of associations collapse to 0 on Tarragona
    Z = benchmark_z["tarragona"]
    ours = partition_information_loss(Z, ma.partition.iamat(Z, 3))
    as_written_f32 = partition_information_loss(Z, product_iamat(Z, 3, np.float32))
    assert ours == pytest.approx(15.6073, abs=1e-4) and as_written_f32 == pytest.approx(34.588, abs=1e-3)
    census = benchmark_z["census"]  # float64 products happen to take the same decisions here
    assert np.array_equal(product_iamat(census, 4, np.float64), ma.partition.iamat(census, 4))


def test_group_sizes_and_leftovers_join_the_last_group():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((47, 3))
    labels = ma.partition.iamat(Z, 5)
    sizes = np.bincount(labels)
    assert (sizes[:-1] == 5).all() and sizes[-1] == 5 + 47 % 5
    assert (np.bincount(ma.partition.iamat(Z[:9], 5)) == [9]).all()
    assert np.bincount(ma.partition.iamat(Z, 2)).min() == 2
