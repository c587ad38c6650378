import pytest

import microagg as ma
from microagg.registry import Param, get_method, methods


def test_registered_methods_describe_their_parameters():
    names = {m.name for m in methods("partition")}
    assert "mdav" in names
    assert {m.name for m in methods("aggregate")} >= {"mean", "median"}
    p = get_method("partition", "mdav").param("variant")
    assert p.default == "generic" and set(p.choices) == {"generic", "classic", "mdav1", "single"}
    assert p.help and p.source


def test_param_validation():
    p = Param("alpha", "float", 0.5, "weight", low=0, high=1)
    assert p.validate(1, "x") == 1.0
    with pytest.raises(ma.MicroaggError, match=r"'alpha'.*\[0, 1\]"):
        p.validate(1.5, "x")
    with pytest.raises(ma.MicroaggError, match="a number"):
        p.validate("a", "x")
    q = Param("n", "int", 2, "count", low=1, high_open=True, high=10)
    assert q.validate(3.0, "x") == 3
    with pytest.raises(ma.MicroaggError, match="integer"):
        q.validate(2.5, "x")
    with pytest.raises(ma.MicroaggError, match=r"\[1, 10\)"):
        q.validate(10, "x")
    with pytest.raises(ma.MicroaggError, match="True or False"):
        Param("b", "bool", False, "flag").validate(1, "x")


def test_unknown_parameter_of_a_method():
    with pytest.raises(ma.MicroaggError, match="does not take"):
        get_method("partition", "mdav").resolve({"gamma": 1})


def test_array_ok_float_parameters_take_arrays_unchecked():
    import numpy as np

    p = Param("w", "float", 0.1, "weight", low=0, high=1, high_open=True, array_ok=True)
    arr = np.full((2, 3), 0.5)
    assert p.validate(arr, "x") is arr and p.validate(0.2, "x") == 0.2
    with pytest.raises(ma.MicroaggError, match=r"\[0, 1\)"):
        p.validate(1.0, "x")
    with pytest.raises(ma.MicroaggError, match="a number"):
        Param("d", "float", 0.1, "no arrays").validate([0.1, 0.2], "x")


def test_methods_declare_whether_they_use_roles():
    hm = get_method("partition", "hmpfsom")
    assert hm.uses_roles and not get_method("partition", "mdav").uses_roles
    assert hm.param("scaling").choices == ("zscore", "minmax") and hm.param("c").default == 0
    assert all(p.help and p.source for p in hm.params)


def test_mdav_stays_the_first_and_default_method():
    assert methods("partition")[0].name == "mdav"


def test_a_parameter_with_no_effect_under_the_others_is_refused_unless_left_at_its_default():
    p3m = get_method("aggregate", "p3m")
    with pytest.raises(ma.MicroaggError, match=r"'w' .* only with weights='given', not with weights='random'"):
        p3m.resolve({"weights": "random", "w": 0.5})
    assert p3m.resolve({"weights": "random", "w": 0.001})["weights"] == "random"  # the default: harmless
    assert p3m.resolve({"weights": "random", "w_seed": 7})["w_seed"] == 7
    import numpy as np

    with pytest.raises(ma.MicroaggError, match="'w' .* only with"):
        p3m.resolve({"weights": "random", "w": np.full(3, 0.001)})  # an array is never the default
    assert p3m.active({"weights": "random", "w": 0.5, "w_seed": 2, "alpha": 0.3}) == \
        {"weights": "random", "w_seed": 2, "alpha": 0.3}
    assert get_method("partition", "hmpfsom").active({"c": 3, "c_max": 4}) == {"c": 3}


def test_every_parameter_has_a_label_and_its_switch_exists():
    for kind in ("partition", "aggregate"):
        for m in methods(kind):
            for p in m.params:
                assert p.label, (m.name, p.name)
                for other, allowed in p.only_with:
                    switch = m.param(other)  # the parameter it depends on exists
                    assert all(switch.validate(v, m.name) == v for v in allowed), (m.name, p.name)


def test_bounded_methods_keep_every_group_between_k_and_2k_minus_1():
    import numpy as np

    census = ma.load_dataset("census")
    for m in methods("partition"):
        if m.bounded:
            for k in (3, 7, 101):
                sizes = np.bincount(ma.microaggregate(census, k, method=m.name).labels)
                assert sizes.min() >= k and sizes.max() <= 2 * k - 1, (m.name, k)
