import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.data.preprocess import Standardizer, numeric_matrix, select_columns


def test_zscores_use_the_population_sd():
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    z = ma.standardize(x)
    assert z[:, 0] == pytest.approx((x[:, 0] - 2.5) / np.sqrt(1.25))
    assert z.std(axis=0) == pytest.approx([1.0])


def test_constant_column_gives_zeros_and_round_trips():
    X = np.array([[5.0, 1], [5.0, 2], [5.0, 3]])
    std = Standardizer.fit(X)
    Z = std.transform(X)
    assert np.array_equal(Z[:, 0], [0, 0, 0]) and np.isfinite(Z).all()
    assert np.allclose(std.inverse(Z), X)
    assert np.allclose(ma.destandardize(Z, std.mean, std.sd), X)


def test_renormalize_restores_unit_variance_eq5(benchmark_z):
    Z = benchmark_z["census"]
    Zp = ma.aggregate.mean(Z, ma.partition.mdav(Z, 5))
    R = ma.renormalize(Zp)
    assert R.std(axis=0) == pytest.approx(np.ones(Z.shape[1]))
    sse_t = ((Z - Zp) ** 2).sum(axis=0)  # Mortazavi & Jalili 2017, Eq. 4: sigma_TC^2 = 1 - SSE_t / n
    assert np.allclose(R, Zp / np.sqrt(1 - sse_t / len(Z)))


def test_renormalize_leaves_a_constant_masked_attribute_at_zero():
    R = ma.renormalize(np.array([[1.0, 3.0], [1.0, 5.0]]))
    assert np.array_equal(R[:, 0], [0, 0])


def test_select_columns_errors():
    df = pd.DataFrame({"a": [1, 2], "t": ["x", "y"], "b": [True, False]})
    assert select_columns(df) == ["a"]
    with pytest.raises(ma.MicroaggError, match="column 't'.*not numeric"):
        select_columns(df, ["a", "t"])
    with pytest.raises(ma.MicroaggError, match="not in the data"):
        select_columns(df, ["zz"])
    with pytest.raises(ma.MicroaggError, match="more than once"):
        select_columns(df, ["a", "a"])
    dup = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(ma.MicroaggError, match="duplicate column names"):
        select_columns(dup)
    with pytest.raises(ma.MicroaggError, match="no numeric column"):
        select_columns(pd.DataFrame({"t": ["x"]}))


def test_numeric_matrix_names_the_column_and_row_of_bad_values():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, np.inf, 2.0]}, index=["r1", "r2", "r3"])
    with pytest.raises(ma.MicroaggError, match=r"'b' has 1 non-finite.*'r2'.*infinite"):
        numeric_matrix(df)
    df.loc["r1", "a"] = np.nan
    with pytest.raises(ma.MicroaggError, match=r"'a'.*missing \(NaN\)"):
        numeric_matrix(df)
    with pytest.raises(ma.MicroaggError, match="empty"):
        numeric_matrix(df.iloc[:0])


def test_minmax_scale_abidi():
    from microagg.data.preprocess import minmax_scale

    X = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [2.0, 5.0, 10.0]])
    out = minmax_scale(X)
    assert out[:, 0].tolist() == [0.0, 1.0, 0.5] and out[:, 1].tolist() == [0.0, 0.0, 0.0]
    assert out[:, 2] == pytest.approx([0.0, 0.25, 1.0])
    assert np.allclose(minmax_scale(ma.standardize(X))[:, [0, 2]], out[:, [0, 2]])
