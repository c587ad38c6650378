"""Metrics of survey data: information loss and moments with sampling weights, and IL and DLD on records with
missing cells (docs/metrics.md §4.26-4.27).

The weighted metrics estimate what a survey analyst computes from the file, population quantities, so every
record counts with its sampling weight w_i: the weighted IL (Σ w SSE / Σ w SST), and the weighted means,
variances and correlations of the release against the original's. Registered (they need the sampling weights,
``evaluate(..., sampling_weights=w)``). The functions take missing cells (NaN): a moment uses the observed cells
of each attribute (a correlation the records observing both), IL the cells observed in the original, a
released-missing cell counting as the attribute's weighted mean; DLD links with the partial distances of the
partition (``partition.geometry.partial_distances``, docs/methods.md §8.2). ``Release.report`` computes these when cells
are missing, since the other metrics need complete records.
"""

from __future__ import annotations

import numpy as np

from ..aggregate.survey import relative_weights
from ..base.rows import LOWER
from ..partition.geometry import partial_distances
from ._arrays import correlation
from .registry import Metric, register
from .risk import exact_shares

_WEIGHTED, _MISSING = "docs/metrics.md §4.26", "docs/metrics.md §4.27"
_NEEDS = ("z-scores", "sampling weights")


def _weights(Z: np.ndarray, w) -> np.ndarray:
    """The weights relative to each other (``aggregate.survey.relative_weights`` over all records; every metric here
    depends on their ratios only): no weighted sum overflows or loses the smallest weights, whatever their
    magnitude, and equal weights are exactly 1."""
    if w is None:
        return np.ones(len(Z))
    w = np.asarray(w, dtype=np.float64)
    return relative_weights(w, np.zeros(len(w), dtype=np.int64), np.ones(len(w), dtype=bool), 1)


def weighted_means(Z: np.ndarray, w=None) -> np.ndarray:
    """Σ w z / Σ w per attribute over its observed cells."""
    w, seen = _weights(Z, w), ~np.isnan(Z)
    return (np.where(seen, Z, 0.0) * w[:, None]).sum(axis=0) / (seen * w[:, None]).sum(axis=0)


def weighted_covariance(Z: np.ndarray, w=None) -> np.ndarray:
    """Weighted covariances Σ w (z_s − m_s)(z_t − m_t) / Σ w over the records observing both attributes, with the
    weighted means m of those records (population form, as the z-scores' sd)."""
    w, seen, d = _weights(Z, w), ~np.isnan(Z), Z.shape[1]
    C = np.empty((d, d))
    for s in range(d):
        for t in range(s, d):
            both = seen[:, s] & seen[:, t]
            ws = w[both] / w[both].sum() if both.any() else w[both]
            a, b = Z[both, s], Z[both, t]
            C[s, t] = C[t, s] = (ws * (a - ws @ a) * (b - ws @ b)).sum() if both.any() else np.nan
    return C


def weighted_il(Z: np.ndarray, Zp: np.ndarray, w=None) -> float:
    """100 Σ_i w_i Σ_t (z_it − z'_it)² / Σ_i w_i Σ_t (z_it − m_t)² over the cells observed in ``Z``; m the weighted
    means; a cell missing in ``Zp`` only counts as m_t (all of its variance lost). NaN when the denominator is 0."""
    w, m = _weights(Z, w), weighted_means(Z, w)
    seen = ~np.isnan(Z)
    Zq = np.where(np.isnan(Zp), m, Zp)
    sse = (np.where(seen, Z - Zq, 0.0) ** 2 * w[:, None]).sum()
    sst = (np.where(seen, Z - m, 0.0) ** 2 * w[:, None]).sum()
    return float(100.0 * sse / sst) if sst > 0 else float("nan")


def moment_changes(Z: np.ndarray, Zp: np.ndarray, w=None) -> dict:
    """The weighted mean shift |m'_t − m_t| (z units), variance change 100 |v'_t / v_t − 1| (%) per attribute and
    the largest correlation change max |ρ'_st − ρ_st| of the release ``Zp`` against ``Z`` (NaN-aware)."""
    C, Cp = weighted_covariance(Z, w), weighted_covariance(Zp, w)
    v, vp = np.diag(C), np.diag(Cp)
    shift = np.abs(weighted_means(Zp, w) - weighted_means(Z, w))
    change = np.where(v > 0, 100.0 * np.abs(vp / np.where(v > 0, v, 1.0) - 1.0), np.nan)
    R, Rp = correlation(np.nan_to_num(C)), correlation(np.nan_to_num(Cp))
    return {"weighted mean shift": (float(shift.mean()), shift),
            "weighted variance change": (float(np.nanmean(change)) if (v > 0).any() else float("nan"), change),
            "weighted correlation change": float(np.abs(Rp - R).max())}


def partial_dld(Z: np.ndarray, Zp: np.ndarray) -> float:
    """DLD (expected rule, docs/metrics.md §4.6b) with partial distances: every original record is linked to the
    released rows at the smallest partial distance from it, and counts 1/|tied| when its own row is among them.
    With no missing cell this is DLD. O(n²·d) time, O(n·d) memory."""
    Z, Zp = np.asarray(Z, dtype=np.float64), np.asarray(Zp, dtype=np.float64)
    observed = ~np.isnan(Zp)
    Zp0, rows = np.where(observed, Zp, 0.0), np.arange(len(Zp))
    credit = 0.0
    for i in range(len(Z)):
        seen = ~np.isnan(Z[i])
        dist = partial_distances(Zp0, observed, rows, np.where(seen, Z[i], 0.0), seen, 0.0)
        tied = np.flatnonzero(dist == dist.min())
        credit += 1.0 / len(tied) if i in tied else 0.0
    return float(100.0 * credit / len(Z))


@register(
    Metric("IL (weighted)", "Information loss with sampling weights", "utility", "%", LOWER,
           "Chettri, Paul & Dutta, Eq. 4, with sampling weights", "100·Σ w SSE / Σ w SST: the share of the "
           "weighted total variance the masking removed.", _WEIGHTED, needs=_NEEDS),
    Metric("weighted mean shift", "Shift of the weighted means", "utility", "z units", LOWER,
           "docs/metrics.md §4.26", "|weighted mean of the release − weighted mean of the original| per attribute, "
           "in sds; 'all' is the mean over attributes.", _WEIGHTED, needs=_NEEDS, per_attribute=True),
    Metric("weighted variance change", "Change of the weighted variances", "utility", "%", LOWER,
           "docs/metrics.md §4.26", "100·|weighted variance of the release / of the original − 1| per attribute; "
           "'all' is the mean over attributes.", _WEIGHTED, needs=_NEEDS, per_attribute=True),
    Metric("weighted correlation change", "Change of the weighted correlations", "utility", "", LOWER,
           "docs/metrics.md §4.26", "Largest |weighted correlation of the release − of the original| over the pairs "
           "of attributes.", _WEIGHTED, needs=_NEEDS),
)
def _weighted(ctx) -> dict:
    return {"IL (weighted)": weighted_il(ctx.Z, ctx.Zp, ctx.weights), **moment_changes(ctx.Z, ctx.Zp, ctx.weights)}


def missing_rows(Z: np.ndarray, Zp: np.ndarray, w=None, X=None, Xp=None) -> list[tuple]:
    """(metric, value, unit, direction, source) of a release with missing cells: IL over the observed cells, DLD
    with partial distances, with ``X``/``Xp`` (the values in the data's units, as published) the exact cells (a
    missing cell equals nothing) and, with sampling weights, the weighted metrics (all NaN-aware)."""
    src = f"{_MISSING}; the other metrics need complete records"
    rows = [("IL (observed cells)", weighted_il(Z, Zp), "%", LOWER, src),
            ("DLD (partial distances)", partial_dld(Z, Zp), "%", LOWER, src)]
    if X is not None:
        cells, records = exact_shares(np.asarray(X, dtype=np.float64), np.asarray(Xp, dtype=np.float64))
        rows += [("exact cells", cells, "%", LOWER, "docs/metrics.md §4.14"),
                 ("exact records", records, "%", LOWER, "docs/metrics.md §4.14")]
    if w is not None:
        rows.append(("IL (weighted)", weighted_il(Z, Zp, w), "%", LOWER, _WEIGHTED))
        rows += [(name, value[0] if isinstance(value, tuple) else value, "z units" if "mean" in name else
                  "%" if "variance" in name else "", LOWER, _WEIGHTED)
                 for name, value in moment_changes(Z, Zp, w).items()]
    return rows
