"""Widget values kept across runs: Streamlit drops the state of a widget that a run does not draw (another data
source, aggregation or tab), so each widget's last value is remembered in ``st.session_state["_kept"]`` and brought
back, moved into the range the new data allows, and the page says so when it must change it."""

from __future__ import annotations

import streamlit as st


def keep_state(key: str) -> bool:
    """Set widget ``key`` (k and its slider, kept in step through Session State) to its current value, or to its
    last one if Streamlit dropped it because the widget was not drawn in a run: a value set by the script is sent
    to the browser, which otherwise draws a widget it lost (a run that stopped before it, e.g. a data source
    waiting for its file) at the widget's default while the server still uses the value. True if it has one."""
    kept = st.session_state.setdefault("_kept", {})
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
    elif key in kept:
        st.session_state[key] = kept[key]
    return key in st.session_state


def last(key: str, default):
    """The value widget ``key`` had when last drawn, else ``default``. Passed as the widget's value, it brings a
    widget back as it was after runs that did not draw it (another aggregation or tab was chosen)."""
    return st.session_state.setdefault("_kept", {}).get(key, default)


def remember(key: str, value):
    st.session_state.setdefault("_kept", {})[key] = value
    return value


def initial(key: str, name: str, value) -> dict:
    """``{name: value}``: a widget's default, its last value if it had one."""
    return {name: last(key, value)}


def choose(draw, label: str, options: list, key: str, default, **kwargs):
    """``draw`` (``st.selectbox`` or ``st.radio``, of the sidebar or a column) drawn at the value it had when last
    drawn, in the browser as on the server, across runs that did not draw it (another data source, a file not
    uploaded yet, data without missing cells). A value that is no longer one of ``options`` gives way to
    ``default``, said in a caption."""
    value = last(key, default)
    if value not in options or st.session_state.get(key, value) not in options:
        st.session_state.pop(key, None)
        if value != default:
            show = kwargs.get("format_func", str)
            st.caption(f"{label}: '{show(value)}' is not available here; '{show(default)}' is used.")
        value = default
    return remember(key, draw(label, options, index=options.index(value), key=key, **kwargs))


def choose_many(draw, label: str, options: list, key: str, default: list, **kwargs) -> list:
    """``draw`` (a multiselect) as :func:`choose`: its last selection kept; the chosen values that are no longer
    options (a column not in new data uploaded under the same name) are dropped, said in a caption."""
    value = list(last(key, default))
    gone = [v for v in dict.fromkeys([*value, *st.session_state.get(key, [])]) if v not in options]
    if gone:
        st.session_state.pop(key, None)
        st.caption(f"{label}: {', '.join(map(str, gone))} {'is' if len(gone) == 1 else 'are'} not in this data, "
                   "so no longer selected.")
    return remember(key, draw(label, options, default=[v for v in value if v in options], key=key, **kwargs))


def clamp(key: str, low, high):
    """Bring a widget's value into [low, high] (the data changed under it) instead of letting it raise: an
    out-of-range state is dropped and its remembered value moved into the range. An empty box (None) stays empty.
    Returns the value it had if it was moved (for the caller to say so), else None."""
    kept = st.session_state.setdefault("_kept", {})
    moved = None
    if kept.get(key) is not None and not low <= kept[key] <= high:
        moved = kept[key]
        kept[key] = type(low)(min(max(kept[key], low), high))
    if st.session_state.get(key) is not None and not low <= st.session_state[key] <= high:
        moved = st.session_state[key]
        if key in ("k", "k-slider"):
            st.session_state[key] = type(low)(min(max(st.session_state[key], low), high))
        else:
            del st.session_state[key]
    return moved


def moved_note(label: str, old, low, high) -> None:
    """Say that a setting changed because the data no longer allows its value (:func:`clamp`)."""
    if old is not None:
        new = min(max(old, low), high)
        st.caption(f"{label}: {old:g} is outside {low:g}…{high:g} here, so it is now {new:g}.")


def inside(key: str, top: int) -> None:
    """Keep a k range slider's value within 2..top (the data may have fewer records than its last value)."""
    kept = st.session_state.setdefault("_kept", {})
    if key in kept:
        kept[key] = tuple(min(max(v, 2), top) for v in kept[key])
    if key in st.session_state and max(st.session_state[key]) > top:
        del st.session_state[key]
