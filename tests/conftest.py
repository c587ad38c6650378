import numpy as np
import pytest

import microagg as ma


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
