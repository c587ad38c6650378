"""``evaluate(original, protected, labels=None, **params)``: every metric in one tidy table.

Rows: metric, attribute ("all" or a column name), value, unit, direction, source, one for every metric of the
registry (``microagg.metrics.registry``) in its order, with its unit, direction and source.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..base.labels import check_labels
from ..data.preprocess import Standardizer, as_frame, numeric_matrix, select_columns
from ..figures.tables import NOT_COMPUTED
from ._arrays import pair, rescaled
from .registry import Context, Noted, computations, get_metric, resolve

COLUMNS = ["metric", "attribute", "value", "unit", "direction", "source"]


def _frames(original, protected) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Original and protected values (n x d, original units) of the original's numeric columns."""
    orig = as_frame(original)
    names = select_columns(orig, None)
    if isinstance(protected, pd.DataFrame):
        missing = [c for c in names if c not in [str(c) for c in protected.columns]]
        if missing:
            raise MicroaggError(f"protected: columns {missing} of the original data are missing; pass the same "
                                "columns to both (e.g. original[protected.columns]).")
        if protected.attrs.get("row order") == "shuffled":
            raise MicroaggError("protected: the rows of this release are shuffled, so they do not pair with the "
                                "original's; pass rel.in_input_order() (or use rel.report()).")
        prot = protected.rename(columns=str)
        if isinstance(original, pd.DataFrame) and len(prot) == len(orig) and not prot.index.equals(orig.index):
            raise MicroaggError("original and protected must hold the same records in the same order; "
                                "their indexes differ.")
    else:
        arr = np.asarray(protected)
        arr = arr[:, None] if arr.ndim == 1 else arr
        if arr.ndim != 2 or arr.shape[1] != len(names):
            raise MicroaggError(f"protected must have one column per numeric column of the original ({len(names)}); "
                                f"got shape {arr.shape}.")
        prot = pd.DataFrame(arr, columns=names, index=orig.index)
    if len(prot) != len(orig):
        raise MicroaggError(f"original and protected must have the same records; got {len(orig)} and {len(prot)} "
                            "rows.")
    return numeric_matrix(orig, names), numeric_matrix(prot, names), names


def evaluate(original, protected, labels=None, *, per_attribute: bool = True, sampling_weights=None,
             **params) -> pd.DataFrame:
    """Utility, risk, privacy, combined scores and the sign test of a protected data set, one row each.

    ``original`` and ``protected`` hold the same records in the same order, in original units
    (DataFrames or arrays); the numeric columns of ``original`` are evaluated. Distances and
    thresholds use z-scores with the ORIGINAL data's mean and population sd (Mortazavi & Jalili 2017, §2.1);
    G_IL and the sign test use the original units. ``labels`` (the partition, (n,) or (n, d)) adds
    partition IL, ADM and SSE_i (SSE_i only for one labelling (n,)). Parameters
    (``microagg.metrics.registry.PARAMS``): the wishes delta, relative, w, weights, w_seed (SL; as in
    ``microagg.privacy.wishes``), p (SDID, ID), keys (RLD),
    confidential (SSE_i), si_weight (SI of Oommen & Fayyoumi 2010), k (every group of ``labels`` must have at
    least k records). ``per_attribute=False`` keeps only the "all" rows. ``sampling_weights`` (one positive
    weight per record) adds the weighted metrics (docs/metrics.md §4.26).
    """
    X, Xp, names = _frames(original, protected)
    std = Standardizer.fit(X)
    return evaluate_arrays(X, Xp, std.transform(X), std.transform(Xp), names, labels,
                           per_attribute=per_attribute, sampling_weights=sampling_weights, **params)


def context(X, Xp, Z, Zp, names, labels=None, *, Zc=None, key_classes=None, Xc=None, conf_names=None,
            categories=None, sampling_weights=None, **params) -> Context:
    """The inputs of :func:`evaluate_arrays`, checked, as a :class:`~microagg.metrics.registry.Context` whose
    ``value(name)`` computes one registered metric (and only the work it needs)."""
    prm = resolve(params)
    X, Xp = rescaled(*pair(X, Xp))
    if Xc is not None:
        Xc = rescaled(np.asarray(Xc, dtype=np.float64))[0]
    Z, Zp = pair(Z, Zp, ("original z-scores", "protected z-scores"))
    names = [str(c) for c in names]
    n, d = X.shape
    if Z.shape != X.shape or len(names) != d:
        raise MicroaggError(f"evaluate: got {X.shape} values, {Z.shape} z-scores and {len(names)} names; they must "
                            "describe the same n x d data.")
    if labels is not None:
        labels = check_labels(labels, n, prm["k"], d=d)
    elif prm["k"] is not None:
        raise MicroaggError("'k' checks the group sizes of 'labels': pass the labels too (or leave k out).")
    if sampling_weights is not None:
        sampling_weights = np.asarray(sampling_weights, dtype=np.float64)
        if sampling_weights.shape != (n,) or not (np.isfinite(sampling_weights) & (sampling_weights > 0)).all():
            raise MicroaggError(f"sampling_weights must be one finite weight > 0 per record ({n}); got "
                                f"{sampling_weights.shape[0] if sampling_weights.ndim else 'a scalar'} values or a "
                                "weight that is not positive.")
    return Context(X, Xp, Z, Zp, names, labels, prm, Zc, key_classes, Xc, conf_names, categories, sampling_weights)


def evaluate_arrays(X, Xp, Z, Zp, names, labels=None, *, per_attribute: bool = True, Zc=None, key_classes=None,
                    Xc=None, conf_names=None, categories=None, sampling_weights=None, metrics=None,
                    **params) -> pd.DataFrame:
    """The table of :func:`evaluate` from arrays: ``X``, ``Xp`` in original units, ``Z``, ``Zp`` their z-scores
    (the original's mean and population sd), ``names`` the columns. ``Release.report`` calls it with the
    release's own z-scores, so its metrics are computed before the released values are rounded, and with
    ``Zc``, the z-scores of confidential columns released unchanged, on which SSE_i is then computed, and
    ``key_classes``, the class of every record on the key columns released unmasked: RLD then links every
    record only within its class; ``Xc`` and ``conf_names``, the original values and names of those confidential
    columns (l-diversity, t-closeness, inference); ``categories``, the ordinal and nominal quasi-identifiers
    (``Context``), for the categorical metrics (docs/metrics.md §4.25). One row per registered metric whose needs
    these inputs meet; a metric's per-attribute values are one per column of ``names`` or, as a dict, per
    attribute it names. ``metrics``: the names of the metrics to compute (their rows only, the same values),
    default every one. A computation that float64 cannot carry out on these values (an eigenvalue solver that
    does not converge on noise of 1e300, say) gives its metrics a row each with value NaN and, in ``source``, "not
    computed" and the reason: the other rows, and the release, stand."""
    ctx = context(X, Xp, Z, Zp, names, labels, Zc=Zc, key_classes=key_classes, Xc=Xc, conf_names=conf_names,
                  categories=categories, sampling_weights=sampling_weights, **params)
    wanted = None if metrics is None else {get_metric(name).name for name in
                                           ([metrics] if isinstance(metrics, str) else metrics)}
    rows = []
    for comp in computations():
        if not ctx.applies(comp) or (wanted is not None and wanted.isdisjoint(m.name for m in comp.metrics)):
            continue
        try:
            with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):  # inf, NaN: shown
                values = ctx.results(comp)
        except MicroaggError:
            raise
        except (ArithmeticError, ValueError, IndexError) as exc:  # float64 gave up on these values: said, no stop
            rows += [(m.name, "all", float("nan"), m.unit, m.direction,
                      f"{NOT_COMPUTED}: float64 failed on these values ({type(exc).__name__}: {exc}); {m.source}")
                     for m in comp.metrics if wanted is None or m.name in wanted]
            continue
        for m in (m for m in comp.metrics if m.name in values and (wanted is None or m.name in wanted)):
            value, source = values[m.name], m.source
            if isinstance(value, Noted):
                value, source = value.value, value.source(source)
            value, each = value if isinstance(value, tuple) else (value, None)
            rows.append((m.name, "all", value, m.unit, m.direction, source))
            if per_attribute and each is not None:
                rows += [(m.name, col, v if isinstance(v, int) else float(v), m.unit, m.direction, source)
                         for col, v in (each.items() if isinstance(each, dict) else zip(ctx.names, each))]
    return pd.DataFrame(rows, columns=COLUMNS)
