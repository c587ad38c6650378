"""Batched global minimization of one-variable quartics (docs/methods.md §3.3, P3M's per-group subproblems).

A quartic ``g(v) = c4 v^4 + c3 v^3 + c2 v^2 + c1 v + c0`` with ``c4 > 0`` is bounded below; its
local minima are the outer real roots of the cubic ``g'(v) = 0`` (one or two minima). The
roots come in closed form — Cardano with the cancellation-free sign choice when the cubic has one
real root, the trigonometric form when it has three — vectorized over any array shape, then
polished by one guarded Newton step on ``g'``.
"""

from __future__ import annotations

import numpy as np


def cubic_outer_roots(c4, c3, c2, c1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Smallest and largest real root of ``g' = 4 c4 v^3 + 3 c3 v^2 + 2 c2 v + c1`` and whether
    there are three real roots (g has two local minima). Needs ``c4 > 0``; elementwise."""
    inv = 1.0 / c4
    b = 0.75 * c3 * inv                     # g'/(4 c4) = v^3 + b v^2 + c v + e
    c = 0.5 * c2 * inv
    shift = b / 3.0
    p3 = (c - b * shift) / 3.0              # depressed cubic y^3 + p y + q, v = y - b/3, p3 = p/3
    q = (2.0 * shift * shift - c) * shift + 0.25 * c1 * inv
    disc = 0.25 * q * q + p3 * p3 * p3
    three = disc <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.cbrt(-0.5 * q - np.copysign(np.sqrt(np.maximum(disc, 0.0)), q))
        lo = t - p3 / t - shift             # the one real root (t != 0 whenever disc > 0)
    if three.any():
        # y = rho cos(theta), rho = 2 sqrt(-p/3), cos(3 theta) = -4 q / rho^3
        pm, qm, sm = p3[three], q[three], shift[three]
        rho = 2.0 * np.sqrt(-pm)
        phi = np.arccos(np.clip(-4.0 * qm / np.where(rho > 0, rho, 1.0) ** 3, -1.0, 1.0)) / 3.0
        lo[three] = rho * np.cos(phi - 4.0 * np.pi / 3.0) - sm
        hi3 = _newton(rho * np.cos(phi) - sm, c4[three], c3[three], c2[three], c1[three])
    lo = _newton(lo, c4, c3, c2, c1)
    hi = lo.copy()
    if three.any():
        hi[three] = hi3
    return lo, hi, three


def _newton(v, c4, c3, c2, c1):
    """One Newton step on g', kept only where it reduces |g'|."""
    g1 = ((4.0 * c4 * v + 3.0 * c3) * v + 2.0 * c2) * v + c1
    g2 = (12.0 * c4 * v + 6.0 * c3) * v + 2.0 * c2
    with np.errstate(divide="ignore", invalid="ignore"):
        w = v - g1 / g2
    better = np.abs(((4.0 * c4 * w + 3.0 * c3) * w + 2.0 * c2) * w + c1) < np.abs(g1)
    return np.where(better, w, v)


def quartic(v, c4, c3, c2, c1, c0):
    """g(v) by Horner's rule."""
    return (((c4 * v + c3) * v + c2) * v + c1) * v + c0


def quartic_curvature(v, c4, c3, c2):
    """g''(v)."""
    return (12.0 * c4 * v + 6.0 * c3) * v + 2.0 * c2
