"""The statistics report: headline counts, one table per controlled field and value group, and
the cross-tabulations configured in ``data/reports.yaml`` (:mod:`survey_tools.reports.report_config`).

The counting itself is :mod:`survey_tools.reports.counting`; STATS.md, stats.json and the CSV
tables are written by :mod:`survey_tools.reports.stats_output`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.protocol import Protocol, has_protocol, load_protocol
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import added_since, corpus_view, edition_of
from survey_tools.reports.axes import MODE_SUFFIX, resolve_axis
from survey_tools.reports.counting import Table, key_modes, paired, tabulate, view_table
from survey_tools.reports.living import LivingFlow, living_flow
from survey_tools.reports.report_config import ReportConfig

STATS_FORMAT = 1


@dataclass(frozen=True)
class Stats:
    headline: Mapping[str, int]
    fields: tuple[Table, ...]
    groups: tuple[Table, ...]
    crosstabs: tuple[Table, ...]
    touched: Mapping[
        str, Mapping[str, int]
    ]  # mapping field -> records touching some / none / NA / untagged
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


Search = tuple[Protocol | None, LivingFlow | None]


def search_of(tax: Taxonomy, reads: Reads | None = None) -> Search:
    """The search protocol and the living list's flow (from screening/'s logs, read through the
    build's ``reads``): the same for every view, so that the statistics of another view reuse
    them (``compute_stats(search=)``) and read no file."""
    protocol = load_protocol(tax) if has_protocol(tax) else None
    return protocol, (living_flow(reads or Reads(tax.root)) if protocol else None)


def compute_stats(corpus: Corpus, config: ReportConfig, search: Search | None = None) -> Stats:
    """The statistics of ``corpus``; ``search`` the protocol and living flow when already known
    (else read: :func:`search_of`)."""
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
                t = tabulate(
                    tax,
                    recs,
                    resolve_axis(tax, cf.name),
                    resolve_axis(tax, cf.name + MODE_SUFFIX),
                    cf.name,
                    cf.label,
                )
                fields.append(t)
                touched[cf.name] = _touched(tax, recs, cf.name)
            else:
                fields.append(
                    tabulate(tax, recs, resolve_axis(tax, cf.name), None, cf.name, cf.label)
                )
            if cf.group is not None:
                groups.append(
                    tabulate(
                        tax,
                        recs,
                        resolve_axis(tax, cf.group.name),
                        None,
                        cf.group.name,
                        cf.group.label,
                    )
                )
    crosstabs = []
    views = config.crosstab_views or ("",) * len(config.crosstabs)
    for (rows, cols), view in zip(config.crosstabs, views, strict=True):
        ra, ca = resolve_axis(tax, rows), resolve_axis(tax, cols)
        crosstabs.append(view_table(corpus, view, ra, ca))
    protocol, living = search if search is not None else search_of(tax)
    return Stats(
        headline,
        tuple(fields),
        tuple(groups),
        tuple(crosstabs),
        touched,
        edition_counts(corpus, config),
        living,
        protocol,
    )


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
        elif paired(t.rows, t.cols):
            out.update(f"{t.id}/{k}/{m}" for k, m in key_modes(rec, t.rows.field, tax.untagged))
        else:
            cols = t.cols.extract(rec, tax.untagged)
            out.update(f"{t.id}/{r}/{c}" for r in rows for c in cols)
    for name in stats.touched:
        if tax.field(name).collection not in ("", rec.collection):
            continue
        raw = rec.get(name)
        part = (
            tax.untagged
            if raw is None
            else ("some" if raw else "none")
            if isinstance(raw, dict)
            else str(raw)
        )
        out.add(f"{name}/records/{part}")
    return out
