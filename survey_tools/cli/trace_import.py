"""``survey trace import``: agent-system logs to orchestration traces.

A module of its own, which the ``trace`` group loads only for this command (its framework rules
are read and compiled when :mod:`survey_tools.traces.importers.frameworks` loads).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from survey_tools.cli.trace_options import limits_of as _limits
from survey_tools.cli.trace_options import size_options as _size_options
from survey_tools.errors import (
    EXIT_INVALID,
    EXIT_OK,
    InvalidInput,
    Problem,
    SurveyError,
    UsageError,
)
from survey_tools.traces.importers import FORMATS, IMPORTERS, convert, frameworks
from survey_tools.traces.limits import DEFAULT_MAX_SPANS, Limits

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


@click.command("import", help=_IMPORT_HELP)
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
    max_events: int,
) -> None:
    extra = _user_rules(rules_files)
    with frameworks.using(extra, explain=explain):
        failed, paths = _import_all(
            fmt,
            inputs,
            output,
            keep_content,
            check,
            replace(_limits(max_bytes, max_string_bytes, max_events), max_spans=max_spans),
        )
    sys.exit(EXIT_INVALID if failed else EXIT_OK)


def _user_rules(files: tuple[Path, ...]) -> tuple[frameworks.Rule, ...]:
    """The rows of the --rules files; every problem of every file at once."""
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


COMMAND = import_cmd
