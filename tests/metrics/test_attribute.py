import numpy as np
import pytest

import microagg as ma
from microagg.metrics.attribute import (
    attribute_disclosure,
    distinct_l_by_class,
    entropy_l_by_class,
    equivalence_classes,
    t_closeness_by_class,
)


def brute_emd(values, classes):
    """Li, Li & Venkatasubramanian 2007, ordered distance: (1/(m-1)) sum_i |sum_{j<=i} (p_j - q_j)|, dense."""
    u = np.unique(values)
    q = np.array([(values == x).mean() for x in u])
    out = []
    for c in range(classes.max() + 1):
        v = values[classes == c]
        p = np.array([(v == x).mean() for x in u])
        out.append(np.abs(np.cumsum(p - q)).sum() / (len(u) - 1) if len(u) > 1 else 0.0)
    return np.array(out)


def test_hand_computed_example():
    # class 0: {1, 1, 2}, class 1: {3, 4, 5}; table {1,1,2,3,4,5}: m = 5 values, q = (2,1,1,1,1)/6
    values = np.array([1.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    classes = np.array([0, 0, 0, 1, 1, 1])
    assert distinct_l_by_class(values, classes).tolist() == [2, 3]
    np.testing.assert_allclose(entropy_l_by_class(values, classes), [np.exp(-(2 / 3) * np.log(2 / 3) - (1 / 3) *
                                                                            np.log(1 / 3)), 3.0])
    # class 0: p - q = (2/3-1/3, 1/3-1/6, -1/6, -1/6, -1/6): cumulative 1/3, 1/2, 1/3, 1/6, 0 -> 4/3 / 4 = 1/3
    np.testing.assert_allclose(t_closeness_by_class(values, classes), [1 / 3, 1 / 3])


@pytest.mark.parametrize("seed", range(6))
def test_t_closeness_matches_the_dense_definition(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    values = rng.integers(-4, 5, n).astype(float) * (1.5 if seed % 2 else 1)  # ties and negative values
    classes = np.unique(rng.integers(0, max(1, n // 4), n), return_inverse=True)[1]
    np.testing.assert_allclose(t_closeness_by_class(values, classes), brute_emd(values, classes), atol=1e-12)
    brute_l = [len(np.unique(values[classes == c])) for c in range(classes.max() + 1)]
    assert distinct_l_by_class(values, classes).tolist() == brute_l


def test_emd_depends_on_the_order_not_the_units():
    rng = np.random.default_rng(1)
    values, classes = rng.normal(size=40), np.repeat(np.arange(10), 4)
    np.testing.assert_allclose(t_closeness_by_class(values, classes), t_closeness_by_class(np.exp(values), classes))
    assert t_closeness_by_class(np.ones(8), np.repeat([0, 1], 4)).tolist() == [0.0, 0.0]


def test_classes_are_rows_equal_on_released_and_key_columns():
    released = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    assert equivalence_classes(released).tolist() == [0, 0, 1, 0]
    assert equivalence_classes(released, key_classes=[0, 1, 0, 1]).tolist() == [0, 1, 2, 1]
    out = attribute_disclosure(np.array([5.0, 6.0, 7.0, 5.0]), released)
    assert out["l-diversity"].tolist() == [1]  # the class {7.0} of one record
    with pytest.raises(ma.MicroaggError, match="class ids"):
        distinct_l_by_class([1.0, 2.0], [0, 2])


def test_release_report_uses_its_confidential_columns():
    df = ma.load_dataset("tarragona")
    conf = list(df.columns[:2])
    rel = ma.microaggregate(df, 3, confidential=conf, shuffle=False)
    table = rel.report()
    rows = table[table["metric"] == "t-closeness"]
    assert list(rows["attribute"]) == ["all", *conf]
    classes = equivalence_classes(rel.in_input_order()[rel.masked].to_numpy(float))
    expected = [t_closeness_by_class(df[c].to_numpy(float), classes).max() for c in conf]
    np.testing.assert_allclose(rows["value"].iloc[1:].astype(float), expected)
    assert rows["value"].iloc[0] == pytest.approx(max(expected))
    assert table.loc[table["metric"] == "l-diversity", "value"].iloc[0] >= 1
