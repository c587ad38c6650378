import numpy as np
import pytest

import microagg as ma
from microagg.base.rows import LOWER
from microagg.metrics import registry


def test_every_metric_is_described_as_data():
    names = [m.name for m in registry.metrics()]
    assert len(names) == len(set(names))
    for m in registry.metrics():
        assert m.title and m.summary and m.source and m.unit is not None
        assert m.family in registry.FAMILIES
        assert m.direction in ("lower is better", "higher is better", "")
        assert set(m.params) <= set(registry.PARAMS), m.name
    assert {m.name for m in registry.metrics("risk")} >= {"DLD", "DLD 1st or 2nd", "SDID", "ID", "RLD"}


def test_parameters_carry_defaults_ranges_and_sources():
    p = registry.PARAMS["p"]
    assert p.default == 5.0 and p.describe_range() == "(0, 100)" and "Mortazavi & Jalili 2017" in p.source
    assert registry.PARAMS["delta"].default == 0.1 and registry.PARAMS["w"].default == 0.001
    for param in registry.PARAMS.values():
        assert param.help


def test_metric_table_and_lookup():
    table = registry.metric_table()
    assert {"title", "family", "unit", "direction", "source", "summary", "params"} <= set(table.columns)
    assert registry.get_metric("SL").direction == "higher is better"
    with pytest.raises(ma.MicroaggError, match="unknown metric 'XYZ'"):
        registry.get_metric("XYZ")
    with pytest.raises(ma.MicroaggError, match="unknown metric family"):
        registry.metrics("speed")


def test_every_registered_metric_is_computed_by_evaluate():
    df = ma.load_dataset("tarragona")
    rel = ma.microaggregate(df, 3, shuffle=False)
    table = ma.evaluate(df, rel.protected, rel.labels, sampling_weights=np.linspace(1, 2, len(df)))
    numeric = [m for m in registry.metrics() if "categories" not in m.needs]  # no categorical column here
    for m in numeric:
        rows = table[table["metric"] == m.name]
        assert list(rows["attribute"]) == ["all", *(df.columns if m.per_attribute else [])], m.name
        assert set(m.needs) <= set(registry.NEEDS), m.name
    assert list(dict.fromkeys(table["metric"])) == [m.name for m in numeric]


def test_the_categorical_metrics_are_computed_when_a_release_has_categories():
    df = ma.load_dataset("survey").dropna().head(90)
    rel = ma.microaggregate(df, 3, columns=["age"], ordinal={"education": list(ma.datasets.SURVEY_EDUCATION)},
                            nominal=["region"], seed=0)
    table = rel.report()
    categorical = [m for m in registry.metrics() if "categories" in m.needs]
    assert {m.name for m in categorical} == {"changed categories", "ordinal shift"}
    for m in categorical:
        rows = table[table["metric"] == m.name]
        assert rows["attribute"].iloc[0] == "all" and set(rows["attribute"].iloc[1:]) <= {"region", "education"}


def test_a_metric_registers_only_from_a_listed_module():
    metric = registry.Metric("XYZ", "x", "utility", "%", LOWER, "s", "summary", "docs/metrics.md §4.1")
    with pytest.raises(ValueError, match="MODULES"):
        registry.register(metric)(lambda ctx: {"XYZ": 0.0})
    assert "XYZ" not in {m.name for m in registry.metrics()}
