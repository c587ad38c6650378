"""The attribute bounds of the differentially private methods (docs/methods.md §7.3)."""

import numpy as np
import pytest

import microagg as ma
from microagg.privacy.bounds import check_bounds, ranked_blocks


def test_bounds_as_pairs_or_text_and_their_refusals():
    assert check_bounds("0:1, -2:3e2", 2, "m").tolist() == [[0, 1], [-2, 300]]
    assert check_bounds([(0, 1), (2, 3)], 2, "m").tolist() == [[0, 1], [2, 3]]
    with pytest.raises(ma.MicroaggError, match="2 \\(lower, upper\\) pairs"):
        check_bounds([[0, 1]], 2, "m")
    with pytest.raises(ma.MicroaggError, match="lower bound must be below"):
        check_bounds([[0, 1], [3, 3]], 2, "m")
    with pytest.raises(ma.MicroaggError, match="could not read"):
        check_bounds("0:1,a:b", 2, "m")
    with pytest.raises(ma.MicroaggError, match="finite"):
        check_bounds([[0, np.inf]], 1, "m")
    with pytest.raises(ma.MicroaggError, match="width upper − lower of column 1 overflows"):  # infinite noise before
        check_bounds([[0, 1], [-1e308, 1e308]], 2, "m")


def test_ranked_blocks_cut_the_sorted_values_and_ties_go_to_the_lower_index():
    assert ranked_blocks(np.array([3.0, 1.0, 3.0, 0.0, 1.0, 3.0, 2.0]), 2).tolist() == [2, 0, 2, 0, 1, 2, 1]


def test_bounds_as_python_writes_them():
    assert check_bounds("[(0, 1), (-2, 300.0)]", 2, "m").tolist() == [[0, 1], [-2, 300]]
    with pytest.raises(ma.MicroaggError, match="2 \\(lower, upper\\) pairs"):
        check_bounds("0:1,2", 2, "m")
