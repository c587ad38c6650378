"""One-step aggregation: every group's mean after its outlying values are pulled to median ± c·MAD (sdcMicro's
``measure = "onestep"``, Templ, Kowarik & Meindl 2015; docs/methods.md §3.6).

Per group and attribute, with m the group's median and s = 1.4826·median|x − m| its normalised median absolute
deviation (MAD), every value above m + c·s is replaced by m + c·s and every value below m − c·s by m − c·s, and the
mean of the values so clipped is published: a one-step estimate of location of Huber's type started at the median
(Huber 1964), which divides by the group's size where Huber's one-step M-estimate divides by the number of values
left unclipped. c = 3 / 1.486 ≈ 2.019, sdcMicro's constant, so the clip lies about 2.99 raw MADs from the
median.
With no outlier it is the mean; a group whose values differ in one member only (MAD 0) publishes the others' value.
"""

from __future__ import annotations

import numpy as np

from ..base.registry import register
from .basic import mean_1d, median_1d, per_column

C = 3 / 1.486  # sdcMicro's constant, applied to the normalised MAD
MAD_NORMAL = 1.4826  # 1 / Φ⁻¹(3/4): the MAD of a normal sample estimates its sd (R's ``mad``)


def onestep_1d(x: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """Every record's group one-step value of ``x`` (module docstring)."""
    m = median_1d(x, lab)
    reach = C * (MAD_NORMAL * median_1d(np.abs(x - m), lab))
    return mean_1d(np.clip(x, m - reach, m + reach), lab)


@register("aggregate", "onestep", title="One-step (clipped mean)", group_local=True, member_values=True,
          source="Templ, Kowarik & Meindl 2015 (sdcMicro's measure 'onestep'); Huber 1964",
          summary="Replace every record by its group's mean after values beyond median ± 2.02·MAD (normalised) are "
                  "pulled to that bound, per attribute: the mean without an outlier's pull.")
def onestep(Z, labels) -> np.ndarray:
    """Every record replaced by its group's one-step value on every attribute."""
    return per_column(Z, labels, onestep_1d)
