"""HM-pfsom: hybrid microaggregation with diversity-constrained groups (Abidi, Ben Yahia & Perera 2018, Algorithms
1-2, §3).

The columns have roles: quasi-identifiers (QIs), which an intruder may know and which the release masks,
and confidential attributes, which are released unchanged and only shape the groups (docs/methods.md §2.12).

1. Split (Algorithm 1, Algorithm 2 line 2): the records are clustered on their QIs by PFCM with the number
   of clusters c chosen by PCAES (``partition/pfcm.py``), giving c sub-microdata.
2. In each sub-microdata (lines 4-17): the records are clustered on their confidential attributes into cs
   classes. While every class has at least k unassigned records, the unassigned record x_r farthest (QI
   distance) from the sub-microdata's centre forms a group with its k-1 QI-nearest unassigned records of
   its own class and the k QI-nearest unassigned records of every other class: k·cs records, k per class.
   The remaining records join the group whose QI centroid is nearest.
3. Any registered aggregator replaces the QIs by group values (line 19); the release keeps the
   confidential values as they are.

Decisions where Abidi, Ben Yahia & Perera 2018 is silent or inconsistent (docs/methods.md §2.12;
docs/methods.md §5, decision 11):

* * Distances are squared Euclidean on the QI (or confidential) columns; Abidi, Ben Yahia & Perera 2018, §3.3 prints a
  signed sum of differences, which is not a distance.
* The centre of a sub-microdata is its PFCM prototype, fixed during the loop.
* Ties: the farthest record and the nearest records are the lowest row indices among equals; a leftover
  equidistant from two group centroids joins the earlier group.
* A class of fewer than k records could not give k records to any group, so PCAES chooses among the
  candidate numbers of clusters whose every cluster has at least k records, else among those with at
  least two such clusters, else among all (``select_pfcm``). Then a sub-microdata with fewer than k records
  joins the one with the nearest centre, and a class with fewer than k records joins the class with the
  nearest prototype (smallest first), so every sub-microdata forms at least one group. A sub-microdata
  left with a single class (when more were asked for or found) forms k-anonymous groups without
  diversity, and a warning says so.
* * ``k`` is the number of records taken from every class, as in Algorithm 2, so groups have at least k·cs_j records;
  k = 1 is accepted by ``hm_pfsom_steps`` (Abidi, Ben Yahia & Perera 2018, Tables 10 and 12 start at k = 1), which
  still gives groups of cs_j >= 2 records wherever a sub-microdata has two classes; a partition or release takes
  k >= 2, as every method does.
* Abidi, Ben Yahia & Perera 2018 min-max scales the data before clustering (§4.1); ``scaling="minmax"`` does that,
  ``"zscore"`` (default) uses z-scores like the rest of the package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.checks import as_matrix, check_finite, check_int, check_k, check_size
from ..base.errors import MicroaggError
from ..base.registry import Param, confidential_positions, get_method, register
from ..base.said import say
from ..data.preprocess import minmax_scale
from . import numpy_engine
from .pfcm import NORMALIZERS, select_pfcm

SCALINGS = ("zscore", "minmax")
PFCM_PARAMS = ("a", "b", "m", "eta", "K", "tol", "max_iter")  # the parameters passed on to every PFCM run
_SOURCE = "Abidi, Ben Yahia & Perera 2018, §3.3; Pal et al. 2005"

PARAMS = (
    Param("c", "int", 0, "number of sub-microdata (QI clusters); 0 chooses 2..c_max by PCAES", "Abidi, Ben Yahia & "
                                                                                               "Perera 2018, §3.3",
                                                                                               low=0,
          label="sub-microdata (0: chosen by PCAES)", unit="clusters"),
    Param("c_max", "int", 10, "largest number of sub-microdata PCAES considers (also at most sqrt(n))",
          "docs/methods.md §2.12", low=2, only_with=(("c", (0,)),), label="most sub-microdata tried",
          unit="clusters", advanced=True),
    Param("cs", "int", 0, "confidential classes per sub-microdata; 0 chooses 2..cs_max by PCAES",
          "Abidi, Ben Yahia & Perera 2018, Algorithm 2 line 6", low=0,
          label="confidential classes (0: chosen by PCAES)", unit="per sub-microdata"),
    Param("cs_max", "int", 10, "largest number of classes PCAES considers (also at most sqrt(records))",
          "docs/methods.md §2.12", low=2, only_with=(("cs", (0,)),), label="most classes tried",
          unit="per sub-microdata", advanced=True),
    Param("scaling", "choice", "zscore", "column scaling before clustering: z-scores, or min-max to [0, 1] as in "
          "Abidi, Ben Yahia & Perera 2018", "Abidi, Ben Yahia & Perera 2018, §4.1", choices=SCALINGS,
          label="column scaling"),
    Param("pcaes", "choice", "max", "PCAES normalizer u_M: max (bounded) or min (as defined by Wu & Yang 2005)",
          "Wu & Yang 2005", choices=NORMALIZERS, label="PCAES normalizer", advanced=True),
    Param("a", "float", 1.0, "weight of the fuzzy memberships in PFCM", _SOURCE, low=0, low_open=True,
          label="PFCM weight of memberships a", advanced=True),
    Param("b", "float", 1.0, "weight of the typicalities in PFCM", _SOURCE, low=0, low_open=True,
          label="PFCM weight of typicalities b", advanced=True),
    Param("m", "float", 2.0, "fuzzifier of the memberships", _SOURCE, low=1, low_open=True,
          label="fuzzifier m", advanced=True),
    Param("eta", "float", 2.0, "exponent of the typicalities", _SOURCE, low=1, low_open=True,
          label="typicality exponent η", advanced=True),
    Param("K", "float", 1.0, "scale of the typicality bandwidths gamma_i", _SOURCE, low=0, low_open=True,
          label="typicality bandwidth scale K", advanced=True),
    Param("tol", "float", 1e-5, "PFCM stops when no prototype moves this far", _SOURCE, low=0, low_open=True,
          label="PFCM tolerance", unit="z units", advanced=True),
    Param("max_iter", "int", 100, "most PFCM (and FCM) iterations", _SOURCE, low=1,
          label="most PFCM iterations", unit="iterations", advanced=True),
    Param("seed", "int", 0, "seed of the k-means++ initialisation", "docs/methods.md §2.12", low=0,
          label="seed of the initialisation", advanced=True),
)


@dataclass(frozen=True)
class HmPfsomTrace:
    """One HM-pfsom run, for teaching and reproduction.

    ``labels``: group of every record, 0..m-1 (sub-microdata in order, groups in order of formation);
    ``sub``: sub-microdata of every record, 0..c-1 (numbered by first record); ``classes``: confidential
    class of every record within its sub-microdata; ``seeds``: the record x_r each group was formed around;
    ``centres``: QI centre of every sub-microdata (scaled units); ``cs``: classes per sub-microdata after
    merging; ``pcaes``: every PCAES evaluation (level, sub-microdata, candidate c, score, chosen);
    ``notes``: the merges made; ``scaled``: the data as clustered (every column, scaled);
    ``qi`` / ``confidential``: column positions.
    """

    labels: np.ndarray
    sub: np.ndarray
    classes: np.ndarray
    seeds: np.ndarray
    centres: np.ndarray
    cs: np.ndarray
    pcaes: pd.DataFrame
    notes: tuple[str, ...]
    scaled: np.ndarray
    qi: np.ndarray
    confidential: np.ndarray

    @property
    def c(self) -> int:
        return len(self.cs)


def scale(Z, scaling: str = "zscore") -> np.ndarray:
    """The columns of Z as HM-pfsom clusters them: z-scores (population sd) or min-max to [0, 1]; a constant
    column becomes 0."""
    Z = np.asarray(Z, dtype=np.float64)
    if scaling == "minmax":
        return minmax_scale(Z)
    sd = Z.std(axis=0)
    return np.where(sd > 0, (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0), 0.0)


def _nearest(X: np.ndarray, cand: np.ndarray, q: np.ndarray, m: int) -> np.ndarray:
    """The m rows of ``cand`` (ascending indices) nearest to q; among equal distances the lowest index."""
    if m <= 0:
        return cand[:0]
    if m >= len(cand):
        return cand
    d = ((X[cand] - q) ** 2).sum(axis=1)
    kth = np.partition(d, m - 1)[m - 1]
    inside = np.flatnonzero(d < kth)
    ties = np.flatnonzero(d == kth)[: m - len(inside)]
    return cand[np.sort(np.concatenate([inside, ties]))]


def _form_groups(Q: np.ndarray, classes: np.ndarray, k: int, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2 lines 7-17 on one sub-microdata: labels 0..g-1 and the record x_r of every group."""
    n = Q.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), -((Q - centre) ** 2).sum(axis=1)))] = np.arange(n)
    pool = [np.flatnonzero(classes == j) for j in range(int(classes.max()) + 1)]
    labels = np.full(n, -1, dtype=np.int64)
    seeds = []
    while min(len(p) for p in pool) >= k:
        r = min((p[np.argmin(rank[p])] for p in pool), key=lambda i: rank[i])
        g = len(seeds)
        seeds.append(r)
        labels[r] = g
        for j, p in enumerate(pool):
            own = classes[r] == j
            cand = p[p != r] if own else p
            labels[_nearest(Q, cand, Q[r], k - 1 if own else k)] = g
            pool[j] = cand[labels[cand] < 0]
    if not seeds:
        raise MicroaggError(f"no group can be formed: some confidential class has fewer than k = {k} records.")
    numpy_engine.assign_rest(Q, labels, labels < 0, len(seeds))  # leftovers: nearest centroid, lowest group on ties
    return labels, np.array(seeds, dtype=np.int64)


def diverse_groups(Q, classes, k: int, centre=None) -> np.ndarray:
    """Diversity-constrained groups of Abidi, Ben Yahia & Perera 2018, Algorithm 2 (lines 7-17) on one sub-microdata.

    ``Q``: the quasi-identifiers (n x q, scaled); ``classes``: the confidential class of every record (any
    integer or text labels, e.g. the categories of a categorical attribute); ``centre``: the point the
    first record of every group is farthest from (default: the QI mean). Every group gets x_r, its k-1
    nearest records of its class and the k nearest of every other class; leftovers join the group with
    the nearest centroid. Raises if some class has fewer than k records.
    """
    Q = np.asarray(Q, dtype=np.float64)
    Q = Q[:, None] if Q.ndim == 1 else Q
    check_finite(Q, what="quasi-identifier")
    k = _check_k(k)
    _, cls = np.unique(np.asarray(classes), return_inverse=True)
    if cls.shape != (Q.shape[0],):
        raise MicroaggError(f"classes must give one class per record ({Q.shape[0]}); got shape {np.shape(classes)}.")
    centre = Q.mean(axis=0) if centre is None else np.asarray(centre, dtype=np.float64)
    return _form_groups(Q, cls.reshape(-1), k, centre)[0]


def _check_k(k) -> int:
    return check_int(k, 1, "k must be a positive integer (records taken from every class)")


def _by_first_record(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relabel 0..c-1 in order of each cluster's lowest row index; also the old label of every new one."""
    old, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    by_first = np.argsort(first)
    order = np.empty(len(first), dtype=np.int64)
    order[by_first] = np.arange(len(first))
    return order[inverse.reshape(-1)], old[by_first]


def _merge_small(labels: np.ndarray, centres: np.ndarray, k: int, what: str) -> tuple[np.ndarray, list[str]]:
    """Clusters with fewer than k records join the cluster with the nearest centre, smallest first
    (ties: lowest index); the receiving cluster keeps its centre."""
    labels = labels.copy()
    alive = list(range(len(centres)))
    notes = []
    sizes = np.bincount(labels, minlength=len(centres))
    while len(alive) > 1 and sizes[alive].min() < k:
        i = alive[int(np.argmin(sizes[alive]))]
        others = [j for j in alive if j != i]
        j = others[int(np.argmin(((centres[others] - centres[i]) ** 2).sum(axis=1)))]
        if sizes[i]:
            notes.append(f"{what} of {sizes[i]} record(s) < k = {k} merged into its nearest neighbour")
        labels[labels == i] = j
        sizes[j] += sizes[i]
        sizes[i] = 0
        alive.remove(i)
    return labels, notes


def hm_pfsom_steps(Z, k: int, confidential, c: int = 0, c_max: int = 10, cs: int = 0, cs_max: int = 10,
                   scaling: str = "zscore", pcaes: str = "max", a: float = 1.0, b: float = 1.0, m: float = 2.0,
                   eta: float = 2.0, K: float = 1.0, tol: float = 1e-5, max_iter: int = 100,
                   seed: int = 0) -> HmPfsomTrace:
    """Run HM-pfsom recording every step (see :class:`HmPfsomTrace`); labels as :func:`hm_pfsom`. Unlike the
    partition, the trace takes any k >= 1 records per class, as the worked example of Abidi, Ben Yahia & Perera 2018
    (Tables 4-8, k = 1) does."""
    p = get_method("partition", "hmpfsom").resolve(dict(
        c=c, c_max=c_max, cs=cs, cs_max=cs_max, scaling=scaling, pcaes=pcaes, a=a, b=b, m=m, eta=eta, K=K, tol=tol,
        max_iter=max_iter, seed=seed))
    Z, k, roles = _data(Z, _check_k(k), confidential)
    return _steps(Z, k, **roles, **p)


def _inputs(Z, k, confidential=None) -> tuple[np.ndarray, int, dict]:
    """HM-pfsom's input, checked: ``k`` >= 2 like every partition's (the release's minimum group size; Algorithm 2
    alone, :func:`diverse_groups`, takes k >= 1), ``Z`` 2-D and finite (float64, its memory order kept), at least
    one confidential column and one quasi-identifier, n >= k."""
    return _data(Z, check_k(k), confidential)


def _data(Z, k: int, confidential) -> tuple[np.ndarray, int, dict]:
    """:func:`_inputs` for a checked ``k``."""
    Z = as_matrix(Z, vector=False, order="K")
    check_finite(Z, what="attribute")
    conf = confidential_positions(Z, confidential, "HM-pfsom")
    check_size(Z.shape[0], k)
    return Z, k, {"confidential": conf}


def _steps(Z: np.ndarray, k: int, confidential, **p) -> HmPfsomTrace:
    """:func:`hm_pfsom_steps` on validated input (``p``: every parameter)."""
    n, d = Z.shape
    conf = np.asarray(confidential, dtype=np.int64)
    qi = np.setdiff1d(np.arange(d), conf)
    if p["c"] > n:
        raise MicroaggError(f"parameter 'c' of partition method 'hmpfsom' asks for {p['c']} sub-microdata of {n} "
                            "records: lower c (0 chooses it by PCAES).")
    pf = {name: p[name] for name in PFCM_PARAMS}
    Q, S = scale(Z[:, qi], p["scaling"]), scale(Z[:, conf], p["scaling"])  # apart: no bit of S can reach Q
    X = np.empty_like(Z)
    X[:, qi], X[:, conf] = Q, S

    split = select_pfcm(Q, p["c"], p["c_max"], p["pcaes"], p["seed"], k, **pf)
    tables = [split.table.assign(level="sub-microdata (QIs)", sub=-1)]
    sub, notes = _merge_small(split.result.labels, split.result.prototypes, k, "a sub-microdata")
    sub, alive = _by_first_record(sub)
    centres = split.result.prototypes[alive]

    labels = np.empty(n, dtype=np.int64)
    classes = np.empty(n, dtype=np.int64)
    seeds, cs_used, offset, lonely = [], [], 0, 0
    for j in range(len(centres)):
        rows = np.flatnonzero(sub == j)
        level2 = select_pfcm(S[rows], min(p["cs"], len(rows)), p["cs_max"], p["pcaes"], p["seed"], k, **pf)
        tables.append(level2.table.assign(level="classes (confidential)", sub=j))
        cls, merged = _merge_small(level2.result.labels, level2.result.prototypes, k,
                                   f"a confidential class of sub-microdata {j}")
        notes += merged
        cls, _ = _by_first_record(cls)
        cs_used.append(int(cls.max()) + 1)
        lonely += int(cs_used[-1] == 1 and p["cs"] != 1)
        local, local_seeds = _form_groups(Q[rows], cls, k, centres[j])
        labels[rows] = local + offset
        classes[rows] = cls
        seeds.append(rows[local_seeds])
        offset += len(local_seeds)
    if lonely:
        say(f"HM-pfsom: {lonely} of {len(centres)} sub-microdata have a single confidential class (too "
            f"few records for k = {k} per class), so their groups are {k}-anonymous but not diverse. "
            "Lower k or c, or fix cs.")
    table = pd.concat(tables, ignore_index=True)[["level", "sub", "c", "PCAES", "iterations", "converged",
                                                  "smallest cluster", "clusters >= min_size", "chosen"]]
    return HmPfsomTrace(labels=labels, sub=sub, classes=classes, seeds=np.concatenate(seeds), centres=centres,
                        cs=np.array(cs_used), pcaes=table, notes=tuple(notes), scaled=X, qi=qi, confidential=conf)


@register(
    "partition", "hmpfsom",
    title="HM-pfsom",
    summary="Hybrid microaggregation: sub-microdata from fuzzy possibilistic clustering of the quasi-identifiers; "
            "in each, classes of the confidential attributes and groups with k records of every class.",
    source="Abidi, Ben Yahia & Perera 2018, Algorithms 1-2, §3.3 (PFCM: Pal et al. 2005; PCAES: Wu & Yang 2005)",
    params=PARAMS,
    uses_roles=True,
    quadratic=True,
    inputs=_inputs,
)
def hm_pfsom(Z, k: int, confidential, **params) -> np.ndarray:
    """Group labels 0..m-1 of HM-pfsom (Abidi, Ben Yahia & Perera 2018, Algorithm 2) on ``Z`` with the
    ``confidential`` columns
    (positions; every other column is a quasi-identifier). Every group has at least k·cs_j >= k records
    and at least k records of every confidential class of its sub-microdata. Parameters: :data:`PARAMS`.
    ``Z`` is not modified.
    """
    return _steps(Z, k, confidential, **params).labels
