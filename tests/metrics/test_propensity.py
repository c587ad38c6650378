import numpy as np
import pytest
from scipy import optimize

import microagg as ma
from microagg.metrics import propensity
from microagg.metrics.report import evaluate_arrays


@pytest.fixture
def noisy():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(60, 3))
    return Z, Z + rng.normal(scale=0.5, size=Z.shape)


def fitted_by_bfgs(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The scores of the logistic regression of y on the columns of A, by a general-purpose optimizer."""
    def nll(beta):
        eta = A @ beta
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    best = optimize.minimize(nll, np.zeros(A.shape[1]), method="BFGS", options={"gtol": 1e-10})
    return 1 / (1 + np.exp(-(A @ best.x)))


def test_pmse_is_zero_for_identical_data_and_a_quarter_for_separable_data():
    Z = np.random.default_rng(2).normal(size=(50, 2))
    value, ratio = propensity.pmse(Z, Z)
    assert value == pytest.approx(0.0, abs=1e-20) and ratio == pytest.approx(0.0, abs=1e-15)
    value, ratio = propensity.pmse(Z, Z + 100.0)
    assert value == pytest.approx(0.25, abs=1e-9)
    assert ratio == pytest.approx(0.25 / ((6 - 1) * 0.25 * 0.5 / 100), rel=1e-8)  # 1 + 2 + 3 parameters, N = 100


def test_propensity_scores_maximize_the_likelihood_by_brute_force(noisy):
    Z, Zp = noisy
    p, k = propensity.propensity_scores(Z[:, :2], Zp[:, :2])
    y = np.repeat([0.0, 1.0], len(Z))
    assert k == 6 and p == pytest.approx(fitted_by_bfgs(propensity._quadratic(np.vstack([Z[:, :2], Zp[:, :2]])), y),
                                         abs=1e-5)


def test_a_model_over_budget_is_quadratic_in_the_leading_principal_components():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(40, 4)) @ rng.normal(size=(4, 4))
    Zp = Z + rng.normal(scale=0.7, size=Z.shape)
    model = propensity.propensity_model(80, 4)  # all four attributes: 15 terms, above N/10 = 8
    assert (model.m, model.terms) == (2, 6)
    M = np.vstack([Z, Zp])
    _, _, Vt = np.linalg.svd(M - M.mean(axis=0))  # the principal axes, largest variance first
    A = propensity._quadratic((M - M.mean(axis=0)) @ Vt[:2].T)
    p, k = propensity.propensity_scores(Z, Zp)
    assert k == 6 and p == pytest.approx(fitted_by_bfgs(A, np.repeat([0.0, 1.0], 40)), abs=1e-5)


def test_the_budget_keeps_the_full_model_on_the_benchmark_files_and_bounds_wide_ones():
    assert propensity.propensity_model(2 * 834, 13).m == 13  # Tarragona: 105 terms, N/10 = 166
    assert propensity.propensity_model(2 * 10**5, 10).m == 10  # 66 terms, √(4·10⁹/N) = 141
    wide = propensity.propensity_model(1000, 200)
    assert (wide.m, wide.terms) == (12, 91) and "first 12 of 200 principal components" in wide.describe()
    for N in (100, 10**4, 10**6, 10**8):
        model = propensity.propensity_model(N, 500)
        assert model.terms <= min(400, N / 10) and N * model.terms ** 2 <= 4e9


def test_terms_formed_in_chunks_give_the_scores_of_one_chunk(monkeypatch):
    rng = np.random.default_rng(6)
    Z = rng.normal(size=(300, 3))
    Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 3))
    whole = propensity.propensity_scores(Z, Zp)
    monkeypatch.setattr(propensity, "CHUNK", 10 * 37)  # 37 rows of 10 terms per chunk: 17 chunks
    chunked = propensity.propensity_scores(Z, Zp)
    assert chunked[1] == whole[1] and chunked[0] == pytest.approx(whole[0], abs=1e-12)


def test_pmse_sees_microaggregation_shrink_the_variance():
    Z = np.random.default_rng(5).normal(size=(300, 2))
    fine = propensity.pmse(Z, ma.aggregate.mean(Z, ma.partition.mdav(Z, 3)))[0]
    coarse = propensity.pmse(Z, ma.aggregate.mean(Z, ma.partition.mdav(Z, 30)))[0]
    assert 0 < fine < coarse < 0.25


def test_a_wide_file_is_told_apart_by_its_masking_not_by_an_overfitted_model():
    # 100 records of 60 attributes: the quadratic in all of them has 1891 terms for 200 stacked records and
    # separates any two files (pMSE 0.25); the bounded model ranks the releases by how much they change
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(100, 60))
    close, far = (Z + rng.normal(scale=s, size=Z.shape) for s in (0.05, 1.0))
    assert propensity.pmse(Z, close)[0] < 0.01 < propensity.pmse(Z, far)[0] < 0.2


def test_the_report_names_the_model_and_refuses_too_few_records():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(500, 20))
    Xp = ma.aggregate.mean(X, ma.partition.mdav(X, 3))
    table = evaluate_arrays(X, Xp, X, Xp, [f"x{t}" for t in range(20)], metrics=["pMSE", "pMSE ratio"])
    assert table["source"].str.endswith("quadratic in the first 12 of 20 principal components (91 terms; all 20 "
                                        "attributes would need 231, above min(400, N/10, √(4·10⁹/N)) = 100 at "
                                        "N = 1,000 stacked records)").all()
    assert table["value"].tolist() == pytest.approx(list(propensity.pmse(X, Xp)))
    tiny = evaluate_arrays(X[:10, :2], Xp[:10, :2], X[:10, :2], Xp[:10, :2], ["a", "b"], metrics=["pMSE"])
    assert np.isnan(tiny["value"].iloc[0]) and tiny["source"].iloc[0].startswith("not computed: 20 stacked records")
    with pytest.raises(ma.MicroaggError, match="at least 30 stacked records"):
        propensity.pmse(X[:10, :2], Xp[:10, :2])


def test_pmse_ratio_of_two_samples_of_one_distribution_is_about_two_not_the_published_one():
    # Snoke et al. 2018 divide by (k - 1)(1 - c)^2 c / N and read 1 as "indistinguishable"; the delta method gives
    # E[pMSE] = (k - 1) c (1 - c) / N, larger by 1 / (1 - c) = 2 here, and so does this simulation
    # (docs/metrics.md §4.23)
    rng = np.random.default_rng(11)
    ratios = [propensity.pmse(rng.normal(size=(400, 2)), rng.normal(size=(400, 2)))[1] for _ in range(40)]
    assert np.mean(ratios) == pytest.approx(2.0, abs=0.4) and np.mean(ratios) > 1.4


def test_pmse_of_identical_records_has_no_ratio():
    value, ratio = propensity.pmse(np.ones((20, 2)), np.ones((20, 2)))
    assert value == 0.0 and np.isnan(ratio)
