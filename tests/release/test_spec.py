"""The release specification (microagg.release.spec): every option validated once, read and written alike by every
door (keywords, command line, recipe), refused by an engine from its one declaration, and the repeated checks of a
release run once."""

import argparse
import collections
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.data.preprocess import Standardizer
from microagg.release.engines import Blocks, Dask
from microagg.release.spec import OPTION, OPTIONS, ReleaseSpec, add_arguments, cli_options

NAMES = st.lists(st.sampled_from(["a", "b c", "d,e", 'f"g', "h=i", "j<k"]), unique=True, max_size=3)
VALUES = {
    "columns": NAMES.filter(bool),  # (columns=[] is refused: nothing to mask)
    "keep": NAMES, "confidential": NAMES, "identifiers": NAMES, "keys": NAMES, "strata": NAMES,
    "nominal": NAMES, "sampling_weights": st.sampled_from([None, "w", "x, y"]),
    "ordinal": st.dictionaries(st.sampled_from(["o", "p q", "r,s"]),
                               st.none() | st.lists(st.sampled_from(["lo", "mid < x", '"q"', " sp"]), unique=True,
                                                    min_size=1), max_size=2),
    "strata_scaling": st.sampled_from(OPTION["strata_scaling"].choices),
    "missing": st.sampled_from(OPTION["missing"].choices),
    "missing_categories": st.sampled_from(OPTION["missing_categories"].choices),
    "refine": st.sampled_from(OPTION["refine"].choices), "renormalize": st.booleans(), "shuffle": st.booleans(),
    "seed": st.none() | st.integers(0, 2**40), "keep_index": st.booleans(),
}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_every_option_has_a_strategy_here():
    assert set(VALUES) == {o.name for o in OPTIONS if o.kind != "engine"}


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({}, optional=VALUES))
def test_an_option_reads_back_from_the_command_line_it_writes(options):
    """Whatever names an option holds (commas, quotes, '<', '='), the command line the recipe writes for it reads
    back, through the flags generated from OPTIONS, as the same specification."""
    if options.get("strata_scaling") == "stratum" and not options.get("strata"):
        options["strata"] = ["s"]  # stratum scaling needs strata
    if options.get("shuffle") is False:
        options.pop("seed", None)  # the shuffle's seed needs the shuffle
    spec = ReleaseSpec.of(3, "mdav", "mean", **options)
    argv, arrays = spec.argv()
    assert arrays == []
    again = ReleaseSpec.of(3, "mdav", "mean", **{**cli_options(parse(argv)), **_params(argv)})
    assert again == spec


def _params(argv: list[str]) -> dict:
    pairs = [argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "--param"]
    return {n: v for n, v in pairs if n != "variant"} | {"variant": dict(pairs).get("variant", "generic")}


def test_the_python_call_makes_the_same_specification():
    spec = ReleaseSpec.of(4, "mdav", "median", columns=["a", "b"], keys=["r"], strata=["r"],
                          strata_scaling="stratum", ordinal={"e": ["lo", "hi"]}, seed=11, variant="classic")
    code = spec.python_call("df")
    call = code[code.index("ma.microaggregate(") + len("ma.microaggregate("):code.index("\n)\n")]
    seen = {}
    exec(f"f(  {call})", {"f": lambda df, **kw: seen.update(kw), "df": None})  # noqa: S102 - our own snippet
    assert ReleaseSpec.of(**seen) == spec


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.kind != "engine" and o.name not in Dask.accepts],
                         ids=lambda o: o.name)
def test_an_engine_refuses_what_it_does_not_declare_naming_it(option, tmp_path):
    value = {"bool": lambda: not option.default, "names": lambda: ["x"], "name": lambda: "x",
             "ordinal": lambda: {"x": None}, "choice": lambda: next(c for c in option.choices if c != option.default)}
    value = value[option.kind]()
    extra = {"strata": ["s"]} if option.name == "strata_scaling" else {}
    with pytest.raises(ma.MicroaggError, match=f"the Dask engine does not take '{option.name}'"):
        ReleaseSpec.of(3, engine=Dask(out=tmp_path / "out"), **{option.name: value}, **extra)


def test_options_and_parameters_are_validated_before_any_data_is_read(tmp_path):
    missing = tmp_path / "nowhere.csv"  # never read: the specification fails first
    for bad, fragment in [({"missing": "maybe"}, "missing must be one of"), ({"keys": 3}, "'keys' must be a column"),
                          ({"seed": -1}, "seed must be a non-negative"), ({"variant": "odd"}, "variant"),
                          ({"strata_scaling": "stratum"}, "needs strata"),
                          ({"block_size": 9}, "settings of an engine")]:
        with pytest.raises(ma.MicroaggError, match=fragment):
            ma.microaggregate(missing, 3, **bad)


def _counting(monkeypatch) -> collections.Counter:
    """Count the calls of check_k, check_block_size and Standardizer.fit wherever the package holds them."""
    from microagg.base import checks
    from microagg.partition import blocks

    counts = collections.Counter()
    for name, f in (("check_k", checks.check_k), ("check_block_size", blocks.check_block_size)):
        def counted(*a, _f=f, _n=name, **kw):
            counts[_n] += 1
            return _f(*a, **kw)
        for module in [m for n, m in sys.modules.items() if n.startswith("microagg")]:
            if getattr(module, name, None) is f:
                monkeypatch.setattr(module, name, counted)
    fit = Standardizer.fit.__func__
    monkeypatch.setattr(Standardizer, "fit", classmethod(lambda cls, X: (counts.update(["fit"]), fit(cls, X))[1]))
    return counts


@pytest.mark.parametrize("engine", ["memory", Blocks(block_size=300)])
def test_k_the_block_size_and_the_standardization_are_checked_once_per_release(engine, monkeypatch):
    counts = _counting(monkeypatch)
    ma.microaggregate(ma.load_dataset("census"), 5, engine=engine, seed=1)
    assert counts == {"check_k": 1, "fit": 1, **({"check_block_size": 1} if engine != "memory" else {})}


def test_stratum_scaling_is_each_stratum_released_alone():
    """``strata_scaling="stratum"`` (sdcMicro's scaling): the release of every stratum equals microaggregating that
    stratum alone; the default (the whole file's z-scores) is the release it always was."""
    df = ma.load_dataset("tarragona").iloc[:, :4].copy()
    df["region"] = np.repeat(["n", "s", "e"], [300, 300, len(df) - 600])
    df.loc[df["region"] == "s", df.columns[0]] *= 50  # a stratum whose spread differs from the file's
    rel = ma.microaggregate(df, 3, strata=["region"], strata_scaling="stratum", shuffle=False, identifiers=[])
    for region, part in df.groupby("region", sort=False):
        alone = ma.microaggregate(part.drop(columns="region"), 3, shuffle=False, identifiers=[])
        mine = rel.protected.loc[(df["region"] == region).to_numpy(), alone.masked]
        assert mine.reset_index(drop=True).equals(alone.protected.reset_index(drop=True))
    whole = ma.microaggregate(df, 3, strata=["region"], shuffle=False, identifiers=[])
    assert not whole.protected.equals(rel.protected)  # the default measures distances on the whole file's scale
    assert rel.params["strata_scaling"] == "stratum" and "strata_scaling" not in whole.params
    assert "strata_scaling='stratum'" in rel.spec.python_call("df")


def test_a_partitioner_s_kernel_for_other_data_is_chosen_by_capability():
    df = pd.DataFrame({"x": np.arange(20.0), "y": np.r_[np.nan, np.arange(19.0)], "c": list("ab") * 10})
    rel = ma.microaggregate(df, 4, columns=["x", "y"], identifiers=[])  # missing cells: MDAV's partial distances
    assert np.bincount(rel.labels).min() >= 4
    with pytest.raises(ma.MicroaggError, match="only method 'mdav' with variant 'generic' on the memory engine can. "
                                               "Or fill the cells yourself"):
        ma.microaggregate(df, 4, columns=["x", "y"], method="vmdav", identifiers=[])
    with pytest.raises(ma.MicroaggError, match="method 'mdav' variant 'classic' on the memory engine cannot partition "
                                               "ordinal or nominal.*heterogeneous MDAV.*as keys, with strata"):
        ma.microaggregate(df, 4, columns=["x"], nominal=["c"], variant="classic", identifiers=[])


def test_an_option_is_refused_without_the_options_its_row_says_it_needs():
    """``Option.only_with`` is read by the specification (and the dashboard): strata_scaling without strata is refused
    naming them; with strata, a method in the data's own units is refused too."""
    assert OPTION["strata_scaling"].only_with == ("strata",)
    with pytest.raises(ma.MicroaggError, match=r"strata_scaling='stratum' needs strata \(with strata: "):
        ReleaseSpec.of(3, strata_scaling="stratum")
    with pytest.raises(ma.MicroaggError, match="not 'insensitive_mdav', which works in the data's own units"):
        ReleaseSpec.of(3, "insensitive_mdav", strata=["r"], strata_scaling="stratum")
    assert ReleaseSpec.of(3, strata=["r"], strata_scaling="stratum").strata_scaling == "stratum"


def test_option_rows_read_as_words_never_none():
    rows = dict(ReleaseSpec.of(3, "mdav", "mean").option_rows())
    assert rows["identifiers"] == "detected" and rows["sampling_weights"] == "none" and rows["keys"] == "none"
    assert "None" not in rows.values()
    assert dict(ReleaseSpec.of(3, "mdav", "mean", identifiers=[]).option_rows())["identifiers"] == "none"


def test_a_seed_without_the_shuffle_is_refused_not_ignored():
    with pytest.raises(ma.MicroaggError, match="seed=5 seeds the shuffle .* leave the seed out"):
        ReleaseSpec.of(3, shuffle=False, seed=5)
    assert ReleaseSpec.of(3, seed=5).seed == 5 and ReleaseSpec.of(3, shuffle=False).seed is None
    from microagg.release.engines import Dask  # the Dask engine's seed also draws its samples: it stays
    assert ReleaseSpec.of(3, shuffle=False, seed=5, engine=Dask(out="release")).seed == 5
