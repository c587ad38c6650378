import numpy as np
import pandas as pd
import pytest

import microagg as ma


@pytest.mark.parametrize("name,shape", [("tarragona", (834, 13)), ("census", (1080, 13)), ("eia", (4092, 11))])
def test_benchmarks(name, shape):
    df = ma.load_dataset(name)
    assert df.shape == shape
    assert all(np.issubdtype(t, np.number) for t in df.dtypes)


def test_eia_variants():
    assert list(ma.load_dataset("eia").columns[:2]) == ["UTILITYID", "RESREVENUE"]
    alt = ma.load_dataset("eia", variant="abidi")
    assert "UTILITYID" not in alt.columns and "MONTH" in alt.columns and alt.shape == (4092, 11)
    assert ma.load_dataset("eia", raw=True).shape == (4092, 15)
    with pytest.raises(ma.MicroaggError, match="unknown EIA variant"):
        ma.load_dataset("eia", variant="other")


@pytest.mark.parametrize("name", ["synthetic", "uniform", "normal"])
def test_generators_are_seeded(name):
    a = ma.load_dataset(name, n=500, seed=3)
    b = ma.load_dataset(name, n=500, seed=3)
    c = ma.load_dataset(name, n=500, seed=4)
    assert a.equals(b) and not a.equals(c) and len(a) == 500


def test_generator_defaults_follow_the_papers():
    assert ma.load_dataset("synthetic").shape == (10_000, 10)
    u = ma.load_dataset("uniform")
    assert u.shape == (10_000, 16) and u.min().min() >= 0 and u.max().max() <= 40_000
    g = ma.load_dataset("normal")
    assert g.shape == (6_000, 16) and abs(g.stack().mean() - 500) < 5 and abs(g.stack().std() - 150) < 5


def test_synthetic_has_ten_separated_clusters():
    df = ma.load_dataset("synthetic", n=1000, seed=0)
    centres = df.groupby(np.repeat(np.arange(10), 100)).mean()
    assert len(centres) == 10 and centres.std().mean() > 1.5


def test_list_and_errors():
    info = ma.list_datasets()
    assert {"tarragona", "census", "eia", "synthetic", "uniform", "normal"} <= set(info.name)
    assert set(info.columns) >= {"rows", "columns", "source"}
    assert int(info.set_index("name").loc["eia", "rows"]) == 4092
    with pytest.raises(ma.MicroaggError, match="unknown dataset"):
        ma.load_dataset("adult")
    with pytest.raises(ma.MicroaggError, match="does not take"):
        ma.load_dataset("census", n=10)
    with pytest.raises(ma.MicroaggError, match="positive integer"):
        ma.load_dataset("uniform", n=0)


@pytest.mark.parametrize("name,kwargs,qi", [
    ("census", {}, ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL"]),
    ("tarragona", {}, None),
    ("eia", {"variant": "abidi"}, ["MONTH", "RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE",
                                     "INDSALES"]),
    ("eia", {}, ["RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE", "INDSALES"]),
])
def test_abidi_role_split(name, kwargs, qi):
    df = ma.load_dataset(name, **kwargs)
    roles = ma.dataset_roles(name, **kwargs)
    assert df.attrs["roles"] == roles
    assert len(roles["qi"]) == {"census": 5, "tarragona": 5, "eia": 7 - len(roles["identifiers"])}[name]
    assert sorted(roles["qi"] + roles["confidential"] + roles["identifiers"]) == sorted(df.columns)
    assert roles["identifiers"] == (["UTILITYID"] if name == "eia" and not kwargs else [])
    if qi is not None:
        assert roles["qi"] == qi
    if name == "census":
        assert len(roles["confidential"]) == 8


def test_role_split_is_an_argument():
    df = ma.load_dataset("census", qi=["FEDTAX", "AGI"])
    assert df.attrs["roles"]["qi"] == ["AGI", "FEDTAX"] and len(df.attrs["roles"]["confidential"]) == 11
    assert df.shape == (1080, 13)
    assert ma.dataset_roles("eia", variant="abidi", qi="MONTH")["qi"] == ["MONTH"]
    named = ma.dataset_roles("eia", qi=["UTILITYID", "RESSALES"])  # named a QI, the identifier is one
    assert named["qi"] == ["UTILITYID", "RESSALES"] and named["identifiers"] == []
    for bad, fragment in ((["zz"], "not in the data"), ([], "some but not all"), (["AGI", "AGI"], "each once"),
                          (list(ma.load_dataset("census").columns), "some but not all")):
        with pytest.raises(ma.MicroaggError, match=fragment):
            ma.load_dataset("census", qi=bad)
    with pytest.raises(ma.MicroaggError, match="no role split"):
        ma.dataset_roles("synthetic", n=50)
    with pytest.raises(ma.MicroaggError, match="no role split"):
        ma.dataset_roles("eia", raw=True)


def test_abidi_worked_examples():
    sal = ma.load_dataset("abidi_salary")
    assert sal.shape == (13, 3) and sal.loc[13, "Salary"] == 3800 and sal.index[0] == 1
    assert ma.dataset_roles("abidi_salary") == {"qi": ["ZIP", "Age"], "confidential": ["Salary"], "identifiers": []}
    dis = ma.load_dataset("abidi_disease")
    assert dis.shape == (12, 3) and dis["Disease"].value_counts().to_dict() == {
        "Cancer": 5, "Viral Infection": 4, "Heart Disease": 3}
    info = ma.list_datasets().set_index("name")
    assert info.loc["abidi_salary", "kind"] == "example" and info.loc["abidi_disease", "rows"] == 12


def test_the_bundled_survey_is_its_generator_at_the_defaults():
    df = ma.load_dataset("survey")
    generated = ma.load_dataset("households")
    pd.testing.assert_frame_equal(df, generated, check_dtype=False)
    assert df.shape == (1000, 7) and df["income"].isna().sum() == 20 and df["age"].isna().sum() == 5
    assert set(df["education"]) == set(ma.datasets.SURVEY_EDUCATION) and df["region"].nunique() == 6
    assert df.drop(columns=["income", "age"]).notna().all().all() and (df["weight"] > 0).all()
    assert ma.identifiers(df) == {"hh_id": "declared by the data set"}
    assert len(ma.load_dataset("households", n=50, seed=1)) == 50
