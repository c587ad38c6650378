"""Aggregators: ``aggregate(Z, labels, **params) -> Z'`` (one value per group and attribute)."""

from .basic import mean, median
from .p3m import P3MResult, p3m, p3m_solve

# isort: split
# Any other module of this folder registers its methods after the ones above, in name order.
from ..base.registry import discover

DISCOVERED = discover(__name__, __path__)  # their methods, functions of this package

__all__ = ["mean", "median", "p3m", "p3m_solve", "P3MResult", *DISCOVERED]
