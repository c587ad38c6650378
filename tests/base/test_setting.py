import pytest

from microagg.base.setting import Setting


def _positive(n):
    if n < 1:
        raise ValueError(n)
    return n


def test_a_setting_is_given_checked_and_restored_after_a_block():
    s = Setting(_positive)
    assert s.get() is None
    s.set(3)
    with s.use(5):
        assert s.get() == 5
        with s.use(None):  # None inside a block: nothing given there
            assert s.get() is None
        assert s.get() == 5
    assert s.get() == 3
    with pytest.raises(ValueError):
        s.set(0)
    assert s.get() == 3  # a refused value leaves the setting as it was
    with pytest.raises(RuntimeError), s.use(7):
        raise RuntimeError
    assert s.get() == 3  # restored when the block fails too
