"""Aggregators: ``aggregate(Z, labels, **params) -> Z'`` (one value per group and attribute)."""

from .basic import mean, median
from .p3m import P3MResult, p3m, p3m_solve

__all__ = ["check_labels", "mean", "median", "p3m", "p3m_solve", "P3MResult"]
