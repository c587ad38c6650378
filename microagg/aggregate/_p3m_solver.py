"""Solvers for P3M's per-attribute problem (Mortazavi & Jalili 2017, Eq. 14 with γ eliminated; docs/methods.md §3.3).

In the shifts ``v_j = δ_j`` of the m group means ``C_j`` (centred data, target sum of squares S):

    min f(v) = Σ_j f_j(v_j),  f_j(v) = Σ_{i∈G_j} a_i ((v - e_i)^2 - Δ_i^2)^2 + (1-α) n_j v^2
    s.t. h1 = Σ_j n_j v_j = 0,   h2 = Σ_j n_j (C_j + v_j)^2 - S = 0

with ``a_i = α / (1 - w_i)^2`` and ``e_i = x_i - C_j`` (γ_i = (Δ_i² - (v - e_i)²) / (1 - w_i)).

The dual q(λ, μ) = Σ_j min_v g_j(v) - μ S, ``g_j = f_j + λ n_j v + μ n_j (C_j + v)^2``, is concave;
each inner minimum is a closed-form quartic minimization (``_quartic``), batched over all groups
and attributes. Every dual value is a lower bound on f (weak duality), and a feasible Lagrangian
minimizer is a global optimum. ``solve_dual``:

1. damped Newton on (λ, μ) — gradient (h1, h2), Hessian -Σ_j b_j b_j^T / g_j'', b_j = n_j (1, 2u_j);
2. where it stalls at a kink (a group whose two local minima tie), Newton on a smoothed dual
   (soft-min of the two minima with temperature τ → 0) reaches the non-smooth maximum;
3. ``polish``: each group keeps one basin (left or right minimum) and Newton solves the smooth
   KKT system h = 0 of that basin assignment (diagonal Lagrangian Hessian, 2 × 2 Schur complement),
   starting from a greedy rounding of the tied groups and switching groups while it helps;
4. ``sphere_newton``: a Riemannian Newton descent on the constraint set (a sphere), which keeps
   every iterate feasible — from the renormalized means and the retracted dual point, where no
   feasible point was found or the gap stays large (small problems).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ._quartic import cubic_outer_roots, quartic, quartic_curvature

PATIENCE = 3  # Newton iterations without halving the residual before an attribute counts as stalled


@dataclass
class Problem:
    """P3M subproblems of d attributes sharing one partition (arrays (d, m) unless stated)."""

    N: np.ndarray       # (m,) group sizes
    C: np.ndarray       # centred group means
    S: np.ndarray       # (d,) target Σ_i (x_i - x̄)^2
    q4: np.ndarray      # f_j(v) = q4 v^4 + q3 v^3 + q2 v^2 + q1 v + q0
    q3: np.ndarray
    q2: np.ndarray
    q1: np.ndarray
    q0: np.ndarray

    def take(self, idx) -> Problem:
        """The subproblems of attributes ``idx``."""
        return Problem(self.N, self.C[idx], self.S[idx], self.q4[idx], self.q3[idx], self.q2[idx],
                       self.q1[idx], self.q0[idx])

    def lagrangian(self, lam, mu):
        """Coefficients of g_j(v) = f_j(v) + λ n_j v + μ n_j (C_j + v)^2 for per-attribute (λ, μ)."""
        lam, mu = lam[:, None], mu[:, None]
        nmu = self.N * mu
        return (self.q4, self.q3, self.q2 + nmu, self.q1 + self.N * lam + 2.0 * nmu * self.C,
                self.q0 + nmu * self.C ** 2)

    def objective(self, v) -> np.ndarray:
        return quartic(v, self.q4, self.q3, self.q2, self.q1, self.q0).sum(axis=1)

    def residuals(self, v) -> tuple[np.ndarray, np.ndarray]:
        """(h1, h2) per attribute."""
        return (self.N * v).sum(axis=1), (self.N * (self.C + v) ** 2).sum(axis=1) - self.S


@dataclass
class State:
    """Lagrangian minimizers at (λ, μ) and the (possibly smoothed) dual's value, gradient, Hessian."""

    lam: np.ndarray
    mu: np.ndarray
    v: np.ndarray       # chosen minimizers (d, m)
    right: np.ndarray   # chosen minimizer is the right one of two (d, m)
    twin: np.ndarray    # g_j has two local minima (d, m)
    other: np.ndarray   # the other local minimizer (== v where there is one)
    gap_other: np.ndarray  # g_j(other) - g_j(v)
    curv: np.ndarray    # g_j''(v_j)
    q: np.ndarray       # dual value: Σ_j g_j(v_j) - μ S (soft-min over the two minima when smoothed)
    h1: np.ndarray      # its gradient (the constraint residuals)
    h2: np.ndarray
    a11: np.ndarray     # -Hessian (positive definite)
    a12: np.ndarray
    a22: np.ndarray


def _outer(N, C, v, curv):
    """Σ_j b_j b_j^T / g_j'' with b_j = n_j (1, 2 u_j), u = C + v: entries (11, 12, 22).

    g_j'' >= 0 at a minimizer; a degenerate one (0 at a basin's birth) is floored at 1e-13 of the
    attribute's largest curvature, which keeps the sums finite."""
    floor = 1e-13 * np.abs(curv).max(axis=1, keepdims=True) + 1e-300
    inv = N * N / np.maximum(curv, floor)
    u = C + v
    return inv.sum(axis=1), (2.0 * u * inv).sum(axis=1), (4.0 * u * u * inv).sum(axis=1)


def evaluate(prob: Problem, lam, mu, prev: State | None = None, tau=None) -> State:
    """Minimize every g_j at (λ, μ): globally (``prev=None``) or in the basin ``prev`` was in.

    In a basin, a group keeps its side (left/right minimum) while it has two minima; a group that
    had one takes the minimum nearer its previous minimizer (its basin's continuation), and a group
    whose basin vanished takes the remaining minimum. With per-attribute temperatures ``tau`` the
    dual is smoothed: each double-welled group contributes the soft-min
    -τ log(exp(-g_lo/τ) + exp(-g_hi/τ)) of its two minima (concave, smooth, within τ log 2).
    """
    c4, c3, c2, c1, c0 = prob.lagrangian(lam, mu)
    lo, hi, twin = cubic_outer_roots(c4, c3, c2, c1)
    g_lo, g_hi = quartic(lo, c4, c3, c2, c1, c0), quartic(hi, c4, c3, c2, c1, c0)
    if prev is None:
        right = twin & (g_hi < g_lo)
    else:
        near = np.abs(hi - prev.v) < np.abs(lo - prev.v)
        right = twin & np.where(prev.twin, prev.right, near)
    v, other = np.where(right, hi, lo), np.where(right, lo, hi)
    gv = np.where(right, g_hi, g_lo)
    curv = quartic_curvature(v, c4, c3, c2)
    N, C = prob.N, prob.C
    if tau is None:
        q = gv.sum(axis=1) - mu * prob.S
        h1, h2 = prob.residuals(v)
        a11, a12, a22 = _outer(N, C, v, curv)
    else:
        t = tau[:, None]
        diff = g_hi - g_lo
        theta = np.where(twin, 0.5 * (1.0 - np.tanh(0.5 * diff / t)), 0.0)   # weight of the right minimum
        soft = np.minimum(g_lo, g_hi) - np.where(twin, t * np.log1p(np.exp(-np.abs(diff) / t)), 0.0)
        q = soft.sum(axis=1) - mu * prob.S
        d1, d2 = N * (hi - lo), N * ((C + hi) ** 2 - (C + lo) ** 2)
        h1 = (N * (lo + theta * (hi - lo))).sum(axis=1)
        h2 = (N * (C + lo) ** 2 + theta * d2).sum(axis=1) - prob.S
        cl, ch = quartic_curvature(lo, c4, c3, c2), quartic_curvature(hi, c4, c3, c2)
        lo_part = _outer(N * np.sqrt(1.0 - theta), C, lo, cl)
        hi_part = _outer(N * np.sqrt(theta), C, hi, ch)
        mix = theta * (1.0 - theta) / t
        a11 = lo_part[0] + hi_part[0] + (mix * d1 * d1).sum(axis=1)
        a12 = lo_part[1] + hi_part[1] + (mix * d1 * d2).sum(axis=1)
        a22 = lo_part[2] + hi_part[2] + (mix * d2 * d2).sum(axis=1)
    return State(lam, mu, v, right, twin, other, np.where(right, g_lo, g_hi) - gv, curv, q, h1, h2,
                 a11, a12, a22)


def scaled_residual(prob: Problem, st: State) -> np.ndarray:
    """max(|mean error| / sd, |variance error| / variance) per attribute (n = Σ n_j, S = n sd^2)."""
    n = prob.N.sum()
    return np.maximum(np.abs(st.h1) / np.sqrt(n * prob.S), np.abs(st.h2) / prob.S)


def _det(st: State) -> np.ndarray:
    det = st.a11 * st.a22 - st.a12 * st.a12
    return np.maximum(det, 1e-14 * st.a11 * st.a22 + 1e-300)   # (nearly) rank one: regularize


def _model(st: State, r1, r2):
    """½ r^T (-H)^{-1} r: the dual ascent a residual r leaves (quadratic model); broadcasts r."""
    a11, a12, a22, det = (x[:, None] for x in (st.a11, st.a12, st.a22, _det(st)))
    return 0.5 * (a22 * r1 * r1 - 2.0 * a12 * r1 * r2 + a11 * r2 * r2) / det


def newton(prob: Problem, lam, mu, fixed: State | None = None, tau=None, tol: float = 1e-12, max_iter: int = 40):
    """Damped Newton ascent on the dual, on the basin-fixed dual (start state ``fixed``; ``lam``
    and ``mu`` are then ignored) or on the smoothed dual (temperatures ``tau``).

    A step is accepted when q rises (Armijo), or when q stays level to rounding while the
    residual halves (near the optimum q no longer resolves the progress); on the basin-fixed dual
    a step that lowers the residual is also accepted (a vanished basin forces a group over).
    On the plain dual an attribute stalls, and is left as it is, when the line search fails or the
    residual has not fallen below half its best value for ``PATIENCE`` iterations: Newton is circling
    a kink. Returns the final state and the iterations per attribute.
    """
    st = evaluate(prob, lam, mu, tau=tau) if fixed is None else fixed
    d = len(st.lam)
    iters = np.zeros(d, dtype=np.int64)
    stalled = np.zeros(d, dtype=bool)
    slow = np.zeros(d, dtype=np.int64)
    best = scaled_residual(prob, st)
    plain = fixed is None and tau is None
    for _ in range(max_iter):
        res0 = scaled_residual(prob, st)
        active = np.flatnonzero((res0 > tol) & ~stalled)
        if not active.size:
            break
        iters[active] += 1
        sub, cur, r0 = prob.take(active), _rows(st, active), res0[active]
        ta = None if tau is None else tau[active]
        det = _det(cur)
        s1 = (cur.a22 * cur.h1 - cur.a12 * cur.h2) / det      # ascent step (-H)^{-1} ∇q
        s2 = (cur.a11 * cur.h2 - cur.a12 * cur.h1) / det
        slope = s1 * cur.h1 + s2 * cur.h2
        eps_q = 1e-13 * (np.abs(cur.q) + np.abs(cur.mu * sub.S) + 1.0)
        t = np.ones(active.size)
        todo = np.ones(active.size, dtype=bool)
        new = cur
        shrink = 0.25 if tau is not None else 0.5    # the smoothed dual bends within ~τ of a kink
        for _ls in range(12 if plain else 30):
            trial = evaluate(sub, cur.lam + t * s1, cur.mu + t * s2, None if fixed is None else cur, ta)
            r = scaled_residual(sub, trial)
            ok = (trial.q >= cur.q + 1e-4 * t * slope) | ((trial.q >= cur.q - eps_q) & (r <= 0.5 * r0))
            if fixed is not None:
                ok |= r <= (1.0 - 1e-4 * t) * r0
            ok &= todo
            new = _merge(new, trial, ok)
            todo &= ~ok
            if not todo.any():
                break
            t = np.where(todo, shrink * t, t)
        stalled[active] = todo
        if plain:
            r = scaled_residual(sub, new)
            slow[active] = np.where(r <= 0.5 * best[active], 0, slow[active] + 1)
            best[active] = np.minimum(best[active], r)
            stalled[active] |= slow[active] >= PATIENCE
        st = _put(st, active, new)
    return st, iters


def _rows(st: State, idx) -> State:
    return State(**{name: getattr(st, name)[idx] for name in State.__dataclass_fields__})


def _put(st: State, idx, part: State) -> State:
    out = {}
    for name in State.__dataclass_fields__:
        x = getattr(st, name).copy()
        x[idx] = getattr(part, name)
        out[name] = x
    return State(**out)


def _merge(a: State, b: State, take: np.ndarray) -> State:
    """State with attribute rows from ``b`` where ``take``."""
    if not take.any():
        return a
    if take.all():
        return b
    out = {}
    for name in State.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        out[name] = np.where(take if x.ndim == 1 else take[:, None], y, x)
    return State(**out)


def smooth(prob: Problem, st: State, start: float = 0.01, level_tol: float = 1e-9, factor: float = 10.0,
           settle: float = 1e-8):
    """Maximize the non-smooth dual from a stall point ``st`` (exact state) by continuation on the
    smoothed dual: τ starts at ``start`` times the ascent the quadratic model still predicts,
    ½ h^T (-H)^{-1} h (measured: 0.01 needs fewer Newton steps than 1 and finds the same maximum;
    at most the size of q, as a singular Hessian can make the model unbounded),
    and shrinks by ``factor`` (its square after a quick level) until, at a level converged to
    ``level_tol``, the exact dual value at the smoothed maximizer moves by less than ``settle``
    (relative). Returns the exact state with the highest dual value seen and the iterations."""
    scale = np.abs(st.q) + np.abs(st.mu * prob.S) + 1.0
    tau = np.clip(start * _model(st, st.h1[:, None], st.h2[:, None])[:, 0], 1e-13 * scale, scale)
    best, last = st, st
    iters = np.zeros(len(st.lam), dtype=np.int64)
    going = np.ones(len(st.lam), dtype=bool)
    while going.any():
        idx = np.flatnonzero(going)
        sub, cur = prob.take(idx), _rows(last, idx)
        soft, it = newton(sub, cur.lam, cur.mu, tau=tau[idx], tol=level_tol, max_iter=6)
        iters[idx] += it
        exact = evaluate(sub, soft.lam, soft.mu)
        last = _put(last, idx, exact)
        old = _rows(best, idx)
        best = _put(best, idx, _merge(old, exact, exact.q > old.q))
        settled = (np.abs(exact.q - cur.q) <= settle * scale[idx]) & (scaled_residual(sub, soft) <= level_tol)
        going[idx] = ~settled & (tau[idx] > 1e-13 * scale[idx])
        tau[idx] /= np.where(it <= 3, factor * factor, factor)
    return best, iters


def _round(prob: Problem, st: State) -> np.ndarray:
    """Basin assignment from the Lagrangian minimizers at a kink of the dual, per attribute.

    Greedily switch the double-welled group that lowers the model of the primal value
    Σ(switched value differences) + ½ r^T (-H)^{-1} r most, until none does (groups that tie by
    symmetry, e.g. identical groups, are split between their two minima this way).
    """
    d1, d2 = _flip_effect(prob, st)
    right = st.right.copy()
    for t in range(right.shape[0]):
        one = _rows(st, [t])
        r1, r2 = st.h1[t], st.h2[t]
        base = _model(one, r1, r2)[0, 0]
        free = st.twin[t].copy()
        while free.any():
            score = np.where(free, st.gap_other[t] + _model(one, r1 + d1[t], r2 + d2[t])[0] - base, np.inf)
            j = int(np.argmin(score))
            if not score[j] < 0:
                break
            right[t, j] ^= True
            free[j] = False
            r1, r2 = r1 + d1[t, j], r2 + d2[t, j]
            base = _model(one, r1, r2)[0, 0]
    return right


def _flip_effect(prob: Problem, st: State):
    """Change of (h1, h2) when each group switches to its other minimum (d, m)."""
    N, C = prob.N, prob.C
    return N * (st.other - st.v), N * ((C + st.other) ** 2 - (C + st.v) ** 2)


def polish(prob: Problem, st: State, tol: float = 1e-12, max_rounds: int = 20):
    """Feasible local optima near kinks of the dual, for every attribute of ``prob`` at once.

    Every group keeps one basin (left/right minimum of g_j); Newton on the basin-fixed dual solves
    the smooth KKT system h = 0 (its Lagrangian Hessian diag(g_j'') is positive definite, so the
    point is a strict local minimum). Starting from ``_round``'s assignment, the group whose other
    minimum is best by the quadratic model at the new multipliers is switched, while that
    lowers the objective. Returns per attribute: shifts (NaN rows where no assignment reached
    feasibility), objectives (inf there), the dual value at the best point's multipliers (also a
    lower bound) and the Newton iterations.
    """
    d, m = st.v.shape
    best_v, best_f = np.full((d, m), np.nan), np.full(d, np.inf)
    lam, mu, total = st.lam.copy(), st.mu.copy(), np.zeros(d, dtype=np.int64)
    rows = np.arange(d)
    start = _sides(prob, st, _round(prob, st))
    for _ in range(max_rounds):
        sub = prob.take(rows)
        fixed, it = newton(sub, None, None, start, tol=tol, max_iter=30)
        total[rows] += it
        f = np.where(scaled_residual(sub, fixed) <= tol, sub.objective(fixed.v), np.inf)
        better = f < best_f[rows]
        if not better.any():
            break
        rows, fixed, f, sub = rows[better], _rows(fixed, better), f[better], sub.take(np.flatnonzero(better))
        best_v[rows], best_f[rows], lam[rows], mu[rows] = fixed.v, f, fixed.lam, fixed.mu
        d1, d2 = _flip_effect(sub, fixed)
        score = np.where(fixed.twin, fixed.gap_other, np.inf) + _model(fixed, d1, d2)
        j = np.argmin(score, axis=1)
        go = score[np.arange(len(rows)), j] < 0
        if not go.any():
            break
        rows, fixed, j = rows[go], _rows(fixed, go), j[go]
        right = fixed.right.copy()
        right[np.arange(len(rows)), j] ^= True
        start = _sides(prob.take(rows), fixed, right)
    bound = np.where(np.isfinite(best_f), evaluate(prob, lam, mu).q, -np.inf)
    return best_v, best_f, bound, total


def _sides(prob: Problem, st: State, right: np.ndarray) -> State:
    """``st`` with the double-welled groups on the sides ``right`` gives."""
    return evaluate(prob, st.lam, st.mu, replace(st, right=right))


@dataclass
class DualSolution:
    """Per attribute: shifts v (d, m), the best dual value seen (a lower bound on the optimum) and
    iterations (Newton and descent steps)."""

    v: np.ndarray
    bound: np.ndarray
    iterations: np.ndarray


def solve_dual(prob: Problem, alpha: float, tol: float = 1e-12, retry_gap: float = 1e-5,
               restart_gap: float = 1e-4) -> DualSolution:
    """Dual Newton for all attributes; where it stalls at a kink of the dual:

    1. ``polish`` from the stall point;
    2. where that finds no feasible point or leaves a relative gap above ``retry_gap``, ``smooth``
       to the dual maximum and polish from there too;
    3. where there is still no feasible point or the relative gap exceeds ``restart_gap`` (small
       problems, where the Lagrangian relaxation is weak), ``sphere_newton`` — a feasible local
       descent — from the renormalized means and from the retracted dual point.

    The best feasible point is kept. Start: λ = 0 and μ = (1 - α)(1/s - 1), the multiplier of the
    α = 0 problem (renormalization by s = sqrt(S / Σ n_j C_j^2)), exact for α = 0.
    """
    d = prob.C.shape[0]
    T = (prob.N * prob.C ** 2).sum(axis=1)
    s = np.sqrt(prob.S / np.where(T > 0, T, 1.0))
    mu0 = np.where(T > 0, (1.0 - alpha) * (1.0 / s - 1.0), 0.0)
    st, iters = newton(prob, np.zeros(d), mu0, tol=tol)
    v, q = st.v.copy(), st.q.copy()
    kinked = np.flatnonzero(scaled_residual(prob, st) > tol)
    f = np.full(d, np.inf)

    def keep(idx, start):
        found, fv, bound, extra = polish(prob.take(idx), start, tol=tol)
        iters[idx] += extra
        q[idx] = np.maximum(q[idx], bound)
        won = fv < f[idx]
        f[idx[won]], v[idx[won]] = fv[won], found[won]

    if kinked.size:
        keep(kinked, _rows(st, kinked))
    retry = np.array([t for t in kinked if not (np.isfinite(f[t]) and f[t] - q[t] <= retry_gap * abs(f[t]))],
                     dtype=np.int64)
    if retry.size:
        top, extra = smooth(prob.take(retry), _rows(st, retry))
        iters[retry] += extra
        q[retry] = np.maximum(q[retry], top.q)
        keep(retry, top)
    weak = np.array([t for t in kinked if not (np.isfinite(f[t]) and f[t] - q[t] <= restart_gap * abs(f[t]))],
                    dtype=np.int64)
    if weak.size:
        rows = np.concatenate([weak, weak])
        sub = prob.take(rows)
        starts = retract(sub, np.concatenate([prob.C[weak], prob.C[weak] + v[weak]]))
        found, extra = sphere_newton(sub, starts, tol=tol)
        fv = sub.objective(found)
        for i, t in enumerate(rows):
            iters[t] += extra[i]
            if fv[i] < f[t]:
                f[t], v[t] = fv[i], found[i]
    return DualSolution(v, q, iters)


def retract(prob: Problem, u: np.ndarray) -> np.ndarray:
    """The feasible point in the direction of u: centre (Σ n_j u_j = 0), scale to Σ n_j u_j^2 = S.
    A row that centres to 0 is replaced by the ramp u_j = j (any fixed direction would do)."""
    N = prob.N
    u = u - ((N * u).sum(axis=1) / N.sum())[:, None]
    flat = (N * u * u).sum(axis=1) == 0
    if flat.any():
        ramp = np.arange(len(N), dtype=np.float64)
        u[flat] = ramp - (N * ramp).sum() / N.sum()
    return u * np.sqrt(prob.S / (N * u * u).sum(axis=1))[:, None]


def sphere_newton(prob: Problem, u: np.ndarray, tol: float = 1e-12, max_iter: int = 200):
    """Local descent that never leaves the constraint set — a sphere of radius sqrt(S) in the
    hyperplane Σ n_j u_j = 0 under the metric Σ n_j a_j b_j — from feasible points ``u`` (d, m).

    Riemannian Newton: the Hessian is diag(f_j''/n_j) - κ with κ = Σ_j f_j'(v_j) u_j / S (the sphere's
    curvature; κ = -2μ at a KKT point), so a step solves a diagonal system plus a 2 × 2 Schur
    complement for the tangency conditions; a diagonal shift keeps it positive definite (condition
    number at most 1000), an Armijo line search along the retraction keeps f decreasing.
    Returns (v, iterations).
    """
    d, m = u.shape
    N, S = prob.N, prob.S
    iters = np.zeros(d, dtype=np.int64)
    done = np.zeros(d, dtype=bool)
    f = prob.objective(u - prob.C)
    for _ in range(max_iter):
        v = u - prob.C
        g = ((4.0 * prob.q4 * v + 3.0 * prob.q3) * v + 2.0 * prob.q2) * v + prob.q1
        kappa = (g * u).sum(axis=1) / S
        A = quartic_curvature(v, prob.q4, prob.q3, prob.q2) / N - kappa[:, None]
        A = A + np.maximum(0.0, 1e-3 * np.abs(A).max(axis=1) - A.min(axis=1))[:, None]
        r = g / N
        # xi = -(r + a + b u) / A with Σ n xi = 0 and Σ n u xi = 0
        s11, s12, s22 = (N / A).sum(axis=1), (N * u / A).sum(axis=1), (N * u * u / A).sum(axis=1)
        t1, t2 = -(N * r / A).sum(axis=1), -(N * r * u / A).sum(axis=1)
        det = s11 * s22 - s12 * s12
        det = np.where(det > 0, det, 1e-300)
        a, b = (s22 * t1 - s12 * t2) / det, (s11 * t2 - s12 * t1) / det
        xi = -(r + a[:, None] + b[:, None] * u) / A
        slope = (g * xi).sum(axis=1)                  # directional derivative of f (< 0)
        grad2 = -slope
        done |= grad2 <= tol * (np.abs(f) + 1.0)
        if done.all():
            break
        iters += ~done
        t = np.where(done, 0.0, 1.0)
        todo = ~done
        for _ls in range(40):
            trial = retract(prob, u + t[:, None] * xi)
            ft = prob.objective(trial - prob.C)
            ok = todo & (ft <= f + 1e-4 * t * slope)
            u = np.where(ok[:, None], trial, u)
            f = np.where(ok, ft, f)
            todo &= ~ok
            if not todo.any():
                break
            t = np.where(todo, 0.5 * t, t)
        done |= todo                                  # no descent left at rounding level
    return u - prob.C, iters


def renormalization(prob: Problem) -> DualSolution:
    """α = 0: the closest point of the constraint set is the renormalized mean u = s C
    (Mortazavi & Jalili 2017, Eq. 5), s = sqrt(S / T), T = Σ n_j C_j^2; its dual value S (1 - sqrt(T/S))^2
    equals the objective (T (s - 1)^2), so the optimum is certified. T = 0 leaves v = 0
    (infeasible: no direction to scale)."""
    T = (prob.N * prob.C ** 2).sum(axis=1)
    ok = T > 0
    s = np.sqrt(prob.S / np.where(ok, T, 1.0))
    v = np.where(ok, s - 1.0, 0.0)[:, None] * prob.C
    bound = np.where(ok, (np.sqrt(prob.S) - np.sqrt(T)) ** 2, 0.0)
    return DualSolution(v, bound, np.zeros(len(T), dtype=np.int64))


def trust_constr(prob: Problem, tol: float = 1e-10, max_iter: int = 3000):
    """scipy ``trust-constr`` on each attribute, from v = 0 (the paper's natural start: the plain
    means): the independent cross-check of ``solve_dual``.

    Exact gradient and diagonal Hessian of f; the mean constraint is linear, the variance
    constraint quadratic with its exact Jacobian and Hessian. Returns (v, iterations).
    A dual bound for its answer comes from ``multipliers`` + ``evaluate``.
    """
    from scipy.optimize import LinearConstraint, NonlinearConstraint, minimize
    from scipy.sparse import diags

    d, m = prob.C.shape
    N = prob.N
    v = np.zeros((d, m))
    iters = np.zeros(d, dtype=np.int64)
    for t in range(d):
        c4, c3, c2, c1, c0 = prob.q4[t], prob.q3[t], prob.q2[t], prob.q1[t], prob.q0[t]
        C, S = prob.C[t], prob.S[t]

        def fun(x, c4=c4, c3=c3, c2=c2, c1=c1, c0=c0):
            return float(quartic(x, c4, c3, c2, c1, c0).sum())

        def jac(x, c4=c4, c3=c3, c2=c2, c1=c1):
            return ((4.0 * c4 * x + 3.0 * c3) * x + 2.0 * c2) * x + c1

        def hess(x, c4=c4, c3=c3, c2=c2):
            return diags(quartic_curvature(x, c4, c3, c2))

        var = NonlinearConstraint(lambda x, C=C, S=S: np.array([(N * (C + x) ** 2).sum() - S]), 0.0, 0.0,
                                  jac=lambda x, C=C: (2.0 * N * (C + x))[None, :],
                                  hess=lambda x, lv: diags(2.0 * lv[0] * N))
        mean = LinearConstraint(N[None, :], 0.0, 0.0)
        res = minimize(fun, v[t], jac=jac, hess=hess, method="trust-constr", constraints=[mean, var],
                       options={"gtol": tol, "xtol": tol, "maxiter": max_iter})
        v[t], iters[t] = res.x, res.nit
    return v, iters


def multipliers(prob: Problem, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(λ, μ) that best satisfy stationarity f_j'(v_j) + λ n_j + 2 μ n_j u_j = 0 (least squares):
    the dual value there bounds any solver's answer from below."""
    d = v.shape[0]
    lam, mu = np.zeros(d), np.zeros(d)
    for t in range(d):
        grad = ((4.0 * prob.q4[t] * v[t] + 3.0 * prob.q3[t]) * v[t] + 2.0 * prob.q2[t]) * v[t] + prob.q1[t]
        A = np.column_stack([prob.N, 2.0 * prob.N * (prob.C[t] + v[t])])
        (lam[t], mu[t]), *_ = np.linalg.lstsq(A, -grad, rcond=None)
    return lam, mu
