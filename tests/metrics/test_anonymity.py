import numpy as np

from microagg import metrics


def test_group_stats():
    stats = metrics.group_stats([0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2], k=3)
    assert stats == {"groups": 3, "min_size": 3, "max_size": 5, "mean_size": 11 / 3, "oversized": 0}
    assert metrics.group_stats([0] * 6 + [1] * 3, k=3)["oversized"] == 1


def test_k_anonymity_counts_equivalence_classes_exactly():
    V = np.array([[1.0, 2], [1, 2], [1, 2], [3, 4], [3, 4], [3, 4.000001]])
    out = metrics.k_anonymity(V, 2)
    assert out["classes"] == 3 and out["min_class"] == 1 and not out["k_anonymous"]
    assert out["records_in_small_classes"] == 1
    assert metrics.k_anonymity(V[:5], 2)["k_anonymous"]
