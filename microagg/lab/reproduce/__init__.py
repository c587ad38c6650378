"""Reproductions of the published tables (docs/reproductions.md): the numbers as printed (``published``), the runs
of each paper under its setting (``chettri``: Chettri, Paul & Dutta; ``oommen``: Oommen & Fayyoumi 2010;
``mortazavi``: Mortazavi & Jalili 2017; ``abidi``: Abidi, Ben Yahia & Perera 2018) and the comparisons that
``python -m microagg reproduce`` prints (``compare``).
"""

from .compare import (
           REPRODUCIBLE,
           reproduce_dld,
           reproduce_hmpfsom,
           reproduce_mdav,
           reproduce_p3m,
           reproduce_partition,
           reproduce_scores,
           reproduce_sl,
           summary,
)

__all__ = ["REPRODUCIBLE", "reproduce_dld", "reproduce_hmpfsom", "reproduce_mdav", "reproduce_p3m",
           "reproduce_partition", "reproduce_scores", "reproduce_sl", "summary"]
