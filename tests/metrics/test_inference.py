import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.metrics.inference import Z95, attack, baseline_success, count_within, inference_risk, newcombe, wilson


def brute_attack(Rq, G, Tq, T, tol):
    """Every released record at the minimal distance is an equally likely guess."""
    out = []
    for q, t in zip(Tq, T):
        d = ((Rq - q) ** 2).sum(axis=1)
        near = d == d.min()
        out.append(np.mean(np.abs(G[near] - t) <= tol))
    return np.array(out)


@pytest.mark.parametrize("seed", range(5))
def test_attack_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    Rq = np.repeat(rng.integers(-3, 3, size=(8, 2)).astype(float), 3, axis=0)  # classes of 3 and ties
    G = rng.normal(size=len(Rq)) - 2.0  # mostly negative values
    Tq = rng.integers(-3, 3, size=(15, 2)).astype(float) + 0.5 * rng.integers(0, 2, size=(15, 2))
    T = rng.normal(size=15) - 2.0
    a, b = attack(Rq, G, Tq, T, 0.4)
    np.testing.assert_allclose(a[:, 0], brute_attack(Rq, G, Tq, T, 0.4))
    np.testing.assert_allclose(b[:, 0], [np.mean(np.abs(G - t) <= 0.4) for t in T])


def test_negative_values_are_not_hits_by_ratio():
    # a criterion dividing by the guess, (guess - truth) / guess <= 0.5, would count -1 guessed for -10 as a hit
    G, T = np.array([-10.0, -1.0, 0.0]), np.array([-1.0, -10.0, 0.0])
    assert baseline_success(G, T, 0.5).tolist() == [1 / 3, 1 / 3, 1 / 3]
    a, _ = attack(np.array([[0.0], [1.0], [2.0]]), G, np.array([[0.0], [1.0], [2.0]]), T, 0.5)
    assert a[:, 0].tolist() == [0.0, 0.0, 1.0]  # -10 guessed for -1 is a miss, 0 for 0 a hit


def test_count_within_by_class():
    cls = np.array([0, 0, 1, 1, 1])
    v = np.array([-1.0, 2.0, -1.0, -1.0, 3.0])
    got = count_within(cls, v, np.array([0, 1, 1, 0]), np.array([-1.0, -1.0, 0.0, 3.0]), np.array([2.0, -1.0, 3.0,
                                                                                                   4.0]))
    assert got.tolist() == [2, 2, 1, 0]


def test_wilson_and_newcombe_against_published_values():
    # Newcombe 1998's worked example 56/70 - 48/80: method 10 gives 0.0524 to 0.3339
    lo, hi = newcombe(56, 70, 48, 80)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    # Wilson 1927 by hand for 0/10, z = 1.96: centre = half-width = (z²/20)/(1 + z²/10) = 0.13877
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775


def test_inference_risk_table_and_evaluate_rows():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    df["c"] = 2 * df["a"] - 5 + 0.1 * rng.normal(size=300)  # c follows from a: inferable, and negative
    rel = ma.microaggregate(df[["a", "b"]].assign(c=df["c"]), 3, confidential=["c"], shuffle=False)
    report = rel.report()
    row = report[(report["metric"] == "inference attack") & (report["attribute"] == "c")]
    excess = report[(report["metric"] == "inference excess") & (report["attribute"] == "all")]["value"].iloc[0]
    assert row["value"].iloc[0] > 50 and excess > 20
    table = inference_risk(df.to_numpy(), df.to_numpy(), confidential=[2], names=list(df.columns))
    assert table["attribute"].tolist() == ["c"] and table["attack"].iloc[0] == 100.0
    assert table["attack low"].iloc[0] < 100.0 <= table["attack high"].iloc[0]


def test_z95_is_the_975_quantile_of_the_standard_normal():
    from scipy.stats import norm

    assert abs(Z95 - float(norm.ppf(0.975))) < 1e-15
