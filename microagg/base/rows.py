"""Rows of a release's report (metric, attribute, value, unit, direction, source) that are not metrics: group
statistics, column roles and what was withheld, shared by the in-memory release and the Dask engine."""

from __future__ import annotations

LOWER, HIGHER, NEUTRAL = "lower is better", "higher is better", ""  # a report row's direction
PRIVATE = "(keep private)"  # ends the metric of a row that holds a secret: the noise seed, which undoes the noise
NOT_RECORD_LEVEL = ("NOT guaranteed: each attribute was grouped separately, so every released value is shared by "
                    ">= k records in its own column, but whole released rows are generally not k-anonymous")


def report_row(metric, value, unit="", direction="", source="", attribute="all") -> dict:
    """One row of a release's report."""
    return {"metric": metric, "attribute": attribute, "value": value, "unit": unit, "direction": direction,
            "source": source}


def public(report):
    """``report`` (a DataFrame of rows) without the rows that hold a secret (:data:`PRIVATE`): what may be printed,
    shown or downloaded outside a file marked private (docs/methods.md §7.3)."""
    return report[~report["metric"].astype(str).str.endswith(PRIVATE)]


def group_rows(stats: dict, where: str = "all") -> list[dict]:
    """Report rows of the group statistics ``stats`` (``metrics.group_stats`` with k), attribute ``where``."""
    return [report_row(metric, stats[key], unit, direction, "docs/metrics.md §4.12", where)
            for metric, key, unit, direction in (("groups", "groups", "groups", ""),
                                                 ("smallest group", "min_size", "records", ""),
                                                 ("largest group", "max_size", "records", ""),
                                                 ("mean group size", "mean_size", "records", ""),
                                                 ("groups larger than 2k-1", "oversized", "groups", LOWER))]


def column_rows(masked, confidential, dropped, kept) -> list[dict]:
    """Report rows naming the columns of each role."""
    return [report_row("columns masked", ", ".join(masked), source="release"),
            report_row("columns confidential (unchanged)", ", ".join(confidential) or "none",
                       source="Abidi, Ben Yahia & Perera 2018, §2.1"),
            report_row("columns dropped", ", ".join(dropped) or "none", source="release"),
            report_row("columns kept unmasked", ", ".join(kept) or "none", source="release")]


def safety_rows(identifiers: dict, keys, strata, index_note, keep_index: bool, shuffled: bool) -> list[dict]:
    """Report rows saying what was withheld or declared around the masked columns (README, "Publishing a release
    safely")."""
    rows = [report_row("identifiers (not released)", "; ".join(f"{c} ({why})" for c, why in identifiers.items())
                       or "none", source="microagg.privacy.safety.identifiers"),
            report_row("key columns (in the k-anonymity check)", ", ".join(keys) or "none", source="release"),
            report_row("strata (microaggregated separately)", ", ".join(strata) or "none", source="release"),
            report_row("row order", ("shuffled (seeded random permutation), but the input's index is released "
                                     "with every row (keep_index=True), which gives the input's order back"
                                     if keep_index else "shuffled (seeded random permutation)") if shuffled else
                       "input order (shuffle=False): links rows to anyone holding the original's order",
                       source="release")]
    if index_note is not None or keep_index:
        what = index_note or "the input's index"
        rows.append(report_row("input index", f"{what}: released (keep_index=True): links every released row to "
                               "its input record" if keep_index else
                               f"{what}: not released (keep_index=True would release it)", source="release"))
    return rows


def survey_rows(survey: dict, weight_column: str | None, kept) -> list[dict]:
    """Report rows on the sampling weights and the missing cells of a release (docs/methods.md §8)."""
    src = "docs/methods.md §8.1"
    rows = [report_row("sampling weights", "none" if weight_column is None else
                       f"{weight_column}: " + ("released unchanged (keep); an exact weight can single a respondent "
                                               "out" if weight_column in kept else "not released"),
                       source="docs/methods.md §8.6")]
    if survey["missing cells"] or survey["released missing"]:
        rows += [report_row("missing cells (masked columns)", survey["missing cells"], "cells", source=src),
                 report_row("missing cells", "imputed by the group value" if survey["missing"] == "impute" else
                            "released missing", source="docs/methods.md §8.1"),
                 report_row("imputed cells", survey["imputed cells"], "cells", source="docs/methods.md §8.1"),
                 report_row("observed cells suppressed for k-anonymity", survey["suppressed cells"], "cells",
                            LOWER, "docs/methods.md §8.5")]
    return rows


CATEGORIES_MISSING = {"impute": "imputed: the group's category (the partition read them as unknown)",
                      "category": "a category of their own", "drop": "their records left out of the release"}


def categories_missing_rows(said: dict) -> list[dict]:
    """Report rows on the missing cells of the ordinal and nominal quasi-identifiers (docs/methods.md §8.8)."""
    src = "docs/methods.md §8.8"
    rows = [report_row("missing categories (categorical columns)", said["cells"], "cells", source=src),
            report_row("missing categories", CATEGORIES_MISSING[said["missing"]], source=src)]
    if said["missing"] == "drop":
        rows.append(report_row("records left out (a category missing)", said["records left out"], "records",
                               source=src))
    else:
        rows.append(report_row("categorical cells released missing", said["released missing"], "cells",
                               source=src))
    return rows
