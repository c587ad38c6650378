"""The dashboard with the differentially private aggregation (docs/methods.md §7.3): the bounds are typed once, never
filled in from the data, and the page says what is wrong until they are."""

import microagg as ma

from .test_page import ok, open_tab, shown, start

LAPLACE = ma.registry.get_method("aggregate", "laplace").title
INSENSITIVE = ma.registry.get_method("partition", "insensitive_mdav").title


def test_laplace_asks_for_bounds_then_releases_what_the_library_releases():
    at = start()
    at.session_state["method"], at.session_state["aggregation"] = INSENSITIVE, LAPLACE
    at.run()
    assert not at.exception and "not read off the data" in at.error[0].value  # no bounds yet: a message, no release
    assert at.sidebar.text_input(key="a-laplace-bounds").value == ""  # empty: nothing inferred from the data
    assert all(w.key != "p-insensitive_mdav-bounds" for w in at.sidebar.text_input)  # typed once, for both
    bounds = ",".join(["0:1e6"] * 13)
    at.session_state["a-laplace-bounds"], at.session_state["a-laplace-noise_seed"] = bounds, 4
    at.run()
    ok(at)
    rel = ma.microaggregate(ma.load_dataset("census"), 5, method="insensitive_mdav", aggregation="laplace",
                            bounds=bounds, noise_seed=4)
    assert shown(at)["Information loss (IL)"] == f"{ma.metrics.information_loss(rel.Z, rel.Zp):.3f} %"
    assert shown(at)["k-anonymous"] == "yes"
    open_tab(at, "Risk & utility")  # no map to compute for a mechanism calibrated to insensitive partitions
    ok(at)
    assert any("has no map here" in i.value for i in at.info)
    assert not any(b.label == "Compute the map" for b in at.button)


def test_the_noise_seed_is_shown_only_in_the_commands_marked_private():
    """The report on the page and its CSV download (the same table) leave the noise seed out: whoever holds it takes
    the noise off. The reproducing commands, which the page marks private, carry it."""
    at = start()
    at.session_state["method"], at.session_state["aggregation"] = INSENSITIVE, LAPLACE
    at.session_state["a-laplace-bounds"], at.session_state["a-laplace-noise_seed"] = ",".join(["0:1e6"] * 13), 4321
    at.session_state["tab"], at.session_state["report-open"] = "Release", True
    at.run()
    ok(at)
    report = next(d.value for d in at.dataframe if "source" in getattr(d.value, "columns", []))
    assert "differential privacy ε" in set(report["metric"]) and not report["metric"].str.contains("seed").any()
    assert "4321" not in report.to_string()
    assert all("noise_seed=4321" in c.value for c in at.code)
    assert any("noise's seed" in c.value and "keep them private" in c.value for c in at.caption)


def test_individual_ranking_with_laplace_on_several_columns_is_refused_on_the_page_too():
    """The page runs the release's stages from its caches, not through ``microaggregate``: the refusal of a
    per-attribute partition under ε-DP on two or more columns (docs/methods.md §7.2) holds there as well."""
    at = start()
    at.session_state["method"] = ma.registry.get_method("partition", "individual_ranking").title
    at.session_state["aggregation"] = LAPLACE
    at.session_state["a-laplace-bounds"], at.session_state["a-laplace-noise_seed"] = ",".join(["0:1e6"] * 13), 4
    at.session_state["tab"] = "Release"
    at.run()
    assert not at.exception and any("but not the rows" in e.value for e in at.error)
    assert not at.get("download_button")
