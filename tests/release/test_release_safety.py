"""Publishing a release safely: the situations in which a release used to give respondents away, rerun."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import microagg as ma
from microagg.base.said import caught
from microagg.release import stages


def overall(rel, **params):
    table = rel.report(**params)
    return table[table["attribute"] == "all"].set_index("metric")["value"]


def test_eia_utilityid_is_neither_masked_nor_released():
    eia = ma.load_dataset("eia")
    rel = ma.microaggregate(eia, 3)
    assert "UTILITYID" not in rel.protected.columns and "UTILITYID" not in rel.masked
    assert overall(rel)["identifiers (not released)"] == "UTILITYID (declared by the data set)"
    assert ma.microaggregate(eia, 3, identifiers=[]).masked[0] == "UTILITYID"  # the explicit override


def test_an_id_column_of_user_data_is_withheld_even_with_the_median():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": rng.permutation(300) + 1, "income": rng.lognormal(10, 1, 300),
                       "age": rng.integers(18, 90, 300)})
    with pytest.warns(UserWarning, match="aggregation 'median' publishes members' own values where the mean"):
        rel = ma.microaggregate(df, 3, aggregation="median")
    assert rel.masked == ["income", "age"] and "id" not in rel.protected.columns
    assert rel.identifiers == {"id": "its name marks an identifier"}
    assert ma.microaggregate(df, 3, keep=["id"]).protected["id"].sort_values().tolist() == list(range(1, 301))


def test_an_index_of_identifiers_is_not_written():
    rng = np.random.default_rng(1)
    ssn = rng.choice(10**9, 60, replace=False)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)}, index=pd.Index(ssn, name="ssn"))
    rel = ma.microaggregate(df, 3)
    buffer = io.StringIO()
    rel.to_csv(buffer)
    written = pd.read_csv(io.StringIO(buffer.getvalue()))
    assert list(written.columns) == ["a", "b"] and not rel.protected.index.isin(ssn).any()
    assert overall(rel)["input index"] == "index 'ssn': not released (keep_index=True would release it)"
    with pytest.warns(UserWarning, match="keep_index=True releases the input's row labels: they link every "
                                         "released row to its record in the input, and give back the order"):
        kept = ma.microaggregate(df, 3, keep_index=True)
    buffer = io.StringIO()
    kept.to_csv(buffer)
    assert sorted(pd.read_csv(io.StringIO(buffer.getvalue()))["ssn"]) == sorted(ssn)
    assert overall(kept)["input index"] == ("index 'ssn': released (keep_index=True): links every released row to "
                                            "its input record")
    assert "gives the input's order back" in overall(kept)["row order"]
    assert overall(rel)["row order"] == "shuffled (seeded random permutation)"


def test_a_kept_text_index_and_its_name_are_spreadsheet_safe():
    rng = np.random.default_rng(5)
    labels = pd.Index([f'=HYPERLINK("http://x/{i}")' for i in range(30)], dtype="str", name="=cmd()")
    df = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)}, index=labels)
    written = ma.microaggregate(df, 3, keep_index=True).to_csv()
    back = pd.read_csv(io.StringIO(written), index_col=0)
    assert back.index.name == "'=cmd()" and back.index.str.startswith("'=HYPERLINK(").all()


def census_with_region(regions: int) -> pd.DataFrame:
    df = ma.load_dataset("census").copy()
    df["region"] = np.random.default_rng(2).integers(0, regions, len(df))
    return df


def test_a_kept_key_is_checked_and_strata_keep_the_release_k_anonymous():
    df = census_with_region(50)
    with pytest.warns(UserWarning, match=r"key columns \['region'\] break k-anonymity"):
        rel = ma.microaggregate(df, 3, keys=["region"])
    classes = rel.protected.groupby(list(rel.protected.columns)).size()
    v = overall(rel)
    assert v["k-anonymous"] == bool(classes.min() >= 3) is False
    assert v["smallest equivalence class"] == classes.min()
    assert v["records in classes < k"] == classes[classes < 3].sum()
    stratified = ma.microaggregate(df, 3, keys=["region"], strata=["region"])
    classes = stratified.protected.groupby(list(stratified.protected.columns)).size()
    assert classes.min() >= 3 and overall(stratified)["k-anonymous"]
    assert (stratified.in_input_order()["region"] == df["region"]).all()


def test_a_kept_column_not_declared_a_key_gets_its_coverage_line_and_a_warning():
    df = census_with_region(10)
    with pytest.warns(UserWarning, match="kept column 'PTOTVAL' is not in the k-anonymity check") as said:
        rel = ma.microaggregate(df, 3, columns=["AGI", "FEDTAX"], keep=["PTOTVAL"], keys=["region"],
                                strata=["region"])
    line = rel.report().query("metric.str.startswith('kept column not in the k-anonymity check')")
    assert line["attribute"].tolist() == ["PTOTVAL"]
    sizes = rel.protected.groupby(["region", "AGI", "FEDTAX", "PTOTVAL"])["AGI"].transform("size")
    assert line["value"].item() == (sizes == 1).sum() > 0
    assert f"{(sizes < 3).sum()} records in classes < k" in line["source"].item()
    assert f"finds {(sizes < 3).sum()} released rows in classes smaller than k ({(sizes == 1).sum()} of them" \
        in str(said[0].message)
    said_all = overall(rel)  # over all attributes too, where the command line's short report shows it
    assert said_all["k-anonymous"] is True and said_all["k-anonymous with the kept columns known"] is False
    covered = ma.microaggregate(df, 3, columns=["AGI", "FEDTAX"], keep=["PTOTVAL"], keys=["region", "PTOTVAL"],
                                strata=["region"])
    assert "k-anonymous with the kept columns known" not in overall(covered)


def test_a_stratum_smaller_than_k_is_refused_with_its_name_and_size():
    df = census_with_region(3)
    df.loc[df.index[:2], "region"] = 9
    with pytest.raises(ma.MicroaggError, match=r"stratum region=9 has 2 < k = 3 records \(1 of 4 strata"):
        ma.microaggregate(df, 3, keys=["region"], strata=["region"])


def test_strata_are_the_blocks_of_the_block_engine_and_given_labels_must_respect_them():
    df = census_with_region(4)
    rel = ma.microaggregate(df, 3, engine=ma.engines.Blocks(100), keys=["region"], strata=["region"])
    groups = pd.DataFrame({"g": rel.labels, "r": df["region"]}).drop_duplicates()
    assert groups["g"].is_unique and overall(rel)["k-anonymous"]
    with pytest.raises(ma.MicroaggError, match="different strata"):
        ma.microaggregate(df, 3, labels=ma.microaggregate(df, 3).labels, strata=["region"])


def test_rows_are_shuffled_by_a_seed_and_paired_inside_the_release():
    df = ma.load_dataset("tarragona")
    a, b = ma.microaggregate(df, 3, seed=11), ma.microaggregate(df, 3, seed=11)
    pd.testing.assert_frame_equal(a.protected, b.protected)
    assert a.params["shuffle_seed"] == 11 and not np.array_equal(a.order, np.arange(len(df)))
    plain = ma.microaggregate(df, 3, shuffle=False)
    assert not a.protected.equals(plain.protected)
    pd.testing.assert_frame_equal(a.in_input_order().reset_index(drop=True), plain.protected)
    assert overall(a)["row order"] == "shuffled (seeded random permutation)"
    assert overall(plain)["row order"].startswith("input order")
    fresh = ma.microaggregate(df, 3)
    pd.testing.assert_frame_equal(ma.microaggregate(df, 3, seed=fresh.params["shuffle_seed"]).protected,
                                  fresh.protected)
    with pytest.raises(ma.MicroaggError, match="rows of this release are shuffled"):
        ma.evaluate(df, a.protected)
    with pytest.raises(ma.MicroaggError, match="'shuffle' must be True or False"):
        ma.microaggregate(df, 3, shuffle="no")


def test_the_median_reports_and_warns_about_cells_published_exactly():
    df = ma.load_dataset("census")
    with pytest.warns(UserWarning, match=r"aggregation 'median' publishes .* \d+\.\d % of the masked cells") as said:
        rel = ma.microaggregate(df, 3, aggregation="median")
    released = rel.in_input_order()
    exact = (released.to_numpy() == df.to_numpy())
    means = df.groupby(rel.labels).transform("mean").to_numpy()  # the cells the mean would publish exactly too
    assert f"{100 * (exact & (df.to_numpy() != means)).mean():.1f} % of the masked cells" in str(said[0].message)
    v = overall(rel)
    assert v["exact cells"] == pytest.approx(100 * exact.mean()) and v["exact cells"] > 30
    assert v["exact records"] == pytest.approx(100 * exact.any(axis=1).mean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean = ma.microaggregate(df, 3)
    assert overall(mean)["exact cells"] < v["exact cells"]


def test_rld_links_within_the_key_classes():
    df = census_with_region(10)
    rel = ma.microaggregate(df, 3, keys=["region"], strata=["region"], columns=["AGI", "FEDTAX", "PTOTVAL"])
    rld = overall(rel, keys=["AGI"])["RLD"]
    by_class = [ma.metrics.linkage(rel.Z[rows], rel.Zp[rows], keys=[0]).sum()
                for rows in (np.flatnonzero(df["region"] == r) for r in range(10))]
    assert rld == pytest.approx(100 * sum(by_class) / len(df))
    assert rld > overall(ma.microaggregate(df, 3, columns=["AGI", "FEDTAX", "PTOTVAL"]), keys=["AGI"])["RLD"]


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(columns=["AGI", "FEDTAX"], keys=["AGI"]), r"both masked and listed in 'keys'"),
    (dict(keys=["zz"]), r"keys: columns \['zz'\] are not in the data"),
    (dict(columns=["AGI", "FEDTAX"], strata=["AGI"]), "both masked and strata"),
    (dict(identifiers=["AGI"], columns=["AGI", "FEDTAX"]), "listed in 'identifiers'"),
    (dict(identifiers=["zz"]), r"identifiers: columns \['zz'\]"),
    (dict(method="hmpfsom", confidential=["FICA"], seed=3), "pass that one in method_params"),
])
def test_bad_safety_options(kwargs, fragment):
    with pytest.raises(ma.MicroaggError, match=fragment):
        ma.microaggregate(ma.load_dataset("census"), 3, **kwargs)


@pytest.mark.parametrize("kind,options", [
    ("NOT_WHOLE_RECORDS", dict(method="individual_ranking")), ("KEYS_BREAK", dict(keys=["region"])),
    ("KEPT_BREAKS", dict(columns=["AGI", "FEDTAX"], keep=["PTOTVAL"])), ("EXACT_VALUES", dict(aggregation="median")),
    ("EXACT_VALUES", dict(aggregation="trim", trim=0.5))])
def test_each_warning_a_reader_recognizes_is_said_in_the_words_it_looks_for(kind, options):
    """The dashboard's caveats and the sweeps recognize these warnings of the release stage by their start."""
    _, notes = caught(ma.microaggregate, census_with_region(10), 3, **options)
    assert [note for note in notes if getattr(stages, kind).match(note)], notes


def test_a_robust_mean_warns_only_of_the_own_values_the_mean_would_not_publish():
    """At k = 3 the default trimmed mean trims nothing: its exact cells are the mean's (ties, symmetric groups),
    so it says nothing; trimming to the middle member publishes it, and is said."""
    census = ma.load_dataset("census")
    _, notes = caught(ma.microaggregate, census, 3, aggregation="trim")
    assert not [n for n in notes if stages.EXACT_VALUES.match(n)], notes
    _, notes = caught(ma.microaggregate, census, 3, aggregation="trim", trim=0.5)
    assert [n for n in notes if stages.EXACT_VALUES.match(n) and "'trim'" in n], notes
    _, notes = caught(ma.microaggregate, census, 3, aggregation="mean")  # the mean's exact cells are never said
    assert not [n for n in notes if stages.EXACT_VALUES.match(n)], notes
