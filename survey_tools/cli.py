"""The ``survey`` command: a thin layer that parses options and calls the library.

Heavy libraries (pandas, matplotlib) are imported inside the commands that need them,
so that ``survey validate`` starts fast.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from survey_tools.errors import EXIT_INVALID, EXIT_USAGE, InvalidInput, Problem, SurveyError


@dataclass(frozen=True)
class Context:
    root: Path


def emit_problems(problems: list[Problem]) -> None:
    for p in problems:
        click.echo(p.format(), err=False)


def fail(err: SurveyError) -> None:
    """Print a library error as a message (no traceback) and exit with its code."""
    if isinstance(err, InvalidInput):
        for p in err.problems:
            click.echo(p.format(), err=True)
    click.echo(f"error: {err}", err=True)
    sys.exit(err.exit_code)


def echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Survey folder (holds taxonomy/, corpus/, exclusions/, reports/).",
)
@click.version_option(package_name="survey-tools")
@click.pass_context
def cli(ctx: click.Context, root: Path) -> None:
    """Validate, measure and publish a curated literature corpus."""
    ctx.obj = Context(root=root)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except SurveyError as err:  # pragma: no cover - commands catch their own
        fail(err)


# Sub-command groups live beside the library stage they drive; each keeps its heavy
# imports inside its commands so that registering it here costs nothing.
from survey_tools.traces.cli import trace  # noqa: E402

cli.add_command(trace)

__all__ = ["cli", "main", "Context", "fail", "echo_json", "emit_problems", "EXIT_INVALID", "EXIT_USAGE"]
