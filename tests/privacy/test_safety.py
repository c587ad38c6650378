"""What around the masked columns could give a respondent away (microagg.privacy.safety), and properties of safe
releases:
every registered method x aggregation x engine on random data with an id column, keys and strata."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.base.registry import DIFFERENTIAL_PRIVACY, get_method, methods
from microagg.privacy.safety import (
    class_ids,
    identifiers,
    key_codes,
    meaningful_index,
    permutation,
    sampling_weight_columns,
)


@pytest.mark.parametrize("name", ["id", "ID", "Id", "user_id", "user id", "USER_ID", "userId", "UserID", "id_number",
                                  "key", "SSN", "uuid", "caseid", "SEQN", "serial", "patient_number", "account_num",
                                  "case_nr", "phone_no", "PhoneNumber", "social_security_number", "Unnamed: 0",
                                  "IdPersona", "dni", "NIF", "rowid", "idx", "level_0", "hhid", "mrn", "iban",
                                  "nhs_number", "personnummer", "identificador", "respondent", "idpersona", "IDHOGAR",
                                  "personid", "taxid", "persnr", "lfd_nr", "folio", "noindiv", "cedula"])
def test_a_name_marks_an_identifier(name):
    df = pd.DataFrame({name: [1.0, 1.0, 2.0], "x": [0.5, 0.25, 0.5]})
    assert identifiers(df) == {name: "its name marks an identifier"}


@pytest.mark.parametrize("name", ["paid", "valid", "acid", "PAID", "grid", "keyboard", "identity", "number",
                                  "number_of_children", "serial_correlation", "numeracy", "rooms_number",
                                  "children_num", "wave_nr", "visit_number", "nr_children", "casino", "price_index",
                                  "indexed", "emailed", "Idaho", "IDENTITY", "respondent_age", "mobile_phone_use",
                                  "nifty", "telescope", "Idade", "idioma", "ideology", "index", "phone", "email"])
def test_names_that_merely_contain_id_are_not_identifiers(name):
    assert identifiers(pd.DataFrame({name: [1.0, 1.0, 2.0]})) == {}


@pytest.mark.parametrize("name", ["phone", "Telefono", "mobile", "passport", "email", "e_mail", "email_address"])
def test_a_contact_name_marks_an_identifier_only_on_distinct_values(name):
    """A phone number or an email is an identifier; a survey's indicator of owning a phone or a passport is not."""
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame({name: rng.choice(np.arange(10 ** 8, 10 ** 9), 200, replace=False),
                            "x": rng.normal(size=200)})
    owns = pd.DataFrame({name: rng.integers(0, 2, 200), "x": rng.normal(size=200)})
    assert identifiers(numbers) == {name: "its name marks a contact and its values are distinct"}
    assert identifiers(owns) == {}


def test_record_numbers_are_identifiers_but_distinct_measurements_are_not():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"row": rng.permutation(50) + 1, "seq": np.arange(50) * 7 + 3,
                       "income": rng.permutation(np.arange(50) * 977 + 20_000), "x": rng.normal(size=50),
                       "age": rng.integers(18, 90, 50)})
    assert set(identifiers(df)) == {"row", "seq"}  # 1..50 in any order; increasing down the file
    census = pd.read_csv(ma.datasets.data_dir() / "census.csv")  # distinct whole-number incomes, not identifiers
    assert identifiers(census) == {}


STRAY = ["n/a", "-", "?", "missing", "unknown", " "]  # text a file may hold where a record number is missing


@st.composite
def record_numbers(draw):
    """A column of record numbers with gaps: 1..n-like numbers (any start, any step down the file, or any order
    when the step is 1), some cells missing (any pattern in file order; fewer than half when shuffled; at least 3
    values left), stored as numbers with NaN, as text with a stray text value in the gaps (fewer than half), or as
    text codes."""
    n = draw(st.integers(3, 120))
    start, step = draw(st.integers(0, 10**6)), draw(st.sampled_from([1, 1, 2, 7, 100]))
    shuffled = step == 1 and draw(st.booleans())
    values = start + step * np.arange(n)
    values = values[::-1] if draw(st.booleans()) else values
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.permutation(values) if shuffled else values
    form = draw(st.sampled_from(["numbers", "text", "codes"]))
    most = n - 3 if form != "text" and not shuffled else min(n - 3, (n - 1) // 2)  # 3 values observed at least
    gaps = rng.choice(n, size=draw(st.integers(0, most)), replace=False)
    if form == "numbers":
        col = pd.Series(values, dtype="float64")
        col.iloc[gaps] = np.nan
    else:
        cells = [f"R-{v:07d}" for v in values] if form == "codes" else [str(v) for v in values]
        col = pd.Series(cells, dtype=object)
        col.iloc[gaps] = draw(st.sampled_from(STRAY)) if form == "text" else None
    return pd.DataFrame({"rec": col, "x": rng.normal(size=n)})


@settings(max_examples=300, deadline=None)
@given(record_numbers())
def test_record_numbers_with_any_pattern_of_gaps_are_identifiers(df):
    assert "rec" in identifiers(df), df["rec"].tolist()


@settings(max_examples=15, deadline=None)
@given(record_numbers(), st.integers(2, 3))
def test_record_numbers_with_gaps_are_withheld_from_the_release(df, k):
    rel = ma.microaggregate(df, k, seed=0) if len(df) >= k else None
    if rel is not None:
        assert "rec" not in rel.protected.columns and "rec" in rel.identifiers and rel.masked == ["x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 10**9), min_size=3, max_size=200, unique=True), st.booleans())
def test_a_sorted_measurement_is_not_taken_for_an_identifier(values, descending):
    v = np.sort(values)[::-1] if descending else np.sort(values)
    steps = np.diff(v)
    assume(np.ptp(v) >= 2 * len(v) and len(set(steps)) > 1)  # sparse, uneven steps: a measurement
    assert identifiers(pd.DataFrame({"income": v})) == {}


@pytest.mark.parametrize("name", ["tarragona", "census", "eia", "survey"])
def test_bundled_measurements_sorted_ascending_are_not_identifiers(name):
    df = ma.load_dataset(name)
    for c in df.select_dtypes("number").columns:
        if c in identifiers(df):
            continue
        sorted_ = pd.DataFrame({c: df[c].sort_values().to_numpy()})  # no declared roles: the values rules decide
        assert identifiers(sorted_) == {}, c


def test_a_data_set_declares_its_identifiers_and_the_rules_judge_the_columns_it_does_not_declare():
    eia = ma.load_dataset("eia")
    assert identifiers(eia) == {"UTILITYID": "declared by the data set"}
    added = eia.assign(ssn=np.random.default_rng(0).permutation(len(eia)) + 10 ** 8,  # keeps eia's attrs
                       ref=np.random.default_rng(1).permutation(len(eia)) + 70_001, wgt=2.5)
    assert added.attrs == eia.attrs
    found = identifiers(added)
    assert set(found) == {"UTILITYID", "ssn", "ref"} and found["ssn"] == "its name marks an identifier"
    assert "record numbers" in found["ref"]
    assert sampling_weight_columns(added) == ["wgt"]
    released = ma.microaggregate(added, 3, aggregation="median", seed=0).protected
    assert not {"UTILITYID", "ssn", "ref", "wgt"} & set(released.columns)
    assert identifiers(ma.load_dataset("eia", raw=True)) == {"UTILITYID": "declared by the data set",
                                                             "UTILNAME": "declared by the data set"}
    assert identifiers(ma.load_dataset("abidi_salary")) == {}  # its record numbers are the index
    assert ma.identifiers is identifiers


def test_meaningful_index():
    assert meaningful_index(pd.DataFrame({"a": [1, 2]})) is None
    assert meaningful_index(pd.DataFrame({"a": [1, 2]}, index=pd.Index([7, 9], name="ssn"))) == "index 'ssn'"
    assert "int64" in meaningful_index(pd.DataFrame({"a": [1, 2]}, index=[5, 6]))
    assert meaningful_index(ma.load_dataset("abidi_salary")) == "index 'record'"


def test_key_codes_and_classes_treat_missing_values_as_one_value():
    df = pd.DataFrame({"r": ["a", None, "a", None], "s": [1.0, 1.0, 1.0, 2.0]})
    codes = key_codes(df, ["r", "s"])
    assert codes[0].tolist() == codes[2].tolist() and codes[1].tolist() != codes[3].tolist()
    ids = class_ids(codes)
    assert ids[0] == ids[2] and len(set(ids)) == 3
    assert class_ids(key_codes(df, [])).tolist() == [0, 0, 0, 0]


def test_permutation_is_seeded_and_a_fresh_seed_is_recorded():
    a, s = permutation(100, 7)
    assert s == 7 and a.tolist() == permutation(100, 7)[0].tolist() and sorted(a) == list(range(100))
    b, fresh = permutation(100, None)
    assert permutation(100, fresh)[0].tolist() == b.tolist()
    with pytest.raises(ma.MicroaggError, match="seed must be a non-negative integer"):
        permutation(5, -1)


# --------------------------------------------------------------------------- properties of releases

# every release here is stratified: a method whose guarantee is relative to the whole table refuses strata
# (tests/partition/test_tcloseness.py), and so does a differentially private aggregation (tests/aggregate/test_dp.py)
COMBOS = [(m.name, a.name, e) for m in methods("partition") if not m.caps.whole_table for a in methods("aggregate")
          if a.caps.privacy != DIFFERENTIAL_PRIVACY for e in ("memory", "blocks")]


@st.composite
def frames(draw):
    """(data, k): an identifier column, a key column 'region' whose strata hold >= k records, 1-3 numeric columns
    (halves when ``ties``, so groups share values and medians are exact) and a confidential column."""
    k = draw(st.integers(2, 4))
    sizes = draw(st.lists(st.integers(k, 3 * k), min_size=1, max_size=3))
    d = draw(st.integers(1, 3))
    ties = draw(st.booleans())
    id_name = draw(st.sampled_from(["id", "user_id", "rec"]))  # "rec": detected by its values
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = sum(sizes)
    X = rng.normal(size=(n, d)) * 3
    df = pd.DataFrame(np.round(X) + 0.5 if ties else X, columns=[f"x{j}" for j in range(d)])
    df.insert(0, id_name, rng.permutation(n) + 1000)
    df["region"] = np.repeat(["north", "south", "east"][:len(sizes)], sizes)[rng.permutation(n)]
    df["conf"] = rng.normal(size=n)
    return df, k


def release(df, k, method, aggregation, engine, **kw):
    engine = ma.engines.Blocks(2 * k) if engine == "blocks" else engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            own = {"method_params": {"seed": 0}} if method == "hmpfsom" else {}  # seed= is the shuffle's
            return ma.microaggregate(df, k, method=method, aggregation=aggregation, engine=engine,
                                     confidential=["conf"], **own, **kw)
        except ma.MicroaggError as exc:
            if "P3M needs at least two groups" in str(exc):  # fewer than 2k records: P3M's documented refusal
                reject()
            raise


@pytest.mark.parametrize("method,aggregation,engine", COMBOS)
@settings(max_examples=2, deadline=None)
@given(frames(), st.integers(0, 2**31))
def test_safe_release_properties(method, aggregation, engine, data, seed):
    df, k = data
    part = get_method("partition", method)
    rel = release(df, k, method, aggregation, engine, keys=["region"], strata=["region"], seed=seed)
    ident = df.columns[0]
    masked = [c for c in df.columns if c.startswith("x")]
    pub = rel.protected
    # no identifier (column or index) released unless chosen
    assert ident not in pub.columns and pub.index.equals(pd.RangeIndex(len(df)))
    assert ident in rel.identifiers and ident in rel.report().query("metric == 'identifiers (not released)'")[
        "value"].item()
    assert rel.masked == masked and set(pub.columns) == set(masked) | {"region", "conf"}
    # every combination of keys + masked values occurs >= k times (strata cover the keys); the report is true
    smallest = pub.groupby(["region", *masked]).size().min()
    assert rel.anonymity["k_anonymous"] == (smallest >= k) and rel.anonymity["min_class"] == smallest
    if part.record_level:
        assert smallest >= k
    # the shuffle is deterministic given the seed, and the paired view is the unshuffled release
    again = release(df, k, method, aggregation, engine, keys=["region"], strata=["region"], seed=seed)
    pd.testing.assert_frame_equal(again.protected, pub)
    in_order = release(df, k, method, aggregation, engine, keys=["region"], strata=["region"], shuffle=False)
    pd.testing.assert_frame_equal(rel.in_input_order().reset_index(drop=True), in_order.protected)
    assert sorted(rel.order) == list(range(len(df)))
    # cells published exactly: a brute-force count over the published file, paired by the release's order
    exact = sum(df[c].iloc[rel.order[i]] == pub[c].iloc[i] for i in range(len(df)) for c in masked)
    records = sum(any(df[c].iloc[rel.order[i]] == pub[c].iloc[i] for c in masked) for i in range(len(df)))
    table = rel.report()
    overall = table[table["attribute"] == "all"].set_index("metric")["value"]
    assert overall["exact cells"] == pytest.approx(100 * exact / (len(df) * len(masked)))
    assert overall["exact records"] == pytest.approx(100 * records / len(df))


@settings(max_examples=10, deadline=None)
@given(frames())
def test_an_identifier_is_released_only_when_chosen(data):
    df, k = data
    ident = df.columns[0]
    kept = ma.microaggregate(df, k, keep=[ident], keys=["region"], strata=["region"])
    assert sorted(kept.protected[ident]) == sorted(df[ident]) and ident not in kept.identifiers
    masked = ma.microaggregate(df, k, columns=[ident, "x0"])
    assert masked.masked == [ident, "x0"] and masked.identifiers == {}
    none = ma.microaggregate(df, k, identifiers=[])
    assert ident in none.masked  # identifiers=[]: nothing withheld, the id is numeric and masked


@pytest.mark.parametrize("name", ["weight", "weights", "Weight", "wgt", "wt", "pw", "pweight", "PWGTP", "pwgtp12",
                                  "final_weight", "finalwgt", "FINALWGT", "AFNLWGT", "hh_weight", "survey weight",
                                  "sampling_weight", "finalWeight", "dweight", "pspwght", "perwt", "hhwt", "wt_final"])
def test_a_column_named_like_a_sampling_weight_is_proposed(name):
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], name: [350.5, 120.0, 87.25]})
    assert sampling_weight_columns(df) == [name]


@pytest.mark.parametrize("name", ["weight_kg", "weightKg", "body_weight", "birthweight", "birth_weight", "weight_lbs",
                                  "wt_kg", "weight_gain", "weighted_score", "w", "newt", "pwr", "pwd", "height"])
def test_a_physical_weight_or_another_word_is_not_a_sampling_weight(name):
    assert sampling_weight_columns(pd.DataFrame({name: [70.5, 82.0, 64.25]})) == []


@pytest.mark.parametrize("values", [[1.0, 0.0, 2.0], [1.0, -2.0, 3.0], [1.0, np.nan, 2.0], ["a", "b", "c"],
                                    [True, False, True]])
def test_a_weight_name_on_values_that_cannot_be_weights_is_not_proposed(values):
    assert sampling_weight_columns(pd.DataFrame({"weight": values})) == []


def test_a_data_set_declares_its_sampling_weights():
    assert sampling_weight_columns(ma.load_dataset("survey")) == ["weight"]
    census = ma.load_dataset("census")  # AFNLWGT is a weight of the CPS, but the benchmark masks it as a QI
    assert sampling_weight_columns(census) == [] and sampling_weight_columns(
        pd.DataFrame(census.to_numpy(), columns=census.columns)) == ["AFNLWGT"]
