"""The one shape every list is read into: a table of named columns and rows, each row with the line
it starts on, so that problems point into the user's file; and the limits every reader holds a
list to (size, columns, cell length), so a wrong file is refused before it costs memory."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from survey_tools.csvcells import read_capped, utf8_text
from survey_tools.errors import InvalidInput, Problem

# Limits on what a source list may be: generous for any real list, small enough that a wrong
# file (a database dump, a binary) is refused before it costs memory.
MAX_SOURCE_BYTES = 50 * 1024 * 1024
# What a reader may build from those bytes (a workbook's parts unpacked, rows, Markdown markup):
# a small file can expand a thousandfold, so the bound is on what is made, not only on what is read.
MAX_ENTRIES = 100_000
MAX_MARKUP = 1_000


@dataclass(frozen=True)
class ReadLimits:
    """The bounds every list reader holds a list to; ``survey init`` and ``survey import csv``
    raise them with ``--max-bytes``, ``--max-entries`` and ``--max-markup``."""

    max_bytes: int = MAX_SOURCE_BYTES  # the file, and what a workbook's parts unpack to together
    max_entries: int = MAX_ENTRIES  # rows, entries, list items
    max_markup: int = MAX_MARKUP  # per Markdown line: emphasis/bracket delimiters, nesting levels


_DEFAULT_LIMITS = ReadLimits()
_LIMITS: ContextVar[ReadLimits | None] = ContextVar("list_read_limits", default=None)


def read_limits() -> ReadLimits:
    """The limits of the read under way (the defaults unless :func:`limited` set others)."""
    return _LIMITS.get() or _DEFAULT_LIMITS


@contextmanager
def limited(limits: ReadLimits) -> Iterator[None]:
    """Read lists under ``limits`` within the block (the command's options)."""
    token = _LIMITS.set(limits)
    try:
        yield
    finally:
        _LIMITS.reset(token)


def too_many(label: str, line: int, what: str) -> InvalidInput:
    """The refusal of a list holding more than ``max_entries`` of ``what`` (rows, entries)."""
    n = read_limits().max_entries
    return InvalidInput([Problem(label, line, 0, "", f"more than {n:,} {what}; the limit is {n:,} "
                                 "(--max-entries raises it)")], "the list is too long")


MAX_COLUMNS = 500


MAX_CELL_CHARS = 100_000


Cell = str | tuple[str, ...]


@dataclass(frozen=True)
class Row:
    line: int
    cells: Mapping[str, Cell]


@dataclass(frozen=True)
class Table:
    """A list read from a file: columns in the order the file first uses them."""

    file: str  # the name problems are reported under
    format: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    warnings: tuple[str, ...] = ()
    # Columns the format itself marks as holding lists (YAML/JSON arrays, BibTeX authors).
    list_columns: frozenset[str] = frozenset()
    title: str = ""  # a title the file gives itself (an awesome list's first heading)
    description: str = ""  # and the sentence under it
    # Values of a column in the order the file introduces them (an awesome list's headings).
    value_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The list's own words outside its entries, as written: ("", introduction) first, then
    # (heading, Markdown body) of each part (how to cite, licence); a Markdown list's only.
    prose: tuple[tuple[str, str], ...] = ()


def name_header(header: Sequence[str]) -> tuple[list[str], list[str]]:
    """Column names a user can type: a blank header becomes ``column N``, a repeated one gets
    `` (2)``; each change is a warning naming the column by its position."""
    names: list[str] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for i, raw in enumerate(header, start=1):
        name = " ".join(raw.split())
        if not name:
            name = f"column {i}"
            warnings.append(f"column {i} has no header: it is named {name!r}")
        if name in seen:
            n = 2
            while f"{name} ({n})" in seen:
                n += 1
            warnings.append(f"column {i} repeats the header {name!r}: it is named {name + f' ({n})'!r}")
            name = f"{name} ({n})"
        seen.add(name)
        names.append(name)
    return names, warnings


def check_columns(label: str, columns: Sequence[str]) -> None:
    if len(columns) > MAX_COLUMNS:
        raise InvalidInput([Problem(label, 1, 0, "", f"{len(columns):,} columns; the limit is {MAX_COLUMNS}")],
                           "too many columns for a list of entries")


def check_cells(label: str, rows: Iterable[Row]) -> None:
    problems = []
    for row in rows:
        for col, cell in row.cells.items():
            size = len(cell) if isinstance(cell, str) else sum(len(c) for c in cell)
            if size > MAX_CELL_CHARS:
                problems.append(Problem(label, row.line, 0, col, f"cell of {size:,} characters; the limit is {MAX_CELL_CHARS:,}"))
    if problems:
        raise InvalidInput(problems, "cells too large to be entries")


def filled(cell: Cell) -> bool:
    return bool(cell.strip()) if isinstance(cell, str) else any(c.strip() for c in cell)


def read_text(path: Path, label: str) -> str:
    """A list file's text: refused by its size before it is read, then if binary (a NUL byte),
    not UTF-8 or empty, each with the line where that shows."""
    raw = read_capped(path, label, read_limits().max_bytes, "the list is too large to be a list of entries", line=0)
    if b"\x00" in raw:
        raise InvalidInput([Problem(label, raw[: raw.index(b"\x00")].count(b"\n") + 1, 0, "",
                                    "contains NUL bytes: a binary file, not a list")], "not a text file")
    text = utf8_text(raw, label, "not a UTF-8 text file")
    if not text.strip():
        raise InvalidInput([Problem(label, 1, 0, "", "the file is empty")], "nothing to read")
    return text


def grouped_header(header: Sequence[str], found: Sequence[tuple[int, Sequence[str]]]) -> str:
    """The group names of a first row that only groups the columns of the real header below it
    (a few labels over blank cells, above a row naming nearly every column, each once); ""
    otherwise. One rule for every table a list is kept in: an Excel sheet, CSV, TSV."""
    if not found or found[0][0] != 2 or not header:
        return ""
    named = [h for h in header if h.strip()]
    below = [c for c in found[0][1] if c.strip()]
    width = max(len(header), len(found[0][1]))
    if len(named) * 2 > width or len(below) * 5 < width * 4 or len(set(below)) != len(below):
        return ""
    return ", ".join(named)


def grouped_warning(label: str, grouped: str) -> str:
    return f"{label}: row 1 groups the columns ({grouped}); the header is row 2"
