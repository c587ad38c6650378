"""The one exception family of microagg."""


class MicroaggError(ValueError):
    """Bad input or a request microagg refuses to carry out.

    Every message names the offending column or parameter and says what to do.
    Subclasses ``ValueError`` so generic handlers keep working.
    """
