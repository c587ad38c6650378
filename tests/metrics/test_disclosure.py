import itertools

import numpy as np
import pytest

import microagg as ma
from microagg.metrics.disclosure import dld_one_to_one, one_to_one_credit, rid, robust_scale
from microagg.metrics.report import evaluate_arrays
from microagg.metrics.risk import sdid


def brute_one_to_one(Z, Zp):
    """Every permutation; the total Euclidean distance of the best one(s), with the credit averaged over them."""
    n = len(Z)
    D = np.sqrt(((Z[:, None, :] - Zp[None, :, :]) ** 2).sum(axis=2))
    costs = {perm: D[np.arange(n), list(perm)].sum() for perm in itertools.permutations(range(n))}
    best = min(costs.values())
    optimal = [perm for perm, c in costs.items() if c <= best + 1e-12]
    return np.mean([np.mean(np.array(perm) == np.arange(n)) for perm in optimal])


@pytest.mark.parametrize("seed", range(5))
def test_one_to_one_matches_brute_force_on_distinct_rows(seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(6, 2))
    Zp = Z + rng.normal(scale=0.8, size=Z.shape)  # distinct masked rows: a unique optimum almost surely
    assert dld_one_to_one(Z, Zp) == pytest.approx(100 * brute_one_to_one(Z, Zp))


def test_equal_masked_rows_score_their_expected_share():
    Z = np.array([[0.0], [0.2], [0.4], [5.0], [5.2], [5.4]])
    Zp = np.array([[0.2]] * 3 + [[5.2]] * 3)  # two groups of three: every record matched within its group
    np.testing.assert_allclose(one_to_one_credit(Z, Zp), np.full(6, 1 / 3))
    # nearest-record linkage sends both outer records of a crossing pair to one masked row; one-to-one cannot
    Z2, Zp2 = np.array([[0.0], [1.0]]), np.array([[0.4], [10.0]])
    assert ma.metrics.dld(Z2, Zp2, rule="lowest_index") == 50.0 and dld_one_to_one(Z2, Zp2) == 100.0


def test_size_limit_gives_a_row_not_a_hang():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    with pytest.raises(ma.MicroaggError, match="above the limit of 30"):
        one_to_one_credit(X, X, max_records=30)
    table = evaluate_arrays(X, X, X, X, ["a", "b"], one_to_one_max=30)
    row = table.loc[table["metric"] == "DLD one-to-one"].iloc[0]
    assert np.isnan(row["value"]) and row["source"].startswith("not computed: 40 records, above one_to_one_max = 30")
    assert table["value"].map(type).eq(float).all()  # a numeric column: the reason is in the source
    table = evaluate_arrays(X, X, X, X, ["a", "b"], one_to_one_max=40)
    assert table.loc[table["metric"] == "DLD one-to-one", "value"].iloc[0] == 100.0


def test_rid_is_sdid_with_a_robust_scale():
    rng = np.random.default_rng(3)
    Z = np.vstack([rng.normal(size=(50, 2)), [[40.0, -40.0]]])  # one outlier inflates the sd
    Zp = Z + rng.normal(scale=0.05, size=Z.shape)
    mad = 1.4826 * np.median(np.abs(Z - np.median(Z, axis=0)), axis=0)
    np.testing.assert_allclose(robust_scale(Z), mad)
    assert mad.max() < Z.std(axis=0).min()
    assert rid(Z, Zp, p=5) < sdid(Z, Zp, p=5)  # narrower intervals than the outlier-inflated sd gives
    assert rid(Z, Z, p=5) == 100.0
    flat = np.array([[0.0], [0.0], [0.0], [1.0]])  # MAD 0: the sd instead
    np.testing.assert_allclose(robust_scale(flat), flat.std(axis=0))
