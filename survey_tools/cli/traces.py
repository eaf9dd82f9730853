"""``survey trace ...`` commands: schema, validate, metrics, import.

Each command parses options and calls the library (:mod:`survey_tools.traces`).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from survey_tools.cli.common import report
from survey_tools.errors import (
    EXIT_INVALID,
    EXIT_OK,
    InvalidInput,
    Problem,
    SurveyError,
    UsageError,
)
from survey_tools.fileio import atomic_write
from survey_tools.traces.batch import (
    METRICS_FORMATS,
    expand_inputs,
    metrics_run,
    parquet_metrics,
    render_json,
)
from survey_tools.traces.importers import FORMATS, IMPORTERS
from survey_tools.traces.limits import DEFAULT_MAX_SPANS, Limits, parse_size
from survey_tools.traces.problems import TraceReport
from survey_tools.traces.schema import schema_text
from survey_tools.traces.survey_v1 import PROFILES, check_file_v1, export_v1
from survey_tools.traces.validate import check_file

if TYPE_CHECKING:
    from survey_tools.traces.importers import frameworks

_LIMIT_HELP = "Problems kept per trace (0 = all); the count always covers all of them."


class _Size(click.ParamType):
    """A byte count: 600M, 1G, 100000 (K, M, G are powers of 1024)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value

        try:
            return parse_size(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)


def _size_options(f: Any) -> Any:
    f = click.option(
        "--max-string-bytes",
        type=_Size(),
        default="16M",
        show_default=True,
        help="Refuse a file holding one JSON string longer than this.",
    )(f)
    return click.option(
        "--max-bytes",
        type=_Size(),
        default="512M",
        show_default=True,
        help="Refuse a file larger than this (K, M, G suffixes), before reading it.",
    )(f)


def _limits(max_bytes: int, max_string_bytes: int) -> Any:

    return Limits(max_bytes=max_bytes, max_string_bytes=max_string_bytes)


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
    else:
        atomic_write(out, text)


def _progress_wanted(flag: bool | None, n: int) -> bool:
    if flag is not None:
        return flag and n > 1
    return n > 1 and sys.stderr.isatty()


@click.group()
def trace() -> None:
    """Validate and measure run traces of LLM agent systems (independent of the survey)."""


@trace.command("schema")
def schema_cmd() -> None:
    """Print the trace JSON Schema (Draft 2020-12)."""

    click.echo(schema_text(), nl=False)


@trace.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--max-problems", type=click.IntRange(min=0), default=1000, show_default=True, help=_LIMIT_HELP
)
@click.option(
    "--profile",
    type=click.Choice(list(PROFILES)),
    default="toolkit",
    show_default=True,
    help="toolkit: our schema and graph rules; survey-v1: the survey artifact's trace "
    "format (our stricter rules become warnings). docs/trace-formats.md compares them.",
)
@_size_options
def validate_cmd(
    files: tuple[Path, ...],
    fmt: str,
    max_problems: int,
    profile: str,
    max_bytes: int,
    max_string_bytes: int,
) -> None:
    """Check traces against the schema and the graph rules; exit 1 if any is invalid.

    FILES may be trace files or folders (their *.json files).
    """

    paths = expand_inputs(files)
    limits = _limits(max_bytes, max_string_bytes)
    if profile == "survey-v1":
        reports = [check_file_v1(p, limit=max_problems, limits=limits) for p in paths]
    else:
        reports = [check_file(p, limit=max_problems, limits=limits)[0] for p in paths]
    bad = [r for r in reports if not r.ok]
    report(reports, fmt, json=_validated_json, text=_validated_text)
    sys.exit(EXIT_INVALID if bad else EXIT_OK)


def _validated_json(reports: list[TraceReport]) -> None:
    bad = [r for r in reports if not r.ok]
    click.echo(
        render_json(
            {
                "ok": not bad,
                "checked": len(reports),
                "invalid": len(bad),
                "traces": [r.to_dict() for r in reports],
            }
        ),
        nl=False,
    )


def _validated_text(reports: list[TraceReport]) -> None:
    for r in reports:
        for p in r.sorted():
            click.echo(p.format())
        for p in r.sorted_warnings():
            click.echo(f"{p.format()} (warning)")
        if r.warning_total > len(r.warnings):
            click.echo(f"{r.file}: … {r.warning_total - len(r.warnings)} more warning(s)")
        if r.omitted:
            click.echo(
                f"{r.file}: … {r.omitted} more problem(s) not shown (--max-problems 0 shows all)"
            )
    total = sum(r.total for r in reports)
    warned = sum(r.warning_total for r in reports)
    invalid = sum(1 for r in reports if not r.ok)
    click.echo(
        f"{len(reports)} trace(s) checked, {invalid} invalid, {total} problem(s)"
        + (f", {warned} warning(s)" if warned else ""),
        err=True,
    )


@trace.command("metrics")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(METRICS_FORMATS)),
    default="table",
    show_default=True,
    help="json: one object (an array for several traces); jsonl: one line per trace; "
    "parquet: one row per trace, invalid ones included, written in batches (needs -o and "
    "the [scale] extra).",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="parquet only: ray computes the rows with Ray Data across processes.",
)
@click.option(
    "--ray-address",
    metavar="ADDRESS",
    help="A running Ray cluster (e.g. auto, ray://head:10001); default: a local one.",
)
@click.option(
    "--ray-cpus",
    type=click.IntRange(min=1),
    help="CPUs of the local Ray cluster (default: all of this machine's).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (atomically) instead of to standard output.",
)
@click.option(
    "--max-taint-paths",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Taint paths listed per trace (all are counted).",
)
@click.option(
    "--max-problems", type=click.IntRange(min=0), default=20, show_default=True, help=_LIMIT_HELP
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on standard error (default: when it is a terminal).",
)
@_size_options
def metrics_cmd(
    files: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    max_taint_paths: int,
    max_problems: int,
    progress: bool | None,
    engine: str,
    ray_address: str | None,
    ray_cpus: int | None,
    max_bytes: int,
    max_string_bytes: int,
) -> None:
    """Compute orchestration metrics of traces (one row per trace for several).

    FILES may be trace files, folders (their *.json files) or quoted glob patterns
    ('runs/**/*.json'). An invalid trace is reported on standard error and skipped
    (in Parquet: a row with valid = false); the exit code is then 1.
    """
    paths = expand_inputs(files)
    limits = _limits(max_bytes, max_string_bytes)
    if fmt == "parquet":
        run = parquet_metrics(
            paths, output, engine=engine, limits=limits, ray_address=ray_address, ray_cpus=ray_cpus
        )
    elif engine != "local":
        raise UsageError("--engine ray is for --format parquet")
    else:
        run = metrics_run(
            paths,
            fmt,
            single=len(files) == 1 and len(paths) == 1 and not files[0].is_dir(),
            limit=max_problems,
            max_taint_paths=max_taint_paths,
            limits=limits,
            progress=_progress_wanted(progress, len(paths)),
            to_file=output is not None,
        )
    if run.text is not None:
        _emit(run.text, output)
    for line in run.messages:
        click.echo(line, err=True)
    raise click.exceptions.Exit(EXIT_INVALID if run.failed else EXIT_OK)


_IMPORT_HELP = (
    "Turn agent-system logs into orchestration traces (docs/trace-formats.md).\n\n"
    "Each trace is validated before it is written (by default up to 250,000 events; "
    "--check for any size); an input that cannot be imported is reported and skipped, "
    "and the exit code is then 1.\n\n"
    "FORMAT is one of:\n\n\b\n"
    + "\n".join(
        f"  {name:<15}{line}"
        for name, line in [
            ("auto", "tell the format from the file's start"),
            *((imp.name, imp.summary) for imp in IMPORTERS),
        ]
    )
)


@trace.command("import", help=_IMPORT_HELP)
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(FORMATS)))
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="A file for one trace, a folder for several inputs or an input holding several "
    "traces (default: standard output for one).",
)
@click.option(
    "--keep-content",
    is_flag=True,
    help="Copy raw message text into the trace (who-and-when; for local use only).",
)
@click.option(
    "--check/--no-check",
    default=None,
    help="Re-validate each written trace (default: for traces of up to 250,000 events).",
)
@click.option(
    "--max-spans",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_SPANS,
    show_default=True,
    help="Refuse an input holding more spans than this, before they become records.",
)
@click.option(
    "--rules",
    "rules_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file of your own framework rules (the shape of the toolkit's rules.yaml, "
    "docs/trace-formats.md), tried before the toolkit's; may be given more than once.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Say, for each span, what it became (agent, tool call, delegation, folded, "
    "generic) and by which rule.",
)
@_size_options
def import_cmd(
    fmt: str,
    inputs: tuple[Path, ...],
    output: Path | None,
    keep_content: bool,
    check: bool | None,
    max_spans: int,
    rules_files: tuple[Path, ...],
    explain: bool,
    max_bytes: int,
    max_string_bytes: int,
) -> None:
    # Imported here: the framework rules (rules.yaml, read and checked when the module loads,
    # about 0.12 s) are for `trace import` alone, not for validate or metrics.
    from survey_tools.traces.importers import frameworks

    extra = _user_rules(rules_files)
    with frameworks.using(extra, explain=explain):
        failed, paths = _import_all(
            fmt,
            inputs,
            output,
            keep_content,
            check,
            replace(_limits(max_bytes, max_string_bytes), max_spans=max_spans),
        )
    sys.exit(EXIT_INVALID if failed else EXIT_OK)


def _user_rules(files: tuple[Path, ...]) -> tuple[frameworks.Rule, ...]:
    """The rows of the --rules files; every problem of every file at once."""
    from survey_tools.traces.importers import frameworks

    rows: list[frameworks.Rule] = []
    problems: list[Problem] = []
    for f in files:
        if not f.is_file():
            raise UsageError(f"--rules {f}: no such file")
        try:
            rows.extend(frameworks.load_rules(f.read_text(encoding="utf-8"), str(f)))
        except InvalidInput as err:
            problems.extend(err.problems)
        except UnicodeDecodeError:
            problems.append(Problem(str(f), 0, 0, "", "not UTF-8 text"))
    if problems:
        for prob in sorted(set(problems)):
            click.echo(prob.format(), err=True)
        raise click.exceptions.Exit(EXIT_INVALID)
    return tuple(rows)


def _import_all(
    fmt: str,
    inputs: tuple[Path, ...],
    output: Path | None,
    keep_content: bool,
    check: bool | None,
    limits: Limits,
) -> tuple[int, list[Path]]:
    from survey_tools.traces.importers import convert  # (with the framework rules)

    paths = [p for p in inputs]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UsageError("no such file: " + ", ".join(missing))
    if len(paths) > 1 and output is None:
        raise UsageError("several inputs need -o FOLDER")
    if len(paths) > 1 and output is not None and output.exists() and not output.is_dir():
        raise UsageError(f"-o {output}: several inputs need a folder, not a file")
    failed = 0
    folder = output is not None and (len(paths) > 1 or output.is_dir())
    for p in paths:
        try:
            notes = convert.import_to(
                fmt,
                p,
                output,
                keep_content=keep_content,
                check=check,
                limits=limits,
                folder=folder,
            )
        except SurveyError as err:
            failed += 1
            problems = getattr(err, "report", None)
            if problems is not None:
                for prob in problems.sorted()[:20]:
                    click.echo(prob.format(), err=True)
            click.echo(f"{p}: not imported: {err}", err=True)
            continue
        for note in notes:
            click.echo(f"{p}: {note}", err=True)
    if len(paths) > 1:
        click.echo(
            f"import: {len(paths)} input(s), {len(paths) - failed} imported, {failed} failed",
            err=True,
        )
    return failed, paths


@trace.command("export")
@click.argument("trace_file", metavar="TRACE", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--profile",
    type=click.Choice(["survey-v1"]),
    default="survey-v1",
    show_default=True,
    help="The format to write: survey-v1, the survey artifact's trace format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (atomically) instead of to standard output.",
)
@_size_options
def export_cmd(
    trace_file: Path, profile: str, output: Path | None, max_bytes: int, max_string_bytes: int
) -> None:
    """Write a valid trace in another profile's format, listing what does not carry over.

    The trace must pass `survey trace validate`; what the target format has no place for
    is named on standard error (docs/trace-formats.md).
    """

    if not trace_file.is_file():
        raise UsageError(f"no such file: {trace_file}")
    try:
        result = export_v1(trace_file, limits=_limits(max_bytes, max_string_bytes))
    except SurveyError as err:
        problems = getattr(err, "report", None)
        if problems is not None:
            for prob in problems.sorted()[:20]:
                click.echo(prob.format(), err=True)
        click.echo(f"{trace_file}: not exported: {err}", err=True)
        sys.exit(EXIT_INVALID)
    data = result.to_bytes()
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        atomic_write(output, data)
    for note in result.notes:
        click.echo(f"{trace_file}: {profile}: {note}", err=True)
    sys.exit(EXIT_OK)


COMMANDS = (trace,)
