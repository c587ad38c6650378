"""The control of a registered parameter: the range, step and default that the dashboard's and the course's widgets
both draw (``base.controls``)."""

import math

import pytest

import microagg  # noqa: F401  (registers the methods)
from microagg.base.controls import INT_CAP, control
from microagg.base.registry import Param, get_method, methods
from microagg.metrics.registry import PARAMS as EVALUATION

NUMBERS = [(f"{m.name}.{p.name}", p) for kind in ("partition", "aggregate") for m in methods(kind)
           for p in m.params if p.type in ("int", "float")] + \
          [(f"evaluate.{p.name}", p) for p in EVALUATION.values() if p.type in ("int", "float")]


@pytest.mark.parametrize("p", [p for _, p in NUMBERS], ids=[name for name, _ in NUMBERS])
def test_every_value_a_number_control_offers_is_one_the_registry_accepts(p):
    c = control(p, d=3)
    assert p.validate(c.low, "test") == c.low and p.validate(c.high, "test") == c.high
    assert c.low < c.high and c.step > 0
    if p.default is not None:
        assert c.low <= p.default <= c.high and c.clip(p.default) == p.default
        on_grid = round(p.default / c.step)
        assert math.isclose(on_grid * c.step, p.default, rel_tol=1e-9), "the default lies on the step's grid"
    assert c.kind == ("slider" if p.type == "float" and p.low is not None and p.high is not None
                      and not p.low_open and not p.high_open else "number")


def test_open_ends_move_in_by_a_step_of_the_type_and_missing_ends_are_capped():
    w = control(get_method("aggregate", "p3m").param("w"))
    assert (w.kind, w.low, w.high, w.step, w.digits) == ("number", 0.0, 0.999, 0.001, 3)
    epsilon = control(get_method("aggregate", "laplace").param("epsilon"))
    assert epsilon.low == 1e-6 and epsilon.high == 100.0 and epsilon.step == 0.01
    c_max = control(get_method("partition", "hmpfsom").param("c_max"))
    assert (c_max.low, c_max.high, c_max.step, c_max.integer) == (2, INT_CAP, 1, True)
    free = control(Param("shift", "float", -0.5, "a shift"))
    assert (free.low, free.high) == (-50.0, 50.0)


def test_a_column_position_is_capped_by_the_masked_columns():
    column = get_method("partition", "projection").param("column")
    assert control(column, d=4).high == 3 and control(column).high == INT_CAP


def test_a_tolerance_gets_a_step_as_fine_as_its_default():
    tol = control(get_method("partition", "hmpfsom").param("tol"))
    assert tol.step == 1e-5 and tol.digits == 5


def test_choices_bools_and_arrays_and_the_help_naming_the_code_name():
    p3m = get_method("aggregate", "p3m")
    solver = control(p3m.param("solver"))
    assert solver.kind == "choice" and solver.options == p3m.param("solver").choices and solver.default == "dual"
    assert control(p3m.param("relative")).kind == "bool"
    bounds = [p for p in get_method("aggregate", "laplace").params if p.type == "array"][0]
    assert control(bounds).kind == "text"
    alpha = control(p3m.param("alpha"))
    assert alpha.label == p3m.param("alpha").title and alpha.help.endswith("(parameter `alpha`)")
    assert control(Param("x", "int", 1, "an x")).help == "an x (`x`)"


def test_clip_moves_a_value_into_the_range_and_keeps_an_empty_box():
    c = control(get_method("aggregate", "p3m").param("w"))
    assert c.clip(5) == 0.999 and c.clip(-1) == 0.0 and c.clip(None) is None
    assert type(control(get_method("partition", "hmpfsom").param("seed")).clip(3.0)) is int
