"""The Python call and the command line that reproduce a release exactly (shown by the dashboard and the HTML
report), rendered from the release's resolved specification (``Release.spec``: every option of
``release.spec.OPTIONS`` that differs from its default, the columns masked and the seeds drawn).

They carry the shuffle's seed and, for an ε-differentially private release, the noise's: keep them private, like
the original data (whoever has the shuffle's seed and the original can undo the shuffle; whoever has the noise's
seed can take the noise off)."""

from __future__ import annotations

import shlex

from .spec import ReleaseSpec


def python_snippet(spec: ReleaseSpec, data: str) -> str:
    """Python that rebuilds the release; ``data`` is the expression that loads the input DataFrame."""
    return spec.python_call(data)


def cli_command(spec: ReleaseSpec, data_args: list[str]) -> str:
    """``python -m microagg run ...`` that rebuilds the release; ``data_args`` selects the input. A partition given
    as ``labels=`` has no command line: a comment says so; parameters given as arrays (per-record values uploaded
    in the dashboard) are left out, said in a comment."""
    if spec.labels_given:
        return "# a release of a partition given as labels= is reproduced only through the Python API (above)"
    argv, arrays = spec.argv()
    note = f"  # {', '.join(arrays)} per record: only through the Python API" if arrays else ""
    return shlex.join(["python", "-m", "microagg", "run", *data_args, *argv, "--out", "release.csv"]) + note
