import numpy as np
import pytest

import microagg as ma
from microagg.partition import kernels

# The two ways a partitioning kernel runs (``partition/kernels.py``): the numpy kernels, and compiled by numba
# (skipped where numba is missing or its JIT disabled: the suite's run without numba, tests/partition/test_kernels.py).
BACKENDS = [pytest.param("numpy"), pytest.param("compiled", marks=pytest.mark.skipif(
    not kernels.available(), reason="numba is not available here"))]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every kernel run of the test on one backend, whatever the size of its data."""
    with kernels.use_backend(request.param):
        yield request.param


@pytest.fixture
def compiled():
    """The compiled runtime (engines, threads), for tests of the compiled kernels themselves; skipped without numba."""
    if not kernels.available():
        pytest.skip("numba is not available here")
    return kernels.runtime()


@pytest.fixture(scope="session")
def benchmark_z():
    """Standardized benchmark data, by name."""
    return {name: ma.standardize(ma.load_dataset(name)) for name in ("tarragona", "census", "eia")}


@pytest.fixture
def small_df():
    rng = np.random.default_rng(7)
    import pandas as pd

    return pd.DataFrame({"a": rng.normal(size=40), "b": rng.integers(0, 100, 40), "c": rng.exponential(size=40)},
                        index=pd.RangeIndex(100, 140))
