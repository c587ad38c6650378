"""The Release tab: the table as published, its downloads (release, report, HTML report), the report's headline
and the commands that reproduce it."""

from __future__ import annotations

import streamlit as st

from ...base.rows import public
from ...base.said import caught
from ...data.io import write_csv
from ...figures import tables
from ...lab.html_report import html_report
from ...release import recipe
from ..cache import Result, release_csv
from ..sidebar import Setup
from .common import table_height


def tab_release(s: Setup, r: Result) -> None:
    report = public(r.report())  # the noise seed of an ε-DP release only in the files marked private
    spec = r.spec
    st.dataframe(r.protected, height=320, width="stretch", hide_index=not spec.keep_index)
    d1, d2, d3 = st.columns(3)
    d1.download_button("Download the release (CSV)", release_csv(r.protected, spec.keep_index),
                       file_name="release.csv", mime="text/csv", key="download-release")
    d2.download_button("Download the report (CSV)", lambda: write_csv(report, index=False).encode(),
                       file_name="report.csv", mime="text/csv", key="download-report")
    d3.download_button("Download the report (HTML, private)", lambda: release_html(s, r), file_name="report.html",
                       mime="text/html", key="download-report-html",
                       help="One page that opens offline: parameters, metrics, plots, the recipe and its seed. Keep "
                            "it private, like the data.")
    labels = "the input's row labels kept (keep index)" if spec.keep_index else "the input's row labels left out"
    order = ("rows in the input's order (no shuffle: whoever holds the original in its order can link them)"
             if not spec.shuffle else "rows in a random order")
    seeds = "the shuffle's seed and the noise's seed of an ε-DP release" if spec.shuffle else \
        "the noise's seed of an ε-DP release"
    st.caption(f"The release as published: identifiers left out, {labels}, {order}. The commands below carry {seeds}: "
               "keep them private, like the data (the report's CSV leaves the noise seed out). Text cells a "
               "spreadsheet would run as a formula get a leading quote.")
    st.subheader("Report")
    headline = tables.headline(report)
    st.dataframe(headline, hide_index=True, width="stretch", height=table_height(len(headline)))
    full = st.expander(f"The full report ({len(report)} rows: every metric, per attribute, with its source)",
                       key="report-open", on_change="rerun")
    if full.open:
        full.dataframe(tables.formatted(report), hide_index=True, width="stretch", height=420)
    st.subheader("Reproduce this release")
    st.caption("Both write the same release.csv as the download button.")
    st.code(recipe.python_snippet(spec, s.data_expr), language="python")
    st.code(recipe.cli_command(spec, s.data_args), language="bash")


def release_html(s: Setup, r: Result) -> bytes:
    """The HTML report of the release shown (the same object: its shuffle), for the download button."""
    page, _ = caught(lambda: html_report(r.released.rel, data=s.data_expr, data_args=s.data_args))  # said already
    return page.encode()
