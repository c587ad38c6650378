import numpy as np
import pytest
from scipy import optimize, stats

import microagg as ma
from microagg.metrics import analysis


@pytest.fixture
def noisy():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(60, 3))
    return Z, Z + rng.normal(scale=0.5, size=Z.shape)


def test_ks_on_two_tiny_samples_by_hand():
    # F jumps at 1, 2, 3; F' at 2, 3, 4: the largest gap is 1/3 (at x = 1, 2 and 3)
    assert analysis.ks_distance([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]).tolist() == pytest.approx([1 / 3])
    assert analysis.ks_distance([1.0, 2.0], [5.0, 6.0]).tolist() == [1.0]  # disjoint
    assert analysis.ks_distance([3.0, 1.0, 2.0], [2.0, 3.0, 1.0]).tolist() == [0.0]  # same values, other order


def test_ks_and_wasserstein_match_scipy(noisy):
    Z, Zp = noisy
    assert analysis.ks_distance(Z, Zp) == pytest.approx([stats.ks_2samp(Z[:, t], Zp[:, t]).statistic for t in range(3)])
    assert analysis.wasserstein(Z, Zp) == pytest.approx(
        [stats.wasserstein_distance(Z[:, t], Zp[:, t]) for t in range(3)])


def test_wasserstein_of_a_shift_is_the_shift():
    Z = np.random.default_rng(0).normal(size=(40, 2))
    assert analysis.wasserstein(Z, Z + [0.7, -2.0]) == pytest.approx([0.7, 2.0])
    assert analysis.wasserstein(Z, Z[::-1]).tolist() == [0.0, 0.0]  # a permutation keeps the distribution


def test_eigen_il_by_hand_and_zero_for_an_identical_release():
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0]])  # covariance diag(2/3, 8/3)
    assert analysis.eigen_il(Z, Z) == 0.0
    # halving every value quarters both eigenvalues: |8/3 - 2/3| / (8/3) + |2/3 - 1/6| / (2/3) = 3/4 + 3/4
    assert analysis.eigen_il(Z, Z / 2) == pytest.approx(1.5)


def test_ci_overlap_by_hand():
    # [0, 2] and [1, 5]: the common part [1, 2] covers 1/2 of the first and 1/4 of the second
    assert analysis.ci_overlap(0, 2, 1, 5) == pytest.approx(0.375)
    assert analysis.ci_overlap(0, 1, 2, 3) == 0.0  # disjoint
    assert analysis.ci_overlap([0, 0], [1, 0], [0, 0], [1, 0]).tolist() == [1.0, 1.0]  # identical, also of width 0


def test_regression_overlap_is_one_for_an_identical_release_and_matches_a_hand_fit(noisy):
    Z, Zp = noisy
    assert analysis.regression_overlap(Z, Z).tolist() == [1.0, 1.0, 1.0]
    # one predictor: the textbook expressions for the slope, the intercept and their standard errors
    x, y, xp, yp = Z[:, 0], Z[:, 1], Zp[:, 0], Zp[:, 1]

    def intervals(x, y):
        fit = stats.linregress(x, y)
        q = stats.t.ppf(0.975, len(x) - 2)
        b, h = np.array([fit.intercept, fit.slope]), q * np.array([fit.intercept_stderr, fit.stderr])
        return b - h, b + h

    (lo, hi), (lo_p, hi_p) = intervals(x, y), intervals(xp, yp)
    expected = analysis.ci_overlap(lo, hi, lo_p, hi_p).mean()
    assert analysis.regression_overlap(Z[:, :2], Zp[:, :2], responses=[1]).tolist() == pytest.approx([expected])


def test_regression_overlap_is_nan_when_the_release_makes_the_design_singular():
    Z = np.random.default_rng(1).normal(size=(30, 3))
    Zp = Z.copy()
    Zp[:, 0] = 0.0  # a constant predictor beside the intercept
    out = analysis.regression_overlap(Z, Zp)
    assert np.isnan(out[1]) and np.isnan(out[2]) and out[0] < 1


def test_pmse_is_zero_for_identical_data_and_a_quarter_for_separable_data():
    Z = np.random.default_rng(2).normal(size=(50, 2))
    value, ratio = analysis.pmse(Z, Z)
    assert value == pytest.approx(0.0, abs=1e-20) and ratio == pytest.approx(0.0, abs=1e-15)
    value, ratio = analysis.pmse(Z, Z + 100.0)
    assert value == pytest.approx(0.25, abs=1e-9)
    assert ratio == pytest.approx(0.25 / ((6 - 1) * 0.25 * 0.5 / 100), rel=1e-8)  # 1 + 2 + 3 parameters, N = 100


def test_propensity_scores_maximize_the_likelihood_by_brute_force(noisy):
    Z, Zp = noisy
    p, k = analysis.propensity_scores(Z[:, :2], Zp[:, :2])
    A = analysis._quadratic(np.vstack([Z[:, :2], Zp[:, :2]]))
    y = np.repeat([0.0, 1.0], len(Z))

    def nll(beta):
        eta = A @ beta
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    best = optimize.minimize(nll, np.zeros(k), method="BFGS", options={"gtol": 1e-10})
    eta = A @ best.x
    assert k == 6 and p == pytest.approx(1 / (1 + np.exp(-eta)), abs=1e-5)


def test_pmse_sees_microaggregation_shrink_the_variance():
    Z = np.random.default_rng(5).normal(size=(300, 2))
    fine = analysis.pmse(Z, ma.aggregate.mean(Z, ma.partition.mdav(Z, 3)))[0]
    coarse = analysis.pmse(Z, ma.aggregate.mean(Z, ma.partition.mdav(Z, 30)))[0]
    assert 0 < fine < coarse < 0.25


def test_evaluate_reports_the_analysis_metrics_per_attribute():
    df = ma.load_dataset("census").iloc[:200, :4]
    rel = ma.microaggregate(df, 3, shuffle=False, identifiers=[])
    table = ma.evaluate(df, rel.protected, rel.labels)
    rows = table.set_index(["metric", "attribute"])["value"]
    for name in ("KS", "Wasserstein", "regression CI overlap"):
        each = [rows[(name, c)] for c in df.columns]
        assert rows[(name, "all")] == pytest.approx(np.mean(each))
    assert 0 < rows[("regression CI overlap", "all")] <= 1 and 0 < rows[("pMSE", "all")] < 0.25
    assert rows[("eigen IL", "all")] > 0


def test_pmse_ratio_of_two_samples_of_one_distribution_is_about_two_not_the_published_one():
    # Snoke et al. 2018 divide by (k - 1)(1 - c)^2 c / N and read 1 as "indistinguishable"; the delta method gives
    # E[pMSE] = (k - 1) c (1 - c) / N, larger by 1 / (1 - c) = 2 here, and so does this simulation
    # (docs/metrics.md §4.23)
    rng = np.random.default_rng(11)
    ratios = [analysis.pmse(rng.normal(size=(400, 2)), rng.normal(size=(400, 2)))[1] for _ in range(40)]
    assert np.mean(ratios) == pytest.approx(2.0, abs=0.4) and np.mean(ratios) > 1.4


def test_eigen_il_of_noise_with_a_fraction_of_the_variance_is_about_d_times_that_fraction():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(20_000, 3))  # independent attributes: noise scales every eigenvalue by 1 + a
    assert analysis.eigen_il(X, ma.baselines.noise_addition(X, 0.3, seed=1)) == pytest.approx(0.9, rel=0.05)


def test_pmse_of_identical_records_has_no_ratio():
    value, ratio = analysis.pmse(np.ones((10, 2)), np.ones((10, 2)))
    assert value == 0.0 and np.isnan(ratio)
