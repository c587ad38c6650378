"""Inference risk with a baseline: an intruder who knows a target's quasi-identifiers links them to the nearest
released record and guesses the target's confidential value from it; the success rate is set against a guess from
the released marginal alone, with 95 % confidence intervals (after the inference attack of Giomi et al. 2023).
Definitions and decisions: docs/metrics.md §4.18.

Success is ``|guess - truth| <= tolerance``, the tolerance a share of the attribute's sd: never a ratio to the
guess or the truth, so negative and zero values are judged like any others. All released records whose
quasi-identifiers equal the nearest ones are equally likely guesses: a target scores the share of them within the
tolerance (its probability of success under random tie-breaking). The baseline scores the share of all released
values within the tolerance (a guess drawn at random from the released marginal). Rates are means over targets;
their intervals are Wilson score intervals (Wilson 1927) with the summed probabilities as successes, and the
excess of attack over baseline (paired, the same targets) has a normal interval from the per-target differences.
The control split (``microagg.lab.attacks.inference_control``) compares with held-out records instead, with
Newcombe's hybrid score interval for the difference of independent rates (Newcombe 1998, method 10).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..base.checks import columns
from ..base.errors import MicroaggError
from ..base.rows import LOWER, NEUTRAL
from ..data.preprocess import Standardizer
from ._arrays import pair
from .attribute import sensitive
from .registry import Metric, register
from .risk import Linkage, nearest_ties, shared_linkage

Z95 = float(norm.ppf(0.975))


def wilson(successes, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (Wilson 1927); ``successes`` may be fractional."""
    if n <= 0:
        return float("nan"), float("nan")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (0.0 if p <= 0 else float(max(0.0, centre - half))), (1.0 if p >= 1 else float(min(1.0, centre + half)))


def newcombe(x1, n1: int, x2, n2: int, z: float = Z95) -> tuple[float, float]:
    """Interval of the difference p1 - p2 of two independent proportions, Newcombe 1998's hybrid score method
    (method 10), from the Wilson intervals of each."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    return float(d - np.hypot(p1 - l1, u2 - p2)), float(d + np.hypot(u1 - p1, p2 - l2))


def count_within(cls: np.ndarray, values: np.ndarray, q_cls: np.ndarray, lo: np.ndarray, hi: np.ndarray
                 ) -> np.ndarray:
    """Per query i, the number of records of class ``q_cls[i]`` whose value lies in [lo[i], hi[i]]."""
    return _count(cls, q_cls, *_ranks(values, lo, hi))


def _ranks(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The number of values below each value, below each ``lo`` and at most each ``hi``: v lies in [lo, hi] iff its
    rank is at least lo's and below hi's."""
    ordered = np.sort(values)
    return (np.searchsorted(ordered, values, side="left"), np.searchsorted(ordered, lo, side="left"),
            np.searchsorted(ordered, hi, side="right"))


def _count(cls: np.ndarray, q_cls: np.ndarray, rank: np.ndarray, r_lo: np.ndarray, r_hi: np.ndarray) -> np.ndarray:
    """:func:`count_within` from ranks: records keyed by (class, rank) in one sorted array, each query bisected."""
    n = len(rank) + 1
    key = np.sort(cls.astype(np.int64) * n + rank)
    base = q_cls.astype(np.int64) * n
    return np.searchsorted(key, base + r_hi, side="left") - np.searchsorted(key, base + r_lo, side="left")


def attack_success(classes: np.ndarray, nearest: np.ndarray, ties: dict, guesses: np.ndarray, truth: np.ndarray,
                   tol: float, ranks=None) -> np.ndarray:
    """Per target, the probability that a released record drawn from its nearest class(es) has a value within
    ``tol`` of ``truth``. ``classes``: the class of every released record (equal quasi-identifiers), ``guesses``
    their confidential values; ``nearest``: the nearest class of every target, ``ties`` target -> all tied
    classes (as from ``risk.nearest_ties``); ``ranks``: :func:`_ranks` of these values, if already made."""
    rank, r_lo, r_hi = _ranks(guesses, truth - tol, truth + tol) if ranks is None else ranks
    size = np.bincount(classes)
    p = _count(classes, nearest, rank, r_lo, r_hi) / size[nearest]
    for q, tied in ties.items():
        many = np.ones(len(tied), dtype=np.int64)
        p[q] = _count(classes, tied, rank, many * r_lo[q], many * r_hi[q]).sum() / size[tied].sum()
    return p


def baseline_success(guesses: np.ndarray, truth: np.ndarray, tol: float, ranks=None) -> np.ndarray:
    """Per target, the share of released values within ``tol`` of ``truth`` (a guess from the marginal alone)."""
    _, r_lo, r_hi = _ranks(guesses, truth - tol, truth + tol) if ranks is None else ranks
    return (r_hi - r_lo) / len(guesses)


def attack(released_qi, released_conf, targets_qi, targets_conf, tol) -> tuple[np.ndarray, np.ndarray]:
    """Per target and confidential attribute, the attack's and the baseline's probability of success.

    ``released_qi`` (m x d) and ``targets_qi`` (t x d): quasi-identifiers in the same units (e.g. z-scores of the
    original); ``released_conf`` (m x s) the released and ``targets_conf`` (t x s) the true confidential values,
    ``tol`` (s,) the tolerance of each attribute in its units. Returns two t x s arrays."""
    Rq, Tq = (np.atleast_2d(np.asarray(a, dtype=np.float64)) for a in (released_qi, targets_qi))
    G, T = (np.asarray(a, dtype=np.float64).reshape(len(b), -1) for a, b in ((released_conf, Rq), (targets_conf, Tq)))
    if Rq.shape[1] != Tq.shape[1] or G.shape[1] != T.shape[1] or not all(np.isfinite(a).all() for a in (Rq, Tq, G, T)):
        raise MicroaggError("attack: released and target records need the same finite quasi-identifier and "
                            "confidential columns.")
    U, first, classes = np.unique(Rq, axis=0, return_index=True, return_inverse=True)
    nearest, ties = nearest_ties(U, Tq, first)
    return _rates(classes.reshape(-1), nearest, ties, G, T, np.broadcast_to(np.asarray(tol, float), (G.shape[1],)))


def _rates(classes, nearest, ties, G, T, tol) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.empty(T.shape), np.empty(T.shape)
    for s in range(G.shape[1]):
        ranks = _ranks(G[:, s], T[:, s] - tol[s], T[:, s] + tol[s])
        a[:, s] = attack_success(classes, nearest, ties, G[:, s], T[:, s], tol[s], ranks)
        b[:, s] = baseline_success(G[:, s], T[:, s], tol[s], ranks)
    return a, b


def summary(a: np.ndarray, b: np.ndarray, names) -> pd.DataFrame:
    """Per attribute: attack and baseline rates with Wilson intervals and the paired excess with its normal
    interval, all in % (``a``, ``b``: t x s probabilities from :func:`attack`)."""
    rows = []
    for s, name in enumerate(names):
        n = len(a)
        d = a[:, s] - b[:, s]
        half = Z95 * d.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        (al, ah), (bl, bh) = wilson(a[:, s].sum(), n), wilson(b[:, s].sum(), n)
        rows.append({"attribute": name, "targets": n, "attack": 100 * a[:, s].mean(), "attack low": 100 * al,
                     "attack high": 100 * ah, "baseline": 100 * b[:, s].mean(), "baseline low": 100 * bl,
                     "baseline high": 100 * bh, "excess": 100 * d.mean(), "excess low": 100 * (d.mean() - half),
                     "excess high": 100 * (d.mean() + half)})
    return pd.DataFrame(rows)


def inference_risk(original, protected, confidential, keys=None, names=None, tolerance: float = 10.0
                   ) -> pd.DataFrame:
    """The attack of the module doc on an original and a protected table (n x d, the same records in the same
    order, original units): targets are the original records, whose ``keys`` columns the intruder knows (default
    every column not ``confidential``), linked in z-scores of the original; guesses are the protected values of the
    ``confidential`` columns (positions, or names with ``names``); ``tolerance`` in % of each confidential
    attribute's population sd. One row per confidential attribute (:func:`summary`)."""
    X, Xp = pair(original, protected)
    conf = columns(confidential, X.shape[1], names, "confidential")
    known = known_columns(X.shape[1], conf, keys, names)
    std = Standardizer.fit(X)
    Z, Zp = std.transform(X), std.transform(Xp)
    tol = check_tolerance(tolerance) / 100 * X[:, conf].std(axis=0)
    a, b = attack(Zp[:, known], Xp[:, conf], Z[:, known], X[:, conf], tol)
    return summary(a, b, [names[t] for t in conf] if names is not None else [str(t) for t in conf])


def known_columns(d: int, conf, keys=None, names=None) -> list[int]:
    """The columns the intruder knows: ``keys``, by default every column not in ``conf`` (all of them when
    ``conf`` is None, i.e. every column is both known and guessed)."""
    if keys is not None:
        return list(columns(keys, d, names, "keys"))
    known = list(range(d)) if conf is None else [t for t in range(d) if t not in set(conf)]
    if not known:
        raise MicroaggError("the intruder knows no column: every column is confidential. Pass 'keys' (the columns "
                            "an intruder knows) or fewer confidential columns.")
    return known


def check_tolerance(tolerance) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.number)) or \
            not 0 <= float(tolerance) < np.inf:
        raise MicroaggError(f"'tolerance' must be a finite number >= 0 (in % of the attribute's sd); got "
                            f"{tolerance!r}.")
    return float(tolerance)


_DOC = "docs/metrics.md §4.18"
_SRC = "Giomi et al. 2023 (inference attack against a baseline)"


def _probabilities(ctx) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The attack on this evaluation: the intruder knows the key columns (:func:`known_columns`; in a release the
    masked columns, and the key class when key columns are released); guesses are released confidential values."""
    truth, released, names = sensitive(ctx)
    tol = ctx.params["tolerance"] / 100 * truth.std(axis=0)
    conf = None if ctx.Xc is not None or ctx.params["confidential"] is None else \
        columns(ctx.params["confidential"], ctx.d, ctx.names, "confidential")
    keys = known_columns(ctx.d, conf, ctx.params["keys"], ctx.names)
    if ctx.key_classes is not None:
        a = np.empty(truth.shape)
        kc = np.asarray(ctx.key_classes)
        order = np.argsort(kc, kind="stable")
        for rows in np.split(order, np.cumsum(np.bincount(kc))[:-1]):
            link = Linkage(ctx.Z[rows], ctx.Zp[rows], keys)
            a[rows] = _rates(link.classes, *link.nearest_classes(), released[rows], truth[rows], tol)[0]
        b = np.column_stack([baseline_success(released[:, s], truth[:, s], tol[s]) for s in range(len(names))])
        return a, b, names
    link = shared_linkage(ctx) if len(keys) == ctx.d else Linkage(ctx.Z, ctx.Zp, keys)
    return (*_rates(link.classes, *link.nearest_classes(), released, truth, tol), names)


@register(
    Metric("inference attack", "Inference attack success", "risk", "%", LOWER, _SRC,
           "Share of confidential values an intruder who knows the target's quasi-identifiers guesses within the "
           "tolerance from the nearest released record.", _DOC, ("keys", "confidential", "tolerance"),
           ("z-scores", "original units", "linkage"), per_attribute=True),
    Metric("inference baseline", "Inference baseline success", "risk", "%", NEUTRAL, _SRC,
           "Share guessed within the tolerance by a random released value of the attribute (no linkage).", _DOC,
           ("confidential", "tolerance"), ("original units",), per_attribute=True),
    Metric("inference excess", "Inference risk over the baseline", "risk", "pp", LOWER, _SRC,
           "Attack success minus baseline success: what linking to the release adds.", _DOC,
           ("keys", "confidential", "tolerance"), ("z-scores", "original units", "linkage"), per_attribute=True),
    Metric("inference excess high", "Inference excess, upper 95 % bound", "risk", "pp", LOWER, _SRC,
           "Upper end of the 95 % interval of the excess (normal, from the per-target differences).", _DOC,
           ("keys", "confidential", "tolerance"), ("z-scores", "original units", "linkage"), per_attribute=True),
)
def _inference(ctx) -> dict:
    """Per confidential attribute; the "all" row is the attribute with the largest excess."""
    table = summary(*_probabilities(ctx))
    worst = table.loc[table["excess"].idxmax()]
    return {metric: (float(worst[column]), dict(zip(table["attribute"], table[column].astype(float))))
            for metric, column in (("inference attack", "attack"), ("inference baseline", "baseline"),
                                   ("inference excess", "excess"), ("inference excess high", "excess high"))}
