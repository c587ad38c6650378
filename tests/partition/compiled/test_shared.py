"""The limits the threads of a split pass share: atomic min, max and read on the bits of non-negative floats."""

import numba
import numpy as np
import pytest
from numba import njit, prange

from microagg.partition.compiled.shared import current, tighten_max, tighten_min


@njit(cache=False, parallel=True)
def _tighten_all(values, chunks):
    """Every value published from ``chunks`` ranges at once: slot 0 the minimum, slot 1 the maximum; returns the
    slots and, per range, whether a read ever went back past a value that range had seen published."""
    lims = np.array([np.inf, -np.inf])
    back = np.zeros(chunks, np.bool_)
    for c in prange(chunks):
        low, high = np.inf, -np.inf
        for i in range(c, values.shape[0], chunks):
            tighten_min(lims, np.int64(0), values[i])
            tighten_max(lims, np.int64(1), values[i])
            a, b = current(lims, np.int64(0)), current(lims, np.int64(1))
            if a > low or b < high:  # a limit read later is never looser than one read before
                back[c] = True
            low, high = a, b
    return lims, back


@pytest.mark.parametrize("values", [
    np.random.default_rng(1).exponential(size=200_000),
    np.random.default_rng(2).integers(0, 2 ** 31, 100_000).astype(float),  # squared grid distances
    np.array([0.0, 5e-324, 1e-310, 1.0, 1e308, np.inf, 3.0]),  # subnormals, the largest float, +inf
    np.array([7.0]),
])
def test_the_shared_limits_are_the_exact_minimum_and_maximum(values):
    """On the bits of non-negative floats the integer min and max are the float ones, including 0, subnormals and
    +inf (the slot's start for a minimum); -inf (a maximum's start) loses to every value. From numba's threads at
    once the slots end at the exact extremes, and no read goes back to a looser limit."""
    threads = numba.get_num_threads()
    lims, back = _tighten_all(values, max(2, threads) * 4)
    assert lims[0] == values.min() and lims[1] == values.max()
    assert not back.any()


@njit(cache=False)
def _unpublished():
    lims = np.array([np.inf, -np.inf])
    return current(lims, np.int64(0)), current(lims, np.int64(1))


def test_a_slot_nobody_published_to_reads_its_start():
    assert _unpublished() == (np.inf, -np.inf)


def test_only_a_contiguous_float64_array_is_accepted():
    """The intrinsics read a slot's 8 bytes as an integer: another dtype or a strided view would be misread, so
    numba refuses them when it types the call."""
    @njit(cache=False)
    def on(a):
        tighten_min(a, np.int64(0), 1.0)

    with pytest.raises(numba.core.errors.TypingError):
        on(np.zeros(2, np.float32))
    with pytest.raises(numba.core.errors.TypingError):
        on(np.zeros(4)[::2])
