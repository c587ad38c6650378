"""The Python call and the command line that reproduce a release exactly (shown by the dashboard).

They carry the shuffle's seed and, for an ε-differentially private release, the noise's: keep them private, like
the original data (whoever has the shuffle's seed and the original can undo the shuffle; whoever has the noise's
seed can take the noise off).

The command line's lists of names (``--columns a,b``, ``--ordinal 'col=low<high'``) are written by
:func:`join_names` and read by :func:`split_names`: a name holding the separator, a quote, ``=`` or ``<``, or
spaces at its ends, is put in double quotes with any quote inside doubled, as in a CSV file
(``--columns '"income, net",age'``), so that any column or category name can be given."""

from __future__ import annotations

import shlex

import numpy as np

from ..base.errors import MicroaggError
from ..base.labels import GIVEN
from ..base.registry import get_method

QUOTED = (",", "=", "<", '"')  # a name holding one of them is quoted on the command line


def join_names(names, sep: str = ",") -> str:
    """``names`` as one command-line value separated by ``sep``, each quoted where :func:`split_names` needs it."""
    def quoted(name: str) -> str:
        if name and name == name.strip() and not any(c in name for c in QUOTED):
            return name
        return '"' + name.replace('"', '""') + '"'

    return sep.join(quoted(str(n)) for n in names)


def split_names(text: str, sep: str = ",", flag: str = "--columns") -> list[str]:
    """The names of one command-line value, separated by ``sep`` (module docstring): a quoted name is taken as
    written, ``""`` inside it standing for one quote; an unquoted one is stripped of spaces at its ends."""
    names, i = [], 0
    while True:
        name, i, found = next_name(text, i, sep, flag)
        names.append(name)
        if not found:
            return names


def next_name(text: str, i: int, seps: str, flag: str) -> tuple[str, int, str]:
    """(the name starting at ``text[i]``, where the next one starts, the separator after it or "" at the end)."""
    j = len(text) - len(text[i:].lstrip())
    if not text.startswith('"', j):
        end = min((k for k in (text.find(s, j) for s in seps) if k >= 0), default=len(text))
        return text[j:end].strip(), end + 1, text[end:end + 1]
    parts, j = [], j + 1
    while True:
        end = text.find('"', j)
        if end < 0:
            raise MicroaggError(f"{flag} {text!r}: a quote is opened and not closed; write a quote inside a quoted "
                                'name twice, e.g. "say ""hi""".')
        parts.append(text[j:end])
        if not text.startswith('"', end + 1):
            break
        parts.append('"')
        j = end + 2
    name, rest = "".join(parts), text[end + 1:]
    after = len(text) - len(rest.lstrip())
    if after < len(text) and text[after] not in seps:
        raise MicroaggError(f"{flag} {text!r}: {text[after:]!r} follows the quoted name {name!r}; separate names "
                            f"with {' or '.join(map(repr, seps))}.")
    return name, after + 1, text[after:after + 1]


def _methods(params: dict) -> list:
    """The registered partitioner (none for a partition given as ``labels=``) and aggregator of a release."""
    return [get_method(kind, params[key]) for kind, key in (("partition", "method"), ("aggregate", "aggregation"))
            if params[key] != GIVEN]


def _arguments(params: dict) -> dict:
    """The registered method's and aggregation's parameters in a release's ``params`` (the rest are release
    options)."""
    names = [p.name for m in _methods(params) for p in m.params]
    return {n: params[n] for n in names if n in params}


RELEASE_OPTIONS = ("seed",)  # a release option that a method may also take: its own goes in method_params


def _arrays(params: dict) -> list[str]:
    """Parameters given as arrays (e.g. per-record w uploaded in the dashboard): not writable as literals."""
    return [n for n, v in _arguments(params).items() if isinstance(v, np.ndarray)]


def python_snippet(params: dict, data: str) -> str:
    """Python that rebuilds the release; ``data`` is the expression that loads the input DataFrame."""
    given = params["method"] == GIVEN  # a partition computed elsewhere: passed again as labels=
    args = [f"k={params['k']}", "labels=labels" if given else f"method={params['method']!r}",
            f"aggregation={params['aggregation']!r}", f"columns={list(params['columns'])!r}"]
    if params.get("keep"):
        args.append(f"keep={list(params['keep'])!r}")
    if params.get("confidential"):
        args.append(f"confidential={list(params['confidential'])!r}")
    if params.get("renormalize"):
        args.append("renormalize=True")
    if params.get("ordinal"):
        args.append(f"ordinal={params['ordinal']!r}")
    if params.get("nominal"):
        args.append(f"nominal={list(params['nominal'])!r}")
    for name in ("identifiers", "keys", "strata"):
        if params.get(name) is not None and (params[name] or name == "identifiers"):
            args.append(f"{name}={list(params[name])!r}")
    if params.get("sampling_weights"):
        args.append(f"sampling_weights={params['sampling_weights']!r}")
    if params.get("missing", "keep") != "keep":
        args.append(f"missing={params['missing']!r}")
    if params.get("missing_categories"):
        args.append(f"missing_categories={params['missing_categories']!r}")
    if params.get("shuffle") is False:
        args.append("shuffle=False")
    if params.get("shuffle_seed") is not None:
        args.append(f"seed={params['shuffle_seed']!r}")
    if params.get("keep_index"):
        args.append("keep_index=True")
    if params.get("engine", "memory") != "memory":
        args.append(f"engine=ma.engines.Blocks(block_size={params['block_size']!r})")
    if params.get("refine", "none") != "none":
        args.append(f"refine={params['refine']!r}")
    arrays = _arrays(params)
    values = {n: f"{n}_values" if n in arrays else repr(v) for n, v in _arguments(params).items()}
    args += [f"{n}={v}" for n, v in values.items() if n not in RELEASE_OPTIONS]
    for m in _methods(params):  # names the release also takes
        own = [p.name for p in m.params if p.name in RELEASE_OPTIONS and p.name in values]
        if own:
            key = "method" if m.kind == "partition" else "aggregation"
            args.append(f"{key}_params={{{', '.join(f'{n!r}: {values[n]}' for n in own)}}}")
    body = ",\n    ".join(args)
    load = "".join(f"{n}_values = ...  # the {params[n].shape} array of {n} values you uploaded\n" for n in arrays)
    if given:
        load += "labels = ...  # the partition you gave as labels= (one group number per record, input order)\n"
    imports = "import microagg as ma\n" + ("import pandas as pd\n" if "pd." in data else "")
    return (f"{imports}\ndf = {data}\n{load}rel = ma.microaggregate(\n    df,\n    {body},\n)\n"
            "rel.to_csv(\"release.csv\")\nprint(rel.report())")


def cli_command(params: dict, data_args: list[str]) -> str:
    """``python -m microagg run ...`` that rebuilds the release; ``data_args`` selects the input. A partition given
    as ``labels=`` has no command line: a comment says so."""
    if params["method"] == GIVEN:
        return "# a release of a partition given as labels= is reproduced only through the Python API (above)"
    argv = ["python", "-m", "microagg", "run", *data_args, "--k", str(params["k"]), "--method", params["method"],
            "--aggregation", params["aggregation"], "--columns", join_names(params["columns"])]
    if params.get("keep"):
        argv += ["--keep", join_names(params["keep"])]
    if params.get("confidential"):
        argv += ["--confidential", join_names(params["confidential"])]
    if params.get("renormalize"):
        argv.append("--renormalize")
    for column, order in (params.get("ordinal") or {}).items():
        argv += ["--ordinal", f"{join_names([column], '=')}={join_names(order, '<')}"]
    if params.get("nominal"):
        argv += ["--nominal", join_names(params["nominal"])]
    for name in ("identifiers", "keys", "strata"):
        if params.get(name) is not None and (params[name] or name == "identifiers"):
            argv += [f"--{name}", join_names(params[name])]
    if params.get("sampling_weights"):
        argv += ["--sampling-weights", params["sampling_weights"]]
    if params.get("missing", "keep") != "keep":
        argv += ["--missing", params["missing"]]
    if params.get("missing_categories"):
        argv += ["--missing-categories", params["missing_categories"]]
    if params.get("shuffle") is False:
        argv.append("--no-shuffle")
    if params.get("shuffle_seed") is not None:
        argv += ["--seed", str(params["shuffle_seed"])]
    if params.get("keep_index"):
        argv.append("--keep-index")
    if params.get("engine", "memory") != "memory":
        argv += ["--engine", params["engine"], "--block-size", str(params["block_size"])]
    if params.get("refine", "none") != "none":
        argv += ["--refine", params["refine"]]
    arrays = _arrays(params)
    for n, v in _arguments(params).items():
        if n not in arrays:
            argv += ["--param", f"{n}={v}"]
    argv += ["--out", "release.csv"]
    note = f"  # {', '.join(arrays)} per record: only through the Python API" if arrays else ""
    return shlex.join(argv) + note
