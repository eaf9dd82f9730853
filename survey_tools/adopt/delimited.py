"""CSV and TSV lists: the header names the columns (a blank or repeated header gets a name a user
can type, with a warning), each row a record; a row longer than the header is a problem at its
line. The rows come from the one CSV reader, :func:`survey_tools.csvcells.read_csv_rows`."""

from __future__ import annotations

from survey_tools.adopt.table import (
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
from survey_tools.csvcells import read_csv_rows
from survey_tools.errors import InvalidInput, Problem


def read_delimited(text: str, label: str, delimiter: str) -> Table:
    # the csv module's own cell limit (128 KiB) would end the read with a bare error; cells are
    # measured below against MAX_CELL_CHARS instead, with the row and column named
    read = read_csv_rows(text, label, delimiter, cell_limit=MAX_SOURCE_BYTES)
    if read.header is None:
        raise InvalidInput(list(read.problems), "not a well-formed table")
    header, found = list(read.header), list(read.rows)
    grouped = grouped_header(header, found)
    if grouped:  # a row of group names above the real header, as in an Excel sheet
        header, found = list(found[0][1]), found[1:]
    check_columns(label, header)
    names, warnings = name_header(header)
    if grouped:
        warnings.insert(0, grouped_warning(label, grouped))
    rows: list[Row] = []
    problems: list[Problem] = []
    limit = read_limits().max_entries
    for line, raw in found:
        if len(rows) >= limit:
            raise too_many(label, line, "rows")
        if len(raw) > len(names) and any(c.strip() for c in raw[len(names):]):
            problems.append(Problem(label, line, 0, "", f"row has {len(raw)} cells, the header {len(names)}"))
        rows.append(Row(line, {n: (raw[i] if i < len(raw) else "") for i, n in enumerate(names)}))
    problems += read.problems
    if problems:
        raise InvalidInput(problems, "the table has malformed rows")
    table = Table(label, "tsv" if delimiter == "\t" else "csv", tuple(names), tuple(rows), tuple(warnings))
    check_cells(label, table.rows)
    return table
