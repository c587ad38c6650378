"""Masking methods that are not microaggregation, for comparison on the risk-utility map (docs/methods.md §6).

**Noise addition** (uncorrelated additive noise, Brand 2002): x′ = x + e with e ~ N(0, a·σ_t²) drawn independently
for every cell, σ_t the population sd of attribute t and a the ``fraction`` of its variance. **Rank swapping**
(Moore 1996): per attribute, the values are ranked and every value still in place is swapped with one drawn
uniformly among the values still in place whose rank is above its own by at most p % of n.

Neither release is k-anonymous, nor are its rows groups: they are never presented as such (the R-U sweep reports
them with ``k-anonymous`` False and no k). Both are deterministic for their ``seed``. Kernels work on numpy arrays
in original units and return a new array; the input is never modified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..base.checks import as_matrix, check_finite
from ..base.errors import MicroaggError
from ..base.registry import Param
from ..partition.kernels import kernel

_SEED = Param("seed", "int", 0, "seed of the random draws (the same seed gives the same release)", low=0,
              label="seed")


@dataclass(frozen=True)
class Baseline:
    """A comparison method: ``func(X, level, seed)``; ``level`` (its parameter) is swept along ``levels`` on the
    R-U map."""

    name: str
    title: str
    source: str
    summary: str
    level: Param
    levels: tuple[float, ...]
    func: Callable[[np.ndarray, float, int], np.ndarray]

    def __call__(self, X, level=None, seed: int = 0) -> np.ndarray:
        """The masked copy of ``X`` (n x d, original units) at ``level`` (default the parameter's default)."""
        X = as_matrix(X, "X")
        check_finite(X)
        level = self.level.validate(self.level.default if level is None else level, self.name)
        return self.func(X, level, _SEED.validate(seed, self.name))


def _noise(X: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    sd = X.std(axis=0)
    return X + np.random.default_rng(seed).normal(size=X.shape) * (np.sqrt(fraction) * sd)


@kernel(cache=True, nogil=True)
def _swap_partners(n, window, u):
    """partner[i] for ranks 0..n-1: rank i still in place is swapped with rank j drawn by ``u[i]`` among the ranks in
    (i, i + window] still in place (a Fenwick tree counts them); partner[i] = i if there is none."""
    tree = np.zeros(n + 1, np.int64)
    for i in range(1, n + 1):  # every rank starts in place
        tree[i] += 1
        parent = i + (i & -i)
        if parent <= n:
            tree[parent] += tree[i]
    top = 1
    while top * 2 <= n:
        top *= 2

    def prefix(i):  # ranks in place among 0..i-1
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    def remove(i):
        i += 1
        while i <= n:
            tree[i] -= 1
            i += i & -i

    partner = np.arange(n)
    placed = np.ones(n, np.bool_)
    for i in range(n):
        if not placed[i]:
            continue
        below = prefix(i + 1)
        count = prefix(min(i + window, n - 1) + 1) - below
        if count > 0:
            target = below + min(int(u[i] * count), count - 1) + 1  # the target-th rank in place, found by descent
            pos, left = 0, target
            step = top
            while step > 0:
                if pos + step <= n and tree[pos + step] < left:
                    pos += step
                    left -= tree[pos]
                step //= 2
            j = pos  # 0-based rank
            partner[i], partner[j] = j, i
            placed[i] = placed[j] = False
            remove(i)
            remove(j)
    return partner


@_swap_partners.numpy
def _swap_partners_numpy(n, window, u):
    """``_swap_partners`` with the ranks still in place read from a flag array (one slice per rank) instead of the
    Fenwick tree: the same draws, the same partners."""
    placed = np.ones(n, np.bool_)
    partner = np.arange(n)
    for i in range(n):
        if not placed[i]:
            continue
        free = np.flatnonzero(placed[i + 1:min(i + window, n - 1) + 1])
        if free.shape[0]:
            j = i + 1 + int(free[min(int(u[i] * free.shape[0]), free.shape[0] - 1)])
            partner[i], partner[j] = j, i
            placed[i] = placed[j] = False
    return partner


def _rank_swap(X: np.ndarray, p: float, seed: int) -> np.ndarray:
    n = len(X)
    window = int(np.floor(p * n / 100.0 + 1e-9))
    if window < 1:
        raise MicroaggError(f"rank_swap: p = {p:g} % of n = {n} records allows no swap; choose p >= {100 / n:.3g}.")
    rng = np.random.default_rng(seed)
    out = np.empty_like(X)
    for t in range(X.shape[1]):
        order = np.argsort(X[:, t], kind="stable")  # ties ranked by row
        partner = _swap_partners(n, window, rng.random(n))
        out[order, t] = X[order[partner], t]
    return out


BASELINES: dict[str, Baseline] = {b.name: b for b in (
    Baseline("noise", "Noise addition", "Brand 2002",
             "Adds independent Gaussian noise with a given fraction of each attribute's variance to every value.",
             Param("fraction", "float", 0.1, "variance of the noise as a fraction of the attribute's variance",
                   "Brand 2002", low=0, low_open=True, label="noise variance", unit="× the attribute's variance"),
             (0.01, 0.05, 0.1, 0.2, 0.5, 1.0), _noise),
    Baseline("rank_swap", "Rank swapping", "Moore 1996",
             "Swaps every value with another of the same attribute at most p % of the records apart in rank.",
             Param("p", "float", 5.0, "largest rank distance of a swap, in % of the records", "Moore 1996", low=0,
                   high=100, low_open=True, label="rank distance p", unit="% of n"),
             (1.0, 2.0, 5.0, 10.0, 20.0), _rank_swap),
)}


def get_baseline(name: str) -> Baseline:
    """The comparison method registered as ``name``."""
    if name not in BASELINES:
        raise MicroaggError(f"unknown comparison method {name!r}; choose one of {list(BASELINES)}.")
    return BASELINES[name]


def noise_addition(X, fraction: float = 0.1, seed: int = 0) -> np.ndarray:
    """X + e, e ~ N(0, fraction·σ_t²) per cell (Brand 2002); see the module docstring."""
    return BASELINES["noise"](X, fraction, seed)


def rank_swap(X, p: float = 5.0, seed: int = 0) -> np.ndarray:
    """Rank swapping within p % of the records (Moore 1996); see the module docstring."""
    return BASELINES["rank_swap"](X, p, seed)
