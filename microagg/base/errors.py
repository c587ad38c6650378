"""The one exception family of microagg, and the command lines' one-line refusal of their arguments."""

import argparse


class MicroaggError(ValueError):
    """Bad input or a request microagg refuses to carry out.

    Every message names the offending column or parameter and says what to do.
    Subclasses ``ValueError`` so generic handlers keep working.
    """


class Parser(argparse.ArgumentParser):
    """An argument parser whose refusal is one line on stderr, ``error: ...`` with where to read the usage, and exit
    code 2, as for every other bad input (argparse's own prints the whole usage first)."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")
