"""Sessions of one server kept apart: a class at once, each page with its own warnings, its own noise seed, its own
uploaded data's results; what they share is computed once."""

import re
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import microagg as ma
from microagg.dashboard import cache
from microagg.release.spec import ReleaseSpec

from .test_page import APP, ok

LAPLACE = ma.registry.get_method("aggregate", "laplace").title
INSENSITIVE = ma.registry.get_method("partition", "insensitive_mdav").title


def together(n: int, student) -> list:
    """``student(i)`` for i < n, each in a thread of its own, all at once (a class opening the page)."""
    out, errors = [None] * n, []
    barrier = threading.Barrier(n)

    def run(i):
        try:
            barrier.wait()
            out[i] = student(i)
        except BaseException as exc:  # noqa: BLE001 - reported below, with the student it happened to
            errors.append((i, exc))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return out


def test_concurrent_releases_each_carry_their_own_warnings():
    """What the page computes (``page.compute``: the cached partition, release and summary), for six students at
    once, at k = 3..8 with Individual ranking (which warns 'NOT k-anonymous' with its k), three times over (then
    from the caches), while another thread keeps opening ``catch_warnings`` that record and ignore everything (as
    libraries do, pandas on many calls): each gets the warning of its own k, every time, and no other's."""
    st.cache_data.clear()
    st.cache_resource.clear()
    df, ks = ma.load_dataset("census"), [3, 4, 5, 6, 7, 8]
    columns = tuple(df.columns[:6])

    def student(i):
        said = []
        for _ in range(3):
            spec = ReleaseSpec.of(ks[i], "individual_ranking", "mean", columns=columns)
            labels, notes = cache.partition(df, spec)
            held = cache.release(df, spec, labels)
            _, more = held.summary(())
            said.append(" ".join(notes + held.notes + more))
        return said

    done = threading.Event()

    def neighbour():
        while not done.is_set():
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("ignore")
                done.wait(0.001)

    thread = threading.Thread(target=neighbour)
    thread.start()
    try:
        students = together(len(ks), student)
    finally:
        done.set()
        thread.join()
    for i, said in enumerate(students):
        for text in said:
            assert f"NOT {ks[i]}-anonymous" in text, (ks[i], text)
            assert not any(f"NOT {k}-anonymous" in text for k in ks if k != ks[i]), (ks[i], text)


def seeds_of_two_sessions(pattern: str, **state) -> list[str]:
    """Two students opening the Release tab with ``state`` set: the seed each one's recipe shows (``pattern``'s
    group), the same on every run of that session."""
    seeds = []
    for _ in range(2):
        at = AppTest.from_file(APP, default_timeout=300)
        for name, value in {**state, "tab": "Release"}.items():
            at.session_state[name] = value
        at.run()
        ok(at)
        code = [c.value for c in at.code]
        seeds.append(re.search(pattern, code[0]).group(1))
        at.run()
        assert [c.value for c in at.code] == code  # the same release on every run of the session
    return seeds


def test_an_empty_seed_box_draws_a_noise_seed_per_session_never_shared():
    """Two students at the same settings, the noise seed box empty: each gets a seed of their own (who knew
    another's could take the noise off that release), kept across their own runs."""
    seeds = seeds_of_two_sessions(r"noise_seed=(\d+)", method=INSENSITIVE, aggregation=LAPLACE,
                                  **{"a-laplace-bounds": ",".join(["0:1e6"] * 13)})
    assert seeds[0] != seeds[1], seeds


def test_an_empty_shuffle_seed_is_drawn_per_session_never_shared():
    """Two students on the same data at the same settings, the seed box empty: each gets a shuffle seed of their own
    (who knew another's could put that release back in the input's order), kept across their own runs."""
    seeds = seeds_of_two_sessions(r"\bseed=(\d+)")
    assert seeds[0] != seeds[1], seeds


def test_sessions_with_their_own_shuffles_share_the_stages_and_the_reports(monkeypatch):
    """Two students at the same settings, each with a shuffle seed of their own: the data is standardized once, the
    groups aggregated once and each report computed once for both (a report reads no row order); only the release
    stage, which orders the rows, is each session's."""
    st.cache_resource.clear()
    st.cache_data.clear()
    calls = {"standardize": [], "aggregate": [], "report": []}

    def counting(name, real):
        def call(*a, **kw):
            calls[name].append(kw.get("metrics"))
            return real(*a, **kw)
        return call

    from microagg.release import stages
    monkeypatch.setattr(stages, "standardize", counting("standardize", stages.standardize))
    monkeypatch.setattr(stages, "aggregate", counting("aggregate", stages.aggregate))
    monkeypatch.setattr(ma.Release, "report", counting("report", ma.Release.report))
    seeds = seeds_of_two_sessions(r"\bseed=(\d+)")
    assert seeds[0] != seeds[1]
    assert len(calls["standardize"]) == 1 and len(calls["aggregate"]) == 1, calls
    assert len(calls["report"]) == len(set(calls["report"])), calls  # each report (headline, whole) once for both


def differing_outside_the_sample(n: int = 60_000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two frames of ``n`` rows (more than Streamlit hashes whole) that differ in one row Streamlit's sample of
    10,000 rows (``random_state=0``) leaves out."""
    rng = np.random.default_rng(0)
    a = pd.DataFrame({"x": rng.normal(size=n).round(3), "y": rng.normal(size=n).round(3)})
    unsampled = sorted(set(range(n)) - set(a.sample(n=10_000, random_state=0).index))[0]
    b = a.copy()
    b.loc[unsampled, "x"] += 1.0
    return a, b


def test_data_differing_only_where_streamlit_would_not_look_never_shares_a_result():
    a, b = differing_outside_the_sample()
    assert cache.frame_digest(a) != cache.frame_digest(b)
    assert cache.frame_digest(a) == cache.frame_digest(a.copy())
    st.cache_data.clear()
    assert cache.release_csv(a) != cache.release_csv(b)  # a cached file is found again only by the same data
    small = a.head(200)
    spec = ReleaseSpec.of(5, "mdav", "mean", columns=("x", "y"), shuffle=False)
    changed = small.copy()
    changed.loc[0, "x"] += 1.0
    assert cache.prepared(small, spec)[0] is not cache.prepared(changed, spec)[0]


def test_an_upload_is_read_once_for_its_bytes_and_found_only_by_them():
    first, second = b"x,y\n1,2\n3,4\n", b"x,y\n1,2\n3,5\n"
    one = cache.upload(cache.upload_digest(first), "a.csv", "utf-8", 10, first)
    assert cache.upload(cache.upload_digest(first), "a.csv", "utf-8", 10, first) is one
    other = cache.upload(cache.upload_digest(second), "a.csv", "utf-8", 10, second)
    assert other is not one and other.data["y"].tolist() == [2, 5]


def test_an_upload_of_too_many_records_is_refused_and_never_kept(monkeypatch):
    read = []
    monkeypatch.setattr(cache, "read_csv", lambda *a, **kw: read.append(1) or ma.read_csv(*a, **kw))
    data = b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 7) for i in range(12))
    for _ in range(2):  # read both times: the refused table was not kept
        with pytest.raises(ma.MicroaggError, match="has 12 records; the dashboard handles at most 10"):
            cache.upload(cache.upload_digest(data), "big.csv", "utf-8", 10, data)
    assert len(read) == 2


def test_students_at_the_same_release_compute_its_report_once(monkeypatch):
    """Eight students opening Risk & utility at the same settings at once: one full report, the others wait for it
    and get the same table."""
    calls = []
    report = ma.Release.report

    def counted(self, *a, **kw):
        calls.append(kw.get("metrics"))
        return report(self, *a, **kw)

    monkeypatch.setattr(ma.Release, "report", counted)
    rel = ma.microaggregate(ma.load_dataset("census"), 5)
    held = cache.Released(rel, rel.in_input_order(), ())
    tables = together(8, lambda i: held.report((("p", 1.0),)))
    assert calls == [None] and all(t is tables[0] for t in tables)
    assert held.computed((("p", 1.0),)) and not held.computed((("p", 2.0),))


@pytest.mark.parametrize("repeat", range(2))  # twice: the threads meet in another order each time
def test_a_report_that_fails_for_its_inputs_fails_alike_for_everyone_asking(repeat):
    rel = ma.microaggregate(ma.load_dataset("census"), 5, shuffle=False)
    held = cache.Released(rel, rel.in_input_order(), ())
    bad = (("p", -1.0),)
    errors = together(3, lambda i: pytest.raises(ma.MicroaggError, held.report, bad).value)
    assert len({str(e) for e in errors}) == 1 and len(held.reports) == 1
