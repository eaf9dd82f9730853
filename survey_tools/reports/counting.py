"""Counting records over one axis or two crossed axes: :class:`Table` and :func:`tabulate`.

Statistics, gap maps, figures and corrections all count through here. Row and column totals
count distinct records, so a record in two cells counts once. :meth:`Table.to_frame` hands a
table to pandas for analysis in a notebook; the build itself never imports pandas.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import corpus_view, view_label
from survey_tools.extras import require_extra
from survey_tools.reports.axes import Axis, get_path, mode_of


@dataclass(frozen=True)
class Table:
    """Counts over one axis (``cols`` is None) or two crossed axes.

    Row and column totals count distinct records, so a record in two cells counts once.
    ``cells`` keeps the record ids of each non-empty cell (gap maps name them).
    """

    id: str
    title: str
    collection: str
    rows: Axis
    cols: Axis | None
    row_values: tuple[str, ...]
    col_values: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    row_totals: tuple[int, ...]
    col_totals: tuple[int, ...]
    total: int
    cells: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict, repr=False)

    def count(self, row: str, col: str | None = None) -> int:
        c = 0 if col is None else self.col_values.index(col)
        return self.counts[self.row_values.index(row)][c]

    def row_total(self, row: str) -> int:
        return self.row_totals[self.row_values.index(row)]

    def col_total(self, col: str) -> int:
        return self.col_totals[self.col_values.index(col)]

    def to_dict(self) -> dict[str, Any]:
        rows = {
            "axis": self.rows.spec,
            "label": self.rows.label,
            "values": self._vals(self.rows, self.row_values),
        }
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "collection": self.collection,
            "rows": rows,
        }
        if self.cols is None:
            out["counts"] = {r: self.counts[i][0] for i, r in enumerate(self.row_values)}
        else:
            out["cols"] = {
                "axis": self.cols.spec,
                "label": self.cols.label,
                "values": self._vals(self.cols, self.col_values),
            }
            out["counts"] = {
                r: dict(zip(self.col_values, self.counts[i], strict=True))
                for i, r in enumerate(self.row_values)
            }
            out["row_totals"] = dict(zip(self.row_values, self.row_totals, strict=True))
            out["col_totals"] = dict(zip(self.col_values, self.col_totals, strict=True))
        out["total"] = self.total
        return out

    def to_frame(self) -> Any:
        """The counts as a pandas ``DataFrame`` (one row per row value, one column per column
        value, or one ``count`` column), indexed by value ids, for analysis in a notebook."""
        # pandas is the [analysis] extra: only a notebook asks for a frame, never a command
        pd = require_extra("analysis", "pandas")

        cols_name = self.cols.spec if self.cols is not None else None
        return pd.DataFrame(
            [list(row) for row in self.counts],
            index=pd.Index(list(self.row_values), name=self.rows.spec, dtype=object),
            columns=pd.Index(list(self.col_values), name=cols_name, dtype=object),
        )

    @staticmethod
    def _vals(axis: Axis, values: Sequence[str]) -> list[dict[str, str]]:
        return [{"id": v, "label": axis.label_of(v)} for v in values]


def paired(rows: Axis, cols: Axis) -> bool:
    """A mapping field crossed with its own modes: each key goes with its own mode."""
    return rows.kind == "keys" and cols.kind == "modes" and rows.field == cols.field


def key_modes(rec: Record, name: str, untagged: str) -> list[tuple[str, str]]:
    """The (key, mode) cells of a mapping field; a sentinel (NA, untagged) sits in its own cell."""
    raw = get_path(rec.data, name)
    if isinstance(raw, dict):
        return [(str(k), mode_of(v)) for k, v in raw.items()]
    s = untagged if raw is None else str(raw)
    return [(s, s)]


def _ordered(axis: Axis, seen: Iterable[str]) -> tuple[str, ...]:
    """Axis values in taxonomy order, then any value met in the data (plain fields, sorted)."""
    extra = sorted(set(seen) - set(axis.values))
    if axis.kind == "plain":
        # Sentinels after real values; years and booleans sort naturally as strings of equal length.
        real = [v for v in extra if v not in axis.sentinels]
        return tuple(real + [v for v in extra if v in axis.sentinels])
    return axis.values + tuple(extra)


def _record_cells(
    rec: Record, rows: Axis, cols: Axis | None, untagged: str
) -> Iterator[tuple[str, str]]:
    """The (row, column) cells one record falls in (column "count" for a one-axis table)."""
    if cols is None:
        for r in rows.extract(rec, untagged):
            yield r, "count"
    elif paired(rows, cols):
        yield from key_modes(rec, rows.field, untagged)
    else:
        cs = cols.extract(rec, untagged)
        for r in rows.extract(rec, untagged):
            for c in cs:
                yield r, c


def _count(
    records: Sequence[Record], rows: Axis, cols: Axis | None, untagged: str, keep_cells: bool
) -> tuple[Counter[tuple[str, str]], Counter[str], Counter[str], int, dict[tuple[str, str], list[str]]]:
    """Distinct records per cell, per row, per column and in all, in one pass over the records.

    Each record's cells are made distinct first, so a record counts once in a cell, a row, a
    column and the total however many of its values fall there.
    """
    cell_n: Counter[tuple[str, str]] = Counter()
    row_n: Counter[str] = Counter()
    col_n: Counter[str] = Counter()
    ids: dict[tuple[str, str], list[str]] = {}
    total = 0
    if cols is None and not keep_cells:
        # One axis, no cell members (most of a build's tables): a record's distinct values are
        # its rows, and its cells are those rows in the one column; no pairs to make.
        for rec in records:
            values = rows.extract(rec, untagged)
            if not values:
                continue
            total += 1
            for r in set(values) if len(values) > 1 else values:
                row_n[r] += 1
        cell_n.update({(r, "count"): n for r, n in row_n.items()})
        if total:
            col_n["count"] = total
        return cell_n, row_n, col_n, total, ids
    for rec in records:
        mine = set(_record_cells(rec, rows, cols, untagged))
        if not mine:
            continue
        total += 1
        cell_n.update(mine)
        row_n.update({r for r, _ in mine})
        col_n.update({c for _, c in mine})
        if keep_cells:
            for cell in mine:
                ids.setdefault(cell, []).append(rec.id)
    return cell_n, row_n, col_n, total, ids


def tabulate(
    tax: Taxonomy,
    records: Sequence[Record],
    rows: Axis,
    cols: Axis | None = None,
    table_id: str = "",
    title: str = "",
    keep_cells: bool = False,
) -> Table:
    """Count ``records`` over one axis or two.

    Plain counting in one pass: the tables are a few dozen small cross-tabs, where a data-frame
    group-by cost a 0.4 s import and ~10 ms a table (benchmarks/build-scale.md).
    """
    cell_n, row_n, col_n, total, ids = _count(records, rows, cols, tax.untagged, keep_cells)
    row_values = _ordered(rows, row_n)
    col_values = ("count",) if cols is None else _ordered(cols, col_n)
    if not title:
        title = rows.label if cols is None else f"{rows.label} × {cols.label}"
    return Table(
        id=table_id or (rows.spec if cols is None else f"{rows.spec}-x-{cols.spec}"),
        title=title,
        collection=rows.collection,
        rows=rows,
        cols=cols,
        row_values=row_values,
        col_values=col_values,
        counts=tuple(tuple(cell_n[(r, c)] for c in col_values) for r in row_values),
        row_totals=tuple(row_n[r] for r in row_values),
        col_totals=tuple(col_n[c] for c in col_values),
        total=total,
        cells={cell: tuple(sorted(set(v))) for cell, v in ids.items()},
    )


def view_table(corpus: Corpus, view: str, ra: Axis, ca: Axis, keep_cells: bool = False) -> Table:
    """A crosstab over the records of ``view`` (an edition id; "" for the living list)."""
    tax = corpus.taxonomy
    if not view:
        return tabulate(tax, corpus.of(ra.collection), ra, ca, keep_cells=keep_cells)
    base = f"{ra.spec}-x-{ca.spec}"
    title = f"{ra.label} × {ca.label} ({view_label(tax, view)})"
    recs = corpus_view(corpus, view).of(ra.collection)
    return tabulate(tax, recs, ra, ca, f"{base}@{view}", title, keep_cells=keep_cells)
