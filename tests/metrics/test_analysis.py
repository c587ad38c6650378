import numpy as np
import pytest
from scipy import stats

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


def overlap_by_least_squares(Z, Zp, r, level=0.95):
    """CI overlap of the regression of column r on the others, each fit by least squares on its own design."""
    bounds = []
    for M in (Z, Zp):
        A = np.column_stack([np.ones(len(M)), np.delete(M, r, axis=1)])
        beta, rss = np.linalg.lstsq(A, M[:, r], rcond=None)[:2]
        dof = len(M) - A.shape[1]
        half = stats.t.ppf(0.5 + level / 2, dof) * np.sqrt(rss[0] / dof * np.diag(np.linalg.inv(A.T @ A)))
        bounds += [beta - half, beta + half]
    return analysis.ci_overlap(*bounds).mean()


def test_every_regression_from_one_inverse_equals_its_own_least_squares_fit():
    rng = np.random.default_rng(9)
    Z = rng.normal(size=(80, 6)) @ rng.normal(size=(6, 6))
    Zp = Z + rng.normal(scale=0.4, size=Z.shape)
    expected = [overlap_by_least_squares(Z, Zp, r) for r in range(6)]
    assert analysis.regression_overlap(Z, Zp).tolist() == pytest.approx(expected, rel=1e-9)


def test_collinear_attributes_are_fitted_one_by_one_and_not_at_all_when_too_wide():
    rng = np.random.default_rng(10)
    Z = rng.normal(size=(60, 4))
    Z[:, 3] = Z[:, 0] + Z[:, 1]  # an exact linear relation: only its three members can be regressed on the rest
    out = analysis.regression_overlap(Z, Z + rng.normal(scale=0.1, size=Z.shape) * [1, 1, 1, 0])
    assert np.isnan(out[2]) and np.isfinite(out[[0, 1, 3]]).all()
    wide = rng.normal(size=(150, analysis.SEPARATE_MAX + 1))
    wide[:, -1] = wide[:, 0] - wide[:, 1]
    with pytest.raises(ma.MicroaggError, match="exactly collinear"):
        analysis.regression_overlap(wide, wide)
    table = ma.evaluate(wide, wide, metrics=["regression CI overlap"])
    assert len(table) == 1 and np.isnan(table["value"].iloc[0])
    assert table["source"].iloc[0].startswith("not computed: the attributes are exactly collinear")


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


def test_eigen_il_of_noise_with_a_fraction_of_the_variance_is_about_d_times_that_fraction():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(20_000, 3))  # independent attributes: noise scales every eigenvalue by 1 + a
    assert analysis.eigen_il(X, ma.baselines.noise_addition(X, 0.3, seed=1)) == pytest.approx(0.9, rel=0.05)
