"""The sign test of Kabir & Wang, §4 and §6 (Theorem 1): did masking shift the values of an attribute?

Per attribute, D_i = x_i - x'_i (original minus masked); pairs with D_i = 0 are dropped (ties), N
pairs remain and W of them are positive. Under H0 (no shift) W ~ Binomial(N, 1/2); the two-sided
exact p-value comes from ``scipy.stats.binomtest`` (p = 1 when N = 0). Kabir & Wang's example: mean
aggregation gives N = 9, W = 3, p = 0.5078; median aggregation N = 12, W = 6, p = 1.

Read it with care (docs/metrics.md §4.5): median aggregation forces W = N/2 in every group of distinct
values, so a large p-value for the median is guaranteed by construction and says nothing about
utility; a small p-value means the masked values are shifted systematically.
"""

from __future__ import annotations

import pandas as pd

from ..base.rows import NEUTRAL
from ._arrays import pair
from .registry import Metric, register


def _p_value(w: int, n: int) -> float:
    from scipy.stats import binomtest  # imported on use: scipy.stats adds about a second to importing microagg

    return 1.0 if n == 0 else float(binomtest(w, n, 0.5, alternative="two-sided").pvalue)


def sign_test(X, Xp, names=None) -> pd.DataFrame:
    """Sign test per attribute plus a pooled row "all": columns attribute, N (untied pairs), W (positive
    differences), p_value. The pooled row sums N and W over attributes, whose pairs are not independent.
    Exact ties only: compare in the units the values were released in."""
    X, Xp = pair(X, Xp)
    d = X.shape[1]
    names = [f"x{t}" for t in range(d)] if names is None else [str(c) for c in names]
    D = X - Xp
    N = (D != 0).sum(axis=0)
    W = (D > 0).sum(axis=0)
    rows = [(names[t], int(N[t]), int(W[t]), _p_value(int(W[t]), int(N[t]))) for t in range(d)]
    rows.append(("all", int(N.sum()), int(W.sum()), _p_value(int(W.sum()), int(N.sum()))))
    return pd.DataFrame(rows, columns=["attribute", "N", "W", "p_value"])


_SOURCE, _DOC, _NEEDS = "Kabir & Wang, §4 and §6", "docs/metrics.md §4.5", ("original units",)


@register(
    Metric("sign test N", "Sign test: untied pairs", "test", "pairs", NEUTRAL, _SOURCE,
           "Number of records whose masked value differs from the original.", _DOC, needs=_NEEDS, per_attribute=True),
    Metric("sign test W", "Sign test: positive differences", "test", "pairs", NEUTRAL, _SOURCE,
           "Number of records whose original value exceeds the masked one.", _DOC, needs=_NEEDS, per_attribute=True),
    Metric("sign test p", "Sign test: p-value", "test", "", NEUTRAL, f"{_SOURCE} (scipy binomtest)",
           "Two-sided exact p-value of W ~ Bin(N, 1/2): small = masked values shifted systematically "
           "(the row 'all' pools dependent pairs).", _DOC, needs=_NEEDS, per_attribute=True),
)
def _sign_test(ctx) -> dict:
    st = sign_test(ctx.X, ctx.Xp, ctx.names).set_index("attribute")
    return {name: (kind(st.loc["all", col]), [kind(v) for v in st[col].iloc[:-1]])
            for name, col, kind in (("sign test N", "N", int), ("sign test W", "W", int),
                                    ("sign test p", "p_value", float))}
