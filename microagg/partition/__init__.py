"""Partitioners: ``partition(Z, k, **params) -> labels`` (every group >= k records).

Each is registered with its parameters (see ``microagg.registry``). Individual
ranking returns one labelling per attribute (n x d); the others one label per record.
"""

from ._validate import check_k
from .cvmdav import cvmdav
from .iamat import iamat
from .md import md
from .mdav import MdavTrace, mdav, mdav_steps
from .optimal import optimal_univariate
from .univariate import individual_ranking, projection, projection_scores
from .vmdav import vmdav

__all__ = ["check_k", "mdav", "mdav_steps", "MdavTrace", "vmdav", "cvmdav", "md", "iamat", "individual_ranking",
           "projection", "projection_scores", "optimal_univariate"]
