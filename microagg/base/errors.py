"""The one exception family of microagg, and the command lines' one-line refusal of their arguments."""

import argparse


class MicroaggError(ValueError):
    """Bad input or a request microagg refuses to carry out.

    Every message names the offending column or parameter and says what to do.
    Subclasses ``ValueError`` so generic handlers keep working. Where what to do differs on the dashboard (a box or
    a checkbox, not a flag or a keyword), ``on_page`` is the message as the page shows it.
    """

    def __init__(self, message: str = "", *, on_page: str | None = None):
        super().__init__(message)
        self.on_page = on_page

    @property
    def shown(self) -> str:
        """The message as the dashboard shows it."""
        return self.on_page or str(self)


class Parser(argparse.ArgumentParser):
    """An argument parser whose refusal is one line on stderr, ``error: ...`` with where to read the usage, and exit
    code 2, as for every other bad input (argparse's own prints the whole usage first)."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")
