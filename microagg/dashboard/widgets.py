"""The widgets of the sidebar: a registered parameter's widget (label, unit, range and help from the registry),
a method's parameters, and k."""

from __future__ import annotations

import streamlit as st

from ..base.registry import Method, Param, methods
from .state import clamp, keep_state, last, moved_note, remember

K_SLIDER_MAX = 300  # the k slider's range (the box beside it goes up to the number of records)
INT_CAP = 10_000  # widget bound of an integer parameter the registry leaves unbounded


def bounds(p: Param, d: int) -> tuple:
    """The widget's range of a number parameter: the registry's, closed, with data-driven or finite caps."""
    step = 1 if p.type == "int" else 0.0
    low = None if p.low is None else (p.low + (1 if p.type == "int" else 1e-6) * p.low_open)
    high = None if p.high is None else p.high - (1 if p.type == "int" else 1e-3) * p.high_open
    if p.unit == "position":  # a position among the masked columns
        high = d - 1
    if high is None:
        high = INT_CAP if p.type == "int" else max(10.0, 100 * abs(float(p.default)))
    cast = int if p.type == "int" else float
    return cast(low if low is not None else -high), cast(high), step


def widget(p: Param, key: str, d: int, disabled: bool = False):
    """A widget for one registered parameter, labelled for people with the code name in its tooltip."""
    label, tip = p.title, f"{p.help} — {p.source} (parameter `{p.name}`)" if p.source else f"{p.help} (`{p.name}`)"
    if p.type == "choice":
        value = st.selectbox(label, p.choices, help=tip, key=key, disabled=disabled,
                             index=p.choices.index(last(key, p.default)))
    elif p.type == "bool":
        value = st.checkbox(label, help=tip, key=key, disabled=disabled, value=last(key, p.default))
    elif p.type == "array":  # a value per masked column, typed as text the method reads (e.g. DP bounds)
        value = st.text_input(label, help=tip, key=key, disabled=disabled, value=last(key, p.default or "")) or None
    elif p.type in ("int", "float"):
        low, high, _ = bounds(p, d)
        old = clamp(key, low, high)
        cast = int if p.type == "int" else float
        kept = last(key, p.default)
        start = {"value": None if kept is None else cast(min(max(kept, low), high))}  # None: an empty box
        if p.type == "float" and p.low is not None and p.high is not None and not p.low_open and not p.high_open:
            value = st.slider(label, low, high, help=tip, key=key, disabled=disabled, **start)
        else:
            value = st.number_input(label, min_value=low, max_value=high, help=tip, key=key, disabled=disabled,
                                    **({"step": 1} if p.type == "int" else {"format": "%g"}), **start)
        moved_note(label, old, low, high)
        value = None if value is None else cast(value)
    else:
        return p.default
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
