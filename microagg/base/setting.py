"""A process-wide setting a caller may give for the whole process or for one ``with`` block (the threads of the
compiled partitioners, the kernels' backend): the value given, else what the owner reads from its environment
variable, else its automatic choice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class Setting:
    """The value given by :meth:`set` (checked by ``check``), or None when none is given."""

    def __init__(self, check: Callable[[Any], Any]):
        self._check = check
        self.given: Any = None

    def set(self, value) -> None:
        """Give ``value`` from now on (checked); None takes the given value back."""
        self.given = None if value is None else self._check(value)

    def get(self):
        """The value given, or None."""
        return self.given

    @contextmanager
    def use(self, value) -> Iterator[None]:
        """:meth:`set` for the duration of a ``with`` block; the value given before is restored."""
        before = self.given
        self.set(value)
        try:
            yield
        finally:
            self.set(before)
