import numpy as np

from microagg.aggregate._quartic import cubic_outer_roots, quartic


def test_global_minimum_of_random_quartics_matches_a_dense_search():
    rng = np.random.default_rng(3)
    n = 400
    c4 = rng.exponential(size=n) * 10 ** rng.uniform(-2, 2, n)
    c3, c2, c1 = (rng.normal(size=n) * 10 ** rng.uniform(-2, 2, n) for _ in range(3))
    c0 = np.zeros(n)
    lo, hi, _ = cubic_outer_roots(c4, c3, c2, c1)
    ours = np.minimum(quartic(lo, c4, c3, c2, c1, c0), quartic(hi, c4, c3, c2, c1, c0))
    for i in range(n):
        real = [r.real for r in np.roots([4 * c4[i], 3 * c3[i], 2 * c2[i], c1[i]]) if abs(r.imag) < 1e-6]
        span = 2 * max(1.0, *(abs(r) for r in real))
        grid = np.concatenate([np.linspace(-span, span, 20001), real])
        best = quartic(grid, c4[i], c3[i], c2[i], c1[i], 0.0).min()
        assert ours[i] <= best + 1e-12 * max(1.0, abs(best))


def test_double_well_has_both_minima_and_single_well_one():
    # (v^2 - 1)^2 = v^4 - 2 v^2 + 1: minima at -1 and +1; v^4 + v^2: one minimum at 0
    lo, hi, three = cubic_outer_roots(np.array([1.0, 1.0]), np.zeros(2), np.array([-2.0, 1.0]), np.zeros(2))
    assert three.tolist() == [True, False]
    assert np.allclose([lo[0], hi[0]], [-1, 1], atol=1e-14) and lo[1] == hi[1] == 0


def test_roots_are_vectorized_over_any_shape():
    c = np.ones((3, 4))
    lo, hi, three = cubic_outer_roots(c, 0 * c, -2 * c, 0.1 * c)
    assert lo.shape == hi.shape == three.shape == (3, 4) and three.all() and (lo < hi).all()
