import numpy as np
import pytest

import microagg as ma
from microagg.lab.attacks import inference_control


def test_control_split_attacks_targets_and_held_out_records():
    df = ma.load_dataset("tarragona").iloc[:300, :4]
    conf = [df.columns[3]]
    out = inference_control(df, 3, conf, control=0.25, seed=2).iloc[0]
    assert (out["targets"], out["controls"]) == (225, 75)
    # the controls' success by brute force: the same split, the same release, every tied released row a guess
    held = np.zeros(300, dtype=bool)
    held[np.random.default_rng(2).permutation(300)[:75]] = True
    rel = ma.microaggregate(df[~held], 3, confidential=conf)
    R = rel.standardizer.transform(rel.protected[rel.masked].to_numpy(float))
    G = rel.protected[conf[0]].to_numpy(float)
    tol = 0.1 * df[conf[0]].std(ddof=0)
    hits = []
    for x, t in zip(rel.standardizer.transform(df[held][rel.masked].to_numpy(float)), df[held][conf[0]]):
        d = ((R - x) ** 2).sum(axis=1)
        hits.append(np.mean(np.abs(G[d == d.min()] - t) <= tol))
    assert out["attack on controls"] == pytest.approx(100 * np.mean(hits))
    assert out["excess low"] <= out["excess over controls"] <= out["excess high"]
    assert out["attack on targets low"] <= out["attack on targets"] <= out["attack on targets high"]


def test_control_share_is_checked():
    df = ma.load_dataset("tarragona").iloc[:50, :3]
    with pytest.raises(ma.MicroaggError, match="share of records held out"):
        inference_control(df, 3, [df.columns[2]], control=1.5)
