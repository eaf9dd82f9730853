"""Gap maps: the empty and sparse cells of two crossed taxonomy axes.

Which axes to cross, the sparseness bound k and the "strict" filter are configuration
(``gaps:`` in the report configuration). Sentinel categories (not applicable, untagged) are
left out of the map's cells: a gap is a combination of real taxonomy values nobody has studied.

Every renderer (GAPS.md, the README, ``survey gaps``) formats the same finished table,
:meth:`GapTable.finished` (:class:`GapMap`): the rows of real values, the row of records whose
row value is not applicable or untagged, and the totals, so that a map's rows add up to the
records it counts wherever it is shown. The same goes for the columns: records whose column
value is not applicable or untagged have a column of their own, so that each row's cells add
up to its total too (for axes with one value per record).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from survey_tools.corpus.records import Corpus
from survey_tools.corpus.views import corpus_view
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.axes import resolve_axis
from survey_tools.reports.counting import Table, tabulate, view_table
from survey_tools.reports.filters import FilterError, compile_filter
from survey_tools.reports.report_config import ReportConfig
from survey_tools.reports.tables import md, md_table


@dataclass(frozen=True)
class Cell:
    row: str
    col: str
    count: int
    strict: int
    records: tuple[str, ...]
    strict_records: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "count": self.count,
            "strict": self.strict,
            "records": list(self.records),
            "strict_records": list(self.strict_records),
        }


@dataclass(frozen=True)
class Count:
    """One figure of a finished map: records in all and those passing the strict filter."""

    n: int
    strict: int


@dataclass(frozen=True)
class MapRow:
    """A row of a finished map: its label, one count per shown column, its total. ``value`` is
    the row's taxonomy value ("" for the not-applicable-or-untagged row and the totals)."""

    label: str
    cells: tuple[Count, ...]
    total: Count
    value: str = ""


@dataclass(frozen=True)
class GapMap:
    """A gap table finished for display: what every renderer formats, nothing left to compute.

    ``rows`` are the real values, ``rest`` the records whose row value is not applicable or
    untagged (None when there are none), ``totals`` the distinct records of each column and of
    the whole map. For an axis with one value per record the rows' totals and ``rest`` add up
    to the map's total; a record with several values (sub-decisions) is in each of its rows.
    ``rest_column``: the last of ``columns`` (and of every row's cells) counts the records whose
    column value is not applicable or untagged, so that a row's cells add up to its total when
    the column axis has one value per record; a 0 there is no gap.
    """

    title: str
    corner: tuple[str, str]  # the row axis's label, the column axis's label
    columns: tuple[str, ...]  # labels of the shown columns
    rows: tuple[MapRow, ...]
    rest: MapRow | None
    totals: MapRow
    shown: Count  # distinct records in the real-value rows: shown + rest = the map's total
    strict_on: bool
    multi: bool  # a record may sit in several rows
    rest_column: bool = False
    multi_columns: bool = False  # a record may sit in several columns

    def is_gap(self, row: MapRow, index: int) -> bool:
        """Whether a cell is a combination of real values (a 0 there is a gap): neither in the
        not-applicable-or-untagged row nor in that column."""
        return row is not self.rest and not (self.rest_column and index == len(self.columns) - 1)

    def body(self) -> tuple[MapRow, ...]:
        """The rows shown above the totals: real values, then the rest row if any."""
        return (*self.rows, self.rest) if self.rest is not None else self.rows


REST_LABEL = "{axis}: not applicable or untagged"


@dataclass(frozen=True)
class GapTable:
    id: str
    title: str
    k: int
    broad: Table
    strict: Table
    rows: tuple[str, ...]  # real values only
    cols: tuple[str, ...]
    empty: tuple[Cell, ...]
    sparse: tuple[Cell, ...]

    def row_total(self, row: str) -> tuple[int, int]:
        """Distinct records in a row: (all, strict)."""
        return self.broad.row_total(row), self.strict.row_total(row)

    def col_total(self, col: str) -> tuple[int, int]:
        return self.broad.col_total(col), self.strict.col_total(col)

    def cell(self, row: str, col: str) -> Cell:
        return _cell(self.broad, self.strict, row, col)

    def _rest_dict(self) -> dict[str, Any]:
        rest = self._rest()
        return {
            "count": rest.total.n,
            "strict": rest.total.strict,
            "col_totals": {c: {"count": n.n, "strict": n.strict} for c, n in zip(self.cols, rest.cells, strict=True)},
        }

    def _rest_column_dict(self) -> dict[str, Any]:
        b = self.broad
        rows = tuple(MapRow(b.rows.label_of(r), (), Count(0, 0), r) for r in self.rows)
        *per_row, in_rest, every = self._rest_column(rows, self._rest())
        return {
            "count": every.n,
            "strict": every.strict,
            "row_totals": {
                r: {"count": c.n, "strict": c.strict} for r, c in zip(self.rows, per_row, strict=True)
            },
            "rest": {"count": in_rest.n, "strict": in_rest.strict},
        }

    def finished(self, strict_on: bool) -> GapMap:
        """The table as every renderer shows it (:class:`GapMap`)."""
        b = self.broad
        assert b.cols is not None
        rows = tuple(
            MapRow(
                b.rows.label_of(r),
                tuple(Count(c.count, c.strict) for c in (self.cell(r, col) for col in self.cols)),
                Count(*self.row_total(r)),
                r,
            )
            for r in self.rows
        )
        rest = self._rest()
        shown = Count(*(len(self._members(t, self.rows, b.col_values)) for t in (b, self.strict)))
        totals = MapRow(
            "total", tuple(Count(*self.col_total(c)) for c in self.cols), Count(b.total, self.strict.total)
        )
        columns = tuple(b.cols.label_of(c) for c in self.cols)
        # the column of records whose column value is not shown: only when some record is there
        rest_cells = self._rest_column(rows, rest)
        with_rest = rest_cells[-1].n > 0
        if with_rest:
            columns += (REST_LABEL.format(axis=b.cols.label),)
            rows = tuple(replace(r, cells=(*r.cells, c)) for r, c in zip(rows, rest_cells, strict=False))
            rest = replace(rest, cells=(*rest.cells, rest_cells[-2]))
            totals = replace(totals, cells=(*totals.cells, rest_cells[-1]))
        return GapMap(
            self.title,
            (b.rows.label, b.cols.label),
            columns,
            rows,
            rest if rest.total.n else None,
            totals,
            shown,
            strict_on,
            b.rows.kind in ("multi", "keys"),
            with_rest,
            b.cols.kind in ("multi", "keys"),
        )

    def _rest_column(self, rows: tuple[MapRow, ...], rest: MapRow) -> tuple[Count, ...]:
        """The not-applicable-or-untagged column's figures: one a real-value row, then the rest
        row's, then the whole map's (records in a sentinel column and in no shown column)."""
        b = self.broad
        assert b.cols is not None
        hidden = tuple(c for c in b.col_values if c not in self.cols)
        hidden_rows = tuple(r for r in b.row_values if r not in self.rows)

        def records(table: Table, in_rows: tuple[str, ...], not_rows: tuple[str, ...] = ()) -> int:
            there = self._members(table, in_rows, hidden) - self._members(table, in_rows, self.cols)
            return len(there - self._members(table, not_rows, table.col_values))

        per_row = tuple(Count(records(b, (r.value,)), records(self.strict, (r.value,))) for r in rows)
        in_rest = Count(records(b, hidden_rows, self.rows), records(self.strict, hidden_rows, self.rows))
        every = Count(records(b, b.row_values), records(self.strict, b.row_values))
        return (*per_row, in_rest, every)

    def _rest(self) -> MapRow:
        """The records whose row value is not shown (not applicable, untagged), counted
        directly: those in a sentinel row and in no shown row, per column and in all."""
        b = self.broad
        assert b.cols is not None
        hidden = tuple(r for r in b.row_values if r not in self.rows)

        def records(table: Table, cols: tuple[str, ...]) -> int:
            return len(self._members(table, hidden, cols) - self._members(table, self.rows, cols))

        cells = tuple(Count(records(b, (c,)), records(self.strict, (c,))) for c in self.cols)
        whole = Count(records(b, b.col_values), records(self.strict, b.col_values))
        return MapRow(REST_LABEL.format(axis=b.rows.label), cells, whole)

    @staticmethod
    def _members(table: Table, rows: tuple[str, ...], cols: tuple[str, ...]) -> set[str]:
        return {x for r in rows for c in cols for x in table.cells.get((r, c), ())}

    def to_dict(self) -> dict[str, Any]:
        b, s = self.broad, self.strict
        assert b.cols is not None
        return {
            "id": self.id,
            "title": self.title,
            "k": self.k,
            "rows": {"axis": b.rows.spec, "values": list(self.rows)},
            "cols": {"axis": b.cols.spec, "values": list(self.cols)},
            "row_totals": {r: {"count": b.row_total(r), "strict": s.row_total(r)} for r in self.rows},
            "col_totals": {c: {"count": b.col_total(c), "strict": s.col_total(c)} for c in self.cols},
            # the records whose row value is not applicable or untagged (GapMap.rest)
            "rest": self._rest_dict(),
            # the records whose column value is not applicable or untagged (GapMap.rest_column)
            "rest_column": self._rest_column_dict(),
            "empty": [[c.row, c.col] for c in self.empty],
            "sparse": [c.to_dict() for c in self.sparse],
        }


@dataclass(frozen=True)
class GapReport:
    k: int
    strict_label: str
    tables: tuple[GapTable, ...]

    def table(self, table_id: str) -> GapTable:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise KeyError(table_id)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "strict": self.strict_label, "tables": {t.id: t.to_dict() for t in self.tables}}


def _cell(broad: Table, strict: Table, row: str, col: str) -> Cell:
    recs = broad.cells.get((row, col), ())
    srecs = strict.cells.get((row, col), ())
    return Cell(row, col, len(recs), len(srecs), recs, srecs)


def compute_gaps(corpus: Corpus, config: ReportConfig) -> GapReport:
    tax = corpus.taxonomy
    try:
        strict_pred = compile_filter(tax, config.strict_where, ())
    except FilterError as err:
        line, col = config.where(("gaps", "strict", "where", *err.path))
        raise InvalidInput(
            [Problem(config.path, line, col, "gaps.strict.where", err.message)], f"{config.path} is invalid"
        ) from None
    tables = []
    views = config.gap_views or ("",) * len(config.gap_tables)
    for (rows, cols), view in zip(config.gap_tables, views, strict=True):
        ra, ca = resolve_axis(tax, rows), resolve_axis(tax, cols)
        recs = corpus_view(corpus, view).of(ra.collection)
        broad = view_table(corpus, view, ra, ca, keep_cells=True)
        strict = tabulate(tax, [r for r in recs if strict_pred(r)], ra, ca, broad.id, broad.title, keep_cells=True)
        # The strict table may lack categories the broad one has: use the broad order.
        strict = _align(strict, broad)
        rvals = tuple(v for v in broad.row_values if v not in ra.sentinels)
        cvals = tuple(v for v in broad.col_values if v not in ca.sentinels)
        empty, sparse = [], []
        for r in rvals:
            for c in cvals:
                cell = _cell(broad, strict, r, c)
                if cell.count == 0:
                    empty.append(cell)
                elif cell.count <= config.gap_k:
                    sparse.append(cell)
        tables.append(
            GapTable(broad.id, broad.title, config.gap_k, broad, strict, rvals, cvals, tuple(empty), tuple(sparse))
        )
    return GapReport(config.gap_k, config.strict_label, tuple(tables))


def _align(t: Table, like: Table) -> Table:
    def get(r: str, c: str) -> int:
        if r in t.row_values and c in t.col_values:
            return t.count(r, c)
        return 0

    counts = tuple(tuple(get(r, c) for c in like.col_values) for r in like.row_values)
    rt = tuple(t.row_total(r) if r in t.row_values else 0 for r in like.row_values)
    ct = tuple(t.col_total(c) if c in t.col_values else 0 for c in like.col_values)
    return replace(t, row_values=like.row_values, col_values=like.col_values, counts=counts, row_totals=rt, col_totals=ct)


def _shown(count: Count, strict_on: bool, bold_zero: bool) -> str:
    """A map's cell in GAPS.md: a bold 0 for a combination of real values no record covers."""
    if bold_zero and count.n == 0:
        return "**0**"
    return f"{count.n} [{count.strict}]" if strict_on else str(count.n)


def gaps_markdown(report: GapReport) -> str:
    strict_on = bool(report.strict_label)  # no strict filter configured: plain counts

    def num(n: int, s: int) -> str:
        return f"{n} [{s}]" if strict_on else str(n)

    brackets = f" Figures in brackets count only records with {report.strict_label}." if strict_on else ""
    total = "total [strict]" if strict_on else "total"
    out = [
        "# Gap maps",
        "",
        f"Generated by `survey build`; do not edit. Empty cells have no record; sparse cells have "
        f"at most {report.k}.{brackets} "
        "Records whose row value is not applicable or untagged have a row of their own, and those "
        "whose column value is have a column, so the totals add up to the rows and columns shown.",
        "",
    ]
    for t in report.tables:
        b = t.broad
        assert b.cols is not None
        grid = t.finished(strict_on)
        out += [f"## {t.title}", ""]
        heads = [md(c) for c in grid.columns]
        body = [
            [
                md(row.label),
                *(_shown(c, strict_on, grid.is_gap(row, i)) for i, c in enumerate(row.cells)),
                num(row.total.n, row.total.strict),
            ]
            for row in grid.body()
        ]
        body.append([total, *(num(c.n, c.strict) for c in grid.totals.cells), num(grid.totals.total.n, grid.totals.total.strict)])
        corner = f"{md(grid.corner[0])} \\ {md(grid.corner[1])}"
        out.append(md_table([corner, *heads, total], body, "l" + "r" * (len(heads) + 1), pad=False))
        out.append("")
        if t.empty:
            out.append(f"Empty cells ({len(t.empty)}): " + "; ".join(
                f"{b.rows.label_of(c.row)} × {b.cols.label_of(c.col)}" for c in t.empty) + ".")
            out.append("")
        if t.sparse:
            out.append(f"Sparse cells (at most {t.k} records):")
            out.append("")
            for sc in t.sparse:
                strict = f"; {report.strict_label}: {', '.join(sc.strict_records) or 'none'}" if strict_on else ""
                out.append(
                    f"- {b.rows.label_of(sc.row)} × {b.cols.label_of(sc.col)}: {sc.count} "
                    f"({', '.join(sc.records)}{strict})"
                )
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def gaps_outputs(report: GapReport, prefix: str = "reports") -> Mapping[str, str]:
    return {
        f"{prefix}/GAPS.md": gaps_markdown(report),
        f"{prefix}/gaps.json": json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n",
    }
