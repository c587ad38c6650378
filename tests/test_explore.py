import numpy as np
import pytest

import microagg as ma
from microagg.explore import RU_COLUMNS, risk_utility


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
    seed003 = risk_utility(data, [3], dld_rule="1st_or_2nd")
    rel = ma.microaggregate(data, 3)
    assert seed003["DLD"].item() == pytest.approx(ma.metrics.dld(rel.Z, rel.Zp, "1st_or_2nd"))
    assert seed003["DLD"].item() > expected["DLD"].item()  # either of two neighbours links more records
    with pytest.raises(ma.MicroaggError, match="'rule' must be one of"):
        risk_utility(data, [3], dld_rule="nearest")
