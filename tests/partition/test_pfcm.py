"""PFCM, PCAES and the choice of the number of clusters (microagg/partition/pfcm.py)."""

import numpy as np
import pytest

import microagg as ma
from microagg.data.preprocess import minmax_scale
from microagg.partition.pfcm import kmeans_pp, memberships, pcaes, pfcm, select_pfcm

CENTRES = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0], [5.0, 5.0]])


def noisy_blobs() -> np.ndarray:
    """Four blobs of 150 points (sd 0.5) around CENTRES and 20 uniform noise points: the data the PCAES
    docstring quotes."""
    rng = np.random.default_rng(5)
    return np.vstack([rng.normal(m, 0.5, size=(150, 2)) for m in CENTRES] + [rng.uniform(-3, 8, size=(20, 2))])


def salary() -> np.ndarray:
    return minmax_scale(ma.load_dataset("abidi_salary")[["Salary"]].to_numpy(float))


def test_memberships_sum_to_one_and_fall_with_distance():
    D2 = np.array([[1.0, 4.0, 9.0], [2.0, 2.0, 8.0], [0.0, 3.0, 0.0], [1e-300, 1e300, 1.0]])
    u = memberships(D2, 2.0)
    assert u.sum(axis=1) == pytest.approx(np.ones(4))
    assert u[0, 0] > u[0, 1] > u[0, 2] and u[1, 0] == pytest.approx(u[1, 1])
    assert u[0] == pytest.approx(np.array([1, 1 / 4, 1 / 9]) / (1 + 1 / 4 + 1 / 9))  # (D_ij / D_lj)^(2/(m-1))
    assert u[2] == pytest.approx([0.5, 0.0, 0.5])  # a record on two prototypes shares them
    assert np.isfinite(u).all() and u[3, 0] == pytest.approx(1.0)


def test_kmeans_pp_picks_distinct_rows_reproducibly():
    X = noisy_blobs()
    a = kmeans_pp(X, 4, np.random.default_rng(1))
    assert np.array_equal(a, kmeans_pp(X, 4, np.random.default_rng(1)))
    assert len({tuple(r) for r in a}) == 4 and all((X == r).all(axis=1).any() for r in a)


def test_pfcm_finds_the_blobs_with_typicalities_in_range():
    X = noisy_blobs()
    before = X.copy()
    res = pfcm(X, 4, seed=3)
    assert np.array_equal(X, before) and res.converged
    order = np.argsort(res.prototypes @ [1, 10])
    assert res.prototypes[order] == pytest.approx(CENTRES[[0, 1, 2, 3]], abs=0.15)
    truth = np.repeat(np.arange(4), 150)
    lab = res.labels[:600]
    assert all(len(set(lab[truth == b])) == 1 for b in range(4)) and len(set(lab)) == 4
    assert ((res.t >= 0) & (res.t <= 1)).all() and (res.gamma > 0).all()
    assert res.u.sum(axis=1) == pytest.approx(np.ones(620))
    # noise far from every blob is atypical of all of them
    far = np.argmax(np.min(((X[:, None] - CENTRES[None]) ** 2).sum(-1), axis=1))
    assert res.t[far].max() < np.median(res.t[:600].max(axis=1))


def test_pfcm_is_deterministic_under_a_seed():
    X = noisy_blobs()
    a, b = pfcm(X, 5, seed=7), pfcm(X, 5, seed=7)
    assert np.array_equal(a.prototypes, b.prototypes) and np.array_equal(a.u, b.u)


def test_pcaes_max_recovers_noisy_blobs_where_min_does_not():
    X = noisy_blobs()
    best = select_pfcm(X, normalizer="max")
    assert best.c == 4 and best.table["chosen"].sum() == 1
    assert select_pfcm(X, normalizer="min").c == 8  # the docstring's claim


def test_pcaes_on_the_salary_example():
    """Abidi, Ben Yahia & Perera 2018, Tables 5-7: three salary classes. The 'min' normalizer finds them; 'max'
    joins low and middle.
    """
    S = salary()
    three = select_pfcm(S, normalizer="min")
    assert three.c == 3
    classes = [set(np.flatnonzero(three.result.labels == j) + 1) for j in range(3)]
    assert sorted(classes, key=min) == [{1, 2, 3}, {4, 5, 6, 10, 11, 12}, {7, 8, 9, 13}]
    two = select_pfcm(S, normalizer="max")
    assert two.c == 2
    assert sorted((set(np.flatnonzero(two.result.labels == j) + 1) for j in range(2)), key=min) == \
        [{1, 2, 3, 4, 5, 6, 10, 11, 12}, {7, 8, 9, 13}]


@pytest.mark.parametrize("name,q,kwargs", [("census", 5, {}), ("eia", 7, {"variant": "abidi"})])
def test_pcaes_min_runs_to_the_largest_c_on_benchmark_quasi_identifiers(name, q, kwargs):
    Q = minmax_scale(ma.load_dataset(name, **kwargs).to_numpy(float))[:, :q]
    lit = select_pfcm(Q, normalizer="min")
    assert lit.c >= 9 and lit.table.set_index("c").loc[lit.c, "smallest cluster"] <= 3
    assert select_pfcm(Q, normalizer="max").c in (2, 3)


def test_pcaes_definition_on_a_hand_example():
    u = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    V = np.array([[0.0], [2.0]])
    # sum u^2 per cluster: 2 and 1; beta_T = 1; nearest other prototype at squared distance 4
    assert pcaes(u, V, "max") == pytest.approx(2 / 2 + 1 / 2 - 2 * np.exp(-4))
    assert pcaes(u, V, "min") == pytest.approx(2 / 1 + 1 / 1 - 2 * np.exp(-4))
    assert pcaes(u, np.zeros((2, 1))) == -np.inf
    with pytest.raises(ma.MicroaggError, match="at least 2 clusters"):
        pcaes(u[:, :1], V[:1])
    with pytest.raises(ma.MicroaggError, match="normalizer"):
        pcaes(u, V, "mean")


def test_select_pfcm_edge_cases():
    X = noisy_blobs()
    with pytest.raises(ma.MicroaggError, match="lower c"):
        select_pfcm(X[:3], c=4)
    tiny = select_pfcm(X[:3])
    assert tiny.c == 1 and (tiny.result.labels == 0).all()
    fixed = select_pfcm(X, c=3)
    assert fixed.c == 3 and len(fixed.table) == 1
    assert list(select_pfcm(X[:100]).table["c"]) == list(range(2, 11))
    same = np.ones((30, 2))
    flat = select_pfcm(same)
    assert np.isfinite(flat.result.prototypes).all() and (flat.table["PCAES"] == -np.inf).all()


def test_select_pfcm_prefers_candidates_whose_clusters_are_all_large_enough():
    X = noisy_blobs()
    free = select_pfcm(X, normalizer="min")
    bounded = select_pfcm(X, normalizer="min", min_size=100)
    row = bounded.table.set_index("c").loc[bounded.c]
    assert free.c == 8 and row["smallest cluster"] >= 100
    assert bounded.table.loc[bounded.table["chosen"], "clusters >= min_size"].item() == bounded.c
