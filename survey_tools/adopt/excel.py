"""Excel workbooks read into rows: the one reader of survey init's lists and ASReview's exports.

A module of its own, light to import: `survey screen import-labels` reads LAB's Excel exports
through it without loading the other list readers (Markdown, TeX decoding); `read_xlsx` makes
the rows a list's :class:`~survey_tools.adopt.table.Table` for `survey init`.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from survey_tools.adopt.table import (
    MAX_COLUMNS,
    MAX_SOURCE_BYTES,
    Row,
    Table,
    check_cells,
    check_columns,
    grouped_header,
    grouped_warning,
    name_header,
    read_limits,
    too_many,
)
from survey_tools.errors import InvalidInput, Problem
from survey_tools.extras import require_extra


def xlsx_rows(
    path: Path, label: str, limit: int | None, rows: int | None = None
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The one Excel reader (survey init, survey screen import-labels): the first sheet's first
    row, then each row with any text and its row number; numbers as the sheet shows them (2021,
    not 2021.0), dates as ISO. A workbook over ``limit`` bytes is refused before it is opened;
    one of more than ``rows`` rows (default: --max-entries when ``limit`` is given) at the first
    row past it."""
    # openpyxl (the [spreadsheets] extra's; [screening] has it too) is loaded for this format only
    openpyxl = require_extra("spreadsheets", "openpyxl")

    try:
        if limit is not None and path.stat().st_size > limit:
            raise InvalidInput(
                [Problem(label, 0, 0, "", f"file is larger than {limit:,} bytes")],
                "the list is too large to be a list of entries",
            )
        # A list (``limit`` given) is held to what it may unpack to; an ASReview export (no
        # limit, as for its CSV) only to having no DOCTYPE.
        _check_parts(path, label, read_limits().max_bytes if limit is not None else None)
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, SyntaxError) as err:
        # SyntaxError: xml.etree's ParseError (a part that is not XML)
        raise InvalidInput(
            [Problem(label, 1, 0, "", f"not an Excel workbook: {err}")], "not a workbook"
        ) from None
    try:
        most = rows if rows is not None else read_limits().max_entries if limit is not None else None
        return _sheet_rows(wb, label, most)
    except (zipfile.BadZipFile, KeyError, ValueError, SyntaxError) as err:
        raise InvalidInput(
            [Problem(label, 1, 0, "", f"not a readable Excel workbook: {err}")], "not a workbook"
        ) from None
    finally:
        wb.close()


def _sheet_rows(wb: Any, label: str, limit: int | None) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The first sheet's rows, streamed: refused at the first row past ``limit`` (None: none) or
    wider than MAX_COLUMNS, before the rest is expanded."""
    it = wb.worksheets[0].iter_rows(values_only=True)
    header = [_xlsx_cell(v) for v in next(it, ())]
    rows = []
    for n, values in enumerate(it, start=2):
        if limit is not None and n > limit + 1:
            raise too_many(label, n, "rows")
        if len(values) > MAX_COLUMNS:
            raise InvalidInput([Problem(label, n, 0, "", f"row {n} has {len(values):,} columns; the limit is "
                                        f"{MAX_COLUMNS}")], "too many columns for a list of entries")
        cells = [_xlsx_cell(v) for v in values]
        if any(c.strip() for c in cells):
            rows.append((n, cells))
    return header, rows


# The part of an XML file before its first element: where a DOCTYPE (and its entities) sits.
_ELEMENT = re.compile(rb"<[A-Za-z_]")
_CHUNK = 1 << 16


def _check_parts(path: Path, label: str, max_bytes: int | None) -> None:
    """A workbook is a zip of XML parts: refused when the parts unpack to more than
    ``max_bytes`` together (their sizes as the zip states them, which the zip reader holds
    them to) or when a part declares a DOCTYPE (entity expansion, external entities): a
    workbook never has one. Checked before openpyxl expands anything."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        total = sum(i.file_size for i in infos)
        if max_bytes is not None and total > max_bytes:
            big = max(infos, key=lambda i: i.file_size)
            raise InvalidInput([Problem(label, 0, 0, "", f"the workbook's parts unpack to {total:,} bytes "
                                        f"({big.filename}: {big.file_size:,}); the limit is {max_bytes:,} "
                                        "(--max-bytes raises it)")], "the list is too large to be a list of entries")
        for info in infos:
            if info.filename.endswith((".xml", ".rels", ".vml")) and _declares_doctype(z, info):
                raise InvalidInput([Problem(label, 0, 0, "", f"{info.filename} declares a DOCTYPE (entities a "
                                            "workbook never has: an entity bomb or an external file); "
                                            "save the workbook again from a spreadsheet program")],
                                   "not a workbook")


def _declares_doctype(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    with z.open(info) as f:
        prolog = b""
        while chunk := f.read(_CHUNK):
            prolog += chunk
            m = _ELEMENT.search(prolog)
            if m is not None:
                return b"<!DOCTYPE" in prolog[: m.start()].upper() or b"<!ENTITY" in prolog[: m.start()].upper()
            prolog = prolog[-16:] if b"<!" not in prolog else prolog
    return b"<!DOCTYPE" in prolog.upper()


def _xlsx_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):  # as the boolean type reads it (str() would give "True")
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") else text
    return str(value)


def read_xlsx(path: Path, label: str) -> Table:
    """The first sheet of an Excel workbook as a table: its first row the header."""
    header, found = xlsx_rows(path, label, MAX_SOURCE_BYTES)
    grouped = grouped_header(header, found)
    if grouped:
        header, found = found[0][1], found[1:]
    check_columns(label, header)
    names, warnings = name_header(header)
    if grouped:
        warnings.insert(0, grouped_warning(label, grouped))
    if not names:
        raise InvalidInput([Problem(label, 1, 0, "", "the first sheet is empty")], "nothing to read")
    rows = [Row(n, {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(names)}) for n, cells in found]
    table = Table(label, "xlsx", tuple(names), tuple(rows), tuple(warnings))
    check_cells(label, table.rows)
    return table
