"""The page: the headline of the release the sidebar chose, its caveats, and the tabs.

The tabs in their order are :data:`TABS`, each drawn by a function of a module of ``tabs/``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ..base.advice import scale_hint
from ..base.errors import MicroaggError
from ..figures import tables
from ..release.stages import EXACT_VALUES, KEPT_BREAKS, KEYS_BREAK, NOT_WHOLE_RECORDS
from .cache import Result, blas_threads, overall, partition, read_doc, release, wait_for_mdav, withheld
from .sidebar import Setup, sidebar
from .tabs.aggregation import tab_aggregation
from .tabs.partition import tab_partition
from .tabs.privacy import tab_privacy
from .tabs.release import tab_release
from .tabs.risk import tab_risk


def compute(s: Setup) -> Result:
    """The partition, the release of the sidebar's specification and its summary (each cached, keyed on the part of
    the specification its stages read: ``cache``); MicroaggError propagates."""
    spec = s.spec
    if s.part.name == "mdav":
        wait_for_mdav(len(s.df))
    labels, notes = partition(s.df, spec)
    held = release(s.df, spec, labels)
    summary, said = held.summary(s.ekey)
    return Result(labels, held, summary, s.ekey, tuple(dict.fromkeys(notes + held.notes + said)))


def headline(s: Setup, r: Result) -> None:
    values = overall(r.summary)
    c1, c2, c3, c4 = st.columns(4)
    il = float(values["IL"] if "IL" in values else values["IL (observed cells)"])
    c1.metric("Information loss (IL)", "undefined" if np.isnan(il) else f"{il:.3f} %",
              help="100·SSE/SST on z-scores (Chettri, Paul & Dutta, Eq. 4); undefined when every record is "
                   "identical (SST = 0).")
    row = r.summary[r.summary["metric"] == "groups"].iloc[0]
    if s.part.record_level:
        c2.metric("Groups", f"{int(row['value']):,}")
    else:  # (a univariate method groups every attribute on its own: the report counts them all)
        c2.metric("Groups (all attributes)", f"{int(row['value']):,}",
                  help=f"{s.part.title} groups each of the {len(s.masked)} masked columns on its own; this counts "
                       "the groups of all of them together.")
    c3.metric("Smallest equivalence class", int(values["smallest equivalence class"]),
              help="Released rows identical on all masked and key columns; k-anonymity needs at least k.")
    c4.metric("k-anonymous", "yes" if bool(values["k-anonymous"]) else "NO",
              help="On the masked columns and the key columns, for the file as published.")
    caveats(s, r, values)


SHOWN = (NOT_WHOLE_RECORDS, KEYS_BREAK, KEPT_BREAKS, EXACT_VALUES)  # notes the caveats below say in their own words


def caveats(s: Setup, r: Result, values: pd.Series) -> None:
    """What the release does not protect, said on the page (``values``: the summary's, over all attributes), and
    every other warning its run said (HM-pfsom's classes that cannot be diverse, say)."""
    k_anonymous = bool(values["k-anonymous"])
    if not k_anonymous and s.keys and s.part.record_level:
        st.warning(f"**The key columns {', '.join(s.keys)} break k-anonymity:** "
                   f"{int(values['records in classes < k'])} released rows share their keys and masked values with "
                   "fewer than k others. Tick 'Microaggregate inside each combination of the keys'.", icon="⚠️")
    elif not k_anonymous:
        why = " ".join(note for note in r.notes if NOT_WHOLE_RECORDS.match(note)) or s.part.summary
        st.warning(f"**This release is not k-anonymous as whole records.** {why}", icon="⚠️")
    uncovered = r.summary[r.summary["metric"].str.startswith("kept column not in the k-anonymity check")]
    for row in uncovered.itertuples():
        st.info(f"Kept column **{row.attribute}** is not in the k-anonymity check: if an intruder knows it, "
                f"{tables.format_value(row.value, row.unit)} released rows become unique. Declare it a key if it "
                "may be known.", icon="ℹ️")
    if "exact cells" in values and float(values["exact cells"]) > 0:
        flat = [c for c in s.masked if s.df[c].nunique() <= 1]  # (one value on every record: says nothing)
        plain = (f" Among them every cell of {', '.join(flat)}, which hold{'s' if len(flat) == 1 else ''} one value "
                 "on every record: that value says nothing about anyone.") if flat else ""
        st.info(f"{float(values['exact cells']):.2f} % of the masked cells are published exactly as in the original "
                f"({float(values['exact records']):.2f} % of the records have one)"
                + (" — the median of a group of odd size is one member's own value." if s.agg.name == "median"
                   else ".") + plain, icon="ℹ️")
    exact = [*s.confidential, *s.keep]
    if exact:
        st.info(f"Released with their exact values: {', '.join(exact)} (confidential or kept unmasked). Check that "
                "no identifier (name, ID, record number) is among them.", icon="ℹ️")
    for note in r.notes:
        if not any(kind.match(note) for kind in SHOWN):
            st.warning(note, icon="⚠️")


# The tabs in their order: a title and a function drawing it from the sidebar's choices and the release (README,
# "Architecture": adding a tab is one function, in a new module of tabs/, and one line here, beside its import).
TABS = {"Partition": tab_partition, "Aggregation": tab_aggregation, "Risk & utility": tab_risk,
        "Personalized privacy": tab_privacy, "Release": tab_release}


def main() -> None:
    try:
        blas_threads()
    except MicroaggError as exc:
        st.error(exc.shown)
        st.stop()
    st.title("microagg — microaggregation lab")
    st.caption("Partition numeric records into groups of at least k, publish a group value instead of each record, "
               "and see what it costs in information loss.")
    s = sidebar()
    problem, r = None, None
    if not s.columns:
        ids = withheld(s.df)
        problem = "Select at least one numeric column to mask ('Columns to mask')." + (
            " None is selected by default here: " + "; ".join(f"{c} is left out as an identifier ({why})"
                                                             for c, why in ids.items()) + "." if ids else "")
    else:
        try:
            r = compute(s)
        except MicroaggError as exc:
            problem = exc.shown
    hint = scale_hint(len(s.df), len(s.masked), s.part) if s.columns else None
    if hint:
        st.info(f"This may take long: {hint}")
    if r is not None:
        headline(s, r)
    else:
        st.error(problem)
    tabs = st.tabs(list(TABS), key="tab", on_change="rerun")
    for tab, draw in zip(tabs, TABS.values()):
        if tab.open:
            with tab:
                if r is None:
                    st.info("Nothing to show until the problem above is fixed in the sidebar.")
                    continue
                if s.survey and draw is not tab_release:
                    st.info("With sampling weights or missing cells, only the Release tab is drawn: this tab "
                            "compares methods and metrics that need complete, unweighted records (docs/methods.md "
                            "§8), as do the sidebar's metric options. The report in the Release tab has the survey "
                            "metrics.")
                    continue
                try:
                    draw(s, r)
                except MicroaggError as exc:  # e.g. a metric the whole report computes on opening the tab
                    st.error(exc.shown)
    references()


def references() -> None:
    """The papers cited on the page (by authors and year), with full entries; definitions are in docs/."""
    refs = st.expander("References: the papers cited on this page", key="refs-open", on_change="rerun")
    if refs.open:
        refs.caption("Definitions and the decisions taken where a paper is ambiguous: docs/methods.md and "
                     "docs/metrics.md in the repository; published tables beside ours: docs/reproductions.md.")
        refs.markdown(read_doc("references.md").split("\n", 1)[1])
