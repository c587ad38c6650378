"""base.said: warnings collected per call and per thread, none lost, none crossing to another thread."""

import sys
import threading
import warnings

import numpy as np
import pytest

from microagg.base import said


def speak(who: int, times: int, barrier: threading.Barrier | None = None):
    """Say ``times`` times as ``who`` (the same message from the same line: repeats), meeting the other threads
    half-way so that their calls overlap."""
    for i in range(times):
        if barrier is not None and i == times // 2:
            barrier.wait()
        said.say(f"said by {who}")
    return who


def test_each_thread_gets_its_own_warnings_and_every_one_of_them():
    n, rounds = 8, 25
    results = {}
    barrier = threading.Barrier(n)

    def run(who):
        got = []
        for r in range(rounds):
            out, notes = said.caught(speak, who, 4, barrier if r == 0 else None)
            got.append((out, notes))
        results[who] = got

    threads = [threading.Thread(target=run, args=(who,)) for who in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for who, got in results.items():
        # every round says it again (repeats are shown), and only its own message
        assert got == [(who, (f"said by {who}",))] * rounds


def test_a_warning_outside_a_collector_goes_where_it_went_before():
    said.install()
    with warnings.catch_warnings(record=True) as seen:  # the terminal's hook, as pytest and the CLI see it
        said.install()  # catch_warnings replaced the hook: it is put back, in front of the recorder
        warnings.warn("to the terminal", UserWarning, stacklevel=1)
        _, notes = said.caught(lambda: warnings.warn("to the page", UserWarning, stacklevel=1))
    assert [str(w.message) for w in seen] == ["to the terminal"] and notes == ("to the page",)


def test_nested_calls_keep_their_own_and_an_exception_leaves_no_collector():
    def inner():
        warnings.warn("inner", UserWarning, stacklevel=1)
        return said.caught(lambda: warnings.warn("innermost", UserWarning, stacklevel=1))[1]

    out, notes = said.caught(inner)
    assert out == ("innermost",) and notes == ("inner",)
    try:
        said.caught(lambda: 1 / 0)
    except ZeroDivisionError:
        pass
    assert said._COLLECTOR.get() is None


def test_what_microagg_says_reaches_its_collector_while_another_thread_records_warnings():
    """A library in another thread opens ``catch_warnings`` (recording everything) while a call runs, after the call
    installed its hook: what ``say`` says still reaches the call's collector, and nothing of it that thread's
    record."""
    started, holding, done = threading.Event(), threading.Event(), threading.Event()
    recorded = []

    def neighbour():
        started.wait(60)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            holding.set()
            done.wait(60)
        recorded.extend(str(w.message) for w in seen)

    def call():
        started.set()
        assert holding.wait(60)
        said.say("NOT 3-anonymous")
        said.say("exact cells", RuntimeWarning)

    thread = threading.Thread(target=neighbour)
    thread.start()
    try:
        _, notes = said.caught(call)
    finally:
        done.set()
        thread.join()
    assert notes == ("NOT 3-anonymous", "exact cells") and recorded == []


def test_say_outside_a_collector_is_a_warning_of_its_category_at_the_callers_line():
    def caller():
        said.say("to the terminal", RuntimeWarning)

    with pytest.warns(RuntimeWarning, match="to the terminal") as seen:
        caller()
    assert seen[0].filename == __file__ and seen[0].lineno == caller.__code__.co_firstlineno + 1


def test_a_warning_said_deep_in_a_release_names_the_line_that_asked_for_the_release():
    """A note said several calls inside microagg points at the code outside it that called (a notebook cell, a
    script), not at microagg's own files."""
    import microagg as ma

    Z = np.random.default_rng(0).normal(size=(11, 3))  # (odd groups: the median is a member's value)
    with pytest.warns(UserWarning, match="members' own values") as seen:
        line = sys._getframe().f_lineno + 1
        ma.microaggregate(Z, 3, aggregation="median")
    warned = [w for w in seen if "members' own values" in str(w.message)]
    assert warned[0].filename == __file__ and warned[0].lineno == line


def work():
    said.say("a note")
    said.say("a cost", RuntimeWarning)
    warnings.warn("a library's", FutureWarning, stacklevel=1)
    said.say("a note")


def test_heard_keeps_each_warning_as_it_was_said_for_the_caller_to_say_again():
    _, notes = said.heard(work)
    assert notes == (said.Said("a note", UserWarning, True), said.Said("a cost", RuntimeWarning, True),
                     said.Said("a library's", FutureWarning, False))
    _, again = said.heard(said.again, notes)  # in another collector: the same, in order
    assert again == notes
    with pytest.warns(RuntimeWarning, match="a cost"):  # outside one: warnings of their categories
        said.again(notes[1:2])


def test_caught_own_keeps_microaggs_warnings_and_sends_the_others_on():
    with pytest.warns(FutureWarning, match="a library's"):
        _, notes = said.caught(work, own=True)
    assert notes == ("a note", "a cost")
    assert said.caught(work)[1] == ("a note", "a cost", "a library's")


def test_a_callers_filters_still_silence_what_is_said_again_outside_a_collector():
    """Work collected with ``heard`` (as blocks are) inside a caller's ``catch_warnings`` that ignores UserWarning:
    said again outside any collector, nothing gets past the caller's filter, and the filters are left as they were."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning)
        filters = list(warnings.filters)
        _, notes = said.heard(work)
        said.again(notes)
        assert warnings.filters == filters
    assert [str(w.message) for w in seen] == ["a cost", "a library's"]
