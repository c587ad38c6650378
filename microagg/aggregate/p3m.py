"""P3M: personalizable proximity-breach prevention aggregation (Mortazavi & Jalili 2017, §4, Eq. 14-18;
docs/methods.md §3.3).

For a fixed partition, P3M moves each group's centroid C_j[t] by δ_j[t] so that released values
lie at a distance Δ_i[t] from the originals as far as possible, while the shifts stay small and every
attribute keeps its mean and variance. The distance condition is a soft *equality*, relaxed by γ_i[t]
and weighted by the importance w_i[t]:

    min   obj_t = α Σ_i γ_i²  +  (1 - α) Σ_j n_j δ_j²
    s.t.  (C_j + δ_j - x_i)² = Δ_i² - (1 - w_i) γ_i      (i in G_j)
          Σ_j n_j δ_j = 0,   Σ_j n_j (C_j + δ_j)² = n σ²   (mean and variance preserved)

Every record of group j is released as C_j + δ_j (Eq. 18), so the release keeps the group
structure. γ_i = (Δ_i² - (C_j + δ_j - x_i)²) / (1 - w_i) is positive for a cell closer than Δ (a
breach) and negative for one farther than Δ, and α Σ γ² penalises both: P3M pulls far cells back
towards Δ as hard as it pushes near ones out (with Tarragona, k = 3, Δ = 0.1, w = 0.001, the breaching
cells contribute about 0.15 of an objective of 11564; docs/methods.md §3.3).

Choices where Mortazavi & Jalili 2017 is silent or ambiguous (each tested):

* Units: Z as given, normally z-scores (then n σ² = n, Eq. 14 exactly). For other data the
  mean and the population variance of each column of Z are preserved, and Δ is in Z's units.
* w < 1 (docs/methods.md §5, decision 17): the paper allows w = 1, a hard constraint (distance exactly
  Δ), which one shared group value generally cannot meet for three or more different members; the
  solver eliminates γ through 1 / (1 - w_i), so w >= 1 is refused.
* Relative Δ (Mortazavi & Jalili 2017, §5.1): Δ_i[t] = r·|x_i[t]| with a factor r > 0 (Δ enters only as Δ²).
* The shift term is Eq. 14's Σ n_j δ_j²; Eq. 17's linear rewriting agrees only on the feasible
  set, so both have the same optimum.
* A constant column has one feasible point (no shift) and is released unchanged.
* The output is not renormalized again (docs/methods.md §1.3): it already has the mean and variance.

Solvers (``solver``): "dual" (default) — Lagrangian dual Newton with closed-form per-group
quartic minimization, certified when the dual bound closes, with a local polish at kinks of the
dual (``_p3m_solver``); "trust-constr" — scipy's local solver from δ = 0, the independent
cross-check (seconds instead of milliseconds). Both report a dual bound.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.checks import check_finite
from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..base.registry import Param, register
from ..base.rows import LOWER, report_row
from ..privacy.wishes import PARAMS as WISHES
from ..privacy.wishes import cells
from . import _p3m_solver as solvers

SOLVERS = ("dual", "trust-constr")
SOURCE = "Mortazavi & Jalili 2017, §4, Eq. 14-18"


@dataclass(frozen=True, repr=False)
class P3MResult:
    """What P3M did, per attribute (arrays of length d), in the spirit of ``scipy.optimize.OptimizeResult``.

    ``Zp`` is the release (n x d); ``objective`` obj_t (Eq. 14 with γ eliminated);
    ``dual_bound`` a Lagrangian dual value, a lower bound on the optimum; ``gap`` their difference;
    ``mean_error`` / ``variance_error`` the release's mean and population variance minus the
    original's; ``status`` "optimal" (feasible, gap closed: a certified global optimum), "local"
    (feasible, gap open: a local optimum, the gap bounds its excess) or "infeasible" (constraints
    not met to ``tol``); ``shifts`` the δ_j (m x d; a list of per-attribute arrays when each
    attribute has its own labels).
    """

    Zp: np.ndarray
    objective: np.ndarray
    dual_bound: np.ndarray
    gap: np.ndarray
    mean_error: np.ndarray
    variance_error: np.ndarray
    iterations: np.ndarray
    status: tuple
    certified: np.ndarray
    shifts: object
    solver: str

    @property
    def success(self) -> bool:
        """Every attribute meets the mean and variance constraints to tolerance."""
        return all(s != "infeasible" for s in self.status)

    def table(self, names=None) -> pd.DataFrame:
        """One row per attribute: objective, dual bound, gap, relative gap, errors, iterations, status."""
        d = len(self.status)
        names = list(names) if names is not None else list(range(d))
        rel = self.gap / np.maximum(np.abs(self.objective), 1.0)
        return pd.DataFrame({"attribute": names, "objective": self.objective, "dual bound": self.dual_bound,
                             "gap": self.gap, "relative gap": rel, "mean error": self.mean_error,
                             "variance error": self.variance_error, "iterations": self.iterations,
                             "status": list(self.status), "certified": self.certified})

    def report_rows(self) -> list[dict]:
        """Rows for ``Release.report()`` (``attribute`` is a column index or "all")."""
        rows = [report_row("P3M solver", self.solver, source=SOURCE),
                report_row("P3M objective", float(self.objective.sum()), direction=LOWER, source=SOURCE),
                report_row("P3M dual bound", float(self.dual_bound.sum()), source=SOURCE),
                report_row("P3M attributes certified optimal", f"{int(self.certified.sum())} of {len(self.status)}",
                           source=SOURCE)]
        for t, status in enumerate(self.status):
            rows += [report_row("P3M status", status, source=SOURCE, attribute=t),
                     report_row("P3M objective", float(self.objective[t]), direction=LOWER, source=SOURCE,
                                attribute=t),
                     report_row("P3M gap", float(self.gap[t]), direction=LOWER, source=SOURCE, attribute=t)]
        return rows

    def __repr__(self) -> str:
        lines = [f"P3MResult(solver={self.solver!r}, success={self.success}, "
                 f"certified={int(self.certified.sum())}/{len(self.status)} attributes)",
                 f"  objective  {self.objective.sum():.6f}",
                 f"  dual bound {self.dual_bound.sum():.6f}",
                 f"  max |mean error| {np.abs(self.mean_error).max():.2e}, "
                 f"max |variance error| {np.abs(self.variance_error).max():.2e}"]
        return "\n".join(lines)


def p3m_solve(Z, labels, alpha: float = 0.5, delta=0.1, relative: bool = False, w=0.001,
              weights: str = "given", w_seed: int = 1, solver: str = "dual", k: int | None = None,
              tol: float = 1e-9, gap_tol: float = 1e-9) -> P3MResult:
    """Solve P3M on partition ``labels`` and return the release with its diagnostics (``P3MResult``).

    ``delta``: Δ in Z's units — a scalar, one per attribute (d,), or one per cell (n, d); with
    ``relative`` it is the factor r of Δ = r·|x| (r > 0). ``w``: importance weights in [0, 1) —
    a scalar, per record (n,), per cell (n, d); ``weights="random"`` uses our reconstruction of the seeded
    random weights of Mortazavi & Jalili 2017, Table 3, ``RandomState(w_seed).rand(d, n).T`` (MATLAB
    ``rng(w_seed); rand(n, d)``), instead. ``k``: if given, every group must have at least
    k records. ``tol``: the mean and variance must be met to tol·sd and tol·variance;
    ``gap_tol``: relative gap below which a feasible answer counts as certified optimal.
    Inputs are not modified. Raises ``MicroaggError`` on bad input, never on a hard instance:
    read ``status``.
    """
    Z, lab = _check_data(Z, labels, k)
    d = Z.shape[1]
    alpha = _check_alpha(alpha)
    D, W = cells(Z, delta, relative, w, weights, w_seed)
    if solver not in SOLVERS:
        raise MicroaggError(f"'solver' must be one of {SOLVERS}; got {solver!r}.")
    for name, value in (("tol", tol), ("gap_tol", gap_tol)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
            raise MicroaggError(f"'{name}' must be a number in (0, 1); got {value!r}.")

    blocks = [(slice(None), lab)] if lab.ndim == 1 else [([t], lab[:, t]) for t in range(d)]
    parts = [_solve_block(Z[:, cols], g, D[:, cols], W[:, cols], alpha, solver) for cols, g in blocks]
    Zp = np.column_stack([p["Zp"] for p in parts])
    cat = {key: np.concatenate([p[key] for p in parts]) for key in ("objective", "bound", "iterations")}
    shifts = parts[0]["shifts"] if lab.ndim == 1 else [p["shifts"][:, 0] for p in parts]

    mean, sd2 = Z.mean(axis=0), Z.var(axis=0)
    mean_error = Zp.mean(axis=0) - mean
    variance_error = Zp.var(axis=0) - sd2
    # tolerances relative to the spread, plus the rounding of values stored as mean + deviation, plus the
    # absolute rounding of sums below float64's normal range (a spread of subnormal size is known only to it)
    eps = 4.0 * np.finfo(np.float64).eps * np.abs(mean)
    floor = 4.0 * len(Z) * np.finfo(np.float64).smallest_subnormal
    feasible = ((np.abs(mean_error) <= tol * np.sqrt(sd2) + eps + floor)
                & (np.abs(variance_error) <= tol * sd2 + 2.0 * eps * np.sqrt(sd2) + eps * eps + floor))
    gap = cat["objective"] - cat["bound"]
    certified = feasible & (gap <= gap_tol * np.maximum(np.abs(cat["objective"]), 1.0))
    status = tuple("optimal" if c else ("local" if f else "infeasible") for c, f in zip(certified, feasible))
    return P3MResult(Zp=Zp, objective=cat["objective"], dual_bound=cat["bound"], gap=gap,
                     mean_error=mean_error, variance_error=variance_error, iterations=cat["iterations"],
                     status=status, certified=certified, shifts=shifts, solver=solver)


def _check_data(Z, labels, k):
    try:
        Z = np.array(Z, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise MicroaggError(f"Z must be a numeric n x d array: {exc}") from None
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] == 0:
        raise MicroaggError(f"Z must be a non-empty 2-D array (records x attributes); got shape {Z.shape}.")
    check_finite(Z, what="attribute")
    dev = Z - Z.mean(axis=0)
    tiny = np.flatnonzero(((dev * dev).sum(axis=0) == 0) & (np.ptp(Z, axis=0) > 0))
    if tiny.size:
        raise MicroaggError(f"attribute(s) {tiny.tolist()} vary by so little that their variance underflows to 0 "
                            "in float64; rescale them (e.g. to z-scores) before P3M.")
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1):
        raise MicroaggError(f"'k' must be a positive integer (the minimum group size); got {k!r}.")
    return Z, check_labels(labels, Z.shape[0], k=k, d=Z.shape[1])


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.0 <= float(alpha) <= 1.0:
        raise MicroaggError(f"'alpha' must be a number in [0, 1] (0: smallest shifts, 1: distances only); "
                            f"got {alpha!r}.")
    return float(alpha)


def _solve_block(x, lab, D, W, alpha, solver) -> dict:
    """P3M for the columns of ``x`` sharing partition ``lab``: release, objectives, bounds, shifts."""
    n, d = x.shape
    order = np.argsort(lab, kind="stable")
    counts = np.bincount(lab)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    N = counts.astype(np.float64)
    xbar = x.mean(axis=0)
    xs = x[order] - xbar
    C = np.add.reduceat(xs, starts, axis=0) / N[:, None]
    e = xs - C[lab[order]]                               # deviation from the group mean
    a = alpha / (1.0 - W[order]) ** 2
    p = e * e - D[order] ** 2

    def red(y):
        return np.add.reduceat(y, starts, axis=0).T

    S = (xs * xs).sum(axis=0)
    # f_j(v) = Σ a ((v - e)^2 - Δ^2)^2 + (1 - α) n_j v^2, expanded in powers of v
    prob = solvers.Problem(N, C.T.copy(), S, red(a), -4.0 * red(a * e), red(a * (4.0 * e * e + 2.0 * p))
                           + (1.0 - alpha) * N, -4.0 * red(a * e * p), red(a * p * p))
    v = np.zeros((d, len(N)))
    bound = np.zeros(d)
    iterations = np.zeros(d, dtype=np.int64)
    live = np.flatnonzero(S > 0)                          # a constant column stays as it is (v = 0)
    if live.size:
        _solve_live(prob.take(live), live, alpha, solver, v, bound, iterations)
    vi = v.T[lab[order]]                                  # shift of each record's group (sorted order)
    gamma = (D[order] ** 2 - (vi - e) ** 2) / (1.0 - W[order])
    objective = alpha * (gamma * gamma).sum(axis=0) + (1.0 - alpha) * (N[:, None] * v.T ** 2).sum(axis=0)
    bound[S == 0] = objective[S == 0]                     # the only feasible point
    Zp = xbar + (C + v.T)[lab]
    Zp[:, S == 0] = x[:, S == 0]                           # released exactly as they are
    return {"Zp": Zp, "objective": objective, "bound": bound, "iterations": iterations, "shifts": v.T.copy()}


def _solve_live(sub, live, alpha, solver, v, bound, iterations) -> None:
    """Fill v, bound, iterations at rows ``live``. Trial steps may overflow; they are rejected (the
    comparisons with inf/NaN fail), and an answer that is not finite is reported infeasible."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if alpha == 0.0:
            sol = solvers.renormalization(sub)
            v[live], bound[live], iterations[live] = sol.v, sol.bound, sol.iterations
        elif solver == "dual":
            sol = solvers.solve_dual(sub, alpha)
            v[live], bound[live], iterations[live] = sol.v, sol.bound, sol.iterations
        else:
            v[live], iterations[live] = solvers.trust_constr(sub)
            lam, mu = solvers.multipliers(sub, v[live])
            bound[live] = solvers.evaluate(sub, lam, mu).q


PARAMS = (
    Param("alpha", "float", 0.5, "weight of the deviations from Δ (cells closer or farther than Δ) against the "
          "size of the centroid shifts (0: renormalized mean; 1: distances only)", SOURCE + " (α)", low=0.0, high=1.0,
          label="α, weight of the Δ wishes"),
    *WISHES,
    Param("solver", "choice", "dual", "'dual': certified Lagrangian dual method (milliseconds); 'trust-constr': "
          "scipy local solver from δ = 0 (seconds; a cross-check)", "docs/methods.md §3.3", choices=SOLVERS,
          label="solver", advanced=True),
)


def p3m_with_report(Z, labels, **params) -> tuple[np.ndarray, list[dict]]:
    """The release hook: ``p3m``'s output and the solver's report rows (``P3MResult.report_rows``)."""
    res = _checked(Z, labels, **params)
    return res.Zp, res.report_rows()


@register("aggregate", "p3m", title="P3M (proximity-breach prevention)", source=SOURCE, params=PARAMS,
          summary="Shift each group's centroid so that released values keep a distance Δ from the originals "
                  "(weighted by w), preserving every attribute's mean and variance.",
          report=p3m_with_report, preserves_moments=True,
          personalized=True, checks_own_input=True)
def p3m(Z, labels, alpha: float = 0.5, delta=0.1, relative: bool = False, w=0.001, weights: str = "given",
        w_seed: int = 1, solver: str = "dual", k: int | None = None) -> np.ndarray:
    """Release of P3M aggregation on partition ``labels`` (Mortazavi & Jalili 2017, §4, Eq. 14-18): one value per group
    and attribute, each attribute's mean and variance preserved. Parameters as in :func:`p3m_solve`,
    which also returns the diagnostics. Refuses (``MicroaggError``) when the constraints are not met
    to tolerance; a feasible local optimum (gap not closed) is returned — see ``p3m_solve``.
    """
    return _checked(Z, labels, alpha=alpha, delta=delta, relative=relative, w=w, weights=weights,
                    w_seed=w_seed, solver=solver, k=k).Zp


def _checked(Z, labels, **params) -> P3MResult:
    res = p3m_solve(Z, labels, **params)
    if not res.success:
        bad = [t for t, s in enumerate(res.status) if s == "infeasible"]
        lab = np.asarray(labels)
        single = [t for t in bad if np.ptp(lab if lab.ndim == 1 else lab[:, t]) == 0]
        if single:
            raise MicroaggError(
                f"P3M cannot keep the variance of attribute(s) {single} with a single group: the mean constraint "
                "fixes one group's value at the mean, so the release would be constant (Mortazavi & Jalili 2017, "
                "Eq. 17). P3M "
                "needs at least two groups; lower k or choose another aggregation.")
        raise MicroaggError(
            f"P3M did not meet the mean/variance constraints of attribute(s) {bad} to tolerance (mean errors "
            f"{res.mean_error[bad]}, variance errors {res.variance_error[bad]}); no release was made. "
            "Try solver='trust-constr', another alpha, or inspect microagg.aggregate.p3m_solve(...).")
    return res
