"""The course notebooks: each runs top to bottom with its exercise solutions, is committed clean and in the form
JupyterLab saves, ends with exercises whose solutions Run All does not reveal, and the index lists them.

Every widget's update function is also called directly in the notebook (checked below), so running a notebook
exercises the callbacks that the widgets drive.
"""

import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds per cell; the numba kernels are compiled beforehand (conftest)
SOLUTION = re.compile(r"<details><summary>Solution \(click to expand\)</summary>\s*```python\n(.*?)```\s*</details>",
                      re.S)


def code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def solutions(nb) -> list[str]:
    return [s for c in nb.cells if c.cell_type == "markdown" for s in SOLUTION.findall(c.source)]


def execute(nb, folder: Path | None = None):
    """Run ``nb`` in a fresh kernel, with widget output kept in the cells' own outputs.

    By default nbclient keeps an ipywidgets Output widget's contents itself and syncs them back to the kernel on the
    shell channel while it waits on that channel for the cell's reply. That has two costs here: an exception raised
    in an ``interact`` callback lands in the widget's state, not the cell's outputs, so the error check below would
    not see it; and the sync can take away the wake-up of the wait, which then lasts the whole cell timeout before it
    reads the reply (cells with widgets took 120+ s instead of seconds). With no widget model registered, nbclient
    leaves the Output widget alone and its output reaches the cell like any other."""
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}} if folder else {})
    client.widget_registry = {}
    client.execute()
    return nb


def errors(nb) -> list[tuple[int, str, str]]:
    return [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.outputs if o.output_type == "error"]


@pytest.fixture(scope="module")
def this_checkout():
    """The notebooks' kernels import this checkout of microagg (PYTHONPATH), not another installed copy, and load
    the compiled numba kernels from disk: conftest compiles them before the tests run (about a minute on a fresh
    machine, which is not the notebooks' cost)."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([saved] if saved else []))
    yield
    if saved is None:
        del os.environ["PYTHONPATH"]
    else:
        os.environ["PYTHONPATH"] = saved


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_and_its_solutions_run(path, this_checkout):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count") for c in code(nb)), \
        "commit notebooks without outputs"
    nb.cells += [nbformat.v4.new_code_cell(s) for s in solutions(nb)]  # what a student pastes: it must run too
    assert not errors(execute(nb, path.parent))


def test_an_error_inside_a_widget_callback_is_reported(this_checkout):
    """The check above would pass a notebook whose widgets fail if their callbacks' errors stayed in the widget."""
    source = "import microagg.lab.course as course\ndef show(k):\n    raise ValueError(k)\ncourse.interact(show, k=3);"
    nb = execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]))
    assert errors(nb) == [(0, "ValueError", "3")]


def test_the_kernel_imports_this_checkout(this_checkout):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys, microagg; print(sys.prefix); "
                                                                    "print(microagg.__file__)")])
    execute(nb)
    prefix, package = nb.cells[0].outputs[0].text.split()
    assert prefix == sys.prefix
    assert Path(package).resolve() == (ROOT / "microagg" / "__init__.py").resolve()


def test_the_index_lists_every_notebook():
    index = (FOLDER / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)]+\.ipynb)\)", index))
    assert linked == {p.name for p in NOTEBOOKS}
    assert all(re.match(r"\d\d[a-z]?_", p.name) for p in NOTEBOOKS), "course notebooks are numbered"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_run_all_does_not_reveal_the_solutions(path):
    """Exercises, then key takeaways, at the end; every solution sits in a collapsed markdown block, so Run All
    (a teacher projecting the notebook) neither runs nor shows it."""
    cells = nbformat.read(path, as_version=4).cells
    heads = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and re.search(r"^## ", c.source, re.M)]
    start = max(i for i in heads if "## Exercises" in cells[i].source)
    end = max(i for i in heads if "## Key takeaways" in cells[i].source)
    assert end == len(cells) - 1 and start < end
    tail = cells[start:end]
    prompts = sum(c.source.count("**Exercise") for c in tail)
    assert 2 <= prompts <= 3 and all(c.cell_type == "markdown" for c in tail)
    assert len(solutions(nbformat.v4.new_notebook(cells=tail))) == prompts
    assert not any("Solution" in c.source for c in code(nbformat.v4.new_notebook(cells=cells)))
    assert cells[end].source.count("\n* ") >= 3, "three or more key takeaways"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_first_run_compilation_is_announced(path):
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown" and "compiles" in first.source and "minute" in first.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_in_the_form_jupyterlab_saves(path):
    """Opening a notebook must not leave the tracked file modified: JupyterLab adds the kernel's language_info
    (with the Python version: committed as the project's Python reports it) and rewrites the file when anything
    else differs from nbformat's serialization, the current minor version or a cell without an id."""
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", c.id) for c in nb.cells)
    assert set(nb.metadata) == {"kernelspec", "language_info"}
    assert set(nb.metadata.language_info) == {"codemirror_mode", "file_extension", "mimetype", "name",
                                              "nbconvert_exporter", "pygments_lexer", "version"}
    assert text == nbformat.writes(nb) + "\n" or text == nbformat.writes(nb)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_callback_is_also_called_directly(path):
    source = "\n".join(c.source for c in code(nbformat.read(path, as_version=4)))
    callbacks = set(re.findall(r"(?:interact|interactive_output|observe)\((\w+)", source))
    assert callbacks, "every notebook has widgets for the parameters it discusses"
    for name in callbacks:
        assert re.search(rf"^(?:\w+ = )?{name}\(", source, re.M), f"call {name}(...) once outside the widget"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_eia_identifier_is_never_masked_for_the_course(path):
    """The course's own comparisons load EIA without UTILITYID (``course.load``); only the reproduction of the
    papers, which masked it, loads the full CASC file."""
    source = "\n".join(c.source for c in code(nbformat.read(path, as_version=4)))
    assert '"eia"' in source or "course.load" in source, "EIA is in the comparisons and widgets"
    if not path.name.startswith("06_"):
        assert 'load_dataset("eia")' not in source and "load_dataset(data)" not in source


WIDGET = re.compile(r"\b(?:interact|interactive_output)\(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_is_predicted_before_and_answered_after(path):
    """Predict, then move: the markdown cell before each widget asks for a prediction, and a markdown cell after it,
    before the next widget, gives the answer."""
    cells = nbformat.read(path, as_version=4).cells
    at = [i for i, c in enumerate(cells) if c.cell_type == "code" and WIDGET.search(c.source)]
    for i, j in zip(at, at[1:] + [len(cells)]):
        before = next(c.source for c in reversed(cells[:i]) if c.cell_type == "markdown")
        assert "**Predict first.**" in before, f"cell {i}: no prediction asked before the widget"
        assert any("**The answer" in c.source for c in cells[i + 1:j] if c.cell_type == "markdown"), \
            f"cell {i}: no answer after the widget"


def calls(source: str, name: str) -> list[str]:
    """The argument text of every call of ``name`` in ``source`` (parentheses matched)."""
    found = []
    for m in re.finditer(rf"\b{name}\(", source):
        depth, end = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(source[end], 0)
            end += 1
        found.append(source[m.end():end - 1])
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_sliders_compute_when_released(path):
    """A slider made in a notebook reports its value on release, like the course's own (``course.control``)."""
    source = "\n".join(c.source for c in code(nbformat.read(path, as_version=4)))
    for args in calls(source, "IntSlider") + calls(source, "FloatSlider"):
        assert "continuous_update=False" in args, args


def test_calls_matches_nested_parentheses():
    assert calls("w = FloatSlider(value=f(1), max=g(2, 3))\nFloatSlider()", "FloatSlider") == \
        ["value=f(1), max=g(2, 3)", ""]


def test_the_plan_puts_every_notebook_in_one_class_of_at_most_90_minutes():
    index = (FOLDER / "README.md").read_text(encoding="utf-8")
    plan = index[index.index("## The plan"):]
    rows = re.findall(r"^\| (\d) \| ([\d a-z+]+) \| (\d+) min", plan, re.M)
    assert [int(c) for c, _, _ in rows] == list(range(1, len(rows) + 1))
    planned = [n.strip() for _, notebooks, _ in rows for n in notebooks.split("+")]
    assert sorted(planned) == sorted(re.match(r"\d\d[a-z]?", p.name).group() for p in NOTEBOOKS)
    assert all(int(minutes) <= 90 for _, _, minutes in rows)
