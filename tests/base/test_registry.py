import re
from pathlib import Path

import pytest

import microagg as ma
from microagg.base.registry import Param, get_method, methods


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
    assert hm.caps.uses_roles and not get_method("partition", "mdav").caps.uses_roles
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
        if m.caps.bounded:
            for k in (3, 7, 101):
                sizes = np.bincount(ma.microaggregate(census, k, method=m.name).labels)
                assert sizes.min() >= k and sizes.max() <= 2 * k - 1, (m.name, k)


def test_the_public_functions_are_generated_from_the_registration():
    import inspect

    for kind in ("partition", "aggregate"):
        for m in methods(kind):
            if m.func is m.kernel:  # a function that checks its own input (P3M)
                continue
            assert m.func.__wrapped__ is m.kernel and m.func.__doc__ == m.kernel.__doc__
            sig = inspect.signature(m.kernel).parameters.values()
            named = [p for p in sig if p.kind is p.POSITIONAL_OR_KEYWORD][2 + m.caps.uses_roles:]
            assert [p.name for p in named] == [p.name for p in m.params][:len(named)], m.name
            assert all(p.default == m.param(p.name).default for p in named), m.name


def test_the_public_function_validates_once_and_the_kernel_gets_validated_input(monkeypatch):
    import numpy as np

    from microagg.base import registry

    monkeypatch.setitem(registry._REGISTRY, "partition", dict(registry._REGISTRY["partition"]))
    seen = []
    params = (Param("gamma", "float", 0.5, "g", low=0), Param("mode", "choice", "a", "m", choices=("a", "b")))

    @registry.register("partition", "probe", title="probe", summary="", source="", params=params)
    def probe(Z, k, gamma=0.5, mode="a"):
        seen.append((Z, k, gamma, mode))
        return np.zeros(len(Z), dtype=np.int64)

    rows = [[1, 2], [3, 4], [5, 6]]
    probe(rows, 3.0, 1)
    Z, k, gamma, mode = seen[-1]
    assert isinstance(Z, np.ndarray) and Z.dtype == np.float64 and Z.flags.c_contiguous and Z.tolist() == rows
    assert type(k) is int and k == 3 and type(gamma) is float and gamma == 1.0 and mode == "a"
    assert get_method("partition", "probe").kernel is probe.__wrapped__
    for args, kwargs, message in [((rows, 1), {}, "k must be an integer >= 2"),
                                  ((rows, 4), {}, "3 records but k = 4"),
                                  (([[1.0, float("nan")]] * 3, 2), {}, "non-finite"),
                                  ((rows, 2), {"gamma": -1}, "parameter 'gamma' of partition method 'probe' must lie"),
                                  ((rows, 2), {"mode": "c"}, "parameter 'mode' .* must be one of")]:
        with pytest.raises(ma.MicroaggError, match=message):
            probe(*args, **kwargs)
    with pytest.raises(TypeError):
        probe(rows, 2, delta=1)  # not a parameter of the kernel: as for any Python function
    assert len(seen) == 1  # the kernel never saw invalid input


def test_every_method_is_a_function_of_its_package():
    """A method found by discovery (its own file, not named in the package's __init__) is called like the others:
    ``ma.partition.gsms(Z, k)``, not ``ma.partition.gsms.gsms``."""
    for kind, package in (("partition", ma.partition), ("aggregate", ma.aggregate)):
        for m in methods(kind):
            public = getattr(package, m.func.__name__)
            assert public is m.func and callable(public), (kind, m.name)
            assert m.func.__name__ in package.__all__, (kind, m.name)


def test_the_menu_order_is_the_one_the_readme_gives():
    """README, "The menu.": the methods and aggregations in the order the registry (and every menu) lists them."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    menu = readme[readme.index("**The menu.**"):]
    menu = menu[:menu.index("\n- ")]
    partitioners, aggregations = menu.split("in this order:")[1].split("the aggregations")
    assert re.findall(r"`(\w+)`", partitioners) == [m.name for m in methods("partition")]
    assert re.findall(r"`(\w+)`", aggregations) == [m.name for m in methods("aggregate")]
