import numpy as np
import pytest

import microagg as ma
from microagg.lab.explore import (
    COMPARE_COLUMNS,
    RU_COLUMNS,
    compare_methods,
    pareto_front,
    pareto_frontier,
    risk_utility,
)


def test_risk_utility_map_moves_the_right_way():
    seen = []
    frame = risk_utility(ma.load_dataset("census"), [2, 5, 10], methods=["mdav"], progress=lambda f, m: seen.append(f))
    assert list(frame.columns) == RU_COLUMNS and len(frame) == 3
    assert np.all(np.diff(frame["IL"]) > 0) and np.all(np.diff(frame["DLD"]) < 0)  # more k: more loss, less risk
    assert frame.loc[frame.k == 5, "IL"].item() == pytest.approx(9.0884, abs=1e-4)
    assert seen == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_risk_utility_reports_bad_input():
    with pytest.raises(ma.MicroaggError, match="k must be"):
        risk_utility(ma.load_dataset("census"), [1])


def test_risk_utility_uses_the_chosen_dld_rule():
    data = ma.load_dataset("tarragona")
    expected = risk_utility(data, [3], dld_rule="expected")
    chettri = risk_utility(data, [3], dld_rule="1st_or_2nd")
    rel = ma.microaggregate(data, 3)
    assert chettri["DLD"].item() == pytest.approx(ma.metrics.dld(rel.Z, rel.Zp, "1st_or_2nd"))
    assert chettri["DLD"].item() > expected["DLD"].item()  # either of two neighbours links more records
    with pytest.raises(ma.MicroaggError, match="'rule' must be one of"):
        risk_utility(data, [3], dld_rule="nearest")


def test_compare_methods_runs_labelled_variants_side_by_side():
    runs = {"MDAV classic": ("mdav", {"variant": "classic"}), "MDAV single": ("mdav", {"variant": "single"})}
    frame = compare_methods(ma.load_dataset("census"), 5, runs)
    assert list(frame.columns) == COMPARE_COLUMNS and list(frame["run"]) == list(runs)
    # Chettri, Paul & Dutta, Table 2, Oommen & Fayyoumi 2010, Table II
    assert frame["IL"].tolist() == pytest.approx([9.0884, 8.8840], abs=1e-4)
    assert frame["k-anonymous"].all() and (frame["groups"] == 216).all() and (frame["seconds"] > 0).all()


def test_compare_methods_reports_per_attribute_methods_as_not_k_anonymous_without_warning(recwarn):
    frame = compare_methods(ma.load_dataset("census").iloc[:90, :4], 3, ["mdav", "individual_ranking"])
    assert frame["k-anonymous"].tolist() == [True, False] and frame["groups"].tolist() == [30, 4 * 30]
    assert not recwarn.list


def test_risk_utility_takes_labelled_runs_with_parameters():
    data = ma.load_dataset("census")
    frame = risk_utility(data, [5], {"V-MDAV γ=1.1": ("vmdav", {"gamma": 1.1})})
    rel = ma.microaggregate(data, 5, method="vmdav", gamma=1.1)
    assert frame["method"].tolist() == ["V-MDAV γ=1.1"] and frame["k-anonymous"].all()
    assert frame["IL"].item() == pytest.approx(ma.metrics.information_loss(rel.Z, rel.Zp))
    assert frame["IL"].item() != pytest.approx(risk_utility(data, [5], ["vmdav"])["IL"].item())  # gamma reached it


def test_pareto_front_of_a_constructed_set_by_brute_force():
    risk = [1.0, 2.0, 3.0, 2.0, 4.0, 1.0, np.nan, 3.0]
    loss = [5.0, 3.0, 1.0, 4.0, 0.5, 5.0, 0.0, 1.0]
    # (2, 4) is beaten by (2, 3); the NaN point is never on it; (1, 5), (3, 1) each appear twice: both kept
    assert pareto_front(risk, loss).tolist() == [True, True, True, False, True, True, False, True]
    rng = np.random.default_rng(0)
    r, u = rng.integers(0, 6, 40).astype(float), rng.integers(0, 6, 40).astype(float)
    brute = [not any(r[j] <= r[i] and u[j] <= u[i] and (r[j], u[j]) != (r[i], u[i]) for j in range(40))
             for i in range(40)]
    assert pareto_front(r, u).tolist() == brute


def test_risk_utility_puts_comparison_methods_on_the_map_as_not_k_anonymous():
    data = ma.load_dataset("census")
    seen = []
    frame = risk_utility(data, [3, 10], ["mdav"], baselines={"noise": [0.1, 0.5], "rank_swap": [5]}, seed=2,
                         progress=lambda f, m: seen.append(f))
    assert list(frame.columns) == RU_COLUMNS and seen == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])
    assert frame["method"].tolist() == ["mdav", "mdav", "Noise addition", "Noise addition", "Rank swapping"]
    assert frame["setting"].tolist() == ["k = 3", "k = 10", "fraction = 0.1", "fraction = 0.5", "p = 5"]
    assert frame["k"].isna().tolist() == [False, False, True, True, True]
    assert frame["k-anonymous"].tolist() == [True, True, False, False, False]
    X = data.to_numpy(np.float64)
    Zp = ma.Standardizer.fit(X).transform(ma.baselines.noise_addition(X, 0.5, seed=2))
    assert frame["IL"].iloc[3] == pytest.approx(ma.metrics.information_loss(ma.standardize(data), Zp))
    assert frame["IL"].iloc[3] == pytest.approx(50, rel=0.1)  # noise with half the variance: IL about 50 %
    frontier = pareto_frontier(frame)
    assert set(frontier.index) == set(np.flatnonzero(pareto_front(frame["DLD"], frame["IL"])))
    assert np.all(np.diff(frontier["DLD"]) >= 0)
    with pytest.raises(ma.MicroaggError, match="unknown comparison method 'pram'"):
        risk_utility(data, [3], baselines=["pram"])
