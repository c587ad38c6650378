"""The names of the masked columns, for messages said deep inside a computation that sees only their positions (a
kernel's matrix): a release names them while it runs, so a refusal says "column 'income'", not "column 2"."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

_NAMES: ContextVar[tuple | None] = ContextVar("names", default=None)


def column(j: int) -> str:
    """"column 'name'" for position ``j`` of the masked columns while a release names them, else "column j"."""
    names = _NAMES.get()
    return f"column {names[j]!r}" if names is not None and 0 <= j < len(names) else f"column {j}"


@contextmanager
def naming(names: Sequence[str]) -> Iterator[None]:
    """Inside the block, :func:`column` says the names ``names`` (the masked columns, in the matrix's order)."""
    token = _NAMES.set(tuple(str(n) for n in names))
    try:
        yield
    finally:
        _NAMES.reset(token)
