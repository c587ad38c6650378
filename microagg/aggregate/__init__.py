"""Aggregators: ``aggregate(Z, labels, **params) -> Z'`` (one value per group and attribute)."""

from ._labels import check_labels
from .basic import mean, median

__all__ = ["check_labels", "mean", "median"]
