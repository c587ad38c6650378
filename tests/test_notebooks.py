"""The course notebooks: each runs top to bottom, is committed clean, ends with exercises, and the index lists them.

Every widget's update function is also called directly in the notebook (checked below), so running a notebook
exercises the callbacks that the widgets drive.
"""

import re
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import microagg as ma

FOLDER = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds per cell; the numba kernels are compiled beforehand (see `compiled`)
SOLUTION = "Solution (click to expand)"


def code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def hidden(cell) -> bool:
    return cell.cell_type == "code" and cell.metadata.get("jupyter", {}).get("source_hidden", False)


@pytest.fixture(scope="module")
def compiled():
    """Run every partitioner once in this process: numba caches the compiled kernels on disk, so the notebooks'
    kernels load them instead of compiling (about a minute on a fresh machine, which is not the notebooks' cost)."""
    df = ma.load_dataset("census").iloc[:60]
    Z = ma.standardize(df)
    for method in ma.registry.methods("partition"):
        roles = {"confidential": list(range(5, 13))} if method.uses_roles else {}
        with warnings.catch_warnings():  # HM-pfsom warns that 60 records make few diverse groups: not the point here
            warnings.simplefilter("ignore", UserWarning)
            method.func(Z, 3, **roles)
    for variant in ma.registry.get_method("partition", "mdav").param("variant").choices:
        ma.partition.mdav_steps(Z, 3, variant)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, compiled):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count") for c in code(nb)), \
        "commit notebooks without outputs"
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in code(nb) for o in c.outputs if o.output_type == "error"]
    assert not errors


def test_the_kernel_is_this_python():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys; print(sys.prefix)")])
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3").execute()
    assert nb.cells[0].outputs[0].text.strip() == sys.prefix


def test_the_index_lists_every_notebook():
    index = (FOLDER / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)]+\.ipynb)\)", index))
    assert linked == {p.name for p in NOTEBOOKS}
    assert all(re.match(r"\d\d_", p.name) for p in NOTEBOOKS), "course notebooks are numbered"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ends_with_exercises_and_hidden_solutions(path):
    cells = nbformat.read(path, as_version=4).cells
    start = max(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
    tail = cells[start:]
    prompts = sum(c.source.count("**Exercise") for c in tail if c.cell_type == "markdown")
    solutions = [c for c in tail if c.cell_type == "code"]
    assert 2 <= prompts <= 3 and len(solutions) == prompts
    assert all(hidden(c) for c in solutions), "solutions are hidden by default"
    assert sum(c.source.count(SOLUTION) for c in tail if c.cell_type == "markdown") == prompts
    assert hidden(cells[-1]) and not any(hidden(c) for c in cells[:start])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_callback_is_also_called_directly(path):
    source = "\n".join(c.source for c in code(nbformat.read(path, as_version=4)))
    callbacks = set(re.findall(r"(?:interact|interactive_output|observe)\((\w+)", source))
    assert callbacks, "every notebook has widgets for the parameters it discusses"
    for name in callbacks:
        assert re.search(rf"^{name}\(", source, re.M), f"call {name}(...) once outside the widget"
