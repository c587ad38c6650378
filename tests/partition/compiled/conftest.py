import pytest

from microagg.partition import kernels

if not kernels.available():  # the suite's run without numba: nothing here can run
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(autouse=True)
def _compiled():
    """The tests of this folder are about the compiled kernels: every run takes them, whatever its size."""
    with kernels.use_backend("compiled"):
        yield
