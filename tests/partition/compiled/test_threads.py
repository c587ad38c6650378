import numba
import numpy as np
import pytest

import microagg as ma
from microagg.base.registry import partition_input
from microagg.partition.compiled import engine, threads
from microagg.partition.mdav import mdav_kernel


def test_auto_threads_leave_busy_cores_alone():
    # the rule of "auto" on 2 cores with numba's 2 threads: the 1-minute load, or fewer runnable processes now
    assert threads.spare_threads(2, 2, 2.0, 3) == 1  # two other processes running: one thread, none parked
    assert threads.spare_threads(2, 2, 2.0, 1) == 2  # the load is this process's own past work
    assert threads.spare_threads(2, 2, 0.1, 3) == 2  # a blip: nothing was busy over the last minute
    assert threads.spare_threads(2, 2, 1.0) == 1  # no count of runnable processes: the load alone
    assert threads.spare_threads(4, 2, 0.0, 1) == 2 and threads.spare_threads(2, 2, 9.0, 9) == 1
    assert 1 <= threads.auto_threads() <= numba.get_num_threads()


def test_the_thread_count_does_not_change_the_labels():
    Zc, k = partition_input(np.random.default_rng(3).standard_normal((300, 4)), 3)
    assert np.array_equal(threads.run(mdav_kernel.compiled(), Zc, k, 0, False, parallel_min=0, threads=1)[0],
                          threads.run(mdav_kernel.compiled(), Zc, k, 0, False, parallel_min=0, threads=2)[0])


def test_run_picks_the_specialization_by_size(monkeypatch):
    """Below ``grid_min`` the small kernel (no integer copy, no parallel pass); from there the integer copy, split over
    threads (with the pool's lock) only from ``parallel_min`` records and with more than one thread."""
    def kernel(Z, chunks, pmin):
        return chunks, pmin, threads._POOL_LOCK.locked()

    def call(n, nthreads):
        return threads.run(kernel, np.zeros((n, 2)), parallel_min=100, grid_min=10, threads=nthreads)

    assert call(9, 2) == (1, None, False)
    assert call(10, 2) == call(99, 2) == (1, 100, False)
    assert call(100, 2) == (2, 100, True)
    assert call(100, 1) == (1, 100, False)
    assert threads.run(kernel, np.zeros((99, 2)), parallel_min=100, threads=2) == (1, None, False)  # capped
    monkeypatch.setattr(engine, "GRID_MIN", 50)  # the default grid_min is the engine's, read at the call
    assert threads.run(kernel, np.zeros((60, 2)), parallel_min=100, threads=2) == (1, 100, False)


def test_the_setting_overrides_the_environment_which_overrides_auto(monkeypatch):
    pool = numba.get_num_threads()
    monkeypatch.setattr(threads, "auto_threads", lambda: 5)  # the load average moves between two real readings
    monkeypatch.delenv(threads.ENV, raising=False)
    assert threads.get_threads() is None and threads.thread_count() == 5
    monkeypatch.setenv(threads.ENV, "1")
    assert threads.thread_count() == 1
    monkeypatch.setenv(threads.ENV, "auto")
    assert threads.thread_count() == 5
    monkeypatch.setenv(threads.ENV, "1")
    with threads.use_threads(pool):
        assert threads.get_threads() == pool and threads.thread_count() == pool
        with threads.use_threads(None):
            assert threads.thread_count() == 1  # back to the environment
    assert threads.get_threads() is None
    threads.set_threads(pool + 7)
    try:
        assert threads.thread_count() == pool  # never more than numba's threads in this thread
    finally:
        threads.set_threads(None)


def test_the_setting_gives_the_same_labels():
    Z = np.random.default_rng(4).standard_normal((400, 5))
    with threads.use_threads(1):
        one = ma.partition.mdav(Z, 3)
    assert np.array_equal(one, ma.partition.mdav(Z, 3))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_a_bad_setting_is_refused(bad):
    with pytest.raises(ma.MicroaggError, match="number of threads must be an integer >= 1"):
        threads.set_threads(bad)
    assert threads.get_threads() is None


@pytest.mark.parametrize("bad", ["0", "two", "1.5"])
def test_a_bad_environment_variable_is_refused(monkeypatch, bad):
    monkeypatch.setenv(threads.ENV, bad)
    with pytest.raises(ma.MicroaggError, match="MICROAGG_THREADS must be an integer >= 1 or 'auto'"):
        threads.thread_count()
