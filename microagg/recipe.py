"""The Python call and the command line that reproduce a release exactly (shown by the dashboard)."""

from __future__ import annotations

import shlex


def _arguments(params: dict) -> dict:
    """Method and aggregation parameters of a release's ``params`` (the rest are release options)."""
    fixed = {"k", "method", "aggregation", "columns", "keep", "renormalize", "confidential", "engine", "block_size",
             "blocks"}
    return {n: v for n, v in params.items() if n not in fixed}


def python_snippet(params: dict, data: str) -> str:
    """Python that rebuilds the release; ``data`` is the expression that loads the input DataFrame."""
    args = [f"k={params['k']}", f"method={params['method']!r}", f"aggregation={params['aggregation']!r}",
            f"columns={list(params['columns'])!r}"]
    if params.get("keep"):
        args.append(f"keep={list(params['keep'])!r}")
    if params.get("confidential"):
        args.append(f"confidential={list(params['confidential'])!r}")
    if params.get("renormalize"):
        args.append("renormalize=True")
    if params.get("engine", "memory") != "memory":
        args += [f"engine={params['engine']!r}", f"block_size={params['block_size']!r}"]
    args += [f"{n}={v!r}" for n, v in _arguments(params).items()]
    body = ",\n    ".join(args)
    return (f"import microagg as ma\n\ndf = {data}\nrel = ma.microaggregate(\n    df,\n    {body},\n)\n"
            "rel.protected.to_csv(\"release.csv\")\nprint(rel.report())")


def cli_command(params: dict, data_args: list[str]) -> str:
    """``python -m microagg run ...`` that rebuilds the release; ``data_args`` selects the input."""
    argv = ["python", "-m", "microagg", "run", *data_args, "--k", str(params["k"]), "--method", params["method"],
            "--aggregation", params["aggregation"], "--columns", ",".join(params["columns"])]
    if params.get("keep"):
        argv += ["--keep", ",".join(params["keep"])]
    if params.get("confidential"):
        argv += ["--confidential", ",".join(params["confidential"])]
    if params.get("renormalize"):
        argv.append("--renormalize")
    if params.get("engine", "memory") != "memory":
        argv += ["--engine", params["engine"], "--block-size", str(params["block_size"])]
    for n, v in _arguments(params).items():
        argv += ["--param", f"{n}={v}"]
    argv += ["--out", "release.csv"]
    return shlex.join(argv)
