"""Hypothesis strategies shared by the partitioner tests: small data sets, often tie-heavy, and a k."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def data_and_k(draw):
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(2, max(2, min(8, n))))
    if draw(st.booleans()):  # tie-heavy: few distinct values, duplicates
        Z = draw(arrays(np.float64, (n, d), elements=st.sampled_from([0.0, 1.0, 2.0, -1.5])))
    else:
        Z = draw(arrays(np.float64, (n, d), elements=finite))
    return Z, k
