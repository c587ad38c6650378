"""Command line: ``python -m microagg run|reproduce|datasets|methods``.

    python -m microagg run --dataset census --k 5 --method mdav --aggregation median --out release.csv
    python -m microagg run --input data.csv --columns a,b,c --k 3 --param variant=classic
    python -m microagg run --input data.csv --k 3 --keys region --strata region --seed 7 --out release.csv
    python -m microagg run --input survey.csv --k 3 --columns age --nominal region --ordinal 'education=low<mid<high'
    python -m microagg run --input data.csv --k 3 --columns '"income, net",age' --ordinal 'band="<18"<18-64<">=65"'
    python -m microagg run --engine dask --input 'data/*.parquet' --k 5 --out release/ [--scheduler tcp://host:8786]
    python -m microagg reproduce mdav|partition|sl|dld|scores|p3m|hmpfsom   # p3m-local adds scipy's local optima
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import pandas as pd

from .base.advice import duration, exact_seconds, heartbeat, scale_hint
from .base.checks import is_numeric
from .base.errors import MicroaggError, Parser
from .base.registry import get_method, methods
from .base.rows import public
from .data.datasets import list_datasets, load_dataset
from .data.io import check_output, read_csv, same_file, write_text
from .figures import tables
from .lab.html_report import html_report
from .lab.reproduce import REPRODUCIBLE, summary
from .partition.blocks import DEFAULT_BLOCK_SIZE
from .partition.warmup import Compiles
from .release.engines import ENGINES, Blocks, Dask
from .release.pipeline import release
from .release.spec import OPTION, ReleaseSpec, add_arguments, cli_options


def _parse_params(items: list[str], flag: str = "--param") -> dict[str, str]:
    params = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise MicroaggError(f"{flag} expects name=value; got {item!r}.")
        if name.strip() in params:
            raise MicroaggError(f"{flag} {name.strip()} is given twice ({params[name.strip()]!r} and "
                                f"{value.strip()!r}); give it once.")
        params[name.strip()] = value.strip()
    return params


def _numbers(params: dict[str, str]) -> dict:
    """``name=value`` strings as ints where possible, else floats, else strings (data set arguments)."""
    out = {}
    for name, raw in params.items():
        for cast in (int, float):
            try:
                out[name] = cast(raw)
                break
            except ValueError:
                continue
        else:
            out[name] = raw
    return out


def _typed(params: dict[str, str], method: str, aggregation: str) -> dict:
    """Convert ``name=value`` strings with the registered parameter types."""
    specs = {p.name: p for kind, name in (("partition", method), ("aggregate", aggregation))
             for p in get_method(kind, name).params}
    out = {}
    for name, raw in params.items():
        spec = specs.get(name)
        if spec is None:
            raise MicroaggError(f"--param {name}: not a parameter of method '{method}' nor of aggregation "
                                f"'{aggregation}' (see 'python -m microagg methods'); options of the release have "
                                "flags of their own, e.g. --renormalize.")
        if spec.type in ("choice", "array"):
            out[name] = raw
        elif spec.type == "bool":
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise MicroaggError(f"--param {name} must be true or false; got {raw!r}.")
            out[name] = raw.lower() in ("true", "1", "yes")
        else:
            try:
                out[name] = int(raw) if spec.type == "int" else float(raw)
            except ValueError:
                raise MicroaggError(f"--param {name} must be a number; got {raw!r}.") from None
    return out


def _data_params(args) -> dict:
    if args.data_param and args.dataset is None:
        raise MicroaggError("--data-param sets an argument of a bundled data set (--dataset); it has no effect on "
                            "--input: leave it out.")
    return _numbers(_parse_params(args.data_param, "--data-param"))


def _read_input(path: str, encoding: str | None, given: list[str]) -> pd.DataFrame:
    """The --input CSV (``microagg.data.io.read_csv``), its conversions and the text columns not ``given`` (kept, keys,
    categories: released) told on stderr; a stratum that is not a key is dropped, as the report says."""
    table = read_csv(path, encoding=encoding)
    for note in table.notes:
        print(f"note: {note}", file=sys.stderr)
    dropped = [c for c in table.text_columns if c not in given]
    if dropped:
        print(f"note: text column(s) {', '.join(dropped)} are dropped from the release (mask them as categories "
              "with --nominal or --ordinal, or list them in --keep or --keys to release them unchanged).",
              file=sys.stderr)
    return table.data


def _write(rel, args) -> None:
    rel.to_csv(args.out, spreadsheet_safe=not args.no_spreadsheet_safe, force=args.force)
    print(f"release written to {args.out}", file=sys.stderr)


def cmd_run(args) -> int:
    if (args.dataset is None) == (args.input is None):
        raise MicroaggError("give exactly one of --dataset NAME or --input FILE.csv.")
    if args.encoding is not None and args.input is None:
        raise MicroaggError("--encoding applies to --input files; leave it out with --dataset.")
    if args.engine != "dask" and args.scheduler is not None:
        raise MicroaggError("--scheduler needs --engine dask.")
    if args.engine == "memory" and args.block_size is not None:
        raise MicroaggError("--block-size needs --engine blocks or --engine dask.")
    if args.force and not (args.out or args.report):
        raise MicroaggError("--force allows --out or --report to replace an existing file: give one of them too.")
    if args.engine == "dask" and (args.report or args.no_spreadsheet_safe or not args.out):
        raise MicroaggError("--engine dask writes the release as Parquet files to --out DIRECTORY: give --out, and "
                            "leave out --report (it needs the release in memory) and --no-spreadsheet-safe (CSV).")
    spec = _spec(args)  # every option checked before any data is read
    data_params = _data_params(args)
    if args.engine == "dask":
        return _run_dask(args, spec, data_params)
    for target in (args.out, args.report):
        if target:
            check_output(target, [args.input] if args.input else [], force=args.force)
    if args.out and args.report and same_file(args.out, args.report):
        raise MicroaggError("--out and --report name the same file: give them different names.")
    given = [*spec.keep, *spec.keys, *(c for c, _ in spec.ordinal), *spec.nominal]
    df = load_dataset(args.dataset, **data_params) if args.dataset else _read_input(args.input, args.encoding, given)
    print(f"microaggregating {len(df)} record{'' if len(df) == 1 else 's'} with {spec.method} + {spec.aggregation}, "
          f"k = {spec.k} ...", file=sys.stderr)
    d = len(spec.columns) if spec.columns else sum(is_numeric(df[c]) for c in df.columns)
    hint = scale_hint(len(df), d, spec.partitioner, args.engine)
    if hint:
        print(f"note: {hint}", file=sys.stderr)
    t0 = time.perf_counter()
    estimate = " (estimate: {} to {})".format(*map(duration, exact_seconds(len(df), d))) if hint else ""
    with heartbeat(estimate=estimate), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = release(df, spec)
        report = rel.report()
    print(f"done in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if rel.identifiers:
        print("withheld, neither masked nor released (identifiers, and columns named like a sampling weight; "
              "--identifiers or --sampling-weights to choose): "
              + "; ".join(f"{c} ({why})" for c, why in rel.identifiers.items()), file=sys.stderr)
    print_report(report, args.full)
    page = None
    if args.report:  # made before anything is written: a report that fails leaves no file behind
        data, data_args = _recipe_data(args, data_params)
        page = html_report(rel, data=data, data_args=data_args)
    if args.out:
        _write(rel, args)
    if page is not None:
        write_text(page, args.report)  # checked before the work, with --out
        print(f"report written to {args.report} (keep it private: it holds the shuffle's seed)", file=sys.stderr)
    return 0


def _spec(args) -> ReleaseSpec:
    """The release's specification from the command line: its options (``spec.cli_options``), the engine of
    ``--engine``, ``--block-size`` and ``--scheduler``, and ``--param`` typed by the registered parameters (a
    method's own ``seed`` goes to it, ``--seed`` being the shuffle's)."""
    params = _typed(_parse_params(args.param), args.method, args.aggregation)
    own = {kind: {n: params.pop(n) for n in [p.name for p in get_method(kind, name).params if p.name == "seed"]
                  if n in params} for kind, name in (("partition", args.method), ("aggregate", args.aggregation))}
    engine = Dask(args.out, args.scheduler, args.block_size, progress=True, force=args.force, encoding=args.encoding) \
        if args.engine == "dask" else Blocks(block_size=args.block_size) if args.engine == "blocks" else "memory"
    return ReleaseSpec.of(args.k, args.method, args.aggregation, own["partition"], own["aggregate"], engine=engine,
                          **cli_options(args), **params)


def _recipe_data(args, data_params: dict) -> tuple[str, list[str]]:
    """The Python expression and the command-line arguments that load the input again, for the report's recipe:
    the data set with its arguments, or the file with its encoding."""
    if args.dataset:
        given = "".join(f", {n}={v!r}" for n, v in data_params.items())
        return (f"ma.load_dataset({args.dataset!r}{given})",
                ["--dataset", args.dataset, *[a for n, v in data_params.items() for a in ("--data-param", f"{n}={v}")]])
    encoding = [] if args.encoding is None else ["--encoding", args.encoding]
    return (f"ma.read_csv({args.input!r}{'' if args.encoding is None else f', encoding={args.encoding!r}'}).data",
            ["--input", args.input, *encoding])


def print_report(report: pd.DataFrame, full: bool) -> None:
    """The report's overall rows, formatted (``--full``: every row and column), without the rows that hold a
    secret (``rows.public``: the noise seed, which undoes the noise, goes only into the private HTML report)."""
    shown = public(report)
    if full:
        with pd.option_context("display.max_colwidth", 80, "display.width", 160):
            print(tables.formatted(shown).to_string(index=False))
    else:
        print(tables.overall_text(shown))
        print(f"({len(shown)} rows with the per-attribute values, directions and sources: --full)")
    if len(shown) < len(report):
        print("(not printed: the noise seed, which undoes the noise; it is in the HTML report, --report, to keep "
              "private)")


def _run_dask(args, spec: ReleaseSpec, data_params: dict) -> int:
    """``run --engine dask``: the release as Parquet files in --out, dask's progress bar on stderr."""
    data = load_dataset(args.dataset, **data_params) if args.dataset else args.input
    print(f"microaggregating {args.input or args.dataset} with {spec.method} + {spec.aggregation} in blocks on Dask, "
          f"k = {spec.k} ...", file=sys.stderr)
    t0 = time.perf_counter()
    rel = release(data, spec)
    print(f"done in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    print_report(rel.report(), args.full)
    print(f"release written to {args.out} ({len(rel.files)} Parquet files)", file=sys.stderr)
    return 0


def cmd_reproduce(args) -> int:
    table = REPRODUCIBLE[args.what]()
    with pd.option_context("display.max_colwidth", 100, "display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False))
    print("\n" + summary(table))
    return 0


def cmd_datasets(args) -> int:
    print(list_datasets().to_string(index=False))
    return 0


def cmd_methods(args) -> int:
    for kind in ("partition", "aggregate"):
        print(f"{kind}:")
        for m in methods(kind):
            print(f"  {m.name:10s} {m.title} — {m.summary} [{m.source}]")
            for p in m.params:
                rng = p.describe_range()
                only = "".join(f" (only with {o}={' or '.join(map(repr, v))})" for o, v in p.only_with)
                print(f"      {p.name} = {p.default!r} {rng}: {p.help}{only}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="python -m microagg", description="Microaggregation for statistical disclosure control: "
                "k-anonymous releases of numeric microdata.")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="microaggregate a bundled data set or a CSV file and print the report",
                         epilog="Lists of names (--columns, --keep, --confidential, --nominal, --identifiers, --keys, "
                         "--strata; the categories of --ordinal, separated by '<') take any column or category "
                         "name: put a name holding a comma, '<', '=', a double quote or spaces at its ends in double "
                         "quotes, a double quote inside it written twice, as in a CSV file, e.g. --columns "
                         "'\"income, net\",age' or --ordinal 'band=\"<18\"<18 to 64<\">=65\"'.")
    run.add_argument("--dataset", help="bundled data set name (see 'datasets')")
    run.add_argument("--data-param", action="append", default=[], metavar="NAME=VALUE",
                     help="an argument of the data set, e.g. n=2000 or seed=1 for generators (repeatable)")
    run.add_argument("--input", help="CSV file with a header row; with --engine dask also Parquet files, a glob "
                     "pattern (quoted) or a directory")
    add_arguments(run)  # the release options (release.spec.OPTIONS), --k, --method, --aggregation, --param
    run.add_argument("--out", help="write the protected table to this CSV file (--engine dask: a new directory of "
                     "Parquet files); never the input, and not an existing file unless --force")
    run.add_argument("--report", help="also write the report as one self-contained HTML file (plots, recipe, "
                     "versions, seeds; keep it private); never the input, not an existing file unless --force")
    run.add_argument("--force", action="store_true", help="let --out or --report replace an existing file "
                     "(--engine dask: a previous release directory)")
    run.add_argument("--encoding", help="text encoding of --input CSV files (default UTF-8, with or without BOM), "
                     "e.g. latin-1 or cp1252")
    run.add_argument("--no-spreadsheet-safe", action="store_true", help="write text cells and column names "
                     "starting with = + - @ as they are (by default a quote is put before them so that "
                     "spreadsheets do not run them as a formula)")
    run.add_argument("--full", action="store_true", help="print every row of the report (per attribute, with "
                     "directions and sources), not only the overall values")
    run.add_argument("--engine", choices=ENGINES, default="memory", help=OPTION["engine"].help)
    run.add_argument("--block-size", type=int, help=f"records per block, at least 2k (default {DEFAULT_BLOCK_SIZE})")
    run.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (default: a LocalCluster "
                     "on this machine)")
    run.set_defaults(func=cmd_run)
    rep = sub.add_parser("reproduce", help="print a published table beside our values")
    rep.add_argument("what", choices=sorted(REPRODUCIBLE))
    rep.set_defaults(func=cmd_reproduce)
    sub.add_parser("datasets", help="list the bundled data sets and generators").set_defaults(func=cmd_datasets)
    sub.add_parser("methods", help="list methods, aggregations and their parameters").set_defaults(func=cmd_methods)
    return ap


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with Compiles(_say):  # says so on stderr when a kernel compiles (the first run on a machine)
            return args.func(args)
    except MicroaggError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. the disk filled up while writing: the atomic write left no partial file
        print(f"error: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}; nothing was written.",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted; nothing was written.", file=sys.stderr)
        return 130


__all__ = ["main", "build_parser"]
