"""Risk and utility metrics over plain arrays (original Z, protected Z', labels), and ``evaluate``.

Modules by concern: ``utility`` (SSE, IL, IL1s), ``analysis`` (KS, Wasserstein, eigenvalue IL, regression CI
overlap), ``propensity`` (pMSE), ``categorical`` (changed categories, ordinal shift), ``probabilistic`` (PIL),
``gil`` (M1-M5 and G_IL of Oommen & Fayyoumi 2010), ``groups`` (ADM, SSE_i), ``risk`` (DLD, SDID, RLD, exact cells),
``privacy`` (SL), ``scores`` (DR, G_DR, SI), ``significance`` (sign test), ``disclosure`` (one-to-one linkage, RID),
``attribute`` (l-diversity, t-closeness), ``inference`` (inference attack against a baseline), ``survey`` (sampling
weights, missing cells), each registering its metrics with their computation in ``registry`` (every metric described
as data), ``anonymity`` (group statistics, k-anonymity) and ``report`` (``evaluate``).
"""

from . import registry
from .analysis import eigen_il, ks_distance, regression_overlap, wasserstein
from .anonymity import group_sizes, group_stats, k_anonymity
from .attribute import distinct_l_by_class, entropy_l_by_class, equivalence_classes, t_closeness_by_class
from .categorical import changed_categories, ordinal_shift
from .disclosure import dld_one_to_one, rid
from .gil import g_il, gil_components
from .groups import adm, sse_i
from .inference import inference_risk
from .privacy import breaches, satisfaction, satisfaction_by_attribute, satisfaction_level
from .probabilistic import pil, pil_components
from .propensity import pmse
from .report import evaluate
from .risk import dld, linkage, nearest_masked, sdid
from .scores import dr_mortazavi, g_dr, si_mortazavi, si_oommen
from .significance import sign_test
from .survey import moment_changes, partial_dld, weighted_il
from .utility import il1s, information_loss, partition_information_loss, sse, sse_by_attribute, sse_by_group, sst

__all__ = ["registry", "changed_categories", "ordinal_shift",
           "group_sizes", "group_stats", "k_anonymity", "g_il", "gil_components", "pil",
           "pil_components", "breaches", "satisfaction", "satisfaction_by_attribute", "satisfaction_level",
           "evaluate", "dld", "linkage",
           "nearest_masked", "sdid", "dr_mortazavi", "g_dr", "si_mortazavi", "si_oommen", "sign_test", "adm", "il1s",
           "information_loss", "partition_information_loss", "sse", "sse_by_attribute", "sse_by_group", "sse_i",
           "sst", "distinct_l_by_class", "entropy_l_by_class", "equivalence_classes", "t_closeness_by_class",
           "dld_one_to_one", "rid", "inference_risk", "eigen_il", "ks_distance", "pmse", "regression_overlap",
           "wasserstein", "weighted_il", "moment_changes", "partial_dld"]
