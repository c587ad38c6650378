"""``evaluate(original, protected, labels=None, **params)``: every metric in one tidy table.

Rows: metric, attribute ("all" or a column name), value, unit, direction, source; units,
directions and sources come from the metric registry (``microagg.metrics.registry``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..checks import columns, percent
from ..errors import MicroaggError
from ..labels import check_labels
from ..preprocess import Standardizer, as_frame, numeric_matrix, select_columns
from . import gil, privacy, probabilistic, risk, scores, significance, utility
from ._arrays import pair
from .registry import PARAMS, get_metric

COLUMNS = ["metric", "attribute", "value", "unit", "direction", "source"]


def _resolve(params: dict) -> dict:
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise MicroaggError(f"evaluate does not take {unknown}; it accepts: {', '.join(PARAMS)}.")
    out = {name: p.default for name, p in PARAMS.items()}
    for name, value in params.items():
        out[name] = value if value is None and PARAMS[name].default is None else \
            PARAMS[name].validate(value, "evaluate")
    return out


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


def evaluate(original, protected, labels=None, *, per_attribute: bool = True, **params) -> pd.DataFrame:
    """Utility, risk, privacy, combined scores and the sign test of a protected data set, one row each.

    ``original`` and ``protected`` hold the same records in the same order, in original units
    (DataFrames or arrays); the numeric columns of ``original`` are evaluated. Distances and
    thresholds use z-scores with the ORIGINAL data's mean and population sd (Mortazavi & Jalili 2017, §2.1);
    G_IL and the sign test use the original units. ``labels`` (the partition, (n,) or (n, d)) adds
    partition IL, ADM and SSE_i (SSE_i only for one labelling (n,)). Parameters
    (``microagg.metrics.registry.PARAMS``): delta, relative, w, w_seed (SL), p (SDID, ID), keys (RLD),
    confidential (SSE_i), si_weight (SI of Oommen & Fayyoumi 2010), k (every group of ``labels`` must have at
    least k records). ``per_attribute=False`` keeps only the "all" rows.
    """
    X, Xp, names = _frames(original, protected)
    std = Standardizer.fit(X)
    return evaluate_arrays(X, Xp, std.transform(X), std.transform(Xp), names, labels,
                           per_attribute=per_attribute, **params)


def evaluate_arrays(X, Xp, Z, Zp, names, labels=None, *, per_attribute: bool = True, Zc=None, key_classes=None,
                    **params) -> pd.DataFrame:
    """The table of :func:`evaluate` from arrays: ``X``, ``Xp`` in original units, ``Z``, ``Zp`` their z-scores
    (the original's mean and population sd), ``names`` the columns. ``Release.report`` calls it with the
    release's own z-scores, so its metrics are computed before the released values are rounded, and with
    ``Zc``, the z-scores of confidential columns released unchanged, on which SSE_i is then computed, and
    ``key_classes``, the class of every record on the key columns released unmasked: RLD then links every
    record only within its class."""
    prm = _resolve(params)
    X, Xp = pair(X, Xp)
    Z, Zp = pair(Z, Zp, ("original z-scores", "protected z-scores"))
    names = [str(c) for c in names]
    n, d = X.shape
    if Z.shape != X.shape or len(names) != d:
        raise MicroaggError(f"evaluate: got {X.shape} values, {Z.shape} z-scores and {len(names)} names; they must "
                            "describe the same n x d data.")
    rows = []

    def add(name, value, attribute="all"):
        m = get_metric(name)
        rows.append((name, attribute, value, m.unit, m.direction, m.source))

    def add_each(name, values):
        if per_attribute:
            for col, v in zip(names, values):
                add(name, v if isinstance(v, int) else float(v), col)

    # utility
    constant = utility.sst(Z) == 0  # every record identical: IL, IL1s and PIL are undefined, reported as NaN
    add("IL", float("nan") if constant else utility.information_loss(Z, Zp))
    sse_t = utility.sse_by_attribute(Z, Zp)
    add("SSE", float(sse_t.sum()))
    add_each("SSE", sse_t)
    add("SST", utility.sst(Z))
    lab = None
    if labels is not None:
        lab = check_labels(labels, n, prm["k"], d=d)
        add("partition IL", float("nan") if constant else utility.partition_information_loss(Z, lab))
    elif prm["k"] is not None:
        raise MicroaggError("'k' checks the group sizes of 'labels': pass the labels too (or leave k out).")
    add("IL1s", float("nan") if constant else utility.il1s(X, Xp))
    parts = {"PIL": float("nan")} if constant else probabilistic.pil_components(Z, Zp)
    add("PIL", parts["PIL"])
    for name in probabilistic.COMPONENTS:
        if name in parts:
            add(f"pil({name})", parts[name])
    g = gil.gil_components(X, Xp)
    for name in ("M1", "M2", "M3", "M4", "M5", "G_IL"):
        if name in g:
            add(name, g[name])
    if lab is not None:
        a = utility.adm(Z, lab)
        add("ADM", a)
        add("ADM / n", a / n)
        if lab.ndim == 1:
            div = utility.sse_i(Z, lab, prm["confidential"], names=names) if Zc is None else utility.sse_i(Zc, lab)
            add("SSE_i min", float(div.min()))
            add("SSE_i mean", float(div.mean()))

    # risk: one linkage on all attributes (Mortazavi & Jalili 2017, 002, 003), one on the key variables (Oommen &
    # Fayyoumi 2010)
    link = risk.Linkage(Z, Zp)
    for name, rule in (("DLD", "expected"), ("DLD lowest index", "lowest_index"), ("DLD 1st", "1st"),
                       ("DLD 2nd", "2nd"), ("DLD 1st or 2nd", "1st_or_2nd")):
        add(name, link.dld(rule))
    p = percent(prm["p"])
    sdid = risk.interval_disclosure(Z, Zp, link.nearest, p)
    add("SDID", sdid)
    add_each("SDID", risk.interval_disclosure(Z, Zp, link.nearest, p, by_attribute=True))
    id_ = risk.interval_disclosure(Z, Zp, np.arange(n), p)
    add("ID", id_)
    keys = columns(prm["keys"], d, names, "keys")
    if key_classes is not None:
        rld = float(100.0 * risk.blocked_credit(Z, Zp, np.asarray(key_classes), keys).mean())
    else:
        rld = link.dld("expected") if len(keys) == d else risk.Linkage(Z, Zp, keys).dld("expected")
    add("RLD", rld)
    cells, records = risk.exact_cells(X, Xp)
    add("exact cells", cells)
    add_each("exact cells", 100.0 * (X == Xp).mean(axis=0))
    add("exact records", records)

    # privacy
    sl, sl_t = privacy.satisfaction(Z, Zp, prm["delta"], prm["w"], prm["relative"], prm["w_seed"])
    add("SL", sl)
    add_each("SL", sl_t)

    # combined
    dr = scores.dr_mortazavi(link.dld("lowest_index"), sdid)
    add("DR (Mortazavi & Jalili 2017)", dr)
    add("SI (Mortazavi & Jalili 2017)", float("nan") if constant else scores.si_mortazavi(dr, parts["PIL"]))
    gdr = scores.g_dr(rld, id_)
    add("G_DR", gdr)
    add("SI (Oommen & Fayyoumi 2010)", scores.si_oommen(g["G_IL"], gdr, prm["si_weight"]))

    # statistical test
    st = significance.sign_test(X, Xp, names).set_index("attribute")
    for name, col, kind in (("sign test N", "N", int), ("sign test W", "W", int), ("sign test p", "p_value", float)):
        add(name, kind(st.loc["all", col]))
        add_each(name, [kind(v) for v in st[col].iloc[:-1]])
    return pd.DataFrame(rows, columns=COLUMNS)
