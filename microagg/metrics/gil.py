"""G_IL, the global information loss of Oommen & Fayyoumi 2010 (Table I, Eq. 6), from the five measures M1-M5.

Computed in ORIGINAL units: M1 and M2 divide by the values and the means themselves, which are
about 0 on z-scores (docs/metrics.md §4.10). Means, variances and covariances use 1/n.

* M1 = mean over cells of |x - x'| / |x|          (mean variation of the data)
* M2 = mean over attributes of |x̄ - x̄'| / |x̄|     (of the means)
* M3 = mean over attributes of |v_tt - v'_tt| / |v_tt|   (of the variances)
* M4 = mean over pairs t <= t' of |v_tt' - v'_tt'| / |v_tt'|   (of the covariances)
* M5 = mean over pairs t < t' of |r_tt' - r'_tt'|  (mean absolute error of the correlations)
* G_IL = 100 (M1 + M2 + M3 + M4 + M5) / 5

Mean-variation rule (Oommen & Fayyoumi 2010, footnote 5): if a = 0 and a' != 0 divide by |a'|; if a = a' = 0 the
term is left out and not counted. Decisions: M4 sums over t <= t', matching its d(d+1)/2
denominator (Table I prints t < t'; docs/methods.md §5, decision 22); correlation pairs with an attribute constant
in the original are left out of M5, and a masked attribute that became constant has correlation 0;
with d = 1 (no pairs) G_IL averages M1-M4. The measures are ratios (not %); G_IL is in %.
"""

from __future__ import annotations

import numpy as np

from ..base.rows import LOWER
from ._arrays import correlation, pair
from .registry import Metric, register


def mean_variation(a, a_masked) -> float:
    """Mean of |a - a'| / |a| with the footnote-5 rule of Oommen & Fayyoumi 2010 for zeros (0 if every term is left
    out).
    """
    a = np.ravel(np.asarray(a, dtype=np.float64))
    b = np.ravel(np.asarray(a_masked, dtype=np.float64))
    keep = (a != 0) | (b != 0)
    if not keep.any():
        return 0.0
    a, b = a[keep], b[keep]
    return float((np.abs(a - b) / np.where(a != 0, np.abs(a), np.abs(b))).mean())


def gil_components(X, Xp) -> dict[str, float]:
    """M1-M5 (ratios) and G_IL (%) of Oommen & Fayyoumi 2010, Table I / Eq. 6, on data in original units."""
    X, Xp = pair(X, Xp)
    n, d = X.shape
    Xc, Yc = X - X.mean(axis=0), Xp - Xp.mean(axis=0)
    V, Vp = Xc.T @ Xc / n, Yc.T @ Yc / n
    upper = np.triu_indices(d)  # t <= t'
    out = {"M1": mean_variation(X, Xp), "M2": mean_variation(X.mean(axis=0), Xp.mean(axis=0)),
           "M3": mean_variation(np.diag(V), np.diag(Vp)), "M4": mean_variation(V[upper], Vp[upper])}
    i, j = np.triu_indices(d, 1)
    pairs = (np.diag(V)[i] > 0) & (np.diag(V)[j] > 0)  # correlations defined in the original
    if pairs.any():
        i, j = i[pairs], j[pairs]
        out["M5"] = float(np.abs(correlation(V)[i, j] - correlation(Vp)[i, j]).mean())
    out["G_IL"] = 100.0 * float(np.mean(list(out.values())))
    return out


def g_il(X, Xp) -> float:
    """G_IL in % (Oommen & Fayyoumi 2010, Eq. 6); see :func:`gil_components`."""
    return gil_components(X, Xp)["G_IL"]


_SOURCE, _DOC = "Oommen & Fayyoumi 2010, Table I", "docs/metrics.md §4.10"


def _measure(name: str, title: str, summary: str) -> Metric:
    return Metric(name, title, "utility", "ratio", LOWER, _SOURCE, summary, _DOC, needs=("original units",))


@register(
    _measure("M1", "Mean variation of the data", "Mean of |x - x'| / |x| over cells."),
    _measure("M2", "Mean variation of the means", "Mean of |x̄ - x̄'| / |x̄|."),
    _measure("M3", "Mean variation of the variances", "Mean of |v_tt - v'_tt| / |v_tt| over attributes."),
    _measure("M4", "Mean variation of the covariances", "Mean of |v_tt' - v'_tt'| / |v_tt'| over pairs t <= t'."),
    _measure("M5", "Mean absolute error of the correlations", "Mean of |r_tt' - r'_tt'| over pairs t < t'."),
    Metric("G_IL", "Global information loss", "utility", "%", LOWER, "Oommen & Fayyoumi 2010, Eq. 6",
           "100·(M1 + M2 + M3 + M4 + M5)/5, in original units.", _DOC, needs=("original units",)),
)
def _gil_metrics(ctx) -> dict:
    return gil_components(ctx.X, ctx.Xp)
