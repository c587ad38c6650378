"""The widgets of the sidebar: a registered parameter drawn from its control (``base.controls``: the same kind,
range and step as the course's notebook widgets), a method's parameters, and k."""

from __future__ import annotations

import streamlit as st

from ..base.controls import control
from ..base.registry import Method, Param, methods
from .state import clamp, keep_state, last, moved_note, remember

K_SLIDER_MAX = 300  # the k slider's range (the box beside it goes up to the number of records)


def widget(p: Param, key: str, d: int, disabled: bool = False):
    """A widget for one registered parameter, drawn from its control (``base.controls.control``: the kind, range,
    step and default the course's widgets have too), labelled for people with the code name in its tooltip."""
    c = control(p, d)
    common = dict(help=c.help, key=key, disabled=disabled)
    if c.kind == "choice":
        value = st.selectbox(c.label, c.options, index=c.options.index(last(key, c.default)), **common)
    elif c.kind == "bool":
        value = st.checkbox(c.label, value=last(key, c.default), **common)
    elif c.kind == "text":  # a value per masked column, typed as text the method reads (e.g. DP bounds)
        value = st.text_input(c.label, value=last(key, c.default or ""), **common) or None
    else:
        old = clamp(key, c.low, c.high)
        start = {"value": c.clip(last(key, c.default))}  # None: an empty box
        if c.kind == "slider":
            value = st.slider(c.label, c.low, c.high, step=c.step, **start, **common)
        else:
            value = st.number_input(c.label, min_value=c.low, max_value=c.high, step=c.step,
                                    **({} if c.integer else {"format": "%g"}), **start, **common)
        moved_note(c.label, old, c.low, c.high)
        value = c.clip(value)
    return remember(key, value)


def parameter_widgets(m: Method, prefix: str, d: int, overridden=(), shared: str | None = None) -> dict:
    """Widgets of ``m``'s parameters, the advanced ones in an expander; a parameter without effect under the others'
    values (``Param.only_with``), or ``overridden`` by an upload, is shown disabled and not passed on. A partitioner's
    parameter that the aggregation titled ``shared`` declares ``shared`` too (``Param.shared``) gets no widget here:
    it is typed once, under the aggregation."""
    values = {}
    agg = next((a for a in methods("aggregate") if a.title == shared), None)
    common = {p.name for p in agg.params if p.shared} if agg is not None else set()

    def current(name):
        key = f"{prefix}-{name}"
        return st.session_state.get(key, last(key, m.param(name).default))

    for group in (False, True):
        chosen = [p for p in m.params if p.advanced == group]
        if not chosen:
            continue
        box = st.expander("Advanced") if group else st.container()
        with box:
            for p in chosen:
                if p.shared and p.name in common:
                    values[p.name] = p.default
                    continue
                off = p.name in overridden or not p.active({o: current(o) for o, _ in p.only_with})
                values[p.name] = widget(p, f"{prefix}-{p.name}", d, disabled=off)
    return m.active({p.name: values[p.name] for p in m.params})


def k_widgets(n: int) -> int:
    """k as a slider plus a box kept in step; the box reaches n, the slider min(n, K_SLIDER_MAX). k keeps its value
    across data changes while the data has that many records, and says so when it must come down to n."""
    top = min(n, K_SLIDER_MAX)
    for key in ("k", "k-slider"):
        keep_state(key)
    st.session_state.setdefault("k", min(5, n))
    old = clamp("k", 2, n)
    st.session_state["k-slider"] = min(st.session_state["k"], top)

    def from_slider():
        st.session_state["k"] = st.session_state["k-slider"]

    help_k = "Every released value is shared by at least k records (k-anonymity when whole records are grouped)."
    if top > 2:
        st.slider("k (minimum group size)", 2, top, key="k-slider", on_change=from_slider, help=help_k,
                  label_visibility="visible")
    k = int(st.number_input("k (minimum group size)", min_value=2, max_value=n, step=1, key="k", help=help_k,
                            label_visibility="collapsed" if top > 2 else "visible"))
    if old is not None:
        st.info(f"k = {old:,} is more than the {n:,} records of this data: k is {k:,} now.")
    remember("k-slider", st.session_state["k-slider"])
    return remember("k", k)
