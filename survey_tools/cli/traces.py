"""``survey trace ...`` commands: schema, validate, metrics, import.

Each command parses options and calls the library (:mod:`survey_tools.traces`).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click

from survey_tools.cli.common import report
from survey_tools.cli.trace_options import limits_of as _limits
from survey_tools.cli.trace_options import size_options as _size_options
from survey_tools.errors import EXIT_INVALID, EXIT_OK, SurveyError, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.traces.batch import (
    METRICS_FORMATS,
    expand_inputs,
    metrics_run,
    parquet_metrics,
    render_json,
)
from survey_tools.traces.problems import TraceReport
from survey_tools.traces.schema import schema_text
from survey_tools.traces.survey_v1 import PROFILES, check_file_v1, export_v1
from survey_tools.traces.validate import check_file

_LIMIT_HELP = "Problems kept per trace (0 = all); the count always covers all of them."


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
    else:
        atomic_write(out, text)


def _progress_wanted(flag: bool | None, n: int) -> bool:
    if flag is not None:
        return flag and n > 1
    return n > 1 and sys.stderr.isatty()


class _TraceGroup(click.Group):
    """``survey trace``: its ``import`` command lives in :mod:`survey_tools.cli.trace_import`,
    loaded only when it is asked for (as the root group loads each command's module): the
    framework rules it needs are read and compiled when their module loads (0.11-0.13 s), which
    ``trace validate`` and ``trace metrics`` should not pay for."""

    _LAZY = {"import": "survey_tools.cli.trace_import"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = self._LAZY.get(cmd_name)
        if module is not None:
            found: click.Command = importlib.import_module(module).COMMAND
            return found
        return super().get_command(ctx, cmd_name)


@click.group(cls=_TraceGroup)
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
    max_events: int,
) -> None:
    """Check traces against the schema and the graph rules; exit 1 if any is invalid.

    FILES may be trace files or folders (their *.json files).
    """

    paths = expand_inputs(files)
    limits = _limits(max_bytes, max_string_bytes, max_events)
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
    max_events: int,
) -> None:
    """Compute orchestration metrics of traces (one row per trace for several).

    FILES may be trace files, folders (their *.json files) or quoted glob patterns
    ('runs/**/*.json'). An invalid trace is reported on standard error and skipped
    (in Parquet: a row with valid = false); the exit code is then 1.
    """
    paths = expand_inputs(files)
    limits = _limits(max_bytes, max_string_bytes, max_events)
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
    trace_file: Path,
    profile: str,
    output: Path | None,
    max_bytes: int,
    max_string_bytes: int,
    max_events: int,
) -> None:
    """Write a valid trace in another profile's format, listing what does not carry over.

    The trace must pass `survey trace validate`; what the target format has no place for
    is named on standard error (docs/trace-formats.md).
    """

    if not trace_file.is_file():
        raise UsageError(f"no such file: {trace_file}")
    try:
        result = export_v1(trace_file, limits=_limits(max_bytes, max_string_bytes, max_events))
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
