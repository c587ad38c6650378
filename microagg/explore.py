"""What-if sweeps: the risk-utility (R-U) map over k and methods, for the dashboard and the notebooks."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .metrics import dld, group_stats, information_loss, pil, sdid
from .metrics.privacy import resolve_delta
from .metrics.risk import check_rule
from .release import microaggregate, pooled_labels

RU_COLUMNS = ["method", "k", "IL", "PIL", "DLD", "SDID", "seconds"]


def risk_utility(data, ks: Sequence[int], methods: Sequence[str] = ("mdav",), aggregation: str = "mean",
                 columns: Sequence[str] | None = None, p: float = 5.0, dld_rule: str = "expected",
                 progress: Callable[[float, str], None] | None = None, **params) -> pd.DataFrame:
    """Utility loss (IL, PIL) and disclosure risk (DLD, SDID) of every method at every k: one row each.

    IL is 100·SSE/SST (seed 003 Eq. 4), PIL seed 000 Eq. 9-11, DLD the linkage of ``dld_rule``
    (default the expected value, FORMULAS §4.6 b; ``"1st_or_2nd"`` is seed 003 Eq. 5), SDID seed 000
    Eq. 8 with interval ``p`` %. ``params`` go to every run (shared aggregation parameters).
    ``progress(fraction, message)`` is called after each run.
    """
    check_rule(dld_rule)
    rows = []
    runs = [(m, int(k)) for m in methods for k in ks]
    for i, (method, k) in enumerate(runs):
        t0 = time.perf_counter()
        rel = microaggregate(data, k, method=method, aggregation=aggregation, columns=columns, **params)
        rows.append({"method": method, "k": k, "IL": information_loss(rel.Z, rel.Zp), "PIL": pil(rel.Z, rel.Zp),
                     "DLD": dld(rel.Z, rel.Zp, dld_rule), "SDID": sdid(rel.Z, rel.Zp, p=p),
                     "seconds": time.perf_counter() - t0})
        if progress is not None:
            progress((i + 1) / len(runs), f"{method}, k = {k}")
    return pd.DataFrame(rows, columns=RU_COLUMNS)


COMPARE_COLUMNS = ["run", "method", "k", "IL", "DLD", "groups", "k-anonymous", "seconds"]


def compare_methods(data, k: int, runs: Mapping[str, tuple[str, dict]] | Sequence[str], aggregation: str = "mean",
                    columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Several partitioners on the same data and k, side by side: IL, DLD, groups, k-anonymity and time.

    ``runs`` maps a label to ``(method, parameters)``, e.g. ``{"MDAV classic": ("mdav", {"variant": "classic"})}``
    (seed 003 §3 compares MDAV's variants this way), or lists method names run with their defaults. IL is
    100·SSE/SST (seed 003 Eq. 4), DLD the expected-value linkage (FORMULAS §4.6 b). ``groups`` counts the groups
    (of all attributes pooled for per-attribute methods); ``k-anonymous`` is the release's check of whole records,
    which replaces ``microaggregate``'s warning for methods that are not record-level (individual ranking).
    """
    if not isinstance(runs, Mapping):
        runs = {name: (name, {}) for name in runs}
    rows = []
    for label, (method, params) in runs.items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*NOT \d+-anonymous as whole records", category=UserWarning)
            rel = microaggregate(data, k, method=method, aggregation=aggregation, columns=columns,
                                 method_params=dict(params))
        seconds = time.perf_counter() - t0
        groups = group_stats(pooled_labels(rel.labels))["groups"]
        rows.append({"run": label, "method": method, "k": int(k), "IL": information_loss(rel.Z, rel.Zp),
                     "DLD": dld(rel.Z, rel.Zp), "groups": groups, "k-anonymous": rel.anonymity["k_anonymous"],
                     "seconds": seconds})
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)


PRIVACY_KEYS = ("delta", "relative", "w", "weights", "w_seed")


def breaches(Z, Zp, delta=0.1, relative: bool = False) -> np.ndarray:
    """Proximity breaches (seed 000 §4): the n x d cells whose released value is closer than Δ to the original.

    The cells with sl = 0 in SL (Eq. 13): Δ > 0 and |x - x'| < Δ, with Δ as in ``satisfaction_level`` (a scalar,
    per attribute, per cell, or relative to |x|), in z units.
    """
    Z = np.asarray(Z, dtype=np.float64)
    D = resolve_delta(delta, Z, relative)
    return (D > 0) & (np.abs(Z - np.asarray(Zp, dtype=np.float64)) < D)


def sl_arguments(privacy: dict) -> dict:
    """SL's Δ/w arguments for the P3M-style ``privacy`` settings (weights="random" means w="random")."""
    w = "random" if privacy.get("weights") == "random" else privacy.get("w", 0.001)
    return {"delta": privacy.get("delta", 0.1), "relative": privacy.get("relative", False), "w": w,
            "w_seed": privacy.get("w_seed", 1)}


def satisfaction_over_alpha(Z, labels, alphas: Sequence[float], **privacy) -> pd.DataFrame:
    """SL (seed 000 Eq. 13) of P3M at each α beside the renormalized mean's (Eq. 5), on one partition.

    ``privacy`` holds P3M's Δ and w settings (delta, relative, w, weights, w_seed). One row per α:
    SL of P3M, SL of the renormalized mean, IL of P3M, and the solver's status per attribute.
    """
    from .aggregate import mean, p3m_solve
    from .metrics import satisfaction_level
    from .preprocess import renormalize

    spec = sl_arguments(privacy)
    base = satisfaction_level(Z, renormalize(mean(Z, labels)), **spec)
    rows = []
    for a in alphas:
        res = p3m_solve(Z, labels, alpha=float(a), **{k: v for k, v in privacy.items() if k in PRIVACY_KEYS})
        rows.append({"alpha": float(a), "SL P3M": satisfaction_level(Z, res.Zp, **spec), "SL mean (renormalized)": base,
                     "IL P3M": information_loss(Z, res.Zp),
                     "certified": bool(np.all(res.certified)), "status": ", ".join(sorted(set(res.status)))})
    return pd.DataFrame(rows)


def satisfaction_grid(data, ks: Sequence[int], alphas: Sequence[float], method: str = "mdav",
                      columns: Sequence[str] | None = None, method_params: dict | None = None,
                      progress: Callable[[float, str], None] | None = None, **privacy) -> pd.DataFrame:
    """SL of P3M for every (k, α): the partition is computed once per k. Long form: k, alpha, SL."""
    rows = []
    for i, k in enumerate(ks):
        rel = microaggregate(data, int(k), method=method, columns=columns, method_params=method_params)
        frame = satisfaction_over_alpha(rel.Z, rel.labels, alphas, **privacy)
        rows += [{"k": int(k), "alpha": a, "SL": s} for a, s in zip(frame["alpha"], frame["SL P3M"])]
        if progress is not None:
            progress((i + 1) / len(ks), f"k = {k}")
    return pd.DataFrame(rows)
