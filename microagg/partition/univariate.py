"""Univariate and single-axis methods (Abidi, Ben Yahia & Perera 2018, §2.2.1; Domingo-Ferrer & Mateo-Sanz 2002; Nin
et al. 2008).

Both sort records by one number and cut the sorted order into consecutive groups
(docs/methods.md §2.9-2.11): blocks of k with the last block absorbing the n mod k rest
(``grouping="fixed"``, sdcMicro's convention), or the SSE-optimal groups of
k..2k-1 (``grouping="optimal"``, Hansen & Mukherjee 2003, ``optimal.py``). Ties in
the sort key go to the lower row index.

**Individual ranking (ONEDIMS)** groups every attribute separately: the labels are
an n x d matrix, one labelling per attribute. Each released value is shared by at
least k records *in its own column*, but whole released rows are generally **not
k-anonymous**: records grouped together on one attribute are split on another.
``microaggregate`` releases it (the method is registered with
``record_level=False``) and its report says so.

**Single-axis projection** sorts the records by one score and applies the groups
to all attributes jointly, so the release is k-anonymous:

* ``axis="pca"``: s = Z u_1, u_1 the unit eigenvector of the largest eigenvalue of
  the covariance matrix of Z (the correlation matrix for z-scores), its sign fixed so
  that its first component is positive (the first nonzero one if it is exactly 0): the
  rule of R's ``princomp`` since R 3.5.0, hence of sdcMicro's ``pca``; with tied
  eigenvalues the first eigenvector LAPACK returns is taken, and the result is then
  arbitrary;
* ``axis="zsum"``: s = sum of the z-scores of the record;
* ``axis="column"``: s = the attribute ``column`` (index among the columns of Z).
"""

from __future__ import annotations

import numpy as np

from ..base.errors import MicroaggError
from ..base.registry import Param, register
from .optimal import sorted_groups

GROUPINGS = ("fixed", "optimal")
AXES = ("pca", "zsum", "column")

GROUPING = Param("grouping", "choice", "fixed", "fixed: blocks of k, the last one absorbing the rest (sdcMicro); "
                  "optimal: the SSE-optimal groups of k..2k-1 consecutive values (Hansen & Mukherjee 2003)",
                  source="docs/methods.md §2.9, §2.11", choices=GROUPINGS, label="grouping")


def projection_scores(Z, axis: str = "pca", column: int = 0) -> np.ndarray:
    """The single-axis score of every record (see the module docstring)."""
    if axis == "zsum":
        return Z.sum(axis=1)
    if axis == "column":
        if column >= Z.shape[1]:
            raise MicroaggError(f"parameter 'column' of partition method 'projection' must be a column index "
                                f"below {Z.shape[1]} (the data have {Z.shape[1]} columns); got {column}.")
        return Z[:, column].copy()
    return Z @ principal_axis(Z)


def principal_axis(Z: np.ndarray) -> np.ndarray:
    """Unit first principal axis of the rows of ``Z``: the eigenvector of the largest eigenvalue of their covariance
    matrix, signed so that its first nonzero component is positive (R's ``princomp``, docs/methods.md §5, decision
    10)."""
    centred = Z - Z.mean(axis=0)
    return signed(np.linalg.eigh(centred.T @ centred / Z.shape[0])[1][:, -1])


def signed(u: np.ndarray) -> np.ndarray:
    """``u`` or ``-u``, whichever has its first nonzero component positive: the sign convention of R's ``princomp``
    (first loading non-negative, R 3.5.0) and of Croux & Ruiz-Gazen 2005's projection-pursuit axes, which does not
    depend on the eigensolver's build."""
    nonzero = np.flatnonzero(u)
    return -u if len(nonzero) and u[nonzero[0]] < 0 else u


@register(
    "partition", "projection",
    bounded=True,
    title="Single-axis projection",
    summary="Records sorted by one score (first principal component, sum of z-scores or one attribute) "
            "and cut into consecutive groups; k-anonymous, good when attributes are highly correlated.",
    source="Nin et al. 2008; Abidi, Ben Yahia & Perera 2018, §2.2.1",
    params=(
        Param("axis", "choice", "pca", "score to sort by: pca (first principal component), zsum (sum of "
              "z-scores) or column (one attribute)", source="Abidi, Ben Yahia & Perera 2018, §2.2.1", choices=AXES,
              label="sort by"),
        Param("column", "int", 0, "with axis=column: index of the attribute to sort by (0 = first masked column)",
              source="docs/methods.md §2.10", low=0, only_with=(("axis", ("column",)),),
              label="attribute to sort by", unit="position"),
        GROUPING,
    ),
)
def projection(Z, k: int, axis: str = "pca", column: int = 0, grouping: str = "fixed") -> np.ndarray:
    """Group labels 0..m-1 (from the lowest score) of the sorted projection of standardized ``Z``."""
    return sorted_groups(projection_scores(Z, axis, column), k, grouping)


@register(
    "partition", "individual_ranking",
    title="Individual ranking (univariate)",
    summary="Each attribute is sorted and grouped on its own (ONEDIMS). Low information loss, but the released "
            "rows are NOT k-anonymous as whole records.",
    source="Domingo-Ferrer & Mateo-Sanz 2002; Abidi, Ben Yahia & Perera 2018, §2.2.1",
    params=(GROUPING,),
    record_level=False,
    insensitive={"grouping": "fixed"},  # docs/methods.md §7.2; the optimal groups' boundaries depend on the data
)
def individual_ranking(Z, k: int, grouping: str = "fixed") -> np.ndarray:
    """Per-attribute labels (n x d): column t groups the records by attribute t alone."""
    return np.column_stack([sorted_groups(Z[:, t], k, grouping) for t in range(Z.shape[1])])
