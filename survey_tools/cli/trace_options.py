"""Options the ``survey trace`` commands share (``trace import`` lives in a module of its own)."""

from __future__ import annotations

from typing import Any

import click

from survey_tools.traces.limits import DEFAULT_MAX_EVENTS, Limits, parse_size


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


def size_options(f: Any) -> Any:
    """The --max-bytes, --max-string-bytes and --max-events options of the trace commands."""
    f = click.option(
        "--max-events",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_EVENTS,
        show_default=True,
        help="Refuse a trace holding more events (or more edges) than this, before they are decoded.",
    )(f)
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


def limits_of(max_bytes: int, max_string_bytes: int, max_events: int = DEFAULT_MAX_EVENTS) -> Any:
    return Limits(max_bytes=max_bytes, max_string_bytes=max_string_bytes, max_events=max_events)
