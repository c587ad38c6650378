"""The parameter widgets (AppTest) are drawn from the same controls as the course's notebook widgets
(``base.controls``): one parameter, one range, step, default, label and help in both."""

import pytest

from microagg.lab import course

from .test_page import P3M, ok, start

# the dashboard's widget kind for each kind of control, and the course's
DASHBOARD = {"Slider": "slider", "NumberInput": "number", "Selectbox": "choice", "Checkbox": "bool"}
COURSE = {"FloatSlider": "slider", "BoundedFloatText": "number", "BoundedIntText": "number", "Dropdown": "choice",
          "Checkbox": "bool"}


@pytest.fixture(scope="module")
def p3m_page():
    at = start()
    at.selectbox(key="aggregation").set_value(P3M).run()
    ok(at)
    return at


@pytest.mark.parametrize("key, name", [("a-p3m-alpha", "alpha"), ("a-p3m-delta", "delta"), ("a-p3m-w", "w"),
                                       ("a-p3m-w_seed", "w_seed"), ("a-p3m-weights", "weights"),
                                       ("a-p3m-relative", "relative"), ("m-p", "p")])
def test_the_dashboard_and_the_course_draw_a_parameter_alike(p3m_page, key, name):
    drawn = next(w for w in [*p3m_page.slider, *p3m_page.number_input, *p3m_page.selectbox, *p3m_page.checkbox]
                 if w.key == key)
    notebook = course.control(name)
    assert DASHBOARD[type(drawn).__name__] == COURSE[type(notebook).__name__]
    assert (drawn.value, drawn.label, drawn.help) == (notebook.value, notebook.description, notebook.tooltip)
    if hasattr(drawn, "step"):
        assert (drawn.min, drawn.max, drawn.step) == (notebook.min, notebook.max, notebook.step)
