"""Benchmark data sets (CASC: Tarragona, Census, EIA) and the papers' synthetic generators.

Every loader returns a pandas DataFrame of numeric attributes, ready for
``microaggregate``. See ``data/README.md`` for provenance and attribute choices.
The CASC sets and the worked examples of Abidi, Ben Yahia & Perera 2018 also carry a role split of their
columns into quasi-identifiers, confidential attributes and identifiers: ``roles(name)``, or
``df.attrs["roles"]`` of the loaded DataFrame. The identifiers (EIA's UTILITYID; none for the others, whose
record numbers are in the index) are never masked nor released by default (``microagg.privacy.safety.identifiers``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..base.errors import MicroaggError

EIA_ATTRIBUTES = [
    "UTILITYID", "RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE",
    "INDSALES", "OTHREVENUE", "OTHRSALES", "TOTREVENUE", "TOTSALES",
]
EIA_ABIDI = ["MONTH"] + EIA_ATTRIBUTES[1:]
EIA_IDENTIFIERS = ("UTILITYID", "UTILNAME")

# Number of quasi-identifiers in Abidi, Ben Yahia & Perera 2018, §4.3 (Figures 1-6 "|Qid| = 5 / 7", Tables 9-12).
# Which columns they
# are is not said: the first ones in the CASC column order are taken [decision]. For Census these are AFNLWGT,
# AGI, EMCONTRB, FEDTAX, PTOTVAL (five of the seven key variables of Oommen & Fayyoumi 2010); for EIA the month (or
# UTILITYID)
# and the residential, commercial and industrial revenue and sales.
ABIDI_QI_COUNT = {"tarragona": 5, "census": 5, "eia": 7}


def data_dir() -> Path:
    """Folder holding the bundled CSV files (inside an installed wheel, or the repository's ``data/``)."""
    packaged = resources.files("microagg") / "_data"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "data"


def _read(name: str) -> pd.DataFrame:
    path = data_dir() / f"{name}.csv"
    if not path.exists():
        raise MicroaggError(f"bundled data file {path.name} is missing from {path.parent}; reinstall microagg.")
    return pd.read_csv(path)


def with_roles(df: pd.DataFrame, qi, identifiers=()) -> pd.DataFrame:
    """``df`` with ``attrs["roles"] = {"qi": [...], "confidential": [...], "identifiers": [...]}``: the columns
    ``identifiers`` identify a respondent directly, the columns ``qi`` (in ``df``'s order, identifiers left out)
    are the quasi-identifiers, every other column is confidential."""
    names = [str(c) for c in df.columns]
    ids = [c for c in names if c in identifiers]
    qi = [qi] if isinstance(qi, str) else [str(c) for c in qi]
    missing = [c for c in qi if c not in names]
    if missing:
        raise MicroaggError(f"qi: columns {missing} are not in the data; available: {names}.")
    qi = [c for c in qi if c not in ids]
    if not qi or len(set(qi)) != len(qi) or len(qi) + len(ids) == len(names):
        raise MicroaggError(f"qi must list some but not all of the columns {names}, each once; got {qi}.")
    df.attrs["roles"] = {"qi": [c for c in names if c in qi],
                         "confidential": [c for c in names if c not in qi and c not in ids], "identifiers": ids}
    return df


def roles(name: str, **kwargs) -> dict[str, list[str]]:
    """The role split of a bundled data set: ``{"qi": [...], "confidential": [...], "identifiers": [...]}``
    (Abidi, Ben Yahia & Perera 2018, §4.3).

    ``kwargs`` are the loader's, e.g. ``roles("census", qi=["AGI", "FEDTAX"])`` or
    ``roles("eia", variant="abidi")``. Pass ``roles(name)["confidential"]`` to
    ``microaggregate(..., confidential=...)``.
    """
    split = load_dataset(name, **kwargs).attrs.get("roles")
    if split is None or "qi" not in split:
        raise MicroaggError(f"dataset {name!r} has no role split; name its confidential columns yourself.")
    return {role: list(cols) for role, cols in split.items()}


def tarragona(qi=None) -> pd.DataFrame:
    """Tarragona: 834 companies x 13 numeric attributes (CASC).

    Roles (``attrs["roles"]``): ``qi`` (default: the first 5 columns, Abidi, Ben Yahia & Perera 2018, §4.3), the rest
    confidential.
    """
    df = _read("tarragona")
    return with_roles(df, df.columns[:ABIDI_QI_COUNT["tarragona"]] if qi is None else qi)


def census(qi=None) -> pd.DataFrame:
    """Census: 1080 records x 13 numeric attributes (CASC, U.S. Census DES 2000).

    Roles (``attrs["roles"]``): ``qi`` (default: the first 5 columns, AFNLWGT, AGI, EMCONTRB, FEDTAX, PTOTVAL;
    Abidi, Ben Yahia & Perera 2018, Tables 9-10 use 5 QIs and 8 confidential attributes without naming them), the
    rest confidential.
    """
    df = _read("census")
    return with_roles(df, df.columns[:ABIDI_QI_COUNT["census"]] if qi is None else qi)


def eia(raw: bool = False, variant: str = "casc", qi=None) -> pd.DataFrame:
    """EIA: 4092 U.S. electric utilities, 1996 (CASC).

    ``variant="casc"`` (default): UTILITYID + the ten *REVENUE/*SALES columns, the
    11 attributes that reproduce the published MDAV information loss (Chettri, Paul & Dutta).
    ``variant="abidi"``: Abidi, Ben Yahia & Perera 2018, §4.1 drops the identifiers UTILITYID and UTILNAME,
    the constant YEAR and the text STATE, keeping MONTH + the ten columns.
    ``raw=True`` returns all 15 columns, text included, without a qi/confidential split; UTILITYID and
    UTILNAME are declared identifiers (``attrs["roles"]["identifiers"]``).
    Roles (``attrs["roles"]``): ``qi`` (default: the first 7 columns, Abidi, Ben Yahia & Perera 2018, Tables 11-12,
    less the identifier UTILITYID), the rest (OTHREVENUE, OTHRSALES, TOTREVENUE, TOTSALES) confidential;
    UTILITYID is an identifier, neither masked nor released by default.
    """
    df = _read("eia")
    if raw:
        df.attrs["roles"] = {"identifiers": list(EIA_IDENTIFIERS)}
        return df
    if variant not in ("casc", "abidi"):
        raise MicroaggError(f"unknown EIA variant {variant!r}; use 'casc' (default) or 'abidi'.")
    df = df[EIA_ATTRIBUTES if variant == "casc" else EIA_ABIDI].copy()
    if qi is None:
        return with_roles(df, df.columns[:ABIDI_QI_COUNT["eia"]], EIA_IDENTIFIERS)
    named = [qi] if isinstance(qi, str) else [str(c) for c in qi]  # an identifier named a QI is one
    return with_roles(df, qi, [c for c in EIA_IDENTIFIERS if c not in named])


def abidi_salary() -> pd.DataFrame:
    """Abidi, Ben Yahia & Perera 2018, Table 4: a sub-microdata of 13 records, quasi-identifiers ZIP and Age,
    confidential Salary.

    Its salaries fall into three classes (Tables 5-7: 500-600, 1500-1800, 2900-3800); Table 8 shows a
    partition into 3 groups holding every class (``tests/partition/test_hybrid.py`` compares ours).
    """
    df = pd.DataFrame({
        "ZIP": [1011, 1007, 1012, 1009, 1010, 1011, 1013, 1010, 1008, 1010, 1009, 1011, 1008],
        "Age": [22, 22, 23, 25, 28, 29, 31, 32, 32, 29, 26, 27, 33],
        "Salary": [500, 550, 600, 1600, 1500, 1800, 2900, 3200, 3600, 1650, 1550, 1700, 3800],
    }, index=pd.RangeIndex(1, 14, name="record"))
    return with_roles(df, ["ZIP", "Age"])


def abidi_disease() -> pd.DataFrame:
    """Abidi, Ben Yahia & Perera 2018, Table 1: 12 records, quasi-identifiers ZIP and Age, confidential Disease (text).

    Table 2 groups them into 3 groups of 4 by their quasi-identifiers only; the third group is all
    "Cancer", so knowing a person's ZIP and age reveals the disease (attribute disclosure). Table 3 is a
    partition of the same records in which every group holds every disease.
    """
    df = pd.DataFrame({
        "ZIP": [2025, 2022, 2022, 2020, 1012, 1012, 1013, 1013, 1023, 1022, 1021, 1021],
        "Age": [28, 29, 25, 24, 50, 55, 47, 49, 31, 34, 35, 37],
        "Disease": ["Heart Disease", "Heart Disease", "Viral Infection", "Viral Infection", "Cancer",
                    "Heart Disease", "Viral Infection", "Viral Infection", "Cancer", "Cancer", "Cancer", "Cancer"],
    }, index=pd.RangeIndex(1, 13, name="record"))
    return with_roles(df, ["ZIP", "Age"])


def synthetic(n: int = 10_000, d: int = 10, clusters: int = 10, seed: int = 0) -> pd.DataFrame:
    """Mortazavi & Jalili 2017, §5's Synthetic set: ``clusters`` normal clusters around random centres.

    The paper gives only "10 clusters of normally distributed data points around
    random cluster centers", 10000 x 10. Choices (documented, not from the paper):
    centres uniform in [0, 10]^d, unit sd in every attribute, cluster sizes as equal
    as possible, records in cluster order.
    """
    _check_size(n, d)
    if not isinstance(clusters, (int, np.integer)) or not 1 <= clusters <= n:
        raise MicroaggError(f"clusters must be an integer in [1, n]; got {clusters!r}.")
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, 10.0, size=(clusters, d))
    member = np.repeat(np.arange(clusters), np.diff(np.linspace(0, n, clusters + 1).astype(int)))
    X = centres[member] + rng.standard_normal((n, d))
    return pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(d)])


def uniform(n: int = 10_000, d: int = 16, low: float = 0.0, high: float = 40_000.0, seed: int = 0) -> pd.DataFrame:
    """Oommen & Fayyoumi 2010, §IV-A's uniform simulated set: n x d values from U(low, high).

    The paper used 10000 x 16 from U(0, 40000) (and selected 4800 distinct records
    for Table II; pass ``n=4800`` for that size).
    """
    _check_size(n, d)
    if not high > low:
        raise MicroaggError(f"high must exceed low; got low={low}, high={high}.")
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.uniform(low, high, size=(n, d)), columns=[f"u{j + 1}" for j in range(d)])


def normal(n: int = 6_000, d: int = 16, mean: float = 500.0, sd: float = 150.0, seed: int = 0) -> pd.DataFrame:
    """Oommen & Fayyoumi 2010, §IV-A's normal simulated set: n x d values from N(mean, sd^2).

    The paper used 6000 x 16 from N(500, 150^2) (1560 records selected for Table II).
    """
    _check_size(n, d)
    if not sd > 0:
        raise MicroaggError(f"sd must be positive; got {sd}.")
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(mean, sd, size=(n, d)), columns=[f"g{j + 1}" for j in range(d)])


SURVEY_REGIONS = ("North", "South", "East", "West", "Centre", "Islands")
SURVEY_EDUCATION = ("none", "primary", "lower secondary", "upper secondary", "tertiary")  # lowest to highest


def households(n: int = 1000, seed: int = 2026) -> pd.DataFrame:
    """A generated household survey: ``n`` households with an identifier, region (nominal), the head's age and
    education (ordinal, ``SURVEY_EDUCATION`` from lowest to highest), household size, yearly income and a
    sampling weight; about 2 % of the incomes and 0.5 % of the ages are missing (item nonresponse).

    Invented for the examples (data/README.md): regions are sampled with unequal shares and unequal sampling rates
    (weights about 90-490, inverse to the rate, perturbed by 10 % nonresponse adjustment), income is log-normal and
    rises with education and household size. ``load_dataset("survey")`` is this generator's output at its
    defaults, stored as ``data/survey.csv``.
    """
    _check_size(n, 1)
    rng = np.random.default_rng(seed)
    region = rng.choice(len(SURVEY_REGIONS), size=n, p=[0.24, 0.22, 0.18, 0.16, 0.14, 0.06])
    age = np.clip(np.round(rng.normal(50, 16, n)), 18, 95).astype(float)
    young = age < 35
    education = np.clip(np.round(rng.normal(2.3 + 0.4 * young - 0.5 * (age > 70), 1.0, n)), 0, 4).astype(int)
    size = np.clip(rng.poisson(np.where(age < 65, 2.0, 0.7)) + 1, 1, 8)
    log_income = 9.6 + 0.28 * education + 0.12 * np.log(size) + 0.05 * (region % 3) + rng.normal(0, 0.45, n)
    income = np.round(np.exp(log_income), -1)
    rate = np.array([1.0, 1.1, 0.9, 1.2, 1.5, 4.0])[region] / 400.0
    weight = np.round(1.0 / rate * rng.uniform(0.9, 1.1, n), 2)
    income[rng.choice(n, size=max(1, n // 50), replace=False)] = np.nan
    age[rng.choice(n, size=max(1, n // 200), replace=False)] = np.nan
    return pd.DataFrame({"hh_id": np.arange(1, n + 1), "region": np.asarray(SURVEY_REGIONS)[region], "age": age,
                         "education": np.asarray(SURVEY_EDUCATION)[education], "household_size": size,
                         "income": income, "weight": weight})


def survey() -> pd.DataFrame:
    """The bundled household survey (``data/survey.csv``, ``households()`` at its defaults): 1000 households, text
    categories, a sampling weight and a few missing cells. Roles (``attrs["roles"]``): identifier ``hh_id``;
    quasi-identifiers region, age, education, household_size; confidential income; ``weight`` is neither (a
    design variable). Education's order is ``SURVEY_EDUCATION``: pass ``ordinal={"education": SURVEY_EDUCATION}``."""
    df = _read("survey")
    df.attrs["roles"] = {"qi": ["region", "age", "education", "household_size"], "confidential": ["income"],
                         "identifiers": ["hh_id"], "weights": ["weight"]}
    return df


def _check_size(n, d) -> None:
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise MicroaggError(f"{name} must be a positive integer; got {v!r}.")


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    kind: str
    loader: Callable[..., pd.DataFrame]
    source: str
    description: str


DATASETS: dict[str, DatasetInfo] = {
    info.name: info
    for info in [
        DatasetInfo("tarragona", "benchmark", tarragona, "CASC (Brand et al. 2002), via sdcMicro",
                    "834 companies of the Tarragona area, 13 financial attributes"),
        DatasetInfo("census", "benchmark", census, "CASC (Brand et al. 2002), via sdcMicro",
                    "1080 records, 13 attributes from the U.S. Census DES (2000)"),
        DatasetInfo("eia", "benchmark", eia, "CASC (Brand et al. 2002), via sdcMicro",
                    "4092 U.S. electric utilities (1996): UTILITYID + 10 revenue/sales attributes"),
        DatasetInfo("synthetic", "generator", synthetic, "Mortazavi & Jalili 2017, §5",
                    "10 normal clusters around random centres, 10000 x 10"),
        DatasetInfo("uniform", "generator", uniform, "Oommen & Fayyoumi 2010, §IV-A",
                    "independent U(0, 40000) attributes, 10000 x 16"),
        DatasetInfo("normal", "generator", normal, "Oommen & Fayyoumi 2010, §IV-A",
                    "independent N(500, 150^2) attributes, 6000 x 16"),
        DatasetInfo("survey", "example", survey, "generated (microagg.data.datasets.households, seed 2026)",
                    "1000 households: region (nominal), education (ordinal), age, size, income, sampling weight, "
                    "a few missing cells"),
        DatasetInfo("households", "generator", households, "generated for the examples (data/README.md)",
                    "the survey's generator: households of any number n, seeded"),
        DatasetInfo("abidi_salary", "example", abidi_salary, "Abidi, Ben Yahia & Perera 2018, Table 4",
                    "13 records: ZIP and Age (quasi-identifiers), Salary (confidential)"),
        DatasetInfo("abidi_disease", "example", abidi_disease, "Abidi, Ben Yahia & Perera 2018, Table 1",
                    "12 records: ZIP and Age (quasi-identifiers), Disease (confidential, text)"),
    ]
}


def load_dataset(name: str, **kwargs) -> pd.DataFrame:
    """Load a bundled benchmark or generate a synthetic set by name.

    ``load_dataset("eia", variant="abidi")``, ``load_dataset("synthetic", n=2000, seed=1)``.
    """
    key = str(name).lower()
    if key not in DATASETS:
        raise MicroaggError(f"unknown dataset {name!r}; choose one of {sorted(DATASETS)}.")
    loader = DATASETS[key].loader
    accepted = list(inspect.signature(loader).parameters)
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise MicroaggError(f"dataset {key!r} does not take {unknown}; it accepts {accepted or 'no arguments'}.")
    return loader(**kwargs)


def list_datasets() -> pd.DataFrame:
    """One row per data set: name, kind, rows, columns, source, description (generators at their defaults)."""
    rows = []
    for info in DATASETS.values():
        df = info.loader()
        rows.append({"name": info.name, "kind": info.kind, "rows": len(df), "columns": df.shape[1],
                     "source": info.source, "description": info.description})
    return pd.DataFrame(rows)
