"""The options of a command that reads a list (survey init, survey import csv): the bounds the list
readers hold it to (adopt.table.ReadLimits), each message of a reader naming the option that
raises its bound."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from survey_tools.adopt.table import MAX_ENTRIES, MAX_MARKUP, MAX_SOURCE_BYTES, ReadLimits, limited


def list_limits(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--max-bytes``, ``--max-entries`` and ``--max-markup`` on a command that reads a list (init,
    import csv): the command runs with the list readers held to them (adopt.table.ReadLimits)."""

    @functools.wraps(f)
    def run(*args: Any, max_bytes: int, max_entries: int, max_markup: int, **kw: Any) -> Any:
        with limited(
            ReadLimits(max_bytes=max_bytes, max_entries=max_entries, max_markup=max_markup)
        ):
            return f(*args, **kw)

    for option in (
        click.option(
            "--max-markup",
            type=click.IntRange(min=1),
            default=MAX_MARKUP,
            show_default=True,
            help="A Markdown list's emphasis, code and link marks per line (the file: 500 times this).",
        ),
        click.option(
            "--max-entries",
            type=click.IntRange(min=1),
            default=MAX_ENTRIES,
            show_default=True,
            help="Rows or entries a list may hold.",
        ),
        click.option(
            "--max-bytes",
            type=click.IntRange(min=1),
            default=MAX_SOURCE_BYTES,
            show_default=True,
            help="A list file's size, and what a workbook's parts unpack to together.",
        ),
    ):
        run = option(run)
    return run
