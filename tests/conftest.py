import sys
import warnings

import numpy as np
import pytest

import microagg as ma
from microagg.partition.compiled import warmup


def _compile_partitioners() -> None:
    """Compile the kernels of small runs (those the notebooks and the dashboard use): the dashboard's warm-up (every
    partitioner that takes no roles), then those that do and MDAV's traced variants. numba keeps them on disk, so
    later processes load them."""
    warmup.warm_up()
    Z = ma.standardize(ma.load_dataset("census").iloc[:60])
    for method in ma.registry.methods("partition"):
        if method.caps.uses_roles:
            with warnings.catch_warnings():  # HM-pfsom warns that 60 records make few diverse groups: not the point
                warnings.simplefilter("ignore", UserWarning)
                method.func(Z, 3, confidential=list(range(5, 13)))
    for variant in ma.registry.get_method("partition", "mdav").param("variant").choices:
        ma.partition.mdav_steps(Z, 3, variant)


def pytest_sessionstart(session):
    """Compile the small-run kernels once before any test runs (with pytest-xdist: in the controller, before its
    workers start). On a fresh machine the workers would otherwise compile the same kernels side by side, each as
    slowly as the other; here it takes about a minute once, said on stderr."""
    if hasattr(session.config, "workerinput") or session.config.option.collectonly:  # a worker: the controller did
        return
    with warmup.Compiles(lambda said: print(said, file=sys.stderr, flush=True)):
        _compile_partitioners()


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
