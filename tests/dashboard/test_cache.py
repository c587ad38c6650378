"""The dashboard's cached stages (microagg.dashboard.cache): the release specification built once per widget change,
the data standardized once per change and not at all when only the method or the aggregation changes, each cache
keyed on the part of the specification its stages read."""

import collections
import threading
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import microagg as ma
from microagg.dashboard import cache
from microagg.data.preprocess import Standardizer
from microagg.release.spec import Params, ReleaseSpec

APP = str(Path(__file__).resolve().parents[2] / "app.py")
P3M = "P3M (proximity-breach prevention)"


@pytest.fixture
def counts(monkeypatch) -> collections.Counter:
    """Count the specifications built (``ReleaseSpec.of``) and the standardizations (``Standardizer.fit``), with the
    dashboard's caches empty."""
    st.cache_data.clear()
    st.cache_resource.clear()
    seen = collections.Counter()
    of, fit = ReleaseSpec.of.__func__, Standardizer.fit.__func__
    monkeypatch.setattr(ReleaseSpec, "of", classmethod(lambda cls, *a, **kw: (seen.update(["spec"]),
                                                                               of(cls, *a, **kw))[1]))
    monkeypatch.setattr(Standardizer, "fit", classmethod(lambda cls, X: (seen.update(["standardize"]),
                                                                         fit(cls, X))[1]))
    return seen


def test_a_widget_change_builds_the_specification_once_and_standardizes_once(counts):
    at = AppTest.from_file(APP, default_timeout=300).run()
    assert not at.exception and not at.error
    first = at.selectbox(key="aggregation").value
    counts.clear()
    at.number_input(key="k").set_value(4).run()
    assert not at.exception and not at.error
    assert counts == {"spec": 1, "standardize": 1}, counts
    counts.clear()
    at.selectbox(key="aggregation").set_value(P3M).run()  # the partition and the standardized data are kept
    assert counts == {"spec": 1}, counts
    counts.clear()
    at.selectbox(key="aggregation").set_value(first).run()  # back to choices shown before: nothing is built again
    assert counts == {}, counts
    at.checkbox(key="option-renormalize").check().run()  # an option drawn from its row: one more of each
    assert not at.exception and not at.error
    assert counts == {"spec": 1, "standardize": 1}, counts

def test_the_caches_are_keyed_on_what_their_stages_read():
    spec = ReleaseSpec.of(5, "mdav", "p3m", columns=["a"], keys=["r"], shuffle=False, variant="classic")
    other = ReleaseSpec.of(5, "mdav", "mean", columns=["a"], variant="classic")
    assert cache.partition_part(spec) == cache.partition_part(other)  # the aggregation and keys move no record
    assert cache.data_part(spec) != cache.data_part(other)  # the keys are roles of the data
    assert cache.data_part(spec) == cache.data_part(ReleaseSpec.of(5, "md", "p3m", columns=["a"], keys=["r"],
                                                                   shuffle=False))
    assert cache.partition_part(spec) != cache.partition_part(ReleaseSpec.of(5, "mdav", columns=["a"]))  # variant
    with pytest.raises(ma.MicroaggError, match="needs strata"):
        cache.specification(5, "mdav", "mean", Params(), Params(), {"strata_scaling": "stratum"})


def test_publication_options_drawn_from_their_rows_reach_the_release_and_its_download():
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["tab"] = "Release"
    at.run()
    at.checkbox(key="option-shuffle").check().run()
    at.checkbox(key="option-keep_index").check().run()
    assert not at.exception and not at.error
    code = " ".join(c.value for c in at.code)
    assert "shuffle=False" in code and "keep_index=True" in code and "--no-shuffle --keep-index" in code
    caption = " ".join(c.value for c in at.caption)
    assert "row labels kept (keep index)" in caption and "rows in the input's order (no shuffle" in caption
    census = ma.load_dataset("census")
    rel = ma.microaggregate(census, 5, shuffle=False, keep_index=True)
    assert cache.release_csv(rel.protected, True) == rel.to_csv().encode()  # the index column, as to_csv writes it


@pytest.mark.parametrize("value", ["abc", "0", "-2", "1.5"])
def test_a_bad_blas_thread_count_gets_one_message(monkeypatch, value):
    monkeypatch.setenv("MICROAGG_BLAS_THREADS", value)
    cache.blas_threads.clear()
    with pytest.raises(ma.MicroaggError, match=f"MICROAGG_BLAS_THREADS must be an integer >= 1.*got '{value}'"):
        cache.blas_threads()
    monkeypatch.setenv("MICROAGG_BLAS_THREADS", "2")
    cache.blas_threads.clear()
    assert cache.blas_threads() == 2
    monkeypatch.setenv("MICROAGG_BLAS_THREADS", "1")  # back to the server's default for the other tests
    cache.blas_threads.clear()
    assert cache.blas_threads() == 1


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_failed_warm_up_lets_the_pages_waiting_for_mdav_go_on(monkeypatch):
    """The background compile fails (a kernel cache it cannot write, memory): the sessions waiting for MDAV go on
    (their own run then compiles and says any error) instead of waiting for ever."""
    def fails(*args, **kwargs):
        raise OSError("the kernel cache cannot be written")

    monkeypatch.setattr(cache.warmup, "warm_up", fails)
    monkeypatch.setattr(cache.warmup, "compiles_for", lambda n: True)
    st.cache_resource.clear()
    try:
        waiting = threading.Thread(target=cache.wait_for_mdav, args=(50_000,), daemon=True)
        waiting.start()
        waiting.join(60)
        assert not waiting.is_alive()
        cache.kernels().thread.join(60)
    finally:
        st.cache_resource.clear()
