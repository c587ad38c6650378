"""What-if sweeps: the risk-utility (R-U) map over k and methods, with comparison methods that are not
microaggregation (``microagg.lab.baselines``) and its Pareto frontier, for the dashboard and the notebooks."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..base.checks import percent
from ..base.labels import pooled_labels
from ..base.said import again, heard
from ..data.preprocess import as_frame
from ..metrics import group_stats
from ..metrics.report import context
from ..metrics.risk import RULE_METRICS, check_rule
from ..privacy.wishes import NAMES as WISHES
from ..release.pipeline import microaggregate
from ..release.spec import ReleaseSpec
from ..release.stages import EXACT_VALUES, NOT_WHOLE_RECORDS, roles_of, standardize
from .baselines import get_baseline

SWEPT = ("IL", "PIL", "DLD", "SDID", "exact cells", "exact records")  # registered metrics; DLD by the chosen rule
RU_COLUMNS = ["method", "k", "setting", *SWEPT, "k-anonymous", "seconds"]
COMPARE_COLUMNS = ["run", "method", "k", "IL", "DLD", "groups", "k-anonymous", "seconds"]

# what a sweep's releases say that its table says already (the k-anonymous column, the exact cells): not repeated;
# collected per call (base.said), not by silencing them process-wide, which would silence other threads' releases too
SWEEP_QUIET = (NOT_WHOLE_RECORDS, EXACT_VALUES)  # the map's points are not meant as k-anonymous releases
Runs = Mapping[str, tuple[str, dict]] | Sequence[str]
Baselines = Mapping[str, Sequence[float]] | Sequence[str]


def _runs(runs: Runs) -> dict[str, tuple[str, dict]]:
    """``{label: (method, parameters)}`` from such a mapping or from method names (default parameters)."""
    return dict(runs) if isinstance(runs, Mapping) else {name: (name, {}) for name in runs}


def _sweep(data, ks: Sequence[int], runs: Runs, aggregation: str, columns, p: float, dld_rule: str,
           progress: Callable[[float, str], None] | None, **params) -> pd.DataFrame:
    """One row per (run, k): the metrics :data:`SWEPT` (computed as registered in ``microagg.metrics.registry``,
    DLD by ``dld_rule``), groups, k-anonymity and time of ``microaggregate``.

    One nearest-neighbour linkage serves DLD and SDID. A method that is not record-level (individual
    ranking) warns that its release is not k-anonymous: the ``k-anonymous`` column says so instead.
    """
    check_rule(dld_rule)
    p = percent(p)
    todo = [(label, method, mp, int(k)) for label, (method, mp) in _runs(runs).items() for k in ks]
    rows = []
    for i, (label, method, mp, k) in enumerate(todo):
        t0 = time.perf_counter()
        rel, said = heard(microaggregate, data, k, method=method, aggregation=aggregation, columns=columns,
                           method_params=dict(mp), **params)
        again([note for note in said if not any(kind.match(note.text) for kind in SWEEP_QUIET)], 2)
        seconds = time.perf_counter() - t0
        ctx = context(rel.original[rel.masked].to_numpy(np.float64), rel.in_input_order()[rel.masked].to_numpy(
            np.float64), rel.Z, rel.Zp, rel.masked, p=p)
        rows.append({"run": label, "method": method, "k": k,
                     **{name: ctx.value(RULE_METRICS[dld_rule] if name == "DLD" else name) for name in SWEPT},
                     "groups": group_stats(pooled_labels(rel.labels))["groups"],
                     "k-anonymous": rel.anonymity["k_anonymous"], "seconds": seconds})
        if progress is not None:
            progress((i + 1) / len(todo), f"{label}, k = {k}")
    return pd.DataFrame(rows, columns=["run", "method", "k", *SWEPT, "groups", "k-anonymous", "seconds"])


def _baseline_rows(data, baselines: Baselines, columns, confidential, seed: int, p: float, dld_rule: str,
                   progress: Callable[[str], None]) -> list[dict]:
    """One row per (comparison method, level) on the columns microaggregation would mask: the metrics :data:`SWEPT`
    of its release, never k-anonymous, with no k."""
    todo = dict(baselines) if isinstance(baselines, Mapping) else {name: None for name in baselines}
    if not todo:
        return []
    df, spec = as_frame(data), ReleaseSpec.of(2, columns=columns, confidential=confidential)
    prep = standardize(df, roles_of(df, spec), spec)
    rows = []
    for name, levels in todo.items():
        base = get_baseline(name)
        for level in base.levels if levels is None else levels:
            t0 = time.perf_counter()
            Xp = base(prep.X, level, seed)
            seconds = time.perf_counter() - t0
            ctx = context(prep.X, Xp, prep.Z, prep.std.transform(Xp), prep.roles.masked, p=p)
            rows.append({"method": base.title, "k": pd.NA, "setting": f"{base.level.name} = {float(level):g}",
                         **{m: ctx.value(RULE_METRICS[dld_rule] if m == "DLD" else m) for m in SWEPT},
                         "k-anonymous": False, "seconds": seconds})
            progress(f"{base.title}, {base.level.name} = {float(level):g}")
    return rows


def risk_utility(data, ks: Sequence[int], methods: Runs = ("mdav",), aggregation: str = "mean",
                 columns: Sequence[str] | None = None, p: float = 5.0, dld_rule: str = "expected",
                 progress: Callable[[float, str], None] | None = None, baselines: Baselines = (), seed: int = 0,
                 **params) -> pd.DataFrame:
    """Utility loss (IL, PIL) and disclosure risk (DLD, SDID) of every method at every k: one row each.

    ``methods`` lists method names, or maps labels to ``(method, parameters)`` like :func:`compare_methods`
    (the ``method`` column then holds the label). IL is 100·SSE/SST (Chettri, Paul & Dutta, Eq. 4), PIL Mortazavi &
    Jalili 2017 Eq. 9-11, DLD the linkage of ``dld_rule`` (default the expected value, docs/metrics.md §4.6 b;
    ``"1st_or_2nd"`` is Chettri, Paul & Dutta, Eq. 5), SDID Mortazavi & Jalili 2017, Eq. 8 with interval ``p`` %,
    ``exact cells`` and ``exact records`` the shares of masked cells published equal to their original and of
    records with one (the median of groups of odd size). ``params`` go to every run (shared aggregation
    parameters, ``confidential``). ``progress(fraction, message)`` is called after each run.

    ``baselines`` adds comparison methods that are not microaggregation (``microagg.lab.baselines``: "noise",
    "rank_swap"), each at its registered levels or, given as ``{name: levels}``, at those, drawn with ``seed`` on
    the same masked columns: their rows have no k, ``setting`` names the level and ``k-anonymous`` is False.
    """
    names = list(baselines) if isinstance(baselines, Mapping) else list(baselines)
    for name in names:
        get_baseline(name)
    count = len(_runs(methods)) * len(ks)
    count += sum(len(get_baseline(n).levels if not isinstance(baselines, Mapping) else baselines[n]) for n in names)
    done = []

    def step(message):
        done.append(message)
        if progress is not None:
            progress(len(done) / count, message)

    frame = _sweep(data, ks, methods, aggregation, columns, p, dld_rule, lambda f, m: step(m), **params)
    frame = frame.drop(columns="method").rename(columns={"run": "method"})
    frame["setting"] = [f"k = {k}" for k in frame["k"]]
    rows = _baseline_rows(data, baselines, columns, params.get("confidential"), seed, percent(p), dld_rule, step)
    out = pd.concat([frame, pd.DataFrame(rows)], ignore_index=True) if rows else frame
    out["k"] = out["k"].astype("Int64")
    return out[RU_COLUMNS]


def pareto_front(risk, loss) -> np.ndarray:
    """Boolean mask of the non-dominated points (docs/metrics.md §4.24): no other point has risk and loss both at most
    as large and one of them smaller. Lower is better on both axes; a point with a NaN coordinate is never on the
    front, and points that tie on both coordinates are on it together. O(m²) for m points: an R-U map is small."""
    r, u = np.asarray(risk, dtype=np.float64), np.asarray(loss, dtype=np.float64)
    ok = np.isfinite(r) & np.isfinite(u)
    rr, uu = r[ok], u[ok]
    dominated = ((rr[None, :] <= rr[:, None]) & (uu[None, :] <= uu[:, None]) &
                 ((rr[None, :] < rr[:, None]) | (uu[None, :] < uu[:, None]))).any(axis=1)
    out = np.zeros(len(r), dtype=bool)
    out[np.flatnonzero(ok)[~dominated]] = True
    return out


def pareto_frontier(frame: pd.DataFrame, risk: str = "DLD", utility: str = "IL") -> pd.DataFrame:
    """The rows of an R-U map (:func:`risk_utility`) on its Pareto frontier for ``risk`` and ``utility`` (no other
    row has both lower or equal and one lower; docs/metrics.md §4.24), by increasing risk."""
    return frame[pareto_front(frame[risk], frame[utility])].sort_values([risk, utility])


def compare_methods(data, k: int, runs: Runs, aggregation: str = "mean",
                    columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Several partitioners on the same data and k, side by side: IL, DLD, groups, k-anonymity and time.

    ``runs`` maps a label to ``(method, parameters)``, e.g. ``{"MDAV classic": ("mdav", {"variant": "classic"})}``
    (Chettri, Paul & Dutta, §3 compares MDAV's variants this way), or lists method names run with their defaults. IL
    is 100·SSE/SST (Chettri, Paul & Dutta, Eq. 4), DLD the expected-value linkage (docs/metrics.md §4.6 b). ``groups``
    counts the groups (of all attributes pooled for per-attribute methods); ``k-anonymous`` is the release's check of
    whole records, which replaces ``microaggregate``'s warning for methods that are not record-level (individual
    ranking).
    """
    return _sweep(data, [k], runs, aggregation, columns, 5.0, "expected", None)[COMPARE_COLUMNS]


def satisfaction_over_alpha(Z, labels, alphas: Sequence[float], **privacy) -> pd.DataFrame:
    """SL (Mortazavi & Jalili 2017, Eq. 13) of P3M at each α beside the renormalized mean's (Eq. 5), on one partition.

    ``privacy`` holds the owners' wishes (``microagg.privacy.wishes``: delta, relative, w, weights, w_seed; other
    keys are
    ignored). One row per α: SL of P3M, SL of the renormalized mean, IL of P3M, and the solver's status per attribute.
    """
    from ..aggregate import mean, p3m_solve
    from ..data.preprocess import renormalize
    from ..metrics import information_loss, satisfaction_level, sst

    wishes = {name: value for name, value in privacy.items() if name in WISHES}
    base = satisfaction_level(Z, renormalize(mean(Z, labels)), **wishes)
    rows = []
    for a in alphas:
        res = p3m_solve(Z, labels, alpha=float(a), **wishes)
        rows.append({"alpha": float(a), "SL P3M": satisfaction_level(Z, res.Zp, **wishes),
                     "SL mean (renormalized)": base,
                     "IL P3M": float("nan") if sst(Z) == 0 else information_loss(Z, res.Zp),
                     "certified": bool(np.all(res.certified)), "status": ", ".join(sorted(set(res.status)))})
    return pd.DataFrame(rows)


def satisfaction_grid(data, ks: Sequence[int], alphas: Sequence[float], method: str = "mdav",
                      columns: Sequence[str] | None = None, method_params: dict | None = None,
                      progress: Callable[[float, str], None] | None = None, confidential: Sequence[str] | None = None,
                      **privacy) -> pd.DataFrame:
    """SL of P3M for every (k, α): the partition is computed once per k. Long form: k, alpha, SL."""
    rows = []
    for i, k in enumerate(ks):
        rel = microaggregate(data, int(k), method=method, columns=columns, method_params=method_params,
                             confidential=confidential)
        frame = satisfaction_over_alpha(rel.Z, rel.labels, alphas, **privacy)
        rows += [{"k": int(k), "alpha": a, "SL": s} for a, s in zip(frame["alpha"], frame["SL P3M"])]
        if progress is not None:
            progress((i + 1) / len(ks), f"k = {k}")
    return pd.DataFrame(rows)

