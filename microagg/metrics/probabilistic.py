"""PIL, probabilistic information loss (Mortazavi & Jalili 2017, Eq. 9-11; Mateo-Sanz, Domingo-Ferrer & Sebé 2005).

For a statistic with value θ on the original and θ̂ on the masked data,
pil = 2 (Φ(|θ̂ - θ| / sqrt(Var θ̂)) - 1/2) = erf(|θ̂ - θ| / sqrt(2 Var θ̂)) (Eq. 10), with Var θ̂ the
sampling variance of the statistic evaluated on the original data (docs/metrics.md §4.3 table):

* mean: σ²/n;  variance (1/n): ((n-1)²/n³) μ4 - ((n-1)(n-3)/n³) σ⁴;
* covariance (1/n): ((n-1)²/n³) μ22 + ((n-1)/n³) μ20 μ02 - ((n-1)(n-2)/n³) μ11²;
* Pearson correlation: (1 - ρ²)² / n;
* quantile Q_l, l = 5 %, ..., 95 %: l (1 - l) / (n f(Q_l)²).

Decisions (docs/metrics.md §4.3; docs/methods.md §5, decision 20): linear-interpolation quantiles (numpy's
default); f is a Gaussian kernel density of the original attribute with Silverman's bandwidth
0.9 min(σ, IQR/1.34) n^(-1/5), falling back to σ when the IQR is 0 (as R's ``bw.nrd0``). A term
whose variance is 0 (or f = 0) is 0 if θ̂ = θ and 1 otherwise. Attributes constant in the original
are skipped; a masked attribute that became constant has correlation 0. PIL averages the five
components pil(Q), pil(Mean), pil(Var), pil(Cov), pil(ρ) (Eq. 11; Cov and ρ over pairs t < t',
absent when d = 1), ×100. Every term is invariant to per-attribute affine rescaling, so z-scores
and original units give the same value.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf

from ..base.errors import MicroaggError
from ..base.rows import LOWER
from ._arrays import correlation, pair
from .registry import Metric, register

LEVELS = np.arange(1, 20) / 20.0  # 5 %, 10 %, ..., 95 %
COMPONENTS = ("Q", "mean", "var", "cov", "rho")


def _pil(theta, theta_hat, var) -> np.ndarray:
    """Eq. 10 element-wise; var <= 0 (or not finite) gives 0 for equal values and 1 otherwise."""
    diff = np.abs(np.asarray(theta_hat, dtype=np.float64) - theta)
    var = np.asarray(var, dtype=np.float64)
    ok = np.isfinite(var) & (var > 0)
    out = (diff > 0).astype(np.float64)
    out[ok] = erf(diff[ok] / np.sqrt(2.0 * var[ok]))
    return out


def kde_at(x: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Gaussian kernel density of sample ``x`` at ``points``, Silverman bandwidth (σ if the IQR is 0)."""
    n = x.size
    sigma = x.std()
    q25, q75 = np.quantile(x, [0.25, 0.75])
    spread = min(sigma, (q75 - q25) / 1.34) or sigma
    h = 0.9 * spread * n ** -0.2
    u = (points[:, None] - x[None, :]) / h
    return np.exp(-0.5 * u * u).sum(axis=1) / (n * h * np.sqrt(2.0 * np.pi))


def pil_components(Z, Zp) -> dict[str, float]:
    """The five pil components and PIL (Eq. 11), each in %: keys "Q", "mean", "var", "cov", "rho", "PIL"."""
    Z, Zp = pair(Z, Zp)
    varying = Z.std(axis=0) > 0
    if not varying.any():
        raise MicroaggError("PIL is undefined: every original attribute is constant.")
    X, Y = Z[:, varying], Zp[:, varying]
    n, d = X.shape
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    m2 = (Xc ** 2).mean(axis=0)
    out = {}

    Q, Qh = np.quantile(X, LEVELS, axis=0), np.quantile(Y, LEVELS, axis=0)
    f = np.column_stack([kde_at(X[:, t], Q[:, t]) for t in range(d)])
    with np.errstate(divide="ignore"):
        var_q = np.where(f > 0, LEVELS[:, None] * (1 - LEVELS[:, None]) / (n * f * f), 0.0)
    out["Q"] = _pil(Q, Qh, var_q).mean()

    out["mean"] = _pil(X.mean(axis=0), Y.mean(axis=0), m2 / n).mean()
    mu4 = (Xc ** 4).mean(axis=0)
    var_var = (n - 1) ** 2 / n ** 3 * mu4 - (n - 1) * (n - 3) / n ** 3 * m2 ** 2
    out["var"] = _pil(m2, (Yc ** 2).mean(axis=0), var_var).mean()

    if d > 1:
        iu = np.triu_indices(d, 1)
        C, Ch = Xc.T @ Xc / n, Yc.T @ Yc / n
        mu22 = (Xc ** 2).T @ (Xc ** 2) / n
        var_cov = ((n - 1) ** 2 * mu22 + (n - 1) * np.outer(m2, m2) - (n - 1) * (n - 2) * C ** 2) / n ** 3
        out["cov"] = _pil(C[iu], Ch[iu], var_cov[iu]).mean()
        R, Rh = correlation(C), correlation(Ch)
        out["rho"] = _pil(R[iu], Rh[iu], (1 - R[iu] ** 2) ** 2 / n).mean()
    parts = {name: 100.0 * float(out[name]) for name in COMPONENTS if name in out}
    parts["PIL"] = float(np.mean(list(parts.values())))
    return parts


def pil(Z, Zp) -> float:
    """Probabilistic information loss PIL in % (Mortazavi & Jalili 2017, Eq. 11); see :func:`pil_components`."""
    return pil_components(Z, Zp)["PIL"]


_SOURCE, _DOC = "Mortazavi & Jalili 2017, Eq. 9-11 (Mateo-Sanz et al. 2005)", "docs/metrics.md §4.3"


def _component(key: str, title: str, summary: str) -> Metric:
    return Metric(f"pil({key})", title, "utility", "%", LOWER, _SOURCE, summary, _DOC)


@register(
    Metric("PIL", "Probabilistic information loss", "utility", "%", LOWER, _SOURCE,
           "Mean of pil(Q), pil(mean), pil(var), pil(cov), pil(rho): how improbable the changes of these "
           "statistics are as sampling noise (0 = unchanged, 100 = far outside it).", _DOC),
    _component("Q", "PIL of the quantiles", "pil of the 5 %, 10 %, ..., 95 % quantiles of every attribute, averaged."),
    _component("mean", "PIL of the means", "pil of every attribute's mean, averaged."),
    _component("var", "PIL of the variances", "pil of every attribute's variance, averaged."),
    _component("cov", "PIL of the covariances", "pil of every pair's covariance, averaged."),
    _component("rho", "PIL of the correlations", "pil of every pair's Pearson correlation, averaged."),
)
def _pil_metrics(ctx) -> dict:
    if ctx.constant:
        return {"PIL": float("nan")}
    parts = pil_components(ctx.Z, ctx.Zp)
    return {("PIL" if key == "PIL" else f"pil({key})"): value for key, value in parts.items()}
