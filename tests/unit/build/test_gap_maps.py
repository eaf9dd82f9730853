"""One table builder: every gap map is finished once (reports.gaps.GapTable.finished) and
GAPS.md, the README and `survey gaps` format that object; its rows add up to the records it
counts. On the frozen survey (tests/fixtures/survey-snapshot/)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.build import make_context
from survey_tools.render.markdown import gap_tables
from survey_tools.reports.gaps import gaps_markdown


@pytest.fixture(scope="module")
def ctx() -> Any:
    return make_context(SURVEY)


def test_every_map_adds_up_to_the_records_it_counts(ctx: Any) -> None:
    maps = [t.finished(True) for t in ctx.gaps.tables]
    assert len(maps) >= 4
    for grid in maps:
        total = grid.totals.total
        rest = grid.rest.total.n if grid.rest else 0
        # every record counted is in a shown row or in the not-applicable-or-untagged row
        assert grid.shown.n + rest == total.n, grid.title
        if grid.multi:
            assert sum(r.total.n for r in grid.rows) >= grid.shown.n, grid.title
            continue
        assert sum(r.total.n for r in grid.body()) == total.n, grid.title
        assert sum(r.total.strict for r in grid.body()) == total.strict, grid.title
        for i, col in enumerate(grid.totals.cells):
            assert sum(r.cells[i].n for r in grid.body()) == col.n, (grid.title, grid.columns[i])
        if grid.multi_columns:
            continue
        # and across: a row's cells, the not-applicable-or-untagged column included, add up
        # to its total, and so do the totals' (credit unit x reward family lacked that column:
        # the rest row read 4 in its cells and 41 in its total)
        for row in (*grid.body(), grid.totals):
            assert sum(c.n for c in row.cells) == row.total.n, (grid.title, row.label)
            assert sum(c.strict for c in row.cells) == row.total.strict, (grid.title, row.label)
    crossed = [g for g in maps if g.rest_column]
    assert crossed and all(g.columns[-1].endswith("not applicable or untagged") for g in crossed)
    # a 0 in that column or row is not a gap: GAPS.md bolds only combinations of real values
    for g in crossed:
        assert not g.is_gap(g.rows[0], len(g.columns) - 1) and g.is_gap(g.rows[0], 0)
    # the sub-decisions map (a record in several rows) has its rest row too: records tagged
    # not applicable, which the README used to leave out
    multi = [g for g in maps if g.multi]
    assert multi and all(g.rest is not None for g in multi)


def _rows(markdown: str) -> list[list[str]]:
    lines = [ln for ln in markdown.splitlines() if ln.startswith("|")]
    rows = []
    for ln in lines[2:]:  # past the head and the alignment row
        cells = [re.sub(r"\s+", " ", c.strip()) for c in ln.strip("|").split("|")]
        rows.append([c.replace("\\[", "[").replace("\\]", "]").replace("**", "") for c in cells])
    return rows


def test_gaps_md_and_the_readme_show_the_same_rows(ctx: Any) -> None:
    report = ctx.gaps
    gaps_md = gaps_markdown(report)
    sections = gaps_md.split("\n## ")[1:]
    readme = gap_tables(report)
    assert len(sections) == len(readme) == len(report.tables)
    for section, shown, table in zip(sections, readme, report.tables, strict=True):
        ours = _rows(section.split("\n\n", 2)[1])
        theirs = _rows(shown["markdown"])
        # labels aside (GAPS.md writes "total [strict]"), the same rows and figures
        assert [r[1:] for r in ours] == [r[1:] for r in theirs], table.title
        assert [r[0] for r in ours[:-1]] == [r[0] for r in theirs[:-1]], table.title
        assert any("not applicable or untagged" in r[0] for r in ours) == (
            table.finished(True).rest is not None
        )


def test_every_crosstab_of_stats_md_adds_up_too(ctx: Any) -> None:
    """STATS.md's crosstabs keep their not-applicable and untagged rows: for an axis with one
    value per record the rows add up to the records counted, in every column."""
    checked = 0
    for t in ctx.stats.crosstabs:
        if t.rows.kind in ("multi", "keys"):
            continue
        assert sum(t.row_totals) == t.total, t.id
        for j, col in enumerate(t.col_values):
            assert sum(row[j] for row in t.counts) == t.col_total(col), (t.id, col)
        checked += 1
    assert checked >= 3
