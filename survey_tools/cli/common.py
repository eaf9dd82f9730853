"""What every command module shares: the survey folder, the output options and JSON output.

Errors are not handled here: commands let :class:`~survey_tools.errors.SurveyError` rise, and
the ``survey`` group (:mod:`survey_tools.cli`) turns it into a message and an exit code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from survey_tools.errors import InvalidInput, SurveyError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Context:
    root: Path


def root_of(ctx: click.Context) -> Path:
    """The survey folder given by ``survey --root`` (the current folder by default)."""
    obj = ctx.find_object(Context)
    return obj.root if obj is not None else Path(".")


def output_format(*choices: str, default: str = "text") -> Callable[[F], F]:
    """The ``--format`` option (text for people, json for machines, unless told otherwise)."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices or ("text", "json"))),
        default=default,
        show_default=True,
        help="Output for people (text) or machines (json).",
    )


def echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


# A command's output format: a function that prints the command's result.
Reporter = Callable[[Any], None]


def print_json(result: Any) -> None:
    """The json format of every command: the result's ``to_dict()`` (or the value itself)."""
    echo_json(result.to_dict() if hasattr(result, "to_dict") else result)


def printed(render: Callable[[Any], str]) -> Reporter:
    """A reporter that prints the text ``render`` makes of the result."""
    return lambda result: click.echo(render(result), nl=False)


def report(result: Any, fmt: str, **reporters: Reporter) -> None:
    """Print ``result`` in the format ``fmt`` of the command's ``--format``: one reporter per
    format (text for people, and md, table, ...), json the result's own unless given."""
    chosen: dict[str, Reporter] = {"json": print_json, **reporters}
    chosen[fmt](result)


def report_error(err: SurveyError) -> int:
    """Print a library error as lines on stderr (no traceback); return its exit code."""
    if isinstance(err, InvalidInput):
        for p in err.problems:
            click.echo(p.format(), err=True)
    click.echo(f"error: {err}", err=True)
    return err.exit_code


def fail(err: SurveyError) -> None:
    """Report ``err`` and exit with its code (for commands that must stop mid-way)."""
    sys.exit(report_error(err))

