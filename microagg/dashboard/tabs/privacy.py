"""The Personalized privacy tab: SL of P3M over α, the privacy weights, and SL over k and α."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ...base.errors import MicroaggError
from ...figures import plots
from ...lab.explore import satisfaction_grid
from ...privacy.wishes import cells
from ...release.spec import Params
from ..cache import Result, sl_alpha
from ..sidebar import Setup
from ..state import initial, inside, remember
from .common import stale_note, table_height


def tab_privacy(s: Setup, r: Result) -> None:
    st.write("Mortazavi & Jalili's (2017) model: each owner asks that the released value stay at least **Δ** away "
             "from theirs, with importance **w**; P3M shifts every group's value to minimize, with weight **α**, the "
             "gaps between each squared released distance and Δ² (too near and too far alike, scaled by "
             "1 / (1 − w)) against, with weight 1 − α, the size of the shifts, while keeping every mean and "
             "variance. It does not count wishes met: the satisfaction level SL, the weighted share of wishes met, "
             "is measured on its result.")
    alphas = tuple(np.round(np.linspace(0, 1, 11), 2))
    privacy = s.privacy
    try:
        frame = sl_alpha(r.Z, r.labels, alphas, tuple(sorted(privacy.items())))
    except MicroaggError as exc:
        st.error(exc.shown)
    else:
        left, right = st.columns([3, 2])
        left.plotly_chart(plots.satisfaction_over_alpha(frame), width="stretch")
        W = cells(r.Z, **privacy)[1]
        if np.ptp(W) > 0:
            right.plotly_chart(plots.weights_histogram(W), width="stretch")
        else:
            right.metric("Privacy weight of every cell", f"w = {W.flat[0]:g}",
                         help="Choose P3M with weights = random (or upload per-record weights) to vary it.")
        number = st.column_config.NumberColumn(format="%.2f")
        st.dataframe(frame, hide_index=True, width="stretch", height=table_height(len(frame)),
                     column_config={c: number for c in ("alpha", "SL P3M", "SL mean (renormalized)", "IL P3M")})
        st.caption("status per attribute: 'optimal' = certified global optimum (the dual bound closes the gap); "
                   "'local' = a feasible local optimum, its gap to the bound is reported in the release report.")
    st.subheader("SL over k and α")
    sl_heatmap(s)


def sl_grid(df: pd.DataFrame, columns: tuple, confidential: tuple, ks: tuple, alphas: tuple, method: str,
            mparams: tuple, privacy: tuple):
    bar = st.progress(0.0, text="Computing SL over k and α…")
    grid = satisfaction_grid(df, ks, alphas, method, list(columns), dict(mparams),
                             progress=lambda f, msg: bar.progress(f, text=f"Computing SL over k and α: {msg}"),
                             confidential=list(confidential) or None, **dict(privacy))
    bar.empty()
    return grid


@st.fragment
def sl_heatmap(s: Setup) -> None:
    h1, h2 = st.columns(2)
    top = min(20, len(s.df))
    inside("sl-k", top)
    hk = remember("sl-k", h1.slider("k from … to", 2, max(3, top), key="sl-k",
                                    **initial("sl-k", "value", (min(3, top), min(10, top)))))
    hk = (min(hk[0], top), min(hk[1], top))
    ha = remember("sl-alpha", h2.select_slider("α values", options=[3, 5, 6, 11], key="sl-alpha",
                                               **initial("sl-alpha", "value", 6)))
    ks = tuple(sorted({hk[0], hk[1], *range(hk[0], hk[1] + 1, max(1, (hk[1] - hk[0]) // 6))}))
    alphas = tuple(np.round(np.linspace(0, 1, ha), 2))
    privacy = tuple(sorted(s.privacy.items()))
    now = (s.data_expr, len(s.df), tuple(s.masked), tuple(s.confidential), ks, alphas, s.part.name, s.mkey,
           Params(dict(privacy)).key)
    if st.button("Compute the heat-map", key="sl-go"):
        try:
            grid = sl_grid(s.df, tuple(s.masked), tuple(s.confidential), ks, alphas, s.part.name, s.mkey, privacy)
        except MicroaggError as exc:
            st.error(exc.shown)
            return
        st.session_state["sl-result"] = (now, grid)
    if "sl-result" in st.session_state:
        shown_for, grid = st.session_state["sl-result"]
        stale_note("heat-map", shown_for, now)
        st.plotly_chart(plots.satisfaction_heatmap(grid), width="stretch")
