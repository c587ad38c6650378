import numpy as np
import pytest

from microagg.base.errors import MicroaggError
from microagg.base.labels import check_labels, pooled_labels


def test_any_integer_ids_are_renumbered_in_order_of_value():
    assert check_labels([7, 3, 7, 3, 9, 9], 6).tolist() == [1, 0, 1, 0, 2, 2]
    assert check_labels(np.array([1.0, 1.0, 0.0, 0.0]), 4).tolist() == [1, 1, 0, 0]


def test_groups_smaller_than_k_and_bad_shapes_are_refused():
    with pytest.raises(MicroaggError, match="fewer than k = 3"):
        check_labels([0, 0, 0, 1, 1], 5, k=3)
    with pytest.raises(MicroaggError, match="one entry per record"):
        check_labels([0, 1], 3)
    with pytest.raises(MicroaggError, match="integers"):
        check_labels([0.5, 1.0], 2)


def test_per_attribute_labels_pool_into_one_id_per_attribute_and_group():
    lab = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
    pooled = pooled_labels(lab)
    assert pooled.shape == (8,) and len(np.unique(pooled)) == 4
    assert np.array_equal(pooled_labels(lab[:, 0]), lab[:, 0])
