"""The Laplace mechanism on insensitive partitions (docs/methods.md §7.3): its noise scale, its sensitivity checked
by brute force, its seeds, its refusals and what its release and report say."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import microagg as ma
from microagg.aggregate.dp import laplace, laplace_with_report, sensitivity
from microagg.partition.insensitive import insensitive_mdav

BOX = np.array([[0.0, 10.0], [-5.0, 5.0]])


def data(n=20, seed=0):
    return np.random.default_rng(seed).uniform(BOX[:, 0], BOX[:, 1], size=(n, 2))


def individual(X, k):
    return ma.partition.individual_ranking(X, k)  # fixed groups


def centroids(X, labels):
    """The noiseless group means of every attribute, in group order (a list over attributes)."""
    lab = labels if labels.ndim == 2 else np.column_stack([labels] * X.shape[1])
    return [np.bincount(lab[:, t], weights=X[:, t]) / np.bincount(lab[:, t]) for t in range(X.shape[1])]


@pytest.mark.parametrize("partition", ["insensitive", "individual"])
def test_the_stated_sensitivity_bounds_every_change_of_one_record(partition):
    """Brute force: every record replaced by corners and random points of the box; the L1 change of the centroids of
    each attribute over all groups never exceeds S_j; for individual ranking it comes within 40 % of S_j (the bound
    is not loose)."""
    X, k = data(14, 1), 3

    def part(Y):
        return insensitive_mdav(Y, k, bounds=BOX) if partition == "insensitive" else individual(Y, k)

    S = sensitivity(X, part(X), BOX)
    corners = np.array([[BOX[0, a], BOX[1, b]] for a in (0, 1) for b in (0, 1)])
    points = np.vstack([corners, np.random.default_rng(5).uniform(BOX[:, 0], BOX[:, 1], size=(8, 2))])
    before = centroids(X, part(X))
    worst = np.zeros(2)
    for i in range(len(X)):
        for p in points:
            Y = X.copy()
            Y[i] = p
            after = centroids(Y, part(Y))
            change = np.array([np.abs(a - b).sum() for a, b in zip(after, before)])
            assert (change <= S + 1e-12).all(), (i, p, change, S)
            worst = np.maximum(worst, change)
    assert (worst >= 0.6 * S).all() if partition == "individual" else (worst > 0).all()


def test_sensitivity_of_each_partition_kind():
    X = data(23)
    assert np.allclose(sensitivity(X, individual(X, 5), BOX), [10 / 5, 10 / 5])
    sizes = np.array([5, 5, 5, 8])
    assert np.allclose(sensitivity(X, insensitive_mdav(X, 5, bounds=BOX), BOX), [10 * (1 / sizes).sum()] * 2)


def test_the_noise_has_the_stated_laplace_scale():
    """released − centroid over 2000 seeds is Laplace(b) by a KS test, and not Laplace(1.5 b): the test can fail."""
    X, k, eps = data(12), 4, 0.7
    labels = insensitive_mdav(X, k, bounds=BOX)
    b = sensitivity(X, labels, BOX) * 2 / eps
    rows = laplace_with_report(X, labels, epsilon=eps, bounds=BOX, noise_seed=0, clip=False)[1]
    stated = [r["value"] for r in rows if r["metric"] == "DP Laplace scale b_j"]
    assert np.allclose(stated, b)
    first = np.flatnonzero(labels == 0)[0]
    mean = X[labels == 0, 0].mean()
    noise = np.array([laplace(X, labels, eps, BOX, seed)[first, 0] - mean for seed in range(2000)])
    assert stats.kstest(noise, "laplace", args=(0, b[0])).pvalue > 1e-3
    assert stats.kstest(noise, "laplace", args=(0, 1.5 * b[0])).pvalue < 1e-3


def test_the_same_seed_gives_the_same_release_and_another_seed_another():
    X = data(30)
    labels = insensitive_mdav(X, 3, bounds=BOX)
    a, b, c = (laplace(X, labels, 1.0, BOX, s) for s in (3, 3, 4))
    assert np.array_equal(a, b) and not np.isclose(a, c).any()
    for g in range(labels.max() + 1):  # one noisy vector per group
        assert (a[labels == g] == a[labels == g][0]).all()


def test_refusals():
    X = data(20)
    labels = insensitive_mdav(X, 4, bounds=BOX)
    with pytest.raises(ma.MicroaggError, match="not read off the data"):
        laplace(X, labels)
    with pytest.raises(ma.MicroaggError, match="epsilon"):
        laplace(X, labels, epsilon=0.0, bounds=BOX)
    with pytest.raises(ma.MicroaggError, match="epsilon"):
        laplace(X, labels, epsilon=-1.0, bounds=BOX)
    with pytest.raises(ma.MicroaggError, match="epsilon"):
        laplace(X, labels, epsilon=np.inf, bounds=BOX)
    narrow = BOX.copy()
    narrow[0, 1] = 5.0
    with pytest.raises(ma.MicroaggError, match="outside the bounds .*clip=True"):
        laplace(X, insensitive_mdav(X, 4, bounds=narrow), bounds=narrow, noise_seed=0)
    clipped = laplace(X, insensitive_mdav(X, 4, bounds=narrow), bounds=narrow, noise_seed=0, clip=True, epsilon=1e9)
    assert clipped[:, 0].max() <= 5.0 + 1e-6  # means of clipped values, with negligible noise
    with pytest.raises(ma.MicroaggError, match="insensitive partition"):
        laplace(X, ma.partition.mdav(X, 4), bounds=BOX)
    with pytest.raises(ma.MicroaggError, match="insensitive partition"):  # the bounds differ from the partition's
        laplace(X, insensitive_mdav(X, 4), bounds=BOX * 2)
    optimal = ma.partition.individual_ranking(data(29, 3), 4, grouping="optimal")
    assert not np.array_equal(optimal, individual(data(29, 3), 4))
    with pytest.raises(ma.MicroaggError, match="grouping='fixed'"):
        laplace(data(29, 3), optimal, bounds=BOX)


@pytest.fixture(scope="module")
def census():
    df = ma.load_dataset("census").iloc[:200]  # small: the report computes every metric
    X = df.to_numpy(dtype=float)
    return df, np.column_stack([np.zeros(X.shape[1]), np.full(X.shape[1], 1e6)])


def test_the_release_states_epsilon_bounds_sensitivity_and_scale_and_still_groups(census):
    df, B = census
    rel = ma.microaggregate(df, 20, method="insensitive_mdav", aggregation="laplace", bounds=B, epsilon=2.0,
                            noise_seed=9)
    rep = rel.report()
    row = rep.set_index(["metric", "attribute"])["value"]
    assert row["differential privacy ε", "all"] == 2.0 and "ε/d" in row["DP accounting", "all"]
    assert row["DP bounds", "AGI"] == "[0, 1e+06]" and row["DP noise seed (keep private)", "all"] == "9"
    S = 1e6 * (1 / np.bincount(rel.labels)).sum()
    assert np.isclose(row["DP sensitivity S_j (L1, all groups)", "AGI"], S)
    assert np.isclose(row["DP Laplace scale b_j", "AGI"], S * 13 / 2.0)
    assert rel.params["epsilon"] == 2.0 and rel.params["noise_seed"] == 9  # the recipe reproduces it
    # the file as published: every row shared by >= k records, the report's claim true of it
    sizes = rel.protected.groupby(list(rel.protected.columns)).size()
    assert sizes.min() >= 20 and rel.anonymity["k_anonymous"] and row["k-anonymous", "all"]
    again = ma.microaggregate(df, 20, method="insensitive_mdav", aggregation="laplace", bounds=B, epsilon=2.0,
                              noise_seed=9, seed=rel.params["shuffle_seed"])
    pd.testing.assert_frame_equal(again.protected, rel.protected)
    fresh = ma.microaggregate(df, 20, method="insensitive_mdav", aggregation="laplace", bounds=B)
    assert isinstance(fresh.params["noise_seed"], int)  # a fresh seed, drawn and recorded


def pairing(X, labels, seed):
    """The sizes of the classes of equal released rows, sorted: what the rows of a per-attribute release pair up."""
    V = laplace(X, labels, 0.1, BOX, seed)
    return sorted(pd.DataFrame(V).value_counts().tolist())


def test_individual_ranking_on_two_columns_pairs_its_noisy_values_as_the_data_decide():
    """Why a per-attribute release of two or more columns is not ε-DP (docs/methods.md §7.2): which noisy value of one
    column shares a row with which of another is the same for every noise draw and differs between two data sets
    that differ in one record, whatever the noise (here at ε = 0.1)."""
    X = data(60, 3)
    Y = X.copy()
    Y[0] = [9.99, -4.99]  # one record replaced
    differ = [pairing(X, individual(X, 5), s) != pairing(Y, individual(Y, 5), s) for s in range(5)]
    same = [pairing(X, individual(X, 5), s) == pairing(X, individual(X, 5), 0) for s in range(5)]
    assert all(differ) and all(same)


def test_individual_ranking_is_refused_on_two_or_more_columns_and_taken_on_one(census):
    df, B = census
    with pytest.raises(ma.MicroaggError, match="not the rows.*13 masked columns.*insensitive_mdav"):
        ma.microaggregate(df, 5, method="individual_ranking", aggregation="laplace", bounds=B, noise_seed=1)
    rel = ma.microaggregate(df[["AGI"]], 5, method="individual_ranking", aggregation="laplace", bounds=B[:1],
                            noise_seed=1)
    row = {(r["metric"], r["attribute"]): r["value"] for r in rel.aggregation_report}  # report()'s rows, by position
    assert np.isclose(row["DP sensitivity S_j (L1, all groups)", 0], 1e6 / 5)
    assert "individual ranking" in row["DP accounting", "all"]
    published = rel.protected["AGI"].value_counts()
    assert rel.anonymity["k_anonymous"] and published.min() >= 5  # one column: its groups are whole records


@pytest.mark.parametrize("extra,match", [({"keep": ["AGI"]}, "keep"),
                                         ({"keys": ["AGI"], "strata": ["AGI"]}, "insensitive partition|strata"),
                                         ({"confidential": ["AGI"]}, "confidential"),
                                         ({"keep_index": True}, "keep_index"),
                                         ({"engine": ma.engines.Blocks(500)}, "blocks"),
                                         ({"renormalize": True}, "renormalize"),
                                         ({"shuffle": False}, "shuffle=False")])
def test_what_the_noise_does_not_account_for_is_refused(census, extra, match):
    df, B = census
    columns = [c for c in df.columns if c != "AGI"] if set(extra) & {"keep", "keys", "confidential"} else None
    bounds = B[:len(columns)] if columns else B
    with warnings.catch_warnings(), pytest.raises(ma.MicroaggError, match=match):
        warnings.simplefilter("ignore")
        ma.microaggregate(df, 5, method="insensitive_mdav", aggregation="laplace", bounds=bounds, columns=columns,
                          noise_seed=0, **extra)


def test_the_dask_engine_is_refused(census, tmp_path):
    df, B = census
    with pytest.raises(ma.MicroaggError, match="use the memory engine"):
        ma.microaggregate(df, 5, method="insensitive_mdav", aggregation="laplace", bounds=B,
                          engine=ma.engines.Dask(str(tmp_path / "out")))


def test_the_recipe_rebuilds_the_same_file(tmp_path):
    """The command line the dashboard shows (microagg.release.recipe) rebuilds a DP release byte for byte: ε, the bounds
    and
    both seeds are in it."""
    import shlex

    from microagg.cli import main
    from microagg.release.recipe import cli_command

    rel = ma.microaggregate(ma.load_dataset("uniform", n=300, d=1), 10, method="individual_ranking",
                            aggregation="laplace", bounds=[(0, 40_000)], epsilon=3.0)
    argv = shlex.split(cli_command(rel.spec, ["--dataset", "uniform", "--data-param", "n=300", "--data-param",
                                                "d=1"]))[3:]
    out = tmp_path / "again.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*argv[:-1], str(out)]) == 0
    assert out.read_text() == rel.to_csv()


def test_given_labels_are_taken_only_with_an_insensitive_method_named_and_checked_like_its_own(census):
    df, B = census
    labels = insensitive_mdav(df.to_numpy(dtype=float), 20, bounds=B) * 7 + 3  # the same partition, other ids
    rel = ma.microaggregate(df, 20, labels=labels, method="insensitive_mdav", aggregation="laplace", bounds=B,
                            noise_seed=2)
    assert rel.anonymity["k_anonymous"]
    with pytest.raises(ma.MicroaggError, match="labels computed elsewhere"):  # no method: nothing says how they came
        ma.microaggregate(df, 20, labels=labels, aggregation="laplace", bounds=B)
    with pytest.raises(ma.MicroaggError, match="insensitive partition"):
        ma.microaggregate(df, 20, labels=ma.partition.mdav(ma.standardize(df), 20), method="insensitive_mdav",
                          aggregation="laplace", bounds=B)


# two clusters along the diagonal of the box: MDAV, and individual ranking with optimal groups, happen to make the
# groups of the insensitive partitions on these data
T = np.array([3.1, 4.7, 6.2, 8.9, 11.4, 13.3, 61.5, 64.2, 66.8, 69.1, 71.7, 74.6])
COINCIDENCE = pd.DataFrame({"a": T, "b": 0.9 * T + 1.3})
SQUARE = [(0.0, 100.0), (0.0, 100.0)]


def test_the_coincidence_data_give_the_insensitive_groups_by_other_methods():
    X = COINCIDENCE.to_numpy()
    mdav_labels = ma.partition.mdav(ma.standardize(X), 6)
    assert len(np.unique(np.column_stack([mdav_labels, insensitive_mdav(X, 6, bounds=SQUARE)]), axis=0)) == 2
    assert np.array_equal(ma.partition.individual_ranking(X, 6, grouping="optimal"), individual(X, 6))


@pytest.mark.parametrize("method,params", [("mdav", {}), ("projection", {}),
                                           ("individual_ranking", {"grouping": "optimal"})])
def test_a_release_is_refused_by_its_method_not_by_a_coincidence_of_the_data(method, params):
    """MDAV, a projection and optimal grouping make the insensitive groups on these data, and were accepted: whether a
    release is ε-DP never depends on that, so they are refused by method, before anything is computed, in
    microaggregate and in the specification every door builds."""
    with pytest.raises(ma.MicroaggError, match=f"got method '{method}'.*not on whether its groups happen"):
        ma.microaggregate(COINCIDENCE, 6, method=method, aggregation="laplace", bounds=SQUARE, noise_seed=1,
                          identifiers=[], **params)
    from microagg.release.spec import ReleaseSpec  # what the command line and the dashboard build first

    with pytest.raises(ma.MicroaggError, match=f"got method '{method}'"):
        ReleaseSpec.of(6, method, "laplace", bounds=SQUARE, noise_seed=1, identifiers=[], **params)


def test_the_partition_must_use_the_bounds_of_the_noise(census):
    df, B = census
    with pytest.raises(ma.MicroaggError, match="bounds the noise .* is calibrated to"):
        ma.microaggregate(df, 20, method="insensitive_mdav", aggregation="laplace", method_params={"bounds": B * 2},
                          aggregation_params={"bounds": B})


@pytest.mark.parametrize("epsilon", [np.inf, -np.inf, np.nan])
def test_epsilon_must_be_a_finite_number(census, epsilon):
    """ε = inf published the exact group means while the report said ε-DP: refused when the parameters are read."""
    df, B = census
    X = df.to_numpy(dtype=float)
    with pytest.raises(ma.MicroaggError, match="'epsilon'.*finite"):
        laplace(X, insensitive_mdav(X, 20, bounds=B), epsilon=epsilon, bounds=B)
    with pytest.raises(ma.MicroaggError, match="'epsilon'.*finite"):
        ma.microaggregate(df, 20, method="insensitive_mdav", aggregation="laplace", bounds=B, epsilon=epsilon)


def test_noise_too_large_for_float64_is_refused_before_it_is_drawn():
    """ε = 1e-320 makes b_j infinite: the release would be infinities (or NaN); a scale whose draws could overflow
    is refused whatever the seed. A large finite one is released, and its report formats every figure."""
    X = data(20)
    labels = insensitive_mdav(X, 4, bounds=BOX)
    with pytest.raises(ma.MicroaggError, match="noise scale .* too large for float64|overflow float64"):
        laplace(X, labels, epsilon=1e-320, bounds=BOX)
    V, rows = laplace_with_report(X, labels, epsilon=1e-290, bounds=BOX, noise_seed=0, clip=False)
    assert np.isfinite(V).all()
    from microagg.figures import tables

    report = pd.DataFrame(rows)
    shown = dict(zip(report["metric"], tables.formatted(report)["value"]))
    assert "e+29" in shown["DP Laplace scale b_j"] and shown["differential privacy ε"] == "1.0e-290"


def test_a_value_outside_its_bounds_is_refused_naming_the_column_and_each_interfaces_control():
    df = pd.DataFrame({"income": np.linspace(0, 5000, 60), "height": np.linspace(1.5, 1.9, 60)})
    with pytest.raises(ma.MicroaggError) as refused:
        ma.microaggregate(df, 5, method="insensitive_mdav", aggregation="laplace", bounds="0:5000,1.5:1.8",
                          noise_seed=0)
    assert "column 'height': 15 outside [1.5, 1.8]" in str(refused.value) and "pass clip=True" in str(refused.value)
    assert refused.value.shown.endswith("tick 'clip values to the bounds' to move them onto the bounds.")


def test_per_attribute_labels_given_with_an_insensitive_method_named_are_refused_too():
    df = pd.DataFrame(data(100, 1), columns=["a", "b"])
    per_attribute = np.column_stack([np.argsort(np.argsort(df[c])) // 5 for c in df])
    with pytest.raises(ma.MicroaggError, match="not the rows"):
        ma.microaggregate(df, 5, method="insensitive_mdav", aggregation="laplace", labels=per_attribute,
                          bounds=BOX, noise_seed=1)
