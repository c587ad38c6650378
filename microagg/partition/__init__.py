"""Partitioners: ``partition(Z, k, **params) -> labels`` (every group >= k records).

Each is registered with its parameters (see ``microagg.base.registry``), which generate its validation: the
functions here check their input once and call the method's kernel. Individual
ranking returns one labelling per attribute (n x d); the others one label per record.
"""

# import order = registration order = the order the dashboard lists the methods
# isort: off
from ..base.checks import check_k
from .mdav import MdavTrace, mdav, mdav_steps
from .vmdav import vmdav
from .cvmdav import cvmdav
from .md import md
from .iamat import iamat
from .univariate import individual_ranking, projection, projection_scores
from .optimal import optimal_univariate
# isort: on

# isort: split
# Imported after the methods above: registration order is the order of the method menus, and MDAV is the default.
from .hybrid import HmPfsomTrace, diverse_groups, hm_pfsom, hm_pfsom_steps
from .pfcm import pcaes, pfcm, select_pfcm

# MHM, GSMS, then sdcMicro's other methods (Templ, Kowarik & Meindl 2015; docs/methods.md
# §2.19-2.23), in this order.
# isort: off
from .mhm import mhm
from .gsms import gsms
from .rmd import rmd
from .simple import simple
from .pppca import pppca
from .mcdpca import mcdpca
from .clustpca import clustpca
from .clustpppca import clustpppca
from .clustmcdpca import clustmcdpca
from .influence import influence
# isort: on

# isort: split
# Not a registered method: runs any of the above inside blocks (the block and Dask engines of microaggregate).
from .blocks import DEFAULT_BLOCK_SIZE, block_partition, split_blocks
from .igd import igd_refine

# isort: split
# Any other module of this folder registers its methods after the ones above, in name order.
from ..base.registry import discover

DISCOVERED = discover(__name__, __path__)  # their methods, functions of this package

__all__ = ["check_k", "mdav", "mdav_steps", "MdavTrace", "vmdav", "cvmdav", "md", "iamat", "individual_ranking",
           "projection", "projection_scores", "optimal_univariate", "hm_pfsom", "hm_pfsom_steps", "HmPfsomTrace",
           "diverse_groups", "pfcm", "pcaes", "select_pfcm", "igd_refine", "block_partition", "split_blocks",
           "DEFAULT_BLOCK_SIZE", "threads", "mhm", "gsms", "rmd", "simple", "pppca", "mcdpca", "clustpca", "clustpppca",
           "clustmcdpca", "influence", *DISCOVERED]


def __getattr__(name: str):
    """``threads``, the thread setting of the compiled partitioners (threads.set_threads, threads.use_threads,
    MICROAGG_THREADS), imported on first use: it needs numba, which a run on the numpy kernels does not."""
    if name == "threads":  # (without numba: the MicroaggError of kernels.runtime)
        from .kernels import runtime

        return runtime().threads
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
