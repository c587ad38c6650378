"""Attribute disclosure of confidential values inside the equivalence classes of a release: distinct and entropy
l-diversity (Machanavajjhala et al. 2007) and t-closeness with the ordered earth mover's distance
(Li, Li & Venkatasubramanian 2007). Definitions and decisions: docs/metrics.md §4.15.

An equivalence class is a set of released rows identical on every released quasi-identifier (the masked columns,
as released) and on the key columns an intruder knows (:func:`equivalence_classes`). The sensitive values are
the ORIGINAL values of the confidential attributes. The functions ``*_by_class`` return one value per class, for
a method that must check its classes (e.g. a t-closeness microaggregation); the registered metrics report the
worst class.
"""

from __future__ import annotations

import numpy as np

from ..base.checks import columns
from ..base.errors import MicroaggError
from ..base.rows import HIGHER, LOWER
from .registry import Metric, register


def equivalence_classes(released, key_classes=None) -> np.ndarray:
    """Class id 0..c-1 of every row: rows identical on all columns of ``released`` (n x d, as released) and, if
    given, on ``key_classes`` (one id per row, e.g. a release's key columns)."""
    R = np.asarray(released, dtype=np.float64)
    R = R[:, None] if R.ndim == 1 else R
    if key_classes is not None:
        R = np.column_stack([R, np.asarray(key_classes, dtype=np.float64)])
    return np.unique(R, axis=0, return_inverse=True)[1].reshape(-1)


def _check(values, classes) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    c = np.asarray(classes).reshape(-1)
    if len(v) != len(c) or len(v) == 0 or not np.isfinite(v).all():
        raise MicroaggError(f"values and classes must be finite and of the same non-zero length; got {len(v)} values "
                            f"and {len(c)} class ids.")
    if not np.issubdtype(c.dtype, np.integer) or c.min() < 0 or len(np.unique(c)) != c.max() + 1:
        raise MicroaggError("classes must be the integer class ids 0..c-1, each used (see equivalence_classes).")
    return v, c


def _counts(v: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The class, global value rank and count of every distinct (class, value) pair, sorted by class then value,
    and the number m of distinct values."""
    rank = np.unique(v, return_inverse=True)[1].reshape(-1).astype(np.int64)
    m = int(rank.max()) + 1
    pairs, counts = np.unique(c.astype(np.int64) * m + rank, return_counts=True)
    return pairs // m, pairs % m, counts, m


def distinct_l_by_class(values, classes) -> np.ndarray:
    """Number of distinct sensitive values in each class (distinct l-diversity, Machanavajjhala et al. 2007)."""
    return _by_class(*_check(values, classes))[0]


def entropy_l_by_class(values, classes) -> np.ndarray:
    """exp of the entropy of the sensitive values in each class: a class is entropy l-diverse iff this is >= l
    (entropy l-diversity, Machanavajjhala et al. 2007; natural logarithm)."""
    return _by_class(*_check(values, classes))[1]


def t_closeness_by_class(values, classes) -> np.ndarray:
    """Ordered earth mover's distance between each class's distribution of the sensitive values and the whole
    table's (Li, Li & Venkatasubramanian 2007, EMD for ordered values): with the m distinct values of the table
    in order,
    EMD = (1/(m-1)) sum_i |F_class(i) - F_table(i)|, F the cumulative shares. In [0, 1]; 0 when m = 1.

    Computed in O(n log n): between two consecutive values of a class F_class is constant and F_table increases, so
    each stretch is summed from prefix sums of F_table."""
    return _by_class(*_check(values, classes))[2]


def _by_class(v: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct l, entropy l and t of every class, from one count of the (class, value) pairs."""
    cls, r, counts, m = _counts(v, c)
    n_cls = c.max() + 1
    size = np.bincount(c, minlength=n_cls)
    p = counts / size[cls]
    distinct = np.bincount(cls, minlength=n_cls)
    entropy = np.exp(np.bincount(cls, weights=-p * np.log(p), minlength=n_cls))
    if m == 1:
        return distinct, entropy, np.zeros(n_cls)
    F = np.cumsum(np.bincount(r, weights=counts, minlength=m)) / len(v)  # F_table at ranks 0..m-1
    S = np.concatenate([[0.0], np.cumsum(F)])  # S[j] = sum of F over ranks < j
    level = (np.cumsum(counts) - np.concatenate([[0], np.cumsum(size)])[cls]) / size[cls]  # F_class from r on
    last = np.r_[cls[1:] != cls[:-1], True]
    end = np.where(last, m, np.r_[r[1:], 0])
    first = np.r_[True, cls[1:] != cls[:-1]]
    # stretches [start, end) with F_class = lev: the one before a class's smallest value, then one per value
    start = np.concatenate([np.zeros(first.sum(), dtype=np.int64), r])
    end = np.concatenate([r[first], end])
    lev = np.concatenate([np.zeros(first.sum()), level])
    owner = np.concatenate([cls[first], cls])
    cut = np.clip(np.searchsorted(F, lev, side="left"), start, end)  # F_table < lev before cut, >= lev from cut
    below = lev * (cut - start) - (S[cut] - S[start])
    above = (S[end] - S[cut]) - lev * (end - cut)
    t = np.bincount(owner, weights=below + above, minlength=n_cls) / (m - 1)
    return distinct, entropy, np.maximum(t, 0.0)  # (a distance: rounding of the prefix sums can leave -1e-17)


def attribute_disclosure(sensitive, released, key_classes=None) -> dict:
    """Per confidential attribute (columns of ``sensitive``, original values): the smallest distinct l, the
    smallest entropy l and the largest t over the equivalence classes of ``released`` (see module doc)."""
    S = np.asarray(sensitive, dtype=np.float64)
    S = S[:, None] if S.ndim == 1 else S
    classes = equivalence_classes(released, key_classes)
    per = [_by_class(s, classes) for s in S.T]
    return {"l-diversity": np.array([d.min() for d, _, _ in per]),
            "entropy l-diversity": np.array([e.min() for _, e, _ in per]),
            "t-closeness": np.array([t.max() for _, _, t in per])}


def sensitive(ctx) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The confidential attributes' original values, their released values and their names: a release's
    confidential columns (``ctx.Xc``, released unchanged), else the columns ``confidential=`` of the evaluation
    (default every column)."""
    if ctx.Xc is not None:
        return ctx.Xc, ctx.Xc, list(ctx.conf_names)
    cols = columns(ctx.params["confidential"], ctx.d, ctx.names, "confidential")
    return ctx.X[:, cols], ctx.Xp[:, cols], [ctx.names[t] for t in cols]


_DOC = "docs/metrics.md §4.15"
_MJ = "Machanavajjhala et al. 2007"
_LI = "Li, Li & Venkatasubramanian 2007 (ordered EMD)"


@register(
    Metric("l-diversity", "Distinct l-diversity", "risk", "values", HIGHER, f"{_MJ} (distinct)",
           "Fewest distinct original values of a confidential attribute in one equivalence class of the release.",
           _DOC, ("confidential",), ("original units",), per_attribute=True),
    Metric("entropy l-diversity", "Entropy l-diversity", "risk", "values", HIGHER, f"{_MJ} (entropy)",
           "Smallest exp(entropy) of a confidential attribute's original values in one equivalence class.",
           _DOC, ("confidential",), ("original units",), per_attribute=True),
    Metric("t-closeness", "t-closeness (ordered EMD)", "risk", "EMD (0-1)", LOWER, _LI,
           "Largest ordered earth mover's distance between a class's and the whole table's distribution of a "
           "confidential attribute.", _DOC, ("confidential",), ("original units",), per_attribute=True),
)
def _attribute(ctx) -> dict:
    values, _, names = sensitive(ctx)
    out = attribute_disclosure(values, ctx.Xp, ctx.key_classes)
    worst = {"l-diversity": np.min, "entropy l-diversity": np.min, "t-closeness": np.max}
    return {name: (float(worst[name](each)) if name != "l-diversity" else int(each.min()),
                   dict(zip(names, each.tolist()))) for name, each in out.items()}
