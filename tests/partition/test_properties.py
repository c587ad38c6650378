"""Properties every registered partitioner must have (docs/methods.md §0, §2; labels: the only contract)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.base.registry import DIFFERENTIAL_PRIVACY, get_method, methods

from .strategies import data_and_k

# methods with attribute roles need confidential columns; tests/partition/test_hybrid.py covers them
PARTITIONERS = [m.name for m in methods("partition") if not m.caps.uses_roles]


def test_the_properties_cover_sdcmicros_methods():
    """Every method sdcMicro offers is drawn below (docs/reproductions.md §13); only role-using methods are not."""
    assert {"mdav", "projection", "individual_ranking", "rmd", "simple", "pppca", "mcdpca", "clustpca", "clustpppca",
            "clustmcdpca", "influence"} <= set(PARTITIONERS)
    assert {m.name for m in methods("aggregate")} >= {"mean", "median", "trim", "onestep"}  # drawn for each


def draw_params(draw, method):
    """Parameters drawn from the registered description (ints without an upper bound keep their default)."""
    out = {}
    for p in method.params:
        if p.type == "choice":
            out[p.name] = draw(st.sampled_from(p.choices))
        elif p.type == "bool":
            out[p.name] = draw(st.booleans())
        elif p.type == "float":
            low = 0.0 if p.low is None else p.low
            out[p.name] = draw(st.floats(low, low + 3.0 if p.high is None else p.high))
        elif p.type == "int" and p.high is not None:
            out[p.name] = draw(st.integers(int(p.low or 0), int(p.high)))
    return out


def groups_of(labels):
    """(column, group ids) for every labelling: one for record-level labels, d for per-attribute labels."""
    lab = labels if labels.ndim == 2 else labels[:, None]
    return [lab[:, t] for t in range(lab.shape[1])]


def moment_refusal(Z, labels):
    """Why an aggregator keeping means and variances (P3M) must refuse, or None."""
    dev, varying = Z - Z.mean(axis=0), np.ptp(Z, axis=0) > 0
    if ((dev * dev).sum(axis=0) == 0)[varying].any():
        return "underflows"  # float64 cannot represent the variance
    cols = groups_of(labels)
    single = [col.max() == 0 for col in cols] if labels.ndim == 2 else [cols[0].max() == 0] * Z.shape[1]
    return "single group" if any(s and v for s, v in zip(single, varying)) else None


@settings(max_examples=300, deadline=None)
@given(data_and_k(), st.sampled_from(PARTITIONERS), st.data())
def test_every_partitioner(zk, name, data):
    Z, k = zk
    n, d = Z.shape
    method = get_method("partition", name)
    params = draw_params(data.draw, method)
    before = Z.copy()
    labels = method.func(Z, k, **params)
    assert np.array_equal(Z, before)  # input untouched
    assert np.array_equal(labels, method.func(Z, k, **params))  # deterministic
    assert labels.shape == ((n,) if method.record_level else (n, d))
    for col in groups_of(labels):
        sizes = np.bincount(col)
        assert sizes.min() >= k and sizes.sum() == n  # ids 0..m-1, every group >= k
    for agg in methods("aggregate"):  # any aggregator works on any partitioner's labels
        if agg.caps.privacy == DIFFERENTIAL_PRIVACY:  # needs bounds from the user (tests/aggregate/test_dp.py)
            with pytest.raises(ma.MicroaggError, match="bounds"):
                agg.func(Z, labels, **agg.defaults())
            continue
        if agg.caps.preserves_moments and (reason := moment_refusal(Z, labels)):
            with pytest.raises(ma.MicroaggError, match=reason):
                agg.func(Z, labels, **agg.defaults())
            continue
        Zp = agg.func(Z, labels, **agg.defaults())
        assert Zp.shape == Z.shape and np.isfinite(Zp).all()
        for t, col in enumerate(groups_of(labels)):
            cols = [t] if labels.ndim == 2 else list(range(d))
            for g in range(col.max() + 1):
                block = Zp[col == g][:, cols]
                assert (block == block[0]).all(), (agg.name, g)


@pytest.mark.parametrize("name", PARTITIONERS)
def test_every_partitioner_rejects_bad_input(name):
    func = get_method("partition", name).func
    with pytest.raises(ma.MicroaggError, match="integer >= 2"):
        func(np.zeros((10, 2)), 1)
    with pytest.raises(ma.MicroaggError, match="non-finite"):
        func(np.array([[0.0, np.inf], [1, 2], [3, 4]]), 2)
    with pytest.raises(ma.MicroaggError, match="at least k"):
        func(np.zeros((3, 2)), 4)
    with pytest.raises(ma.MicroaggError, match="empty"):
        func(np.zeros((0, 2)), 2)
    with pytest.raises(ma.MicroaggError, match="numeric"):
        func([["a", "b"], ["c", "d"]], 2)
    with pytest.raises(ma.MicroaggError, match=r"\['speed'\] are not accepted"):
        ma.microaggregate(np.zeros((10, 2)), 2, method=name, speed=3)


@pytest.mark.parametrize("name", PARTITIONERS)
def test_every_partitioner_releases_through_microaggregate(name, small_df):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = ma.microaggregate(small_df, 4, method=name)
    rep = rel.report().set_index("metric")["value"]
    assert rep["smallest group"] >= 4
    assert rep["k-anonymous"] == rel.anonymity["k_anonymous"]
    if get_method("partition", name).record_level:
        assert rel.anonymity["k_anonymous"]
