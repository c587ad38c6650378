"""The Laplace mechanism on the centroids of an insensitive partition: an ε-differentially private release
(Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2014; Sánchez, Domingo-Ferrer, Martínez & Soria-Comas 2016;
docs/methods.md §7).

Neighbouring data sets differ in one record (the same n records, one of them replaced by any point of the box the
bounds give). Every released value is its group's mean plus Laplace noise of scale b_j on attribute j, drawn once
per group and attribute, so every record of a group still shares one released vector. The noise is calibrated to
the L1 sensitivity S_j of the centroids of attribute j over all groups together, for the two partitions whose
sensitivity is known:

* insensitive MDAV (record-level labels): replacing one record changes at most one member of each group, so the
  centroid of group g moves by at most range_j / |G_g| and S_j = range_j · Σ_g 1 / |G_g| (about n/k · range_j / k);
* individual ranking with fixed groups (one labelling per attribute): the groups are consecutive in the sorted
  values of attribute j, and the changes of the group sums all have the sign of the change of the replaced value
  and add up to it, so S_j = range_j / k_min, independent of n (k_min the smallest group). That covers each
  attribute's values, not the rows that pair them across attributes, so a release takes it on one masked column
  only (``stages``, docs/methods.md §7.2); this kernel computes its noise for any number.

The budget is split equally over the d attributes: attribute j gets ε/d and b_j = S_j · d / ε, which is
ε-differentially private by sequential composition. It is the Laplace mechanism on the centroids rescaled to the
unit box, so the noise relative to each attribute's range is the same for all attributes.

A release is allowed by its partition's method (``stages.check_insensitive``: a method registered
``insensitive``), never by its groups, which another method may happen to share on some data; here the labels are
also checked to be one of these two partitions of the same data (with the same bounds), so that labels that are
not would never get noise calibrated as if they were. ε must be a finite number > 0 (``Param.validate``), and a
noise scale whose draws could overflow float64 is refused. Bounds must come from knowledge of the domain: bounds read
off the data would make the noise depend on the data's extremes. A value outside its bounds is refused, unless
``clip=True`` moves it onto the bound before the means are taken (the partition keeps the unclipped order, which
depends on each record alone).
"""

from __future__ import annotations

import numpy as np

from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..base.names import column
from ..base.registry import DIFFERENTIAL_PRIVACY, Param, register
from ..base.rows import LOWER, PRIVATE, report_row
from ..privacy.bounds import BOUNDS, check_bounds, insensitive_keys, ranked_blocks

SOURCE = "Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2014; Sánchez, Domingo-Ferrer, Martínez & Soria-Comas 2016"
WHO = "aggregation 'laplace'"
PARTITIONS = {1: "insensitive MDAV (Soria-Comas, Domingo-Ferrer, Sánchez & Martínez 2014)",
              2: "individual ranking with fixed groups (Sánchez, Domingo-Ferrer, Martínez & Soria-Comas 2016)"}


# numpy draws a Laplace variate from u on a grid of 2^-53 in (0, 1): |draw| / b_j <= -log(2^-52) < 37. A scale for which
# the bound plus LAPLACE_REACH·b_j stays finite never publishes an infinity, whatever the data and the seed.
LAPLACE_REACH = 40.0


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labellings of the same records group them identically (whatever their ids)."""
    pairs = np.unique(np.column_stack([a, b]), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def sensitivity(X: np.ndarray, labels: np.ndarray, B: np.ndarray) -> np.ndarray:
    """S_j, the L1 sensitivity of the centroids of attribute j over all groups (module docstring), after checking
    that ``labels`` are the insensitive partition of ``X`` with the bounds ``B`` (record-level labels) or its
    individual ranking with fixed groups (n x d labels); any other labels are refused."""
    width = B[:, 1] - B[:, 0]
    if labels.ndim == 2:
        k = int(min(np.bincount(labels[:, t]).min() for t in range(labels.shape[1])))
        if not all(_same_partition(labels[:, t], ranked_blocks(X[:, t], k)) for t in range(X.shape[1])):
            raise MicroaggError(f"{WHO} needs, with one labelling per attribute, individual ranking with fixed groups "
                                "(method='individual_ranking', grouping='fixed') on these data: only then is its "
                                "noise calibrated (docs/methods.md §7.2).")
        return width / k
    sizes = np.bincount(labels)
    if not _same_partition(labels, ranked_blocks(insensitive_keys(X, B), int(sizes.min()))):
        raise MicroaggError(f"{WHO} needs the insensitive partition of these data with the same bounds "
                            "(method='insensitive_mdav', or method='individual_ranking' with grouping='fixed'): "
                            "after another partition, replacing one record can change every group and the stated ε "
                            "would not hold (docs/methods.md §7.1). Strata, blocks and labels computed elsewhere "
                            "give other partitions.")
    return width * (1.0 / sizes).sum()


def _group_means(x: np.ndarray, lab: np.ndarray) -> np.ndarray:
    return np.bincount(lab, weights=x) / np.bincount(lab)


def _release(X, labels, epsilon, bounds, noise_seed, clip):
    """(released values, report rows): the kernel of both the public function and the report hook (which gets the
    stages' labels unrenumbered: given labels may use any ids)."""
    n, d = X.shape
    labels = check_labels(labels, n, d=d)
    if bounds is None:
        raise MicroaggError(f"{WHO} needs the bounds of every masked column (bounds=[(lower, upper), ...] or "
                            "'low:high,...'), taken from knowledge of the domain. They are not read off the data: "
                            "bounds computed from the data would make the noise depend on its extremes and void the "
                            "ε-DP guarantee (docs/methods.md §7.3).")
    B = check_bounds(bounds, d, WHO)
    outside = (X < B[:, 0]) | (X > B[:, 1])
    if outside.any() and not clip:
        j = int(np.flatnonzero(outside.any(axis=0))[0])
        where = (f"{WHO}: {int(outside.sum())} value(s) lie outside the bounds ({column(j)}: "
                 f"{int(outside[:, j].sum())} outside [{B[j, 0]:g}, {B[j, 1]:g}]); widen the bounds from knowledge of "
                 "the domain (not from the data), or")
        raise MicroaggError(f"{where} pass clip=True to move them onto the bounds.",
                            on_page=f"{where} tick 'clip values to the bounds' to move them onto the bounds.")
    S = sensitivity(X, labels, B)
    with np.errstate(over="ignore"):
        scale = S * d / epsilon
        reach = np.abs(B).max(axis=1) + LAPLACE_REACH * scale
    if not np.isfinite(reach).all():
        j = int(np.flatnonzero(~np.isfinite(reach))[0])
        raise MicroaggError(f"{WHO}: the noise scale b_j = d·S_j/ε of {column(j)} is {scale[j]:.3g} (S_j = {S[j]:.3g}, "
                            f"ε = {epsilon:g}): its draws would overflow float64 and publish infinities. Raise ε or "
                            "narrow the bounds.")
    Xc = np.clip(X, B[:, 0], B[:, 1]) if clip else X
    seed = int(np.random.SeedSequence().entropy % 2**63) if noise_seed is None else int(noise_seed)
    rng = np.random.default_rng(seed)
    V = np.empty_like(Xc)
    for t in range(d):
        lab = labels[:, t] if labels.ndim == 2 else labels
        means = _group_means(Xc[:, t], lab)
        V[:, t] = (means + rng.laplace(0.0, scale[t], size=means.size))[lab]
    rows = [report_row("differential privacy ε", float(epsilon), "", "lower is more private", SOURCE),
            report_row("DP accounting", f"ε/d = {epsilon / d:g} per attribute (d = {d}, sequential composition); "
                       "neighbours differ in one record; noise on the means of " + PARTITIONS[labels.ndim],
                       source="docs/methods.md §7.3"),
            report_row(f"DP noise seed {PRIVATE}", str(seed), source="docs/methods.md §7.3"),
            report_row("DP values clipped to the bounds", int(outside.sum()) if clip else "none (clip=False)",
                       "cells" if clip else "", source="docs/methods.md §7.3")]
    for t in range(d):
        rows += [report_row("DP bounds", f"[{B[t, 0]:g}, {B[t, 1]:g}]", "original units", "", SOURCE, t),
                 report_row("DP sensitivity S_j (L1, all groups)", float(S[t]), "original units", "",
                            "docs/methods.md §7.3", t),
                 report_row("DP Laplace scale b_j", float(scale[t]), "original units", LOWER,
                            "docs/methods.md §7.3", t)]
    return V, rows


PARAMS = (
    Param("epsilon", "float", 1.0, "privacy budget ε of the whole release (smaller: more private, more noise)",
          source=SOURCE, low=0.0, low_open=True, label="privacy budget ε"),
    BOUNDS,
    Param("noise_seed", "int", None, "seed of the Laplace noise (the same seed gives the same release); empty: a "
          "fresh seed, recorded in the private report", source="docs/methods.md §7.3", low=0, label="noise seed"),
    Param("clip", "bool", False, "move values outside the bounds onto them instead of refusing", source=SOURCE,
          label="clip values to the bounds"),
)


def laplace_with_report(X, labels, **params) -> tuple[np.ndarray, list[dict]]:
    """The release and its report rows: ε, the accounting, the bounds, S_j and b_j of every attribute, the seed."""
    return _release(X, labels, **params)


@register("aggregate", "laplace", title="Laplace noise on the means (ε-differential privacy)", source=SOURCE,
          summary="Group means plus Laplace noise calibrated to an insensitive partition (insensitive MDAV or "
                  "individual ranking of one column): an ε-differentially private release. Needs bounds from "
                  "knowledge of the domain.",
          params=PARAMS, report=laplace_with_report, units="original", privacy=DIFFERENTIAL_PRIVACY)
def laplace(X, labels, epsilon=1.0, bounds=None, noise_seed=None, clip=False) -> np.ndarray:
    """Every record replaced by its group's mean plus Laplace noise of scale b_j = d · S_j / ε (docs/methods.md
    §7.3), ``X`` in the units of ``bounds``."""
    return _release(X, labels, epsilon, bounds, noise_seed, clip)[0]
