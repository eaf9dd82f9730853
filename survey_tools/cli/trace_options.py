"""Options the ``survey trace`` commands share (``trace import`` lives in a module of its own)."""

from __future__ import annotations

from typing import Any

import click

from survey_tools.traces.limits import Limits, parse_size


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
    """The --max-bytes and --max-string-bytes options of the trace commands."""
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


def limits_of(max_bytes: int, max_string_bytes: int) -> Any:
    return Limits(max_bytes=max_bytes, max_string_bytes=max_string_bytes)
