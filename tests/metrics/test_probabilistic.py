import numpy as np
import pytest
from scipy.stats import gaussian_kde, norm

import microagg as ma
from microagg import metrics
from microagg.metrics.probabilistic import LEVELS, kde_at


def test_mean_and_variance_terms_by_hand():
    X = np.array([0.0, 1, 5, 6])[:, None]  # mean 3, population variance 6.5, mu4 = 48.5
    shifted = metrics.pil_components(X, X + 1)
    assert shifted["mean"] == pytest.approx(100 * 2 * (norm.cdf(1 / np.sqrt(6.5 / 4)) - 0.5))
    assert shifted["var"] == 0
    assert set(shifted) == {"Q", "mean", "var", "PIL"}  # one attribute: no covariance, no correlation
    assert shifted["PIL"] == pytest.approx((shifted["Q"] + shifted["mean"] + shifted["var"]) / 3)
    stretched = metrics.pil_components(X, 1.1 * (X - 3) + 3)  # same mean, variance 1.21 * 6.5
    var_of_var = (3 ** 2 / 4 ** 3) * 48.5 - (3 * 1 / 4 ** 3) * 6.5 ** 2
    assert stretched["mean"] == 0
    assert stretched["var"] == pytest.approx(100 * 2 * (norm.cdf(0.21 * 6.5 / np.sqrt(var_of_var)) - 0.5))


def test_covariance_and_correlation_terms_by_hand():
    X = np.array([[1.0, 2], [3, 6], [5, 4]])
    Xp = np.array([[2.0, 2], [2, 6], [5, 4]])
    n = 3
    # original: covariance 4/3, variances 8/3 and 8/3, correlation 1/2; masked covariance 0
    d = X - X.mean(axis=0)
    mu22, mu20, mu02 = (d[:, 0] ** 2 * d[:, 1] ** 2).mean(), 8 / 3, 8 / 3
    var_cov = ((n - 1) ** 2 * mu22 + (n - 1) * mu20 * mu02 - (n - 1) * (n - 2) * (4 / 3) ** 2) / n ** 3
    parts = metrics.pil_components(X, Xp)
    assert parts["cov"] == pytest.approx(100 * 2 * (norm.cdf((4 / 3) / np.sqrt(var_cov)) - 0.5))
    assert parts["rho"] == pytest.approx(100 * 2 * (norm.cdf(0.5 / np.sqrt((1 - 0.25) ** 2 / n)) - 0.5))


def test_density_is_silverman_kde():
    x = np.random.default_rng(0).gamma(2.0, size=500)
    q25, q75 = np.quantile(x, [0.25, 0.75])
    h = 0.9 * min(x.std(), (q75 - q25) / 1.34) * 500 ** -0.2
    kde = gaussian_kde(x, bw_method=h / x.std(ddof=1))  # scipy scales its factor by the sample sd
    points = np.quantile(x, LEVELS)
    assert np.allclose(kde_at(x, points), kde(points), rtol=1e-10)


def test_pil_is_zero_when_nothing_is_masked_and_invariant_to_units(benchmark_z):
    Z = benchmark_z["tarragona"]
    assert metrics.pil(Z, Z.copy()) == 0
    Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 5))
    scale, shift = np.linspace(1, 1000, Z.shape[1]), np.linspace(-50, 50, Z.shape[1])
    assert metrics.pil(Z * scale + shift, Zp * scale + shift) == pytest.approx(metrics.pil(Z, Zp), rel=1e-9)


def test_renormalized_release_keeps_means_and_variances(benchmark_z):
    Z = benchmark_z["census"]
    parts = metrics.pil_components(Z, ma.renormalize(ma.aggregate.mean(Z, ma.partition.mdav(Z, 3))))
    assert parts["mean"] < 1e-6 and parts["var"] < 1e-6
    assert 0 < parts["cov"] < 100 and 0 < parts["rho"] < 100 and 0 < parts["Q"] < 100


def test_pil_grows_with_a_shift():
    X = np.random.default_rng(2).normal(size=(400, 3))
    values = [metrics.pil(X, X + c) for c in (0.0, 0.01, 0.05, 0.2)]
    assert values == sorted(values) and values[0] == 0 and values[-1] < 100
    scaled = metrics.pil_components(X, 2 * X)  # correlations unchanged
    assert scaled["rho"] < 1e-9 and scaled["var"] > 99


def test_constant_attributes():
    X = np.column_stack([np.arange(10.0), np.full(10, 3.0)])
    assert metrics.pil(X, X) == 0
    with pytest.raises(ma.MicroaggError, match="every original attribute is constant"):
        metrics.pil(np.ones((5, 2)), np.ones((5, 2)))
