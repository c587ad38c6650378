"""Weighted IL and moments, and IL and DLD with missing cells: the unweighted complete-data metrics when there are
no weights and no missing cells; weighted means kept by the weighted mean."""

import numpy as np
import pytest

import microagg as ma
from microagg.aggregate.survey import weighted_group_values
from microagg.metrics.survey import moment_changes, partial_dld, weighted_il


@pytest.fixture(scope="module")
def census():
    Z = ma.standardize(ma.load_dataset("census"))
    labels = ma.partition.mdav(Z, k=3)
    return Z, labels, ma.aggregate.mean(Z, labels)


def test_without_weights_and_missing_cells_il_and_dld_are_the_usual_ones(census):
    Z, _, Zp = census
    table = ma.evaluate(Z, Zp).query("attribute == 'all'").set_index("metric")["value"]
    assert weighted_il(Z, Zp) == pytest.approx(table["IL"], rel=1e-12)
    assert partial_dld(Z, Zp) == pytest.approx(table["DLD"], rel=1e-12)


def test_weighted_mean_aggregation_keeps_the_weighted_means(census):
    Z, labels, _ = census
    w = np.random.default_rng(0).uniform(1, 10, len(Z))
    changes = moment_changes(Z, weighted_group_values(Z, labels, "mean", w), w)
    assert changes["weighted mean shift"][1].max() < 1e-12
    assert moment_changes(Z, ma.aggregate.mean(Z, labels), w)["weighted mean shift"][0] > 1e-6  # unweighted: not


def test_weighted_il_by_brute_force():
    rng = np.random.default_rng(1)
    Z, Zp, w = rng.normal(size=(30, 3)), rng.normal(size=(30, 3)), rng.uniform(1, 3, 30)
    m = (w[:, None] * Z).sum(0) / w.sum()
    expected = 100 * sum(w[i] * ((Z[i] - Zp[i]) ** 2).sum() for i in range(30)) / \
        sum(w[i] * ((Z[i] - m) ** 2).sum() for i in range(30))
    assert weighted_il(Z, Zp, w) == pytest.approx(expected, rel=1e-12)


def test_evaluate_adds_the_weighted_metrics_only_with_weights(census):
    Z, _, Zp = census
    assert "IL (weighted)" not in set(ma.evaluate(Z, Zp)["metric"])
    rows = ma.evaluate(Z, Zp, sampling_weights=np.ones(len(Z))).set_index(["metric", "attribute"])["value"]
    assert rows["IL (weighted)", "all"] == pytest.approx(rows["IL", "all"], rel=1e-12)
    with pytest.raises(ma.MicroaggError, match="sampling_weights"):
        ma.evaluate(Z, Zp, sampling_weights=-np.ones(len(Z)))


def _values(changes: dict) -> list:
    return [v[0] if isinstance(v, tuple) else v for v in changes.values()]


@pytest.mark.parametrize("c", [5e-324, 1e-300, 0.3, 1e300, 1e308, np.finfo(np.float64).max])
def test_the_weighted_metrics_hold_at_any_magnitude_of_the_weights(census, c):
    """Equal weights of any magnitude give the unweighted metrics exactly (all 1e308 gave NaN), and weights scaled
    by a power of two give the same metrics."""
    Z, _, Zp = census
    equal = np.full(len(Z), c)
    assert weighted_il(Z, Zp, equal) == weighted_il(Z, Zp)
    assert _values(moment_changes(Z, Zp, equal)) == _values(moment_changes(Z, Zp))
    w = np.random.default_rng(2).uniform(1, 2, len(Z))
    scaled = np.ldexp(w, max(int(np.frexp(c)[1]) - 1, -1022))  # the same ratios, at the magnitude of c (or normal)
    assert weighted_il(Z, Zp, scaled) == weighted_il(Z, Zp, w)
    assert _values(moment_changes(Z, Zp, scaled)) == _values(moment_changes(Z, Zp, w))
