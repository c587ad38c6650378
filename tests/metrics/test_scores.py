import pytest

import microagg as ma
from microagg.metrics import scores


def test_scores_by_hand():
    assert scores.dr_mortazavi(20, 40) == 30
    assert scores.si_mortazavi(30, 10) == 20
    assert scores.g_dr(60, 2) == 31
    assert scores.si_oommen(28, 31) == 29.5
    assert scores.si_oommen(28, 31, x=1) == 28 and scores.si_oommen(28, 31, x=0) == 31


def test_bad_input():
    with pytest.raises(ma.MicroaggError, match=r"'x'.*\[0, 1\]"):
        scores.si_oommen(1, 2, x=1.5)
    with pytest.raises(ma.MicroaggError, match="'dld' must be a number"):
        scores.dr_mortazavi("high", 2)
    with pytest.raises(ma.MicroaggError, match="'il' must be a number"):
        scores.si_mortazavi(1, float("nan"))
