import warnings

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.metrics import information_loss, partition_information_loss


def test_individual_ranking_groups_each_attribute_in_sorted_blocks():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((23, 3))
    labels = ma.partition.individual_ranking(Z, 5)
    assert labels.shape == (23, 3)
    for t in range(3):
        order = np.argsort(Z[:, t], kind="stable")
        assert list(labels[order, t]) == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 8  # last block absorbs 23 mod 5
    Zp = ma.aggregate.mean(Z, labels)
    for t in range(3):
        for g in range(4):
            rows = labels[:, t] == g
            assert np.allclose(Zp[rows, t], Z[rows, t].mean())


def test_individual_ranking_optimal_grouping_lowers_sse(benchmark_z):
    Z = benchmark_z["census"]
    fixed = ma.partition.individual_ranking(Z, 5)
    best = ma.partition.individual_ranking(Z, 5, grouping="optimal")
    for t in range(Z.shape[1]):
        sizes = np.bincount(best[:, t])
        assert sizes.min() >= 5 and sizes.max() <= 9
    il_fixed = information_loss(Z, ma.aggregate.mean(Z, fixed))
    il_best = information_loss(Z, ma.aggregate.mean(Z, best))
    assert il_best <= il_fixed
    assert il_best < partition_information_loss(Z, ma.partition.mdav(Z, 5))  # univariate is much cheaper in IL


def test_individual_ranking_release_says_it_is_not_k_anonymous(benchmark_z):
    df = ma.load_dataset("census")
    with pytest.warns(UserWarning, match="NOT 5-anonymous as whole records"):
        rel = ma.microaggregate(df, 5, method="individual_ranking")
    rep = rel.report().set_index("metric")["value"]
    assert rep["k-anonymous"] == False  # noqa: E712
    assert rep["records in classes < k"] > 0
    assert rep["record-level k-anonymity"].startswith("NOT guaranteed")
    assert rep["smallest group"] >= 5 and rep["groups"] == 13 * (1080 // 5)
    for col in df.columns:  # but every column is k-anonymous on its own
        assert pd.Series(rel.protected[col]).value_counts().min() >= 5, col


def test_projection_axes():
    rng = np.random.default_rng(1)
    base = rng.standard_normal(60)
    Z = np.column_stack([base, 2 * base + 0.01 * rng.standard_normal(60), -base])
    Z = (Z - Z.mean(0)) / Z.std(0)
    for axis in ("pca", "zsum", "column"):
        labels = ma.partition.projection(Z, 4, axis=axis)
        assert labels.shape == (60,) and np.bincount(labels).min() >= 4
    W = np.column_stack([base, rng.standard_normal(60), -3 * base + rng.standard_normal(60)])
    W = (W - W.mean(0)) / W.std(0)
    u = np.linalg.solve(W[:3], ma.partition.projection_scores(W, "pca")[:3])
    assert np.linalg.norm(u) == pytest.approx(1.0) and u[0] > 0  # sign rule (decision 10)
    v = np.linalg.eigh(np.cov(W.T, bias=True))[1][:, -1]
    assert np.allclose(u, v) or np.allclose(u, -v)  # the first principal axis
    assert ma.partition.projection_scores(-W, "pca") == pytest.approx(-ma.partition.projection_scores(W, "pca"))
    assert np.allclose(ma.partition.projection_scores(Z, "zsum"), Z.sum(1))
    by_column = ma.partition.projection(Z, 4, axis="column", column=2)
    assert list(by_column[np.argsort(Z[:, 2], kind="stable")]) == sorted(by_column)


def test_pca_axis_has_its_first_loading_positive_as_r_princomp():
    """Decision 10: the axis's first component is positive (R's princomp, hence sdcMicro's pca), even where its
    largest component is negative; with n mod k != 0 the sign decides which end takes the larger last group."""
    rng = np.random.default_rng(3)
    base = rng.standard_normal(31)
    Z = np.column_stack([-0.3 * base + rng.standard_normal(31), base + 0.1 * rng.standard_normal(31),
                         -base + 0.6 * rng.standard_normal(31)])
    Z = (Z - Z.mean(0)) / Z.std(0)
    u = ma.partition.univariate.principal_axis(Z)
    assert u[0] > 0 and u[1] < 0 and abs(u[1]) == np.abs(u).max()
    labels = ma.partition.projection(Z, 4)
    order = np.argsort(Z @ u, kind="stable")  # ascending scores on the R-signed axis
    assert list(labels[order]) == [g for g in range(7) for _ in range(4 if g < 6 else 7)]
    assert np.bincount(labels[order[-7:]]).max() == 7  # the 7 highest scores form the last group
    flat = np.column_stack([np.zeros(31), Z[:, 1:]])  # first loading exactly 0: the next one decides
    v = ma.partition.univariate.principal_axis(flat)
    assert v[0] == 0 and v[np.flatnonzero(v)[0]] > 0


def test_pca_axis_follows_the_dominant_correlation(benchmark_z):
    Z = benchmark_z["eia"]
    scores = ma.partition.projection_scores(Z, "pca")
    assert scores.var() == pytest.approx(np.linalg.eigvalsh(np.cov(Z.T, bias=True))[-1])


def test_projection_optimal_grouping_never_loses(benchmark_z):
    for name in ("tarragona", "census", "eia"):
        Z = benchmark_z[name]
        for axis in ("pca", "zsum"):
            fixed = ma.partition.projection(Z, 3, axis=axis)
            best = ma.partition.projection(Z, 3, axis=axis, grouping="optimal")
            s = ma.partition.projection_scores(Z, axis)
            sse = lambda lab: sum(((s[lab == g] - s[lab == g].mean()) ** 2).sum() for g in np.unique(lab))  # noqa
            assert sse(best) <= sse(fixed) + 1e-9


def test_projection_release_is_k_anonymous():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rel = ma.microaggregate(ma.load_dataset("tarragona"), 3, method="projection", axis="zsum")
    assert rel.anonymity["k_anonymous"]


def test_bad_parameters():
    Z = np.zeros((10, 2))
    with pytest.raises(ma.MicroaggError, match="'column'.*below 2"):
        ma.partition.projection(Z, 2, axis="column", column=2)
    with pytest.raises(ma.MicroaggError, match="'axis'.*one of"):
        ma.partition.projection(Z, 2, axis="ica")
    with pytest.raises(ma.MicroaggError, match="'grouping'.*one of"):
        ma.partition.individual_ranking(Z, 2, grouping="best")
    with pytest.raises(ma.MicroaggError, match="'column'.*>= 0|'column'.*\\[0"):
        ma.partition.projection(Z, 2, axis="column", column=-1)
