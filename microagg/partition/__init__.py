"""Partitioners: ``partition(Z, k, **params) -> labels`` (every group >= k records).

Each is registered with its parameters (see ``microagg.registry``).
"""

from ._validate import check_k
from .mdav import MdavTrace, mdav, mdav_steps

# isort: split
# Imported after MDAV: registration order is the order of the method menus, and MDAV is the default.
from .hybrid import HmPfsomTrace, diverse_groups, hm_pfsom, hm_pfsom_steps
from .pfcm import pcaes, pfcm, select_pfcm

__all__ = ["check_k", "mdav", "mdav_steps", "MdavTrace", "hm_pfsom", "hm_pfsom_steps", "HmPfsomTrace",
           "diverse_groups", "pfcm", "pcaes", "select_pfcm"]
