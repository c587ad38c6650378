"""microagg.base.advice: the exact engine's time estimate, the block hint and the elapsed-time lines."""

import io
import time

from microagg.base.advice import HINT_SECONDS, exact_seconds, heartbeat, scale_hint
from microagg.base.registry import get_method

MDAV = get_method("partition", "mdav")


def test_the_estimate_grows_as_n_squared_and_reproduces_the_benchmark():
    fast, slow = exact_seconds(1_000_000, 10)
    assert (fast, slow) == (145.0, 400.0)  # benchmarks/README.md: 10^6 records, d = 10
    assert exact_seconds(2_000_000, 10)[1] == 4 * slow


def test_the_hint_appears_where_exact_mdav_takes_minutes():
    big = scale_hint(2_000_000, 10, MDAV)
    assert "27 min" in big and "--engine blocks" in big  # 4 x 400 s
    assert scale_hint(100_000, 10, MDAV) is None  # seconds
    assert exact_seconds(400_000, 10)[1] >= HINT_SECONDS and scale_hint(400_000, 10, MDAV)
    assert scale_hint(2_000_000, 10, MDAV, engine="blocks") is None
    assert scale_hint(2_000_000, 10, get_method("partition", "projection")) is None  # sorting: n log n


def test_heartbeat_prints_elapsed_time_until_the_block_ends():
    out = io.StringIO()
    with heartbeat(every=0.05, stream=out, estimate=" (estimate: 1 s to 2 s)"):
        deadline = time.monotonic() + 60  # a loaded machine may run the heartbeat's thread late
        while len(out.getvalue().splitlines()) < 2:
            assert time.monotonic() < deadline, out.getvalue()
            time.sleep(0.01)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2 and lines[0].startswith("... still running:") and lines[0].endswith("(estimate: 1 s to 2 s)")
    time.sleep(0.15)
    assert out.getvalue().splitlines() == lines  # stopped with the block


def test_the_numpy_quadratic_methods_get_the_hint_at_smaller_sizes():
    """Their capability ``quadratic`` is their time over compiled MDAV's, so the hint comes at smaller n."""
    assert scale_hint(100_000, 10, MDAV) is None
    for name in ("rmd", "pppca", "clustpppca"):
        hint = scale_hint(100_000, 10, get_method("partition", name))
        assert hint and hint.startswith(name)
    assert scale_hint(100_000, 10, get_method("partition", "clustpca")) is None  # clusters and one sort per cluster
