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
