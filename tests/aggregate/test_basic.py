import numpy as np
import pytest

import microagg as ma


def test_mean_replaces_each_record_by_its_group_centroid():
    Z = np.array([[0.0, 1], [2, 3], [4, 5], [10, 10], [12, 14], [14, 18]])
    labels = np.array([0, 0, 0, 1, 1, 1])
    out = ma.aggregate.mean(Z, labels)
    assert np.allclose(out[:3], [2, 3]) and np.allclose(out[3:], [12, 14])


def test_median_kabir_worked_example():
    # Kabir & Wang, §4: groups {45, 42, 51, 46}, {2, 5, 6, 11}, {31, 22, 26, 25} -> medians 45.5, 5.5, 25.5
    x = np.array([45, 42, 51, 46, 2, 5, 6, 11, 31, 22, 26, 25], dtype=float)[:, None]
    labels = np.repeat([0, 1, 2], 4)
    med = ma.aggregate.median(x, labels)[:, 0]
    assert np.array_equal(np.unique(med), [5.5, 25.5, 45.5])
    assert np.count_nonzero(x[:, 0] - med) == 12  # "n = 12, no tie"


def test_median_odd_groups_take_the_middle_value():
    x = np.array([[5.0], [1.0], [3.0], [100.0], [7.0], [6.0]])
    med = ma.aggregate.median(x, [0, 0, 0, 1, 1, 1])[:, 0]
    assert np.array_equal(med, [3, 3, 3, 7, 7, 7])


def test_median_is_honoured_after_mdav(benchmark_z):
    Z = benchmark_z["census"]
    labels = ma.partition.mdav(Z, 5)
    mean, med = ma.aggregate.mean(Z, labels), ma.aggregate.median(Z, labels)
    assert not np.allclose(mean, med)
    # every released median is one of its group's values (groups of 5: odd)
    for g in range(3):
        rows = labels == g
        for t in range(Z.shape[1]):
            assert med[rows][0, t] in Z[rows, t]


def test_per_attribute_labels():
    Z = np.array([[1.0, 10], [2, 20], [3, 30], [4, 40]])
    lab = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    out = ma.aggregate.mean(Z, lab)
    assert np.allclose(out[:, 0], [1.5, 1.5, 3.5, 3.5]) and np.allclose(out[:, 1], [20, 30, 20, 30])


def test_inputs_are_not_modified_and_labels_may_be_any_integers():
    Z = np.random.default_rng(1).normal(size=(9, 2))
    before = Z.copy()
    out = ma.aggregate.median(Z, [7, 7, 7, -2, -2, -2, 40, 40, 40])
    assert np.array_equal(Z, before) and out.shape == Z.shape


@pytest.mark.parametrize("labels,fragment", [([0, 1], "one entry per record"), ([0.5, 1, 1, 1], "integers")])
def test_bad_labels(labels, fragment):
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.aggregate.mean(np.zeros((4, 1)), labels)


def test_the_kernels_are_called_on_checked_input():
    from microagg.base.registry import get_method

    for name, kernel in (("mean", ma.aggregate.mean.__wrapped__), ("median", ma.aggregate.median.__wrapped__)):
        method = get_method("aggregate", name)
        assert method.func is getattr(ma.aggregate, name) and method.kernel is kernel
        Z = np.arange(8.0).reshape(4, 2)
        assert np.array_equal(kernel(Z, np.array([0, 0, 1, 1])), method.func(Z, [5, 5, 9, 9]))
        with pytest.raises(ma.MicroaggError, match="2-D"):
            method.func(np.arange(4.0), [0, 0, 1, 1])
        with pytest.raises(ma.MicroaggError, match="non-finite"):
            method.func([[0.0, np.inf], [1.0, 2.0]], [0, 0])
