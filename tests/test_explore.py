import numpy as np
import pytest

import microagg as ma
from microagg.explore import COMPARE_COLUMNS, RU_COLUMNS, compare_methods, risk_utility


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
