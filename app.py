"""microagg dashboard: pick data, k, a partitioning method and an aggregation; see what it costs.

Run with ``streamlit run app.py``. The page is the package ``microagg.dashboard`` (README, "Architecture").
"""

import streamlit as st

from microagg.dashboard.page import main

st.set_page_config(page_title="microagg", layout="wide")
main()
