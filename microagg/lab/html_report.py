"""The report of a release as one self-contained HTML file: parameters, data summary, headline metrics with
their direction and meaning, its risk-utility position, group sizes, per-record linkage risk, the recipe that
reproduces it, package versions and seeds. Plotly's script is inlined once: the file opens with no network.

The file carries the recipe and the shuffle's seed, so it must stay private like the original data (README,
"Publishing a release safely").
"""

from __future__ import annotations

import html
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..base.labels import GIVEN, pooled_labels
from ..base.registry import DIFFERENTIAL_PRIVACY, Capabilities, get_method
from ..data.io import check_output, write_text
from ..figures import plots, tables
from ..figures.plots import go
from ..metrics.attribute import t_closeness_by_class
from ..metrics.registry import metrics
from ..partition.geometry import partial_distances
from ..release import recipe
from ..release.release import Release
from .explore import risk_utility

PACKAGES = ("microagg", "numpy", "pandas", "scipy", "numba", "plotly")
SWEEP_KS = (2, 3, 5, 10)
SWEEP_MAX_RECORDS = 20_000  # larger releases get no sweep over k (it reruns the method once per k)
RISKIEST = 10

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}th,td{border:1px solid #ddd;padding:.25em .6em;
text-align:left;vertical-align:top}th{background:#f4f4f4}
.private{background:#fff4e5;border:1px solid #f0b37e;padding:.6em 1em;border-radius:4px}
pre{background:#f6f8fa;padding:.8em;white-space:pre-wrap;word-break:break-all;font-size:.88em}.note{color:#555;font-size:.92em}
"""


CAVEATS = ("k-anonymous with the kept columns known", "row order", "input index")


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0, na_rep="")


def _pairs(rows: Sequence[tuple[str, object]]) -> str:
    return _table(pd.DataFrame(rows, columns=["", "value"]).astype(str))


def versions() -> dict[str, str]:
    """Versions of Python and of :data:`PACKAGES` ("not installed" if absent)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def linkage_ratios(Z: np.ndarray, Zp: np.ndarray) -> np.ndarray:
    """Per record i, the distance from its released z-scores to its own original over the distance to the nearest
    *other* original record (distance-based record linkage, docs/metrics.md §4.6): below 1 an intruder holding the
    originals links the released record to its respondent; the smaller, the surer. With missing cells (NaN) the
    distances are the partial distances of the report's DLD (docs/metrics.md §4.27): O(n²·d) time then."""
    Z, Zp = np.asarray(Z, np.float64), np.asarray(Zp, np.float64)
    if len(Z) < 2:
        return np.full(len(Z), np.inf)
    if np.isnan(Z).any() or np.isnan(Zp).any():
        own, other = _partial_linkage(Z, Zp)
    else:
        own = np.sqrt(((Z - Zp) ** 2).sum(axis=1))
        from scipy.spatial import cKDTree  # (scipy's modules are imported by the calls that need them)

        dist, idx = cKDTree(Z).query(Zp, k=2)
        first_is_own = idx[:, 0] == np.arange(len(Z))
        other = np.where(first_is_own, dist[:, 1], dist[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(other > 0, own / other, np.where(own > 0, np.inf, 1.0))


def _partial_linkage(Z: np.ndarray, Zp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per released row, the partial distance (``partition.missing``, docs/methods.md §8.2) to its own original and
    to the nearest other original."""
    observed = ~np.isnan(Z)
    Z0, rows = np.where(observed, Z, 0.0), np.arange(len(Z))
    own, other = np.empty(len(Z)), np.empty(len(Z))
    for i in rows:
        seen = ~np.isnan(Zp[i])
        dist = np.sqrt(partial_distances(Z0, observed, rows, np.where(seen, Zp[i], 0.0), seen, 0.0))
        own[i] = dist[i]
        dist[i] = np.inf
        other[i] = dist.min()
    return own, other


def closeness(rel: Release) -> dict[str, float]:
    """Per confidential column, the largest ordered EMD (docs/methods.md §2.13) of its distribution in a class of
    the released file (rows equal on the masked, categorical and key columns) to the whole file's: the release is
    t-close for every t at least this."""
    if not rel.confidential or not rel.masked:
        return {}
    published = rel.protected
    categorical = [] if rel.categories is None else rel.categories.names
    classes = published.groupby(rel.masked + categorical + rel.keys, sort=False, dropna=False).ngroup().to_numpy()
    return {c: float(t_closeness_by_class(published[c].to_numpy(np.float64), classes).max()) for c in rel.confidential}


def _risk_figure(ratio: np.ndarray) -> go.Figure:
    shown = np.minimum(ratio[np.isfinite(ratio)], 3.0)
    fig = go.Figure(go.Histogram(x=shown, nbinsx=60, marker_color=plots.PALETTE[3],
                                 hovertemplate="ratio %{x}: %{y} records<extra></extra>"))
    fig.add_vline(x=1.0, line_dash="dot", line_color="#555", annotation_text="linked below 1",
                  annotation_position="top")
    fig.update_layout(title="Per-record linkage risk: own distance / distance to the nearest other original",
                      xaxis_title="ratio (values above 3 shown at 3)", yaxis_title="records", height=380, bargap=0.05)
    return plots.readable(fig)


def _overall(report: pd.DataFrame, *names: str) -> float:
    """The overall value of the first of ``names`` the report has (NaN if none)."""
    for name in names:
        rows = report[(report["metric"] == name) & (report["attribute"] == "all")]
        if len(rows):
            return float(rows["value"].iloc[0])
    return float("nan")


def _sweep(rel: Release, ks: Sequence[int]) -> tuple[pd.DataFrame | None, str]:
    """The same method, parameters and columns at every k of ``ks`` (``microagg.lab.explore.risk_utility``), inside the
    same strata and with the same keys; else None and why not."""
    p = rel.params
    n = len(rel.original)
    # every stratum must hold k records: the sweep stops at the smallest
    top = int(rel.keys_strata.groupby(list(rel.strata), dropna=False).size().min()) if rel.strata else n
    ks = sorted({int(k) for k in (*ks, rel.k) if 2 <= k <= top})
    why = ("the partition was given (labels=), so it cannot be recomputed at other k" if p["method"] == GIVEN else
           f"more than {SWEEP_MAX_RECORDS:,} records" if n > SWEEP_MAX_RECORDS else
           "a block engine" if p.get("engine", "memory") != "memory" else
           f"no other k between 2 and the smallest stratum ({top} records)" if len(ks) < 2 and rel.strata else
           "no other k between 2 and the number of records" if len(ks) < 2 else
           "categorical quasi-identifiers (the sweep is numeric)" if rel.categories is not None else
           "sampling weights or missing cells (the sweep compares complete, unweighted releases)"
           if rel.survey is not None else "")
    if why:
        return None, why
    method, aggregation = get_method("partition", p["method"]), get_method("aggregate", p["aggregation"])
    own = {q.name: p[q.name] for q in method.params if q.name in p}
    agg = {q.name: p[q.name] for q in aggregation.params if q.name in p}
    data = rel.original if rel.keys_strata is None else pd.concat(
        [rel.original, rel.keys_strata[[c for c in rel.keys_strata if c not in rel.original]]], axis=1)
    return risk_utility(data, ks, {method.title: (method.name, own)}, aggregation=aggregation.name,
                        columns=rel.masked, confidential=rel.confidential or None, aggregation_params=agg,
                        keys=rel.keys or None, strata=rel.strata or None, renormalize=p.get("renormalize", False),
                        identifiers=[], seed=0), ""  # the data holds no identifier; the rows' order is not read


def _ru_figure(rel: Release, report: pd.DataFrame, sweep: pd.DataFrame | None) -> go.Figure:
    fig = plots.ru_map(sweep) if sweep is not None else go.Figure()
    fig.add_trace(go.Scatter(x=[_overall(report, "DLD", "DLD (partial distances)")],
                             y=[_overall(report, "IL", "IL (observed cells)")], mode="markers+text",
                             name="this release", text=[f"this release (k={rel.k})"], textposition="top right",
                             marker=dict(size=16, symbol="star", color="#d62728", line=dict(width=1, color="#222"))))
    fig.update_layout(title="Risk-utility position: IL against DLD (lower-left is better)",
                      xaxis_title="DLD (%) — disclosure risk", yaxis_title="IL (%) — information loss", height=460,
                      legend=dict(orientation="h", y=-0.18))
    return plots.readable(fig)


def _given() -> SimpleNamespace:
    """What the report says of the partitioner of a release whose partition was given (``labels=``)."""
    return SimpleNamespace(name=GIVEN, title="a given partition", summary="groups computed elsewhere, passed as "
                           "labels= and checked (each of at least k records)", source="the caller", params=(),
                           caps=Capabilities())


def _survey(report: pd.DataFrame) -> pd.DataFrame:
    """The report's rows on sampling weights and missing cells (docs/methods.md §8)."""
    return report[(report["attribute"] == "all") & report["source"].astype(str).str.startswith("docs/methods.md §8")]


def _caveats(report: pd.DataFrame) -> list[tuple[str, str]]:
    """The report's rows on what links released rows to respondents beyond the masked columns: kept columns that
    break k-anonymity, rows in the input's order, the input's index released (``Release.report``)."""
    said = report[(report["attribute"] == "all") & report["metric"].isin(CAVEATS)]
    return [(row.metric, f"{'no' if row.value is False else row.value}: {row.source}" if row.metric == CAVEATS[0]
             else str(row.value)) for row in said.itertuples()]


def _headline(report: pd.DataFrame) -> pd.DataFrame:
    """The headline metrics with their title, direction and meaning from the metric registry."""
    described = {m.name: m for m in metrics()}
    rows = []
    for metric, value, unit, direction in tables.headline(report).itertuples(index=False):
        m = described.get(metric)
        rows.append({"metric": metric if m is None else f"{metric}: {m.title}", "value": value, "unit": unit,
                     "direction": direction, "meaning": "" if m is None else m.summary,
                     "definition": "" if m is None else m.doc})
    return pd.DataFrame(rows)


def html_report(rel: Release, path=None, data: str = 'ma.read_csv("data.csv").data', data_args=None,
                sweep_ks: Sequence[int] | None = SWEEP_KS, force: bool = False, inputs: Sequence = ()) -> str | None:
    """The report of ``rel`` as one self-contained HTML page; written atomically to ``path`` (refused if it is one
    of ``inputs`` or of the files ``rel`` was read from, even with ``force``; refused if it exists, unless
    ``force``), else returned. ``data`` / ``data_args`` load the input in the
    recipe (as for ``microagg.release.recipe``); ``sweep_ks``: the k values of the risk-utility sweep beside this
    release (None: no sweep; skipped above :data:`SWEEP_MAX_RECORDS` records or with the block engines)."""
    if not isinstance(rel, Release):
        raise MicroaggError(f"html_report needs a Release (from microaggregate); got {type(rel).__name__}.")
    if path is not None:
        check_output(path, [*inputs, *rel.inputs], force=force)
    data_args = list(data_args) if data_args is not None else ["--input", "data.csv"]
    report = rel.report()
    p = rel.params
    method = _given() if p["method"] == GIVEN else get_method("partition", p["method"])
    aggregation = get_method("aggregate", p["aggregation"])
    sweep, why = _sweep(rel, sweep_ks) if sweep_ks else (None, "not asked for")
    ratio = linkage_ratios(rel.Z, rel.Zp)
    order = np.arange(len(ratio)) if rel.order is None else rel.order
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))  # row of every record in the released file
    sizes = np.bincount(pooled_labels(rel.labels))[pooled_labels(rel.labels)]
    riskiest = np.lexsort((position, ratio))[:RISKIEST]
    risky = pd.DataFrame({"row in the released file (0 = first data row)": position[riskiest],
                          "linkage ratio": np.round(ratio[riskiest], 4), "group size": sizes[riskiest]})
    figures = [_ru_figure(rel, report, sweep), plots.group_sizes(rel.labels, rel.k, method.caps.bounded),
               _risk_figure(ratio)]
    embedded = [fig.to_html(full_html=False, include_plotlyjs=(i == 0), config={"displaylogo": False})
                for i, fig in enumerate(figures)]
    spec = rel.spec
    params = [("method", f"{method.title} ({method.name})"), ("k", rel.k),
              ("aggregation", f"{aggregation.title} ({aggregation.name})")]
    params += [(f"{n} ({method.name})", v) for n, v in spec.method_params.items()]
    params += [(f"{n} ({aggregation.name})", v) for n, v in spec.aggregation_params.items()]
    params += spec.option_rows()
    seeds = [("shuffle of the released rows", p.get("shuffle_seed") if p.get("shuffle") else "not shuffled")]
    seeds += [(f"{q.name} of {kind.name}", p[q.name]) for kind in (method, aggregation) for q in kind.params
              if "seed" in q.name and q.name in p]
    e = html.escape
    cats = [] if rel.categories is None else [f"{c} ({kind})" for c, kind in zip(rel.categories.names,
                                                                                  rel.categories.kinds)]
    summary = [("records", len(rel.original)), ("masked (quasi-identifiers)", ", ".join(rel.masked + cats) or "none"),
               ("confidential (released unchanged)", ", ".join(rel.confidential) or "none"),
               ("kept unmasked", ", ".join(rel.kept) or "none"), ("key columns", ", ".join(rel.keys) or "none"),
               ("strata", ", ".join(rel.strata) or "none"),
               ("identifiers (not released)", "; ".join(f"{c} ({why})" for c, why in rel.identifiers.items())
                or "none"), ("dropped", ", ".join(rel.dropped) or "none"),
               ("groups", int(pooled_labels(rel.labels).max()) + 1),
               ("k-anonymous", rel.anonymity["k_anonymous"])]
    summary += _caveats(report)
    summary += [(f"t-closeness of {c}: largest EMD of a class", f"{t:.4f}") for c, t in closeness(rel).items()]
    summary += [(row.metric, tables.format_value(row.value, row.unit)) for row in _survey(report).itertuples()]
    sweep_note = "" if sweep is not None else f"<p class='note'>No sweep over k: {e(why)}.</p>"
    private, noise = "", ""
    if aggregation.caps.privacy == DIFFERENTIAL_PRIVACY:  # ε, bounds, sensitivity, noise scale, seed (methods §7.3)
        noise = (" It also carries the seed of the Laplace noise: whoever holds it can take the noise off and read "
                 "the exact group means.")
        rows = report[report["metric"].str.startswith("DP ") | (report["metric"] == "differential privacy ε")]
        private = f"<h2>Differential privacy</h2>{_table(rows[['metric', 'attribute', 'value', 'unit']])}"
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = f"""<h1>Release report: {e(method.title)}, k = {rel.k}</h1>
<p class="private"><b>Keep this file private, like the original data.</b> The recipe below carries the seed of the
shuffle: whoever holds it and the original can pair every released row with its respondent.{noise} Publish the
release file, not this report.</p>
<p class="note">Made {e(made)} by microagg. Method: {e(method.summary)} ({e(method.source)}).</p>
<h2>Parameters</h2>{_pairs(params)}{private}
<h2>Data</h2>{_pairs(summary)}
<h2>Headline metrics</h2>{_table(_headline(report))}
<p class="note">Every metric with its per-attribute values and source: <code>rel.report()</code>; definitions in
docs/metrics.md.</p>
<h2>Risk-utility position</h2>{embedded[0]}{sweep_note}
<p class="note">IL: information loss, 100·SSE/SST of the masked columns; DLD: distance-based linkage disclosure, the
expected share of records an intruder holding the originals re-identifies by nearest neighbour.</p>
<h2>Group sizes</h2>{embedded[1]}
<h2>Per-record risk</h2>{embedded[2]}
<p>The {len(risky)} records linked most surely, by their row in the released file (no identifier is shown):</p>
{_table(risky)}
<h2>Recipe</h2>
<pre>{e(recipe.python_snippet(spec, data))}</pre>
<pre>{e(recipe.cli_command(spec, data_args))}</pre>
<h2>Versions and seeds</h2>{_pairs(list(versions().items()))}{_pairs(seeds)}
"""
    page = (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>microagg release report</title>"
            f"<style>{_CSS}</style></head><body>{body}</body></html>\n")
    if path is None:
        return page
    write_text(page, path)
    return None
