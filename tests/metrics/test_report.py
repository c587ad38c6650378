import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.lab.reproduce import published
from microagg.metrics import registry


def _all(table):
    return table[table["attribute"] == "all"].set_index("metric")["value"]


@pytest.fixture(scope="module")
def census_release():
    df = ma.load_dataset("census")
    return df, ma.microaggregate(df, 4, variant="classic", shuffle=False)  # rows paired with df's


def test_every_registered_metric_is_reported_with_its_description(census_release):
    df, rel = census_release
    table = ma.evaluate(df, rel.protected, rel.labels, sampling_weights=np.ones(len(df)))  # the weighted ones too
    assert list(table.columns) == ["metric", "attribute", "value", "unit", "direction", "source"]
    assert set(table["metric"]) == {m.name for m in registry.metrics() if "categories" not in m.needs}
    for row in table.itertuples():
        assert row.attribute == "all" or (registry.get_metric(row.metric).per_attribute and row.attribute in df.columns)
    assert (table.groupby("metric")["attribute"].apply(lambda a: (a == "all").sum()) == 1).all()


def test_values_agree_with_the_functions(census_release):
    df, rel = census_release
    v = _all(ma.evaluate(df, rel.protected, rel.labels, keys=list(published.OOMMEN_KEYS), p=10))
    Z = ma.standardize(df)
    Zp = ma.Standardizer.fit(df.to_numpy(float)).transform(rel.protected.to_numpy(float))
    assert v["IL"] == pytest.approx(ma.metrics.information_loss(Z, Zp))
    assert v["partition IL"] == pytest.approx(7.4947, abs=1e-4)
    assert v["PIL"] == pytest.approx(ma.metrics.pil(Z, Zp))
    assert v["DLD 1st or 2nd"] == pytest.approx(ma.metrics.dld(Z, Zp, "1st_or_2nd"))
    assert v["SDID"] == pytest.approx(ma.metrics.sdid(Z, Zp, p=10))
    keys = [list(df.columns).index(c) for c in published.OOMMEN_KEYS]
    assert v["RLD"] == pytest.approx(ma.metrics.dld(Z, Zp, keys=keys)) and v["RLD"] != v["DLD"]
    assert v["DR (Mortazavi & Jalili 2017)"] == pytest.approx((v["DLD lowest index"] + v["SDID"]) / 2)
    assert v["SI (Mortazavi & Jalili 2017)"] == pytest.approx((v["DR (Mortazavi & Jalili 2017)"] + v["PIL"]) / 2)
    assert v["SI (Oommen & Fayyoumi 2010)"] == pytest.approx((v["G_IL"] + v["G_DR"]) / 2)
    assert v["ADM / n"] == pytest.approx(v["ADM"] / len(df))


@pytest.mark.parametrize("name", ["tarragona", "census", "eia"])
def test_published_mdav_il_through_evaluate(name):
    df = ma.load_dataset(name)
    for k, value in zip(published.K_CHETTRI, published.CHETTRI_IL["MDAV"][name]):
        rel = ma.microaggregate(df, k, variant="classic", identifiers=[])  # the papers mask EIA's UTILITYID too
        ours = _all(ma.evaluate(df, rel.in_input_order(), per_attribute=False))["IL"]
        assert published.matches(ours, value), (name, k, ours, value)


def test_nothing_masked():
    df = ma.load_dataset("census")
    v = _all(ma.evaluate(df, df.copy()))
    assert v["IL"] == v["PIL"] == v["G_IL"] == v["IL1s"] == v["SL"] == 0
    assert v["DLD"] == v["DLD lowest index"] == v["DLD 1st or 2nd"] == 100
    assert v["SDID"] == v["ID"] == 100 and v["sign test N"] == 0 and v["sign test p"] == 1


def test_arrays_two_dimensional_labels_and_per_attribute_switch():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    labels = np.column_stack([np.repeat(np.arange(10), 4)] * 3)
    table = ma.evaluate(X, ma.aggregate.mean(X, labels), labels, per_attribute=False)
    assert (table["attribute"] == "all").all()
    assert {"ADM", "partition IL"} <= set(table["metric"]) and "SSE_i min" not in set(table["metric"])
    assert "x2" in set(ma.evaluate(X, X + 0.1)["attribute"])


def test_protected_frame_is_aligned_by_column_name(census_release):
    df, rel = census_release
    shuffled = rel.protected[list(reversed(df.columns))]
    pd.testing.assert_frame_equal(ma.evaluate(df, shuffled), ma.evaluate(df, rel.protected))


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(p=0), r"'p'.*\(0, 100\)"),
    (dict(p=100), r"'p'.*\(0, 100\)"),
    (dict(w=1), r"'w' must lie in \[0, 1\)"),
    (dict(delta=-1), "'delta' must be >= 0"),
    (dict(keys=["nope"]), "'keys': unknown column 'nope'"),
    (dict(confidential=[99]), "'confidential'"),
    (dict(si_weight=2), "'si_weight'"),
    (dict(gamma=1), r"evaluate does not take \['gamma'\]"),
    (dict(k=5), "fewer than k = 5"),
])
def test_bad_parameters(census_release, kwargs, fragment):
    df, rel = census_release
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.evaluate(df, rel.protected, rel.labels, **kwargs)


def test_bad_data(census_release):
    df, rel = census_release
    with pytest.raises(ma.MicroaggError, match="same records"):
        ma.evaluate(df, rel.protected.iloc[:-1])
    with pytest.raises(ma.MicroaggError, match="columns .*'ERNVAL'.* are missing"):
        ma.evaluate(df, rel.protected.drop(columns="ERNVAL"))
    with pytest.raises(ma.MicroaggError, match="indexes differ"):
        ma.evaluate(df, rel.protected.set_axis(range(1, len(df) + 1)))
    with pytest.raises(ma.MicroaggError, match="one column per numeric column"):
        ma.evaluate(df, rel.protected.to_numpy()[:, :5])
    bad = rel.protected.copy()
    bad.iloc[3, 2] = np.nan
    with pytest.raises(ma.MicroaggError, match="'EMCONTRB'.*NaN"):
        ma.evaluate(df, bad)
    with pytest.raises(ma.MicroaggError, match="labels must have one entry per record"):
        ma.evaluate(df, rel.protected, rel.labels[:-1])
    with pytest.raises(ma.MicroaggError, match="pass the labels"):
        ma.evaluate(df, rel.protected, k=3)


def test_inputs_are_not_mutated(census_release):
    df, rel = census_release
    before = df.copy(), rel.protected.copy(), rel.labels.copy()
    ma.evaluate(df, rel.protected, rel.labels, weights="random", keys=["AGI", "FICA"])
    pd.testing.assert_frame_equal(df, before[0])
    pd.testing.assert_frame_equal(rel.protected, before[1])
    assert np.array_equal(rel.labels, before[2])


def test_a_metric_float64_cannot_compute_says_so_in_its_row_and_the_others_stand():
    """Noise of 1e300 (an ε-DP release with ε = 1e-300): the nearest-neighbour searches and the eigenvalue solver
    give up; their rows say "not computed" with the reason, and every other row is computed (it raised before)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 100, size=(40, 3))
    table = ma.evaluate(X, X + rng.laplace(0, 1e300, size=X.shape))
    failed = table["source"].str.startswith("not computed")
    assert failed.any() and not failed.all()
    assert table.loc[failed, "value"].isna().all() and (table.loc[failed, "attribute"] == "all").all()
    assert table.loc[failed, "source"].str.contains("float64 failed on these values").all()
    assert _all(table)["IL"] > 1e100 and _all(table)["exact cells"] == 0
    with pytest.raises(ma.MicroaggError, match="confidential"):  # bad parameters are still refused
        ma.evaluate(X, X + 1, confidential=["nope"])
