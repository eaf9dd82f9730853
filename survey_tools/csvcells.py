"""CSV cells that a spreadsheet will not run.

Spreadsheet programs treat a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula (CSV injection). Every CSV writer in the toolkit passes text cells through
:func:`spreadsheet_safe`, which puts a single quote before such a cell, the neutralisation that
OWASP's CSV-injection guidance recommends; readers of our own CSV undo it with
:func:`from_spreadsheet_safe`, so an export read back by ``survey import csv`` round-trips.

Plain numbers (``-1``, ``+0.5``) are left alone: they are values, not formulas, and quoting them
would change what a spreadsheet or pandas reads.
"""

from __future__ import annotations

import re

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def needs_quote(cell: str) -> bool:
    """Whether a spreadsheet would read ``cell`` as a formula."""
    return cell.startswith(_TRIGGERS) and _NUMBER.fullmatch(cell) is None


def spreadsheet_safe(cell: str) -> str:
    """``cell`` as text a spreadsheet shows as written (a leading ``'`` where it would run it)."""
    return "'" + cell if needs_quote(cell) else cell


def from_spreadsheet_safe(cell: str) -> str:
    """Undo :func:`spreadsheet_safe`: a cell ``'=...`` written by it reads back as ``=...``."""
    if cell.startswith("'") and needs_quote(cell[1:]):
        return cell[1:]
    return cell
