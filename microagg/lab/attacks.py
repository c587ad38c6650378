"""The inference attack with a control split (after Giomi et al. 2023; docs/metrics.md §4.18): part of the records
is held out, the rest is released, and the same intruder attacks the released records and the held-out ones.

What the release reveals about its own respondents beyond what it reveals about people like them is the excess of
the attack's success on the released targets over its success on the controls, who are not in the release. The
registered metrics of ``microagg.metrics.inference`` compare with a guess from the released marginal instead,
which needs no second release.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError
from ..data.preprocess import as_frame
from ..metrics.inference import attack, check_tolerance, newcombe, wilson
from ..release.pipeline import microaggregate


def inference_control(data, k: int, confidential, *, control: float = 0.3, seed: int = 0, tolerance: float = 10.0,
                      **recipe) -> pd.DataFrame:
    """Release ``1 - control`` of the records of ``data`` with ``microaggregate(rest, k, confidential=...,
    **recipe)`` and attack the released targets and the held-out controls.

    The intruder knows a target's masked columns (the quasi-identifiers, in z-scores of the release), links them to
    the nearest released rows and guesses the target's ``confidential`` value from them; success is
    ``|guess - truth| <= tolerance`` % of the attribute's sd in ``data``. One row per confidential attribute: the
    success rates on targets and on controls (%, Wilson 95 % intervals), the baseline (a random released value) on
    the targets, and the excess of targets over controls in percentage points with Newcombe's hybrid score
    interval (Newcombe 1998, method 10). ``seed`` draws the split."""
    df = as_frame(data)
    if not isinstance(control, (int, float)) or isinstance(control, bool) or not 0 < control < 1:
        raise MicroaggError(f"'control' is the share of records held out, between 0 and 1; got {control!r}.")
    conf = [confidential] if isinstance(confidential, str) else list(confidential)
    if not conf:
        raise MicroaggError("inference_control needs at least one confidential column to attack.")
    tol = check_tolerance(tolerance) / 100 * df[conf].to_numpy(np.float64).std(axis=0)
    held = np.zeros(len(df), dtype=bool)
    held[np.random.default_rng(seed).permutation(len(df))[:int(round(control * len(df)))]] = True
    if held.sum() < 1 or (~held).sum() < k:
        raise MicroaggError(f"control = {control} leaves {held.sum()} controls and {(~held).sum()} records to release "
                            f"with k = {k}; use more records or another share.")
    rel = microaggregate(df[~held], k, confidential=conf, **recipe)
    released = rel.protected
    qi = rel.standardizer.transform(released[rel.masked].to_numpy(np.float64))
    guesses = released[conf].to_numpy(np.float64)
    rows = []
    for who, part in (("targets", df[~held]), ("controls", df[held])):
        a, b = attack(qi, guesses, rel.standardizer.transform(part[rel.masked].to_numpy(np.float64)),
                      part[conf].to_numpy(np.float64), tol)
        rows.append((who, a, b))
    (_, at, bt), (_, ac, _) = rows
    out = []
    for s, name in enumerate(conf):
        nt, nc = len(at), len(ac)
        xt, xc = at[:, s].sum(), ac[:, s].sum()
        lo, hi = newcombe(xt, nt, xc, nc)
        out.append({"attribute": name, "targets": nt, "controls": nc,
                    "attack on targets": 100 * xt / nt, **_ci("attack on targets", xt, nt),
                    "attack on controls": 100 * xc / nc, **_ci("attack on controls", xc, nc),
                    "baseline": 100 * bt[:, s].mean(), "excess over controls": 100 * (xt / nt - xc / nc),
                    "excess low": 100 * lo, "excess high": 100 * hi})
    return pd.DataFrame(out)


def _ci(name: str, x: float, n: int) -> dict:
    lo, hi = wilson(x, n)
    return {f"{name} low": 100 * lo, f"{name} high": 100 * hi}
