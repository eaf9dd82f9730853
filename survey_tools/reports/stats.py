"""Counts and cross-tabulations of the corpus, computed from the records and the taxonomy.

Which tables to cross is configuration (``data/reports.yaml``, named by ``files.reports`` in
``taxonomy/survey.yaml``); field names, values, labels and order come from the taxonomy.
pandas is imported inside the functions that count, so importing this module stays cheap.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.protocol import Protocol, has_protocol, load_protocol
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import ControlledField, Group, Taxonomy
from survey_tools.corpus.views import added_since, corpus_view, edition_of, view_ids, view_label
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.csvcells import spreadsheet_safe
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.living import LivingFlow, living_flow, living_markdown
from survey_tools.reports.tables import md, md_code, md_table

STATS_FORMAT = 1
MODE_SUFFIX = ".mode"  # `subdecisions.mode`: the modes of a mapping field


class _SafeWriter:
    """A csv writer whose text cells cannot run as spreadsheet formulas (labels come from
    taxonomy files a pull request may change)."""

    def __init__(self, writer: Any) -> None:
        self._w = writer

    def writerow(self, row: Sequence[Any]) -> None:
        self._w.writerow([spreadsheet_safe(c) if isinstance(c, str) else c for c in row])


# --- axes: one way to put each record into one or more categories --------------------------


@dataclass(frozen=True)
class Axis:
    """A way to sort records into categories: a field, a value group, a mapping's keys or modes."""

    spec: str
    label: str
    collection: str
    kind: str  # single | multi | group | keys | modes | plain
    field: str  # the record field read
    values: tuple[str, ...]  # ordered categories; empty for plain fields (taken from the data)
    labels: Mapping[str, str]
    sentinels: tuple[str, ...] = ()
    cf: ControlledField | None = None
    group: Group | None = None

    def label_of(self, value: str) -> str:
        return self.labels.get(value, value)

    def extract(self, rec: Record, untagged: str) -> list[str]:
        """The categories of one record (several for multi-valued fields, none for ``{}``)."""
        raw = get_path(rec.data, self.field)
        if raw is None:
            return [untagged]
        if self.kind == "single":
            return [str(raw)]
        if self.kind == "group":
            assert self.group is not None
            return [self.group.of(str(raw)) or str(raw)]
        if self.kind in ("multi", "plain") and isinstance(raw, list):
            return [plain_str(v) for v in raw]
        if self.kind == "keys":
            return list(raw) if isinstance(raw, dict) else [str(raw)]
        if self.kind == "modes":
            if isinstance(raw, dict):
                return sorted({mode_of(v) for v in raw.values()}, key=self.values.index)
            return [str(raw)]
        return [plain_str(raw)]


def plain_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mode_of(value: Any) -> str:
    """A mapping value is a mode string or ``{how, evidence, reason}``."""
    return str(value.get("how")) if isinstance(value, dict) else str(value)


def get_path(data: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _sentinels(tax: Taxonomy, cf: ControlledField) -> tuple[str, ...]:
    out = []
    if cf.not_applicable:
        out.append(tax.na)
    if not cf.required:
        out.append(tax.untagged)
    return tuple(out)


def known_axes(tax: Taxonomy) -> list[str]:
    names: list[str] = []
    for coll in tax.collections.values():
        for c in coll.controlled:
            names.append(c.name)
            if c.kind == "mapping":
                names.append(c.name + MODE_SUFFIX)
            if c.group is not None:
                names.append(c.group.name)
        names.extend(f.name for f in coll.fields)
    return names


def resolve_axis(tax: Taxonomy, spec: str) -> Axis:
    """The axis named ``spec``; ``KeyError`` with a readable message when there is none."""
    base, _, suffix = spec.partition(MODE_SUFFIX) if spec.endswith(MODE_SUFFIX) else (spec, "", "")
    is_mode = spec.endswith(MODE_SUFFIX)
    cf = tax.find_field(base)
    if cf is not None:
        coll = cf.collection or tax.retained.name
        sent = _sentinels(tax, cf)
        # Missing optional fields count as untagged, so that category is always listed for them.
        if cf.kind == "mapping" and is_mode:
            labels = {m.id: m.label for m in cf.modes}
            return Axis(spec, f"{cf.label}: mode", coll, "modes", cf.name, cf.mode_ids + sent, labels, sent, cf)
        if is_mode:
            raise KeyError(f"{spec!r}: {base} is not a mapping field, it has no modes")
        kind = "keys" if cf.kind == "mapping" else cf.kind
        labels = {v.id: v.label for v in cf.values}
        return Axis(spec, cf.label, coll, kind, cf.name, cf.ids + sent, labels, sent, cf)
    found = tax.group(spec)
    if found is not None:
        gcf, grp = found
        sent = _sentinels(tax, gcf)
        labels = {v.id: f"{v.id} {v.label}" for v in grp.values}
        ids = tuple(v.id for v in grp.values)
        coll = gcf.collection or tax.retained.name
        return Axis(spec, grp.label, coll, "group", gcf.name, ids + sent, labels, sent, gcf, grp)
    head = spec.split(".", 1)[0]
    for c in tax.collections.values():
        for f in c.fields:
            if f.name == head:
                label = f.label if head == spec else spec
                return Axis(spec, label, c.name, "plain", spec, (), {}, (tax.untagged,))
    raise KeyError(f"{spec!r} is not a field, value group or mode of the taxonomy")


# --- tables ----------------------------------------------------------------------------------


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
        rows = {"axis": self.rows.spec, "label": self.rows.label, "values": self._vals(self.rows, self.row_values)}
        out: dict[str, Any] = {"id": self.id, "title": self.title, "collection": self.collection, "rows": rows}
        if self.cols is None:
            out["counts"] = {r: self.counts[i][0] for i, r in enumerate(self.row_values)}
        else:
            out["cols"] = {"axis": self.cols.spec, "label": self.cols.label, "values": self._vals(self.cols, self.col_values)}
            out["counts"] = {
                r: dict(zip(self.col_values, self.counts[i], strict=True)) for i, r in enumerate(self.row_values)
            }
            out["row_totals"] = dict(zip(self.row_values, self.row_totals, strict=True))
            out["col_totals"] = dict(zip(self.col_values, self.col_totals, strict=True))
        out["total"] = self.total
        return out

    @staticmethod
    def _vals(axis: Axis, values: Sequence[str]) -> list[dict[str, str]]:
        return [{"id": v, "label": axis.label_of(v)} for v in values]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = _SafeWriter(csv.writer(buf, lineterminator="\n"))
        if self.cols is None:
            w.writerow([self.rows.spec, "label", "count"])
            for i, r in enumerate(self.row_values):
                w.writerow([r, self.rows.label_of(r), self.counts[i][0]])
        else:
            w.writerow([f"{self.rows.spec}\\{self.cols.spec}", *self.col_values, "total"])
            for i, r in enumerate(self.row_values):
                w.writerow([r, *self.counts[i], self.row_totals[i]])
            w.writerow(["total", *self.col_totals, self.total])
        return buf.getvalue()

    def to_markdown(self) -> str:
        if self.cols is None:
            rows = [[md(self.rows.label_of(r)), self.counts[i][0]] for i, r in enumerate(self.row_values)]
            return md_table([md(self.rows.label), "count"], rows, "lr", pad=False) + "\n"
        heads = [md(self.cols.label_of(c)) for c in self.col_values]
        body: list[list[Any]] = [
            [md(self.rows.label_of(r)), *(n if n else "·" for n in self.counts[i]), self.row_totals[i]]
            for i, r in enumerate(self.row_values)
        ]
        body.append(["total", *self.col_totals, self.total])
        corner = f"{md(self.rows.label)} \\ {md(self.cols.label)}"
        return md_table([corner, *heads, "total"], body, "l" + "r" * (len(heads) + 1), pad=False) + "\n"


def _pairs(rows: Axis, cols: Axis) -> bool:
    """A mapping field crossed with its own modes: each key goes with its own mode."""
    return rows.kind == "keys" and cols.kind == "modes" and rows.field == cols.field


def _ordered(axis: Axis, seen: Iterable[str]) -> tuple[str, ...]:
    """Axis values in taxonomy order, then any value met in the data (plain fields, sorted)."""
    extra = sorted(set(seen) - set(axis.values))
    if axis.kind == "plain":
        # Sentinels after real values; years and booleans sort naturally as strings of equal length.
        real = [v for v in extra if v not in axis.sentinels]
        return tuple(real + [v for v in extra if v in axis.sentinels])
    return axis.values + tuple(extra)


def tabulate(
    tax: Taxonomy,
    records: Sequence[Record],
    rows: Axis,
    cols: Axis | None = None,
    table_id: str = "",
    title: str = "",
    keep_cells: bool = False,
) -> Table:
    """Count ``records`` over one axis or two; pandas does the grouping."""
    # pandas (~250 ms) only when statistics are computed: the CLI must start fast without it.
    import pandas as pd

    rids: list[int] = []
    rvals: list[str] = []
    cvals: list[str] = []
    untagged = tax.untagged
    if cols is None:
        for i, rec in enumerate(records):
            for r in rows.extract(rec, untagged):
                rids.append(i)
                rvals.append(r)
                cvals.append("count")
    elif _pairs(rows, cols):
        for i, rec in enumerate(records):
            raw = get_path(rec.data, rows.field)
            if isinstance(raw, dict):
                items = [(str(k), mode_of(v)) for k, v in raw.items()]
            else:
                s = untagged if raw is None else str(raw)
                items = [(s, s)]
            for r, c in items:
                rids.append(i)
                rvals.append(r)
                cvals.append(c)
    else:
        for i, rec in enumerate(records):
            cs = cols.extract(rec, untagged)
            for r in rows.extract(rec, untagged):
                for c in cs:
                    rids.append(i)
                    rvals.append(r)
                    cvals.append(c)
    df = pd.DataFrame({"rid": rids, "r": rvals, "c": cvals})
    row_values = _ordered(rows, df["r"].unique())
    col_values = ("count",) if cols is None else _ordered(cols, df["c"].unique())
    if df.empty:
        counts = [[0] * len(col_values) for _ in row_values]
        row_tot = [0] * len(row_values)
        col_tot = [0] * len(col_values)
        total = 0
    else:
        grid = df.groupby(["r", "c"], sort=False)["rid"].nunique().unstack(fill_value=0)
        grid = grid.reindex(index=list(row_values), columns=list(col_values), fill_value=0)
        counts = grid.astype(int).values.tolist()
        row_s = df.groupby("r", sort=False)["rid"].nunique().reindex(list(row_values), fill_value=0)
        col_s = df.groupby("c", sort=False)["rid"].nunique().reindex(list(col_values), fill_value=0)
        row_tot = [int(x) for x in row_s]
        col_tot = [int(x) for x in col_s]
        total = int(df["rid"].nunique())
    cells: dict[tuple[str, str], tuple[str, ...]] = {}
    if keep_cells and not df.empty:
        ids = [r.id for r in records]
        for (r, c), group in df.groupby(["r", "c"], sort=False)["rid"]:
            cells[(str(r), str(c))] = tuple(sorted({ids[i] for i in group}))
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
        counts=tuple(tuple(int(x) for x in row) for row in counts),
        row_totals=tuple(row_tot),
        col_totals=tuple(col_tot),
        total=total,
        cells=cells,
    )


# --- configuration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportConfig:
    """The hand-written choices of what to tabulate (``data/reports.yaml``)."""

    path: str
    headline_total: str = "total"
    crosstabs: tuple[tuple[str, str], ...] = ()
    # The view of each crosstab and gap table ("" = the living list; else an edition id).
    crosstab_views: tuple[str, ...] = ()
    gap_k: int = 2
    strict_label: str = ""
    strict_where: Mapping[str, Any] = field(default_factory=dict)
    gap_tables: tuple[tuple[str, str], ...] = ()
    gap_views: tuple[str, ...] = ()
    plots: tuple[Mapping[str, Any], ...] = ()
    # Printed next to the agreement figures (reports/AGREEMENT.md): how the audit was made.
    agreement_caveat: str = ""
    positions: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict, repr=False)

    def where(self, path: tuple[Any, ...]) -> tuple[int, int]:
        return self.positions.get(path, (0, 0))


def data_file(tax: Taxonomy, key: str, default: str) -> str:
    return str(tax.files.get(key, default))


def load_config(tax: Taxonomy) -> ReportConfig:
    """Read and check the report configuration; every problem at once, with file and line."""
    rel = data_file(tax, "reports", "data/reports.yaml")
    doc = tax.document(rel)
    if doc is None:
        return ReportConfig(path=rel)
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read")
    d = doc.data if isinstance(doc.data, dict) else {}
    problems: list[Problem] = []
    axes = set(known_axes(tax))
    views = view_ids(tax)

    def bad(p: tuple[Any, ...], fld: str, msg: str) -> None:
        line, col = _pos(doc, p)
        problems.append(Problem(rel, line, col, fld, msg))

    def view_of(p: tuple[Any, ...], item: Any) -> str:
        v = item.get("view", "") if isinstance(item, dict) else ""
        if v and str(v) not in views:
            known = ", ".join(views) or "none: taxonomy/survey.yaml declares no editions"
            bad((*p, "view"), f"{'.'.join(map(str, p))}.view", f"unknown view {v!r} (known: {known})")
        return str(v or "")

    def pairs(key: tuple[Any, ...], raw: Any) -> tuple[tuple[str, str], ...]:
        out = []
        if not isinstance(raw, list):
            if raw is not None:
                bad(key, ".".join(map(str, key)), "must be a list of {rows, cols}")
            return ()
        for i, item in enumerate(raw):
            p = (*key, i)
            if not isinstance(item, dict) or "rows" not in item or "cols" not in item:
                bad(p, ".".join(map(str, p)), "needs rows and cols")
                continue
            ok = True
            for side in ("rows", "cols"):
                if str(item[side]) not in axes:
                    bad((*p, side), f"{'.'.join(map(str, p))}.{side}", f"unknown axis {item[side]!r}")
                    ok = False
            if ok:
                out.append((str(item["rows"]), str(item["cols"])))
        return tuple(out)

    def all_views(key: tuple[Any, ...], raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list):
            return ()
        return tuple(
            view_of((*key, i), item)
            for i, item in enumerate(raw)
            if isinstance(item, dict) and "rows" in item and "cols" in item
            and str(item["rows"]) in axes and str(item["cols"]) in axes
        )

    crosstabs = pairs(("crosstabs",), d.get("crosstabs"))
    crosstab_views = all_views(("crosstabs",), d.get("crosstabs"))
    gaps = d.get("gaps") or {}
    k = gaps.get("k", 2) if isinstance(gaps, dict) else 2
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        bad(("gaps", "k"), "gaps.k", f"must be a whole number >= 0, not {k!r}")
        k = 2
    strict = gaps.get("strict") or {} if isinstance(gaps, dict) else {}
    gap_tables = pairs(("gaps", "tables"), gaps.get("tables") if isinstance(gaps, dict) else None)
    gap_views = all_views(("gaps", "tables"), gaps.get("tables") if isinstance(gaps, dict) else None)
    plots = d.get("plots") or []
    if not isinstance(plots, list):
        bad(("plots",), "plots", "must be a list")
        plots = []
    for i, spec in enumerate(plots):
        view_of(("plots", i), spec)
    agreement = d.get("agreement") or {}
    caveat = agreement.get("caveat", "") if isinstance(agreement, dict) else None
    if not isinstance(caveat, str):
        bad(("agreement",), "agreement.caveat", "must be a mapping with a text `caveat`")
        caveat = ""
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    positions = {}
    for key in _all_paths(d):
        positions[key] = _pos(doc, key)
    return ReportConfig(
        path=rel,
        headline_total=str(d.get("headline_total", "total")),
        crosstabs=crosstabs,
        crosstab_views=crosstab_views,
        gap_k=k,
        # No strict filter configured: no label, and the gap maps show plain counts.
        strict_label=str(strict.get("label", "strict")) if isinstance(strict, dict) and strict else "",
        strict_where=strict.get("where", {}) if isinstance(strict, dict) else {},
        gap_tables=gap_tables,
        gap_views=gap_views,
        plots=tuple(p for p in plots if isinstance(p, dict)),
        agreement_caveat=" ".join(caveat.split()),
        positions=positions,
    )


def _pos(doc: YamlDocument, path: tuple[Any, ...]) -> tuple[int, int]:
    try:
        return doc.position(path)
    except (KeyError, IndexError, TypeError):
        return (0, 0)


def _all_paths(data: Any, prefix: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _all_paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _all_paths(v, (*prefix, i))


# --- the statistics --------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    headline: Mapping[str, int]
    fields: tuple[Table, ...]
    groups: tuple[Table, ...]
    crosstabs: tuple[Table, ...]
    touched: Mapping[str, Mapping[str, int]]  # mapping field -> records touching some / none / NA / untagged
    # Headline counts of each published edition's view, and the retained records added since
    # the latest edition ({"views": {id: {collection: n}}, "added": n}); empty without editions.
    editions: Mapping[str, Any] = field(default_factory=dict)
    # The living list's PRISMA flow (search runs and screening decisions), when there is one.
    living: LivingFlow | None = None
    protocol: Protocol | None = None

    def table(self, table_id: str) -> Table:
        for t in (*self.fields, *self.groups, *self.crosstabs):
            if t.id == table_id:
                return t
        raise KeyError(table_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATS_FORMAT,
            "headline": dict(self.headline),
            "fields": {t.id: t.to_dict() for t in self.fields},
            "touched": {k: dict(v) for k, v in self.touched.items()},
            "groups": {t.id: t.to_dict() for t in self.groups},
            "crosstabs": {t.id: t.to_dict() for t in self.crosstabs},
            **({"living": self.living.to_dict()} if self.living else {}),
            "editions": dict(self.editions),
        }

    def cells(self) -> dict[str, int]:
        """Every count as ``table/row/col -> n`` (for showing which cells a change moves)."""
        out: dict[str, int] = {f"headline/{k}": v for k, v in self.headline.items()}
        for t in (*self.fields, *self.groups, *self.crosstabs):
            for i, r in enumerate(t.row_values):
                for j, c in enumerate(t.col_values):
                    key = f"{t.id}/{r}" if t.cols is None else f"{t.id}/{r}/{c}"
                    out[key] = t.counts[i][j]
        for name, parts in self.touched.items():
            for k, v in parts.items():
                out[f"{name}/records/{k}"] = v
        return out


def compute_stats(corpus: Corpus, config: ReportConfig) -> Stats:
    tax = corpus.taxonomy
    headline: dict[str, int] = {name: len(corpus.of(name)) for name in tax.collections}
    headline[config.headline_total] = sum(headline.values())
    fields: list[Table] = []
    groups: list[Table] = []
    touched: dict[str, dict[str, int]] = {}
    for coll in tax.collections.values():
        recs = corpus.of(coll.name)
        for cf in coll.controlled:
            if cf.kind == "mapping":
                t = tabulate(tax, recs, resolve_axis(tax, cf.name), resolve_axis(tax, cf.name + MODE_SUFFIX), cf.name, cf.label)
                fields.append(t)
                touched[cf.name] = _touched(tax, recs, cf.name)
            else:
                fields.append(tabulate(tax, recs, resolve_axis(tax, cf.name), None, cf.name, cf.label))
            if cf.group is not None:
                groups.append(tabulate(tax, recs, resolve_axis(tax, cf.group.name), None, cf.group.name, cf.group.label))
    crosstabs = []
    views = config.crosstab_views or ("",) * len(config.crosstabs)
    for (rows, cols), view in zip(config.crosstabs, views, strict=True):
        ra, ca = resolve_axis(tax, rows), resolve_axis(tax, cols)
        crosstabs.append(view_table(corpus, view, ra, ca))
    protocol = load_protocol(tax) if has_protocol(tax) else None
    living = living_flow(tax.root) if protocol else None
    return Stats(
        headline, tuple(fields), tuple(groups), tuple(crosstabs), touched,
        edition_counts(corpus, config), living, protocol,
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


def edition_counts(corpus: Corpus, config: ReportConfig) -> dict[str, Any]:
    tax = corpus.taxonomy
    ed = tax.editions
    if ed is None:
        return {}
    views: dict[str, dict[str, int]] = {}
    for e in ed.published:
        v = corpus_view(corpus, e.id)
        counts = {name: len(v.of(name)) for name in tax.collections}
        counts[config.headline_total] = sum(counts.values())
        views[e.id] = counts
    since = ed.latest.id if ed.latest else ""
    return {"views": views, "added_since": since, "added": len(added_since(corpus)) if since else 0}


def _touched(tax: Taxonomy, records: Sequence[Record], name: str) -> dict[str, int]:
    out = {"some": 0, "none": 0, tax.na: 0, tax.untagged: 0}
    for rec in records:
        raw = rec.get(name)
        if raw is None:
            out[tax.untagged] += 1
        elif isinstance(raw, dict):
            out["some" if raw else "none"] += 1
        else:
            out[str(raw)] = out.get(str(raw), 0) + 1
    return out


# --- rendering -------------------------------------------------------------------------------


def stats_markdown(tax: Taxonomy, stats: Stats, beside: tuple[str, Stats] | None = None) -> str:
    """STATS.md; ``beside`` (an edition id and its statistics) is shown next to every table
    where the edition's counts differ from the living list's."""
    title = tax.survey.get("short_title") or tax.survey.get("title") or "Survey"
    out = [
        f"# Statistics: {title}",
        "",
        "Generated by `survey build` from the records; do not edit. "
        "Machine-readable: `stats.json`, one CSV per table in `tables/`.",
        "",
        "## Headline counts",
        "",
    ]
    labels = {k: md(tax.collections[k].label if k in tax.collections else k) for k in stats.headline}
    out += [md_table(["", "count"], [(labels[k], v) for k, v in stats.headline.items()], "lr", pad=False)]
    out.append("")
    views = stats.editions.get("views") or {}
    if views:
        names = list(stats.headline)
        living = tax.editions.living.label if tax.editions else "living"
        rows = [[f"{md(view_label(tax, vid))} ({md_code(vid)})", *(counts.get(k, 0) for k in names)]
                for vid, counts in views.items()]
        rows.append([md(living), *(stats.headline[k] for k in names)])
        out += [
            "## By edition",
            "",
            "The living list against each published edition (the records that entered up to it).",
            "",
            md_table(["", *(labels[k] for k in names)], rows, "l" + "r" * len(names), pad=False),
        ]
        out += ["", f"Retained works added since {view_label(tax, stats.editions['added_since'])}: {stats.editions['added']}.", ""]
    for coll in tax.collections.values():
        out += [f"## {coll.label}: counts per field", ""]
        for t in stats.fields:
            if t.collection != coll.name:
                continue
            out += [f"### {t.title}", "", _with_edition(tax, t, beside)]
            if t.id in stats.touched:
                parts = ", ".join(f"{k}: {v}" for k, v in stats.touched[t.id].items())
                out += [f"Records by coverage: {parts}.", ""]
            for g in stats.groups:
                if g.rows.field == t.id:
                    out += [f"### {g.title}", "", g.to_markdown()]
    if stats.crosstabs:
        out += ["## Cross-tabulations", "", "A dot marks an empty cell; totals count distinct records.", ""]
        for t in stats.crosstabs:
            out += [f"### {t.title}", "", _with_edition(tax, t, beside)]
    if stats.living and stats.protocol:
        p = stats.protocol
        out += living_markdown(stats.living, tax, p.fields["stage"], p.fields["reason"],
                               {f.id: f.label for f in p.families})
    return "\n".join(out).rstrip("\n") + "\n"


def _with_edition(tax: Taxonomy, t: Table, beside: tuple[str, Stats] | None) -> str:
    """A table of the living list, with the edition's counts beside it where they differ: a
    count column for a one-axis table, the edition's own table below a crossed one."""
    other = _same_table(t, beside[1]) if beside else None
    if beside is None or other is None or other.to_dict() == t.to_dict():
        return t.to_markdown()
    living = tax.editions.living.label if tax.editions else "living"
    label = view_label(tax, beside[0])
    if t.cols is None:
        theirs = dict(zip(other.row_values, (c[0] for c in other.counts), strict=True))
        order = [*t.row_values, *(r for r in other.row_values if r not in t.row_values)]
        ours = dict(zip(t.row_values, (c[0] for c in t.counts), strict=True))
        rows = [[md(t.rows.label_of(r)), ours.get(r, 0), theirs.get(r, 0)] for r in order]
        heads = [md(t.rows.label), md(living), f"{md(label)} ({md_code(beside[0])})"]
        return md_table(heads, rows, "lrr", pad=False) + "\n"
    return (t.to_markdown() + f"\nThe same table for {md(label)} ({md_code(beside[0])}):\n\n"
            + other.to_markdown())


def _same_table(t: Table, stats: Stats) -> Table | None:
    for o in (*stats.fields, *stats.groups, *stats.crosstabs):
        if o.id == t.id:
            return o
    return None


def stats_outputs(tax: Taxonomy, stats: Stats, prefix: str = "reports",
                  beside: tuple[str, Stats] | None = None) -> dict[str, str]:
    files = {
        f"{prefix}/STATS.md": stats_markdown(tax, stats, beside),
        f"{prefix}/stats.json": json.dumps(stats.to_dict(), indent=2, ensure_ascii=False) + "\n",
    }
    for kind, tables in (("field", stats.fields), ("group", stats.groups), ("crosstab", stats.crosstabs)):
        for t in tables:
            files[f"{prefix}/tables/{kind}-{t.id}.csv"] = t.to_csv()
    return files


def record_cells(tax: Taxonomy, stats: Stats, rec: Record, living: bool = True) -> set[str]:
    """The count cells (keys of :meth:`Stats.cells`) one record adds 1 to.

    Every count is a number of distinct records, so a change to one record moves exactly the
    cells in the difference of its sets before and after: no need to recount the corpus.
    """
    out: set[str] = set()
    for t in (*stats.fields, *stats.groups, *stats.crosstabs):
        if rec.collection != t.collection:
            continue
        view = t.id.split("@", 1)[1] if "@" in t.id else ""
        if not view and not living:
            continue  # a record only an edition still holds (since excluded) counts there only
        if view and tax.editions and edition_of(tax, rec) not in tax.editions.up_to(view):
            continue  # a table of an edition the record did not enter in
        rows = t.rows.extract(rec, tax.untagged)
        if t.cols is None:
            out.update(f"{t.id}/{r}" for r in rows)
        elif _pairs(t.rows, t.cols):
            raw = get_path(rec.data, t.rows.field)
            if isinstance(raw, dict):
                out.update(f"{t.id}/{k}/{mode_of(v)}" for k, v in raw.items())
            else:
                s = tax.untagged if raw is None else str(raw)
                out.add(f"{t.id}/{s}/{s}")
        else:
            cols = t.cols.extract(rec, tax.untagged)
            out.update(f"{t.id}/{r}/{c}" for r in rows for c in cols)
    for name in stats.touched:
        if tax.field(name).collection not in ("", rec.collection):
            continue
        raw = rec.get(name)
        part = tax.untagged if raw is None else ("some" if raw else "none") if isinstance(raw, dict) else str(raw)
        out.add(f"{name}/records/{part}")
    return out
