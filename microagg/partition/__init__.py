"""Partitioners: ``partition(Z, k, **params) -> labels`` (every group >= k records).

Each is registered with its parameters (see ``microagg.registry``).
"""

from ._validate import check_k
from .mdav import MdavTrace, mdav, mdav_steps

__all__ = ["check_k", "mdav", "mdav_steps", "MdavTrace"]
