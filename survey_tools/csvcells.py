"""CSV as the toolkit writes and reads it: cells a spreadsheet will not run, and the one reader.

Spreadsheet programs treat a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return as a formula (CSV injection). Every CSV writer in the toolkit passes text cells through
:func:`spreadsheet_safe`, which puts a single quote before such a cell, the neutralisation that
OWASP's CSV-injection guidance recommends; readers of our own CSV undo it with
:func:`from_spreadsheet_safe`, so an export read back by ``survey import csv`` round-trips.

Plain numbers (``-1``, ``+0.5``) are left alone: they are values, not formulas, and quoting them
would change what a spreadsheet or pandas reads.

Every CSV file the toolkit reads (a list for ``survey init`` and ``survey import csv``, the audit
file, a list of found candidates, an ASReview export, the order file an import keeps) is turned
into rows by :func:`read_csv_rows`: the header, then each row that has any text with the line it
starts on, so that a problem points into the user's file as ``file:line: field: message``.
:func:`csv_text` and :func:`read_capped` are the checks a CSV file's bytes get first.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from survey_tools.errors import InvalidInput, Problem, UsageError

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


# The csv module's own default: a larger cell is malformed CSV, unless a reader asks for more.
CELL_LIMIT = 131072


@dataclass(frozen=True)
class CsvRows:
    """A CSV text read: its first row, then each row that has any text, with its first line."""

    header: tuple[str, ...] | None  # None: the text has no row at all
    rows: tuple[tuple[int, list[str]], ...]
    # Text that is not CSV (an unclosed quote, a stray one when strict, a cell over the limit):
    # reading stops there, with one problem at the line of the row it is in.
    problems: tuple[Problem, ...] = ()


def read_csv_rows(
    text: str,
    label: str,
    delimiter: str = ",",
    strict: bool = True,
    cell_limit: int = CELL_LIMIT,
    max_rows: int | None = None,
) -> CsvRows:
    """The rows of a CSV text; rows whose cells are all blank are left out. ``strict``: a quote
    inside an unquoted cell is malformed (not silently merged into the cell). With ``max_rows``
    the read stops at the first row past it (the caller refuses the list at that row's line)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=strict)
    # the limit is process-wide in the csv module: set for this read, then put back
    old = csv.field_size_limit(cell_limit)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    problems: list[Problem] = []
    try:
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as err:
                problems.append(Problem(label, start, 0, "", f"malformed CSV: {err}"))
                break
            if header is None:
                header = row
            elif any(c.strip() for c in row):
                rows.append((start, row))
                if max_rows is not None and len(rows) > max_rows:
                    break
    finally:
        csv.field_size_limit(old)
    return CsvRows(None if header is None else tuple(header), tuple(rows), tuple(problems))


def read_capped(
    path: Path, label: str, limit: int, summary: str | None = None, line: int = 1
) -> bytes:
    """A file's bytes; one over ``limit`` is refused by its size, before it is read (the
    problem at ``line``, under ``summary``: each reader keeps the words its users see)."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise InvalidInput(
                [Problem(label, line, 0, "", f"file is {size:,} bytes; the limit is {limit:,}")],
                summary or f"{label} cannot be read",
            )
        return path.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None


def utf8_text(raw: bytes, label: str, summary: str | None = None) -> str:
    """A text file's bytes as text (UTF-8, a byte-order mark dropped); bytes that are not UTF-8
    are refused at their line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        bad = raw[err.start : err.start + 1].hex()
        raise InvalidInput(
            [Problem(label, line, 0, "", f"not valid UTF-8 (byte 0x{bad})")],
            summary or f"{label} cannot be read",
        ) from None


def csv_text(raw: bytes, label: str) -> str:
    """A CSV file's bytes as text (:func:`utf8_text`); NUL bytes are refused at their line."""
    text = utf8_text(raw, label)
    if "\x00" in text:
        raise InvalidInput(
            [
                Problem(
                    label,
                    text[: text.index("\x00")].count("\n") + 1,
                    0,
                    "",
                    "contains NUL bytes; not a text CSV file",
                )
            ],
            f"{label} cannot be read",
        )
    return text
