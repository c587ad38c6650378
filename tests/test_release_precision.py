"""Released values are exact to float64 rounding at every magnitude from 1e-300 to 1e300 (property test)."""

from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma


@st.composite
def columns(draw):
    """2 to 3 columns of 6 to 24 records; each column spans the powers of ten 10^lo..10^hi within 1e-300..1e300."""
    n = draw(st.integers(6, 24))
    data = {}
    for j in range(draw(st.integers(2, 3))):
        lo = draw(st.integers(-300, 300))
        hi = draw(st.integers(lo, min(300, lo + draw(st.sampled_from([0, 3, 30, 600])))))
        exponents = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
        mantissas = draw(st.lists(st.floats(1.0, 9.999), min_size=n, max_size=n))
        signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n))
        data[f"c{j}"] = [s * m * 10.0 ** e for s, m, e in zip(signs, mantissas, exponents)]
    return pd.DataFrame(data)


def exact_group_means(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each record's group mean in exact rational arithmetic, rounded once to float64."""
    out = np.empty(len(values))
    for g in np.unique(labels):
        members = np.flatnonzero(labels == g)
        out[members] = float(sum(Fraction(float(v)) for v in values[members]) / len(members))
    return out


def relative_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny)


@settings(max_examples=60, deadline=None)
@given(columns())
def test_mean_release_is_exact_to_rounding(df):
    rel = ma.microaggregate(df, 3, identifiers=[])  # any column may look like record numbers
    for c in df.columns:
        released = rel.in_input_order()[c].to_numpy()
        assert relative_error(released, exact_group_means(df[c].to_numpy(), rel.labels)).max() <= 1e-9, c


@settings(max_examples=30, deadline=None)
@given(columns())
def test_median_release_is_an_exact_group_median(df):
    rel = ma.microaggregate(df, 3, aggregation="median", identifiers=[])
    for c in df.columns:
        want = df[c].groupby(rel.labels).transform("median").to_numpy()
        assert relative_error(rel.in_input_order()[c].to_numpy(), want).max() <= 1e-9, c
