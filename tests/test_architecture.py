"""Imports run one way: read from the source (every import, including those inside functions), no wing of the
package imports one on its own floor or above it, inside a wing no room imports one on its own floor or above it,
and no import circle exists. A new folder or corridor module must be given a floor here (README, "Architecture")."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The package is grouped into wings, one folder each, from the ground up. A wing imports only wings on lower floors,
# so two wings on one floor (partition and aggregate, say) are peers that never import each other.
WINGS = [
    {"base"},                   # errors, argument checks, labels, the method registry and its controls, time estimates
    {"data", "figures"},        # reading and writing files, data sets, standardization, categories; plots, tables
    {"privacy"},                # identifiers, column roles, privacy wishes, attribute bounds
    {"partition", "aggregate"},  # the methods (partition/compiled/: the numba runtime)
    {"metrics"},
    {"release"},                # the release specification, its stages and engines, the Release, recipes
    {"lab"},                    # what is built on releases: sweeps, attacks, the course, the HTML report
    {"cli", "dashboard"},       # the command line; the dashboard (its page, sidebar and tabs)
    {"__main__", "app"},        # the entry points: python -m microagg, streamlit run app.py
]
WING = {wing: level for level, wings in enumerate(WINGS) for wing in wings}
# Inside a wing with a corridor, its modules stand on floors of their own (the same rule, one level down). The
# method wings (partition, aggregate, metrics) are rooms side by side: one file per method, no floors inside.
INNER = {
    "base": [{"errors", "said", "setting", "names"}, {"checks", "labels", "advice", "rows"}, {"registry"},
             {"controls"}],
    "data": [{"preprocess", "io", "datasets", "categories"}],
    "privacy": [{"safety", "wishes", "bounds"}, {"roles"}],
    "figures": [{"plots", "tables"}],
    "release": [{"release"}, {"engines"}, {"spec"}, {"stages"}, {"scale"}, {"pipeline"}, {"recipe"}],
    "lab": [{"baselines"}, {"explore", "attacks", "reproduce"}, {"course", "html_report"}],
    "dashboard": [{"state", "cache", "serve"}, {"widgets"}, {"sidebar"}, {"tabs"}, {"page"}],
}
INNER_FLOOR = {wing: {room: level for level, rooms in enumerate(floors) for room in rooms}
               for wing, floors in INNER.items()}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    files = {module_name(p): p for p in (ROOT / "microagg").rglob("*.py")}
    files["app"] = ROOT / "app.py"
    return files


def type_checking_only(tree: ast.AST) -> set[int]:
    """Line numbers of imports under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            lines |= {n.lineno for child in node.body for n in ast.walk(child) if hasattr(n, "lineno")}
    return lines


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports: ``from .x import y`` counts as x.y when that is a module, else x."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "microagg"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").split(".")[0] == "microagg":
                target = node.module
            else:
                continue
            for alias in node.names:
                out.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    files = sources()
    return {name: imports(name, path, set(files)) for name, path in files.items()}


def unit(name: str) -> str:
    """The wing of a module: ``microagg.release.stages`` -> release; ``app`` and the package's face stand alone."""
    parts = name.split(".")
    return parts[0] if parts[0] == "app" else (parts[1] if len(parts) > 1 else "microagg")


def room(name: str) -> str | None:
    """The module's room inside its wing (``microagg.release.stages`` -> stages), None for the wing's face."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 else None


def test_every_wing_and_room_has_a_floor():
    modules = graph()
    wings = {unit(n) for n in modules} - {"microagg"}
    assert wings - set(WING) == set(), "place a new folder on a floor in WINGS (README, Architecture)"
    assert set(WING) - wings == set(), "WINGS names a wing that no longer exists"
    for wing, floors in INNER_FLOOR.items():
        rooms = {room(n) for n in modules if unit(n) == wing} - {None}
        assert rooms == set(floors), f"the rooms of {wing}/ and INNER[{wing!r}] differ"


def test_the_root_holds_only_the_face_and_the_entry_points():
    """Every module lives in a wing: the package's root has its face, the command line and ``__main__``."""
    assert sorted(p.name for p in (ROOT / "microagg").glob("*.py")) == ["__init__.py", "__main__.py", "cli.py"]


def test_the_dashboard_entry_is_thin():
    """``app.py`` (what ``streamlit run`` and AppTest run) only sets the page up and draws ``dashboard.page``."""
    assert graph()["app"] == {"microagg.dashboard.page"}


def test_imports_run_down_only():
    upward = []
    for name, targets in graph().items():
        if unit(name) == "microagg":  # the package's face re-exports everything
            continue
        for target in targets:
            a, b = unit(name), unit(target)
            face = b == "microagg" and a != "app"  # the dashboard, outside the package, imports its face
            if a != b and (face or b != "microagg" and WING[b] >= WING[a]):
                upward.append(f"{name} -> {target}")
            elif a == b and a in INNER_FLOOR and room(name) and room(target) and room(name) != room(target):
                if INNER_FLOOR[a][room(target)] >= INNER_FLOOR[a][room(name)]:
                    upward.append(f"{name} -> {target}")
    assert upward == []


def test_no_import_circle():
    g = graph()
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(g[node]):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(g):
        if start not in state:
            visit(start, [start])
    assert circles == []


def test_the_reader_sees_imports_inside_functions():
    """The check reads lazy imports too: the pipeline's import of the Dask engine is one."""
    assert "microagg.release.scale" in graph()["microagg.release.pipeline"]


def readme_example(where: str) -> str:
    """The code block of the README's worked example for ``where`` (README, "Architecture")."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split(f"<!-- worked example: {where} -->", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_examples_add_a_method_and_a_metric_in_one_file_each(tmp_path):
    """The README's worked examples, written into a copy of the package exactly where it says (a new file in
    partition/, a function appended to metrics/utility.py), reach the API, the report and the command line."""
    shutil.copytree(ROOT / "microagg", tmp_path / "microagg", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "data").symlink_to(ROOT / "data")
    (tmp_path / "microagg" / "partition" / "sum_ranking.py").write_text(readme_example("partition/sum_ranking.py"))
    with open(tmp_path / "microagg" / "metrics" / "utility.py", "a", encoding="utf-8") as f:
        f.write("\n\n" + readme_example("metrics/utility.py"))
    script = textwrap.dedent("""
        import numpy as np
        import pytest
        import microagg as ma
        from microagg.partition.sum_ranking import sum_ranking

        assert "sum_ranking" in [m.name for m in ma.registry.methods("partition")]
        assert ma.partition.sum_ranking is sum_ranking
        df = ma.load_dataset("census")
        rel = ma.microaggregate(df, 5, method="sum_ranking", descending=True)
        assert rel.params["method"] == "sum_ranking" and rel.params["descending"] is True
        sizes = np.bincount(rel.labels)
        assert sizes.min() >= 5 and sizes.max() <= 9
        report = rel.report()
        mae = report[(report["metric"] == "MAE") & (report["attribute"] == "all")]["value"].item()
        assert mae == pytest.approx(np.abs(rel.Z - rel.Zp).mean())
        for bad in ({"k": 1}, {"k": 3, "descending": "yes"}):
            with pytest.raises(ma.MicroaggError):
                sum_ranking(rel.Z, **bad)
    """)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cli = subprocess.run([sys.executable, "-m", "microagg", "run", "--dataset", "census", "--k", "5", "--method",
                          "sum_ranking"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert cli.returncode == 0 and "sum_ranking" in cli.stdout + cli.stderr, cli.stderr


@pytest.mark.parametrize("where", ["microagg/release/spec.py", "microagg/release/stages.py",
                                   "tests/release/test_spec.py"])
def test_the_readme_example_of_a_release_option_is_the_code_as_it_stands(where):
    """The README's worked example of a release option (``strata_scaling``) quotes its three files: every line of
    each excerpt is in the file it names, so the example cannot drift from the code."""
    source = (ROOT / where).read_text(encoding="utf-8")
    lines = [line.strip() for line in readme_example(where).splitlines() if line.strip()]
    assert lines and [line for line in lines if line not in source] == []


def test_a_release_option_reaches_every_door_from_its_row():
    """One row of OPTIONS gives an option its flag, its place in the recipe and the report, its refusal by an
    engine that does not declare it and its widget in the dashboard's sidebar; strata_scaling, the README's example,
    is checked through each."""
    import argparse

    import microagg as ma
    from microagg.release.spec import OPTION, ReleaseSpec, add_arguments, cli_options

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--k", "3", "--strata", "r", "--strata-scaling", "stratum"])
    spec = ReleaseSpec.of(3, **cli_options(args))
    assert spec.strata_scaling == "stratum" and "--strata-scaling" in spec.argv()[0]
    assert ("strata_scaling", "stratum") in spec.option_rows() and "strata_scaling='stratum'" in spec.python_call("df")
    assert "--strata-scaling {file,stratum}" in parser.format_help() and OPTION["strata_scaling"].default == "file"
    with pytest.raises(ma.MicroaggError, match="Dask engine does not take 'strata_scaling'"):
        ReleaseSpec.of(3, strata=["r"], strata_scaling="stratum", engine=ma.engines.Dask(out="x"))
    # the dashboard's door: a widget drawn from the row, disabled until strata are chosen, its value in the recipe
    from streamlit.testing.v1 import AppTest

    rows = "\n".join(f"{i % 7},{(i * 3) % 11},{'north' if i % 2 else 'south'}" for i in range(40))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.radio(key="source").set_value("upload").run()
    at.file_uploader[0].set_value(("strata.csv", f"a,b,r\n{rows}\n".encode(), "text/csv")).run()
    scaling = at.sidebar.radio(key="option-strata_scaling")
    assert scaling.label == "strata scaling" and scaling.options == ["file", "stratum"] and scaling.disabled
    at.multiselect(key="keys:ma.read_csv('strata.csv').data").set_value(["r"]).run()
    at.sidebar.radio(key="option-strata_scaling").set_value("stratum").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    code = " ".join(c.value for c in at.code)
    assert "strata_scaling='stratum'" in code and "--strata-scaling stratum" in code


def test_importing_microagg_imports_none_of_its_heavy_dependencies():
    """numba, dask, plotly and scipy are imported by the calls that need them (README, "Inside the compiled
    methods"): a newcomer's first import and a run on the numpy kernels pay for none of them."""
    heavy = ("numba", "llvmlite", "dask", "distributed", "plotly", "scipy", "streamlit")
    probe = f"import sys, microagg\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})))"
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.stdout.strip() == "[]"
