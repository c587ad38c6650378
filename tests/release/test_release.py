import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.metrics.privacy import satisfaction_level


def test_release_keeps_column_order_and_the_index_only_on_request(small_df):
    rel = ma.microaggregate(small_df, 4)
    assert rel.protected.index.equals(pd.RangeIndex(40)) and rel.in_input_order().index.equals(small_df.index)
    assert ma.microaggregate(small_df, 4, shuffle=False, keep_index=True).protected.index.equals(small_df.index)
    assert list(rel.protected.columns) == ["a", "b", "c"]
    assert rel.labels.shape == (40,) and np.bincount(rel.labels).min() >= 4


def test_input_is_not_mutated(small_df):
    before = small_df.copy()
    ma.microaggregate(small_df, 3, aggregation="median")
    pd.testing.assert_frame_equal(small_df, before)


def test_release_is_k_anonymous_and_values_are_group_values(small_df):
    rel = ma.microaggregate(small_df, 5)
    _, counts = np.unique(rel.protected.to_numpy(), axis=0, return_counts=True)
    assert counts.min() >= 5
    g0 = rel.labels == 0
    assert np.allclose(rel.in_input_order()[g0].iloc[0], small_df[g0].mean())


def test_report_lists_metrics_and_columns():
    df = ma.load_dataset("eia", raw=True)
    rel = ma.microaggregate(df, 3, columns=["RESREVENUE", "RESSALES"], keep=["STATE"])
    rep = rel.report().set_index("metric")["value"]
    assert list(rel.protected.columns) == ["STATE", "RESREVENUE", "RESSALES"]
    assert rep["columns kept unmasked"] == "STATE"
    assert "UTILNAME" in rep["columns dropped"] and "YEAR" in rep["columns dropped"]
    assert rep["k-anonymous"] is True or rep["k-anonymous"] == True  # noqa: E712
    assert set(rel.report().columns) == {"metric", "attribute", "value", "unit", "direction", "source"}
    assert (rel.in_input_order()["STATE"] == df["STATE"]).all()


def test_release_reproduces_table_value_with_params():
    rel = ma.microaggregate(ma.load_dataset("census"), 5, variant="classic")
    assert float(rel.report().set_index("metric").loc["IL", "value"]) == pytest.approx(9.0884, abs=1e-4)
    assert rel.params["variant"] == "classic" and rel.params["k"] == 5


def test_median_release_reports_partition_il_too():
    rel = ma.microaggregate(ma.load_dataset("census"), 5, aggregation="median")
    rep = rel.report().set_index("metric")["value"]
    assert rep["IL"] > rep["partition IL"] == pytest.approx(9.0884, abs=1e-4)


def test_renormalize_option():
    rel = ma.microaggregate(ma.load_dataset("tarragona"), 3, renormalize=True)
    assert rel.Zp.std(axis=0) == pytest.approx(np.ones(13))
    assert rel.protected.mean().to_numpy() == pytest.approx(ma.load_dataset("tarragona").mean().to_numpy())


def test_constant_column_is_legal():
    df = pd.DataFrame({"a": np.arange(10.0), "c": 7.0})
    rel = ma.microaggregate(df, 2)
    assert (rel.protected["c"] == 7.0).all() and np.isfinite(rel.protected.to_numpy()).all()


def test_arrays_are_accepted():
    rel = ma.microaggregate(np.random.default_rng(0).normal(size=(20, 3)), 4)
    assert list(rel.protected.columns) == ["x0", "x1", "x2"]


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(k=1), "integer >= 2"),
    (dict(k=3.5), "integer >= 2"),
    (dict(k=50), "at least k"),
    (dict(k=3, method="kmeans"), "unknown method"),
    (dict(k=3, aggregation="mode"), "unknown aggregation"),
    (dict(k=3, alpha=0.5), r"\['alpha'\] are not accepted"),
    (dict(k=3, variant="best"), "parameter 'variant'.*must be one of"),
    (dict(k=3, columns=["a", "t"]), "column 't'.*not numeric"),
    (dict(k=3, columns=["zz"]), "not in the data"),
    (dict(k=3, keep=["zz"]), "keep: columns"),
    (dict(k=3, columns=["a"], keep=["a"]), "both masked and listed"),
])
def test_bad_input(kwargs, fragment):
    df = pd.DataFrame({"a": np.arange(20.0) / 3, "b": (np.arange(20.0) / 3) ** 2, "t": ["x"] * 20})
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.microaggregate(df, **kwargs)


def test_bad_values_and_shapes():
    df = pd.DataFrame({"a": [1.0, np.nan, 3, 4], "b": [1.0, 2, 3, 4]})  # record numbers, one with a gap: named
    with pytest.raises(ma.MicroaggError, match="'a'.*NaN"):
        ma.microaggregate(df, 2, columns=["a", "b"], missing="refuse")
    with pytest.raises(ma.MicroaggError, match="empty"):
        ma.microaggregate(df.iloc[:0], 2)
    with pytest.raises(ma.MicroaggError, match="duplicate column names"):
        ma.microaggregate(pd.DataFrame([[1.0, 2.0]] * 4, columns=["a", "a"]), 2)
    with pytest.raises(ma.MicroaggError, match="2-D"):
        ma.microaggregate(np.zeros((2, 2, 2)), 2)
    assert issubclass(ma.MicroaggError, ValueError)


def test_no_release_from_a_partition_with_a_small_group(monkeypatch):
    from microagg.base import registry

    method = registry.get_method("partition", "mdav")
    bad = registry.Method("partition", "mdav", lambda Z, k, **p: np.arange(len(Z)) % (len(Z) - 1),
                          method.title, method.summary, method.source, method.params)
    monkeypatch.setitem(registry._REGISTRY["partition"], "mdav", bad)
    with pytest.raises(ma.MicroaggError, match="no release was made"):
        ma.microaggregate(pd.DataFrame({"a": np.arange(10.0)}), 2, columns=["a"])


def test_precomputed_labels_are_reused_and_checked(small_df):
    rel = ma.microaggregate(small_df, 4, variant="classic")
    again = ma.microaggregate(small_df, 4, aggregation="median", labels=rel.labels)
    assert np.array_equal(again.labels, rel.labels)
    with pytest.raises(ma.MicroaggError, match="fewer than k|group of"):
        ma.microaggregate(small_df, 4, labels=np.arange(40) % 20)
    with pytest.raises(ma.MicroaggError, match="one entry per record"):
        ma.microaggregate(small_df, 4, labels=np.zeros(7, int))
    with pytest.raises(ma.MicroaggError, match="integers"):
        ma.microaggregate(small_df, 4, labels=np.arange(40) // 4 + 0.5)


def test_report_is_evaluate_plus_release_rows():
    df = ma.load_dataset("tarragona")
    rel = ma.microaggregate(df, 3, renormalize=True)
    rep = rel.report()
    evaluated = ma.evaluate(df, rel.in_input_order(), rel.labels)
    metrics_part = rep.iloc[:len(evaluated)]
    assert list(metrics_part["metric"]) == list(evaluated["metric"])
    # the report uses the z-scores before the release is rounded to 12 digits: differences are rounding-sized,
    # except that one-to-one linkage may pick another of the matchings whose totals differ by rounding (one record)
    one = (metrics_part["metric"] == "DLD one-to-one").to_numpy()
    ours, theirs = metrics_part["value"].astype(float).to_numpy(), evaluated["value"].astype(float).to_numpy()
    assert np.allclose(ours[~one], theirs[~one], rtol=1e-9, atol=1e-6)
    assert abs(ours[one][0] - theirs[one][0]) <= 100 / len(df)
    release_rows = set(rep["metric"].iloc[len(evaluated):])
    assert {"groups", "smallest group", "k-anonymous", "columns masked", "columns dropped"} <= release_rows
    assert set(rep.columns) == {"metric", "attribute", "value", "unit", "direction", "source"}


def test_report_forwards_evaluation_parameters():
    rel = ma.microaggregate(ma.load_dataset("census"), 5)
    sdid = {p: rel.report(p=p).set_index("metric").loc["SDID"].query("attribute == 'all'")["value"].item()
            for p in (2, 20)}
    assert sdid[2] < sdid[20]
    with pytest.raises(ma.MicroaggError, match="'w' must lie"):
        rel.report(w=1.5)


def test_report_of_chosen_metrics_is_the_same_rows_of_the_whole_report():
    """``metrics=`` computes only the metrics named (the dashboard's headline) and keeps every row that is not a metric
    of evaluate: the same rows, the same values, in the same order as in the whole report."""
    rel = ma.microaggregate(ma.load_dataset("tarragona"), 5, seed=3)
    whole = rel.report(p=7)
    chosen = ("SL", "IL", "exact cells")
    part = rel.report(metrics=chosen, p=7)
    named = ma.metrics.registry.metrics()
    evaluated = {m.name for m in named}
    keep = whole["metric"].isin(chosen) | ~whole["metric"].isin(evaluated)
    pd.testing.assert_frame_equal(part, whole[keep].reset_index(drop=True))
    assert set(part["metric"]) & evaluated == set(chosen) and "PIL" in set(whole["metric"])
    assert list(rel.report(metrics="IL").query("metric in @evaluated")["metric"]) == ["IL"]  # a name, not letters
    with pytest.raises(ma.MicroaggError, match="unknown metric 'ILL'"):
        rel.report(metrics=["ILL"])


def test_release_with_p3m_reports_the_solver_and_preserves_moments():
    df = ma.load_dataset("census")
    rel = ma.microaggregate(df, 3, aggregation="p3m", variant="classic")
    rep = rel.report()
    assert rep.loc[rep.metric == "P3M attributes certified optimal", "value"].item() == "13 of 13"
    status = rep[rep.metric == "P3M status"]
    assert list(status.attribute) == list(df.columns) and (status.value == "optimal").all()
    assert rel.anonymity["k_anonymous"]
    assert np.allclose(rel.protected.mean(), df.mean(), rtol=1e-9)
    assert np.allclose(rel.protected.std(ddof=0), df.std(ddof=0), rtol=1e-9)
    assert satisfaction_level(rel.Z, rel.Zp) == pytest.approx(55.23, abs=0.005)


def test_release_refuses_renormalize_with_p3m_and_takes_arrays():
    df = ma.load_dataset("tarragona")
    with pytest.raises(ma.MicroaggError, match="renormalize=True cannot be combined with aggregation 'p3m'"):
        ma.microaggregate(df, 3, aggregation="p3m", renormalize=True)
    w = np.full(df.shape, 0.3)
    rel = ma.microaggregate(df, 3, aggregation="p3m", aggregation_params={"w": w, "alpha": 0.7})
    assert rel.params["alpha"] == 0.7 and rel.params["w"] is w


def test_report_sl_uses_the_release_thresholds_and_weights():
    df = ma.load_dataset("census")
    rel = ma.microaggregate(df, 5, aggregation="p3m", delta=0.3, weights="random", w_seed=2)
    sl = rel.report().set_index(["metric", "attribute"]).loc[("SL", "all"), "value"]
    expected = ma.metrics.satisfaction_level(rel.Z, rel.Zp, delta=0.3, weights="random", w_seed=2)
    assert sl == pytest.approx(expected)
    assert rel.report(delta=0.1).set_index(["metric", "attribute"]).loc[("SL", "all"), "value"] != pytest.approx(sl)


def test_confidential_columns_are_released_unchanged_and_never_partition_a_role_blind_method():
    df = ma.load_dataset("census")
    roles = ma.dataset_roles("census")
    rel = ma.microaggregate(df, 5, variant="classic", confidential=roles["confidential"])
    assert rel.masked == roles["qi"] and rel.confidential == roles["confidential"]
    assert list(rel.protected.columns) == list(df.columns) and rel.dropped == []
    pd.testing.assert_frame_equal(rel.in_input_order()[roles["confidential"]], df[roles["confidential"]])
    Zq = ma.standardize(df[roles["qi"]])
    assert np.array_equal(rel.labels, ma.partition.mdav(Zq, 5, "classic"))
    assert rel.anonymity["k_anonymous"] and rel.params["confidential"] == roles["confidential"]
    _, counts = np.unique(rel.protected[roles["qi"]].to_numpy(), axis=0, return_counts=True)
    assert counts.min() >= 5


def test_hmpfsom_release_masks_the_quasi_identifiers_only():
    df = ma.load_dataset("census")
    conf = ma.dataset_roles("census")["confidential"]
    before = df.copy()
    rel = ma.microaggregate(df, 3, method="hmpfsom", confidential=conf, scaling="minmax")
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_frame_equal(rel.in_input_order()[conf], df[conf])
    trace = ma.partition.hm_pfsom_steps(np.hstack([rel.Z, ma.standardize(df[conf])]), 3, list(range(5, 13)),
                                        scaling="minmax")
    assert np.array_equal(rel.labels, trace.labels)
    sizes = np.bincount(rel.labels)
    assert (sizes >= 3 * trace.cs[trace.sub[trace.seeds]]).all()
    rep = rel.report().set_index("metric")["value"]
    assert rep["k-anonymous"] and rep["smallest equivalence class"] >= 6
    assert rep["columns confidential (unchanged)"] == ", ".join(conf)
    div = ma.metrics.sse_i(ma.standardize(df[conf]), rel.labels)
    assert rep["SSE_i min"] == pytest.approx(div.min()) and rep["SSE_i mean"] == pytest.approx(div.mean())
    with pytest.raises(ma.MicroaggError, match="leave 'confidential' out"):
        rel.report(confidential=["AGI"])


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(method="hmpfsom"), "needs confidential attributes"),
    (dict(confidential=["zz"]), r"confidential: columns \['zz'\] are not in the data"),
    (dict(confidential=["t"]), "column 't'.*not numeric"),
    (dict(confidential=["a", "a"]), "more than once in 'confidential'"),
    (dict(columns=["a", "b"], confidential=["b"]), "both in 'columns'.*and in 'confidential'"),
    (dict(confidential=["a", "b"]), "every numeric column is confidential"),
    (dict(confidential=["b"], keep=["b"]), "both confidential and listed in 'keep'"),
])
def test_bad_roles(kwargs, fragment):
    df = pd.DataFrame({"a": np.arange(20.0) / 3, "b": (np.arange(20.0) / 3) ** 2, "t": ["x"] * 20})
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.microaggregate(df, 3, **kwargs)
