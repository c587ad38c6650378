"""The intrinsics that sum squared differences two attributes at a time, against numpy's integers."""

import numpy as np
import pytest
from numba import njit

from microagg.partition.compiled import engine
from microagg.partition.compiled.pairs import LANES, pair_add, pair_set


@njit(cache=False)
def _sums(rows, q, nb):
    """The engine's use of the pairs: set from the first pair, add the others, LANES records a step."""
    loc = np.full(nb + LANES, -7, np.int32)  # (a guard past nb: the intrinsics write LANES sums, no more)
    for p in range(rows.shape[0]):
        for j in range(0, nb, LANES):
            if p == 0:
                pair_set(rows[p], loc, j, np.int64(q[2 * p]), np.int64(q[2 * p + 1]))
            else:
                pair_add(rows[p], loc, j, np.int64(q[2 * p]), np.int64(q[2 * p + 1]))
    return loc


@pytest.mark.parametrize("d", [1, 2, 3, 7, 10, 57, 300])
def test_pair_sums_are_the_exact_squared_distances(d):
    """Interleaved pairs (an odd d's last one padded with zeros), values up to the engine's grid bound H: every sum
    exact in 32 bits, including differences of 2H (the extremes). (That H keeps them so, d (2H)^2 < 2^31 and 2H <
    2^15, is tested on the engine's grid in test_engine.py.)"""
    H = int(engine._grid_step(d, 1.0)[1])
    rng = np.random.default_rng(d)
    nb = 4 * LANES
    Z = rng.integers(-H, H + 1, (nb, d))
    Z[0], Z[1] = H, -H  # the largest differences from a query at -H and at H
    P = -(-d // 2)
    rows = np.zeros((P, 2 * nb), np.int16)
    for t in range(d):
        rows[t // 2, t % 2::2] = Z[:, t]
    for q in (rng.integers(-H, H + 1, d), np.full(d, -H), np.full(d, H)):
        qp = np.zeros(2 * P, np.int64)
        qp[:d] = q
        loc = _sums(rows, qp, nb)
        np.testing.assert_array_equal(loc[:nb], ((Z - q) ** 2).sum(axis=1))
        assert np.all(loc[nb:] == -7)


def test_arguments_they_are_not_written_for_are_a_typing_error():
    """A strided row or float sums would be read wrong by the instructions: numba refuses to compile the call."""
    from numba.core.errors import TypingError

    @njit(cache=False)
    def strided(rows, loc):
        pair_set(rows[0, ::2], loc, np.int64(0), np.int64(1), np.int64(2))

    @njit(cache=False)
    def floats(row, loc):
        pair_add(row, loc, np.int64(0), np.int64(1), np.int64(2))

    with pytest.raises(TypingError):
        strided(np.zeros((1, 4 * LANES), np.int16), np.zeros(LANES, np.int32))
    with pytest.raises(TypingError):
        floats(np.zeros(2 * LANES, np.int16), np.zeros(LANES))
