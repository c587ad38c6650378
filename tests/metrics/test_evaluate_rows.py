"""``evaluate`` row by row against the same table assembled directly from the low-level metric functions."""

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.base.checks import columns
from microagg.base.labels import check_labels
from microagg.lab.reproduce import published
from microagg.metrics import (
    analysis,
    attribute,
    disclosure,
    gil,
    groups,
    inference,
    privacy,
    probabilistic,
    propensity,
    risk,
    scores,
    significance,
    utility,
)
from microagg.metrics.registry import get_metric
from microagg.metrics.report import evaluate_arrays


def expected_table(X, Xp, Z, Zp, names, labels=None, *, per_attribute=True, delta=0.1, relative=False, w=0.001,
                   weights="given", w_seed=1, p=5.0, keys=None, confidential=None, si_weight=0.5,
                   tolerance=10.0, one_to_one_max=2000):
    """The evaluation table, metric after metric, from the functions of every metric module."""
    n, d = X.shape
    rows = []

    def add(name, value, attribute="all", note=None):
        m = get_metric(name)
        source = m.source if note is None else f"{note}; {m.source}" if note.startswith("not computed") else \
            f"{m.source}; {note}"
        rows.append((name, attribute, value, m.unit, m.direction, source))

    def add_each(name, values):
        if per_attribute:
            for col, v in zip(names, values):
                add(name, v if isinstance(v, int) else float(v), col)

    constant = utility.sst(Z) == 0
    add("IL", float("nan") if constant else utility.information_loss(Z, Zp))
    sse_t = utility.sse_by_attribute(Z, Zp)
    add("SSE", float(sse_t.sum()))
    add_each("SSE", sse_t)
    add("SST", utility.sst(Z))
    lab = None if labels is None else check_labels(labels, n, d=d)
    if lab is not None:
        add("partition IL", float("nan") if constant else utility.partition_information_loss(Z, lab))
    add("IL1s", float("nan") if constant else utility.il1s(X, Xp))
    for name, each in (("KS", analysis.ks_distance(Z, Zp)), ("Wasserstein", analysis.wasserstein(Z, Zp))):
        add(name, float(each.mean()))
        add_each(name, each)
    add("eigen IL", analysis.eigen_il(Z, Zp))
    overlap = analysis.regression_overlap(Z, Zp)
    add("regression CI overlap", float(np.nanmean(overlap)) if np.isfinite(overlap).any() else float("nan"))
    add_each("regression CI overlap", overlap)
    model = propensity.propensity_model(2 * n, d)
    if model.m:
        add("pMSE", propensity.pmse(Z, Zp)[0], note=f"model: {model.describe()}")
        add("pMSE ratio", propensity.pmse(Z, Zp)[1], note=f"model: {model.describe()}")
    else:
        why = (f"not computed: {2 * n} stacked records, fewer than 10 per term of the smallest propensity model "
               "(3 terms)")
        add("pMSE", float("nan"), note=why)
        add("pMSE ratio", float("nan"), note=why)
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
        a = groups.adm(Z, lab)
        add("ADM", a)
        add("ADM / n", a / n)
        if lab.ndim == 1:
            div = groups.sse_i(Z, lab, confidential, names=names)
            add("SSE_i min", float(div.min()))
            add("SSE_i mean", float(div.mean()))
    for name, rule in (("DLD", "expected"), ("DLD lowest index", "lowest_index"), ("DLD 1st", "1st"),
                       ("DLD 2nd", "2nd"), ("DLD 1st or 2nd", "1st_or_2nd")):
        add(name, risk.dld(Z, Zp, rule))
    add("SDID", risk.sdid(Z, Zp, p))
    add_each("SDID", risk.sdid(Z, Zp, p, by_attribute=True))
    add("ID", risk.sdid(Z, Zp, p, link="own"))
    rld = risk.dld(Z, Zp, "expected", keys, names)
    add("RLD", rld)
    cells, records = risk.exact_cells(X, Xp)
    add("exact cells", cells)
    add_each("exact cells", 100.0 * (X == Xp).mean(axis=0))
    add("exact records", records)
    if n <= one_to_one_max:
        add("DLD one-to-one", disclosure.dld_one_to_one(Z, Zp))
    else:
        add("DLD one-to-one", float("nan"), note=f"not computed: {n:,} records, above one_to_one_max = "
            f"{one_to_one_max:,} (an n x n distance matrix and a cubic assignment solver)")
    add("RID", disclosure.rid(Z, Zp, p))
    add_each("RID", disclosure.rid(Z, Zp, p, by_attribute=True))
    conf = columns(confidential, d, names, "confidential")
    conf_names = [names[t] for t in conf]
    for name, worst in attribute.attribute_disclosure(X[:, conf], Xp).items():
        add(name, int(worst.min()) if name == "l-diversity" else float(worst.max() if name == "t-closeness" else
                                                                          worst.min()))
        if per_attribute:
            for col, v in zip(conf_names, worst.tolist()):
                add(name, v, col)
    known = keys if keys is not None or confidential is not None else list(range(d))  # none declared: all known
    inf = inference.inference_risk(X, Xp, conf, known, names, tolerance)
    worst = inf.loc[inf["excess"].idxmax()]
    for name, col in (("inference attack", "attack"), ("inference baseline", "baseline"),
                      ("inference excess", "excess"), ("inference excess high", "excess high")):
        add(name, float(worst[col]))
        if per_attribute:
            for attr, v in zip(inf["attribute"], inf[col]):
                add(name, float(v), attr)
    sl, sl_t = privacy.satisfaction(Z, Zp, delta, w, relative=relative, weights=weights, w_seed=w_seed)
    add("SL", sl)
    add_each("SL", sl_t)
    dr = scores.dr_mortazavi(risk.dld(Z, Zp, "lowest_index"), risk.sdid(Z, Zp, p))
    add("DR (Mortazavi & Jalili 2017)", dr)
    add("SI (Mortazavi & Jalili 2017)", float("nan") if constant else scores.si_mortazavi(dr, parts["PIL"]))
    gdr = scores.g_dr(rld, risk.sdid(Z, Zp, p, link="own"))
    add("G_DR", gdr)
    add("SI (Oommen & Fayyoumi 2010)", scores.si_oommen(g["G_IL"], gdr, si_weight))
    st = significance.sign_test(X, Xp, names).set_index("attribute")
    for name, col, kind in (("sign test N", "N", int), ("sign test W", "W", int), ("sign test p", "p_value", float)):
        add(name, kind(st.loc["all", col]))
        add_each(name, [kind(v) for v in st[col].iloc[:-1]])
    return pd.DataFrame(rows, columns=["metric", "attribute", "value", "unit", "direction", "source"])


def _census(k=4):
    df = ma.load_dataset("census")
    return df, ma.microaggregate(df, k, variant="classic", shuffle=False)


CASES = {
    "defaults": {},
    "parameters": dict(p=10, keys=list(published.OOMMEN_KEYS), weights="random", w_seed=3, delta=0.2,
                       confidential=["AGI", "FICA"], si_weight=0.3),
    "relative, given weights": dict(delta=0.5, relative=True, w=0.2),
    "no labels": dict(labels=None),
    "all rows only": dict(per_attribute=False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_evaluate_equals_the_table_of_the_metric_functions(case):
    df, rel = _census()
    params = dict(CASES[case])
    labels = params.pop("labels", rel.labels)
    X = df.to_numpy(np.float64)
    Xp = rel.protected.to_numpy(np.float64)
    std = ma.Standardizer.fit(X)
    expected = expected_table(X, Xp, std.transform(X), std.transform(Xp), list(df.columns), labels, **params)
    pd.testing.assert_frame_equal(ma.evaluate(df, rel.protected, labels, **params), expected, check_exact=True)


def test_constant_data_and_per_attribute_labels():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    Xp = X + rng.normal(scale=0.1, size=X.shape)
    lab = np.column_stack([np.argsort(np.argsort(X[:, t])) // 5 for t in range(3)])
    C = np.ones((6, 2))
    for A, Ap, labels in ((X, Xp, lab), (C, C, None)):
        std = ma.Standardizer.fit(A)
        arrays = A, Ap, std.transform(A), std.transform(Ap), [f"x{t}" for t in range(A.shape[1])], labels
        pd.testing.assert_frame_equal(evaluate_arrays(*arrays), expected_table(*arrays), check_exact=True)
