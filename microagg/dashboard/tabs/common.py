"""What several tabs use: table heights, identifier-like columns, the note on a result computed for earlier
settings."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ...privacy.safety import identifiers


def table_height(rows: int, cap: int = 16) -> int:
    """A dataframe height that shows ``rows`` rows without an inner scroll bar (up to ``cap`` rows)."""
    return 38 + 35 * min(rows, cap)


def looks_like_identifier(column: pd.Series) -> bool:
    """The identifier rule of the API (``ma.identifiers``) on one column: not a quantity to plot by default."""
    return bool(identifiers(column.to_frame()))


def stale_note(what: str, shown_for: tuple, now: tuple) -> None:
    if shown_for != now:
        st.warning(f"This {what} was computed for earlier settings (sidebar or the controls above). Press the button "
                   "to compute it for the current ones.", icon="🕒")
