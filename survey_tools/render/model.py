"""What the README and the browsing page show, computed from the taxonomy, records and statistics.

Everything here returns plain data (dicts, lists, strings) so that the templates stay free of
logic and both outputs (Markdown and HTML) read the same facts. Field names, labels and order
come from ``taxonomy/`` (``survey.readme`` and ``survey.site``); counts come from the statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from survey_tools.corpus.configs import defaults
from survey_tools.corpus.identifiers import ids_from_url
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.errors import InvalidInput, Problem
from survey_tools.latex import plain_text
from survey_tools.net.hrefs import safe_href
from survey_tools.reports.axes import Axis, get_path, mode_of, resolve_axis
from survey_tools.reports.stats import Stats

# Host names shown for secondary links whose usual spelling is not the host itself.
_HOST_LABELS = {
    "github.com": "GitHub", "huggingface.co": "Hugging Face", "openreview.net": "OpenReview",
    "arxiv.org": "arXiv", "doi.org": "DOI",
}


@dataclass(frozen=True)
class Tag:
    """One tag of a record as shown to readers: the axis label and the value's label."""

    axis: str
    label: str
    value: str


def presentation(tax: Taxonomy, part: str) -> Mapping[str, Any]:
    """``survey.readme`` or ``survey.site`` from taxonomy/survey.yaml, every key missing there
    at its documented default (taxonomy/README.md lists them)."""
    conf = dict(defaults("survey", {"survey": tax.survey}, "survey", part))
    if part == "readme" and not conf.get("group_by"):
        conf["group_by"] = default_group_by(tax)
    return conf


def default_group_by(tax: Taxonomy) -> str:
    """The first single- or multi-valued controlled field of the retained records ("" if none)."""
    return next((c.name for c in tax.retained.controlled if c.kind != "mapping"), "")


# Axes resolved once per taxonomy version (every record's tags, on every page, ask again).
_AXES: dict[tuple[str, str, str], Axis] = {}


def axis(tax: Taxonomy, spec: str) -> Axis:
    key = (str(tax.root), tax.digest, spec)
    found = _AXES.get(key)
    if found is not None:
        return found
    try:
        _AXES[key] = found = resolve_axis(tax, spec)
        return found
    except KeyError as err:
        raise InvalidInput(
            [Problem("taxonomy/survey.yaml", 0, 0, "survey", str(err.args[0]))], "unknown axis in survey.readme/site"
        ) from None


def is_sentinel(tax: Taxonomy, value: str) -> bool:
    return value in (tax.na, tax.untagged)


def display(value: Any) -> str:
    """A record's text as a reader sees it: TeX escapes (``Balunovi\\'{c}``) decoded. Every
    non-BibTeX output takes names and titles through here (bibtex.py keeps the TeX)."""
    return plain_text(str(value))


def display_authors(rec: Record) -> list[str]:
    """The record's authors as readers see them (decoded, no stray spaces)."""
    return [display(a).strip() for a in rec.get("authors") or []]


def primary_link(rec: Record) -> str:
    links = rec.get("links") or []
    if links:
        return safe_href(str(links[0]))
    # A list's own `url` column may hold paths into that list's web site ('/assets/x.pdf'): only
    # an absolute http(s) address is a link a reader of this list can follow.
    return safe_href(str(rec.get("url") or ""))


def link_label(url: str) -> str:
    """A short name for a secondary link: a known host's usual spelling, else the host."""
    try:
        host = urlsplit(url).netloc.lower().removeprefix("www.")
    except ValueError:  # validation names such a link; the label is then the link itself
        host = ""
    return _HOST_LABELS.get(host, host or url)


def secondary_links(rec: Record, tax: Taxonomy | None = None) -> list[dict[str, str]]:
    """The record's links after the first; with ``tax``, also where each of its identifiers
    resolves (the identifier kind's ``url`` in survey.yaml) when no link points there already."""
    links = [str(u) for u in (rec.get("links") or [])]
    # The one href rule once more (net/hrefs.py): a link validate refuses is never written.
    out = [{"url": u, "label": link_label(u)} for u in links[1:] if safe_href(u)]
    for url in identifier_urls(rec, tax, links) if tax is not None else ():
        out.append({"url": url, "label": link_label(url)})
    return out


def identifier_urls(rec: Record, tax: Taxonomy, links: Sequence[str] = ()) -> list[str]:
    """Where the record's identifiers resolve, leaving out those a link of ``links`` already names."""
    coll = tax.collections.get(rec.collection)
    names = [f.name for f in coll.fields if f.type == "identifiers"] if coll else []
    named: set[tuple[str, str]] = set()
    for link in links:
        named.update(ids_from_url(link).items())
    out: list[str] = []
    for name in names:
        ids = rec.get(name)
        if not isinstance(ids, Mapping):
            continue
        for kind, spec in tax.identifiers.items():
            value = ids.get(kind)
            if not value or not spec.url or (kind, str(value)) in named:
                continue
            url = spec.url.replace("{id}", str(value))
            if url not in links and url not in out:
                out.append(url)
    return out


def record_tags(tax: Taxonomy, rec: Record, specs: Sequence[str]) -> list[Tag]:
    """The record's tags along ``specs``; not-applicable and untagged values are left out. A
    value whose reading rests on code carries its mark ("O5 stop (learned)†", ``reading_marks``)."""
    out: list[Tag] = []
    sentinels = (tax.na, tax.untagged)
    marks = reading_marks(tax)
    for spec in specs:
        ax = axis(tax, spec)
        if ax.kind == "keys":
            raw = get_path(rec.data, ax.field)
            if not isinstance(raw, Mapping) or not raw:
                continue
            modes = ax.mode_labels
            parts = [f"{ax.label_of(str(k))} ({modes.get(mode_of(v), mode_of(v))}){marks.of(rec, marks.key_for(ax, str(k)))}"
                     for k, v in raw.items()]
            out.append(Tag(spec, ax.label, ", ".join(parts)))
            continue
        labels = [ax.label_of(v) for v in ax.extract(rec, tax.untagged) if v not in sentinels]
        if labels:
            out.append(Tag(spec, ax.label, ", ".join(labels) + marks.of(rec, marks.key_for(ax))))
    return out


def ranked(tax: Taxonomy, records: Sequence[Record], rank_by: str) -> list[Record]:
    """Records in the order the maps name them: rank field's value order, newest, then id."""
    order: dict[str, int] = {}
    cf = tax.find_field(rank_by) if rank_by else None
    if cf is not None:
        order = {v: i for i, v in enumerate(cf.ids)}

    def key(r: Record) -> tuple[int, int, str]:
        rank = order.get(str(r.get(rank_by)), len(order)) if cf else 0
        year = r.get("year")
        return (rank, -int(year) if isinstance(year, int) else 0, r.id)

    return sorted(records, key=key)


def members_by_value(tax: Taxonomy, ax: Axis, records: Sequence[Record]) -> dict[str, list[Record]]:
    """Each value's records, in the order of ``records``, found in one pass (a map or the
    README's grouping asks for every value's)."""
    out: dict[str, list[Record]] = {}
    for r in records:
        for v in dict.fromkeys(ax.extract(r, tax.untagged)):
            out.setdefault(v, []).append(r)
    return out


def mapping_index(ax: Axis, records: Sequence[Record]) -> dict[tuple[str, str], list[Record]]:
    """The records holding each (key, mode) of a mapping field (O2 learned), in the order of
    ``records``."""
    out: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        raw = get_path(r.data, ax.field)
        if isinstance(raw, Mapping):
            for k, v in raw.items():
                out.setdefault((str(k), mode_of(v)), []).append(r)
    return out


def count(stats: Stats, table_id: str, row: str, col: str | None = None) -> int:
    """A count from the statistics; 0 when the value never occurs (the table omits nothing)."""
    t = stats.table(table_id)
    if row not in t.row_values or (col is not None and col not in t.col_values):
        return 0
    return t.count(row, col)


@dataclass(frozen=True)
class ExclusionRow:
    cells: tuple[str, ...]  # values of the configured columns, controlled codes as labels
    url: str
    note: str


def exclusion_table(tax: Taxonomy, corpus: Corpus) -> tuple[list[dict[str, str]], list[ExclusionRow]]:
    """The exclusion log's columns (``survey.readme.exclusion_columns``) and rows."""
    ex = tax.excluded
    if ex is None:
        return [], []
    names = [str(n) for n in presentation(tax, "readme").get("exclusion_columns", [])]
    names = names or [ex.id_field, ex.title_field]
    plain = {f.name: f.label for f in ex.fields}
    columns = []
    for name in names:
        cf = ex.controlled_field(name)
        columns.append({"name": name, "label": cf.label if cf else plain.get(name, name)})
    rows = []
    for rec in corpus.excluded:
        cells = []
        for name in names:
            cf = ex.controlled_field(name)
            raw = str(rec.get(name, ""))
            cells.append(cf.label_of(raw) if cf else raw)
        rows.append(ExclusionRow(tuple(cells), str(rec.get("url", "")), str(rec.get("note", ""))))
    return columns, rows


@dataclass(frozen=True)
class ReadingMarks:
    """The marks a reader sees beside a tag whose reading rests on something other than the
    paper's text: the mapping field that places readings (``where_words``, taxonomy/fields/
    readings.yaml) and its modes that carry a ``mark`` (code: "†"), each with its ``legend``."""

    name: str = ""
    keys: frozenset[str] = frozenset()
    marks: Mapping[str, str] = field(default_factory=dict)  # mode id -> mark
    legends: Mapping[str, str] = field(default_factory=dict)  # mark -> legend line

    def key_for(self, ax: Axis, value: str = "") -> str:
        """The reading that decides a tag of ``ax``: the value's own (a sub-decision, O5) for a
        mapping's keys, else the field's ("" when the record type places no such reading)."""
        if not self.name or ax.cf is None:
            return ""
        if ax.kind == "keys" and value in self.keys:
            return value
        return ax.cf.name if ax.cf.name in self.keys else ""

    def of(self, rec: Record, key: str) -> str:
        """The mark of the record's reading of ``key`` ("" when it rests on the paper or is not placed)."""
        if not key:
            return ""
        placed = rec.get(self.name)
        # type() first: a record's values are dicts, and isinstance against the Mapping ABC is
        # a Python-level call (this runs for every tag of every record's page and README line)
        entry = placed.get(key) if type(placed) is dict or isinstance(placed, Mapping) else None
        return self.marks.get(mode_of(entry), "") if entry is not None else ""


# Reading marks worked out once per taxonomy version (every record's tags ask for them).
_MARKS: dict[tuple[str, str], ReadingMarks] = {}


def reading_marks(tax: Taxonomy) -> ReadingMarks:
    """The retained records' reading marks (none when no field places readings or no mode is marked)."""
    key = (str(tax.root), tax.digest)
    found = _MARKS.get(key)
    if found is None:
        found = _MARKS[key] = _reading_marks(tax)
    return found


def _reading_marks(tax: Taxonomy) -> ReadingMarks:
    cf = next((c for c in tax.retained.controlled if c.kind == "mapping" and c.where_words), None)
    if cf is None:
        return ReadingMarks()
    marks = {m.id: str(m.extra["mark"]) for m in cf.modes if m.extra.get("mark")}
    legends = {str(m.extra["mark"]): str(m.extra.get("legend") or m.description) for m in cf.modes if m.extra.get("mark")}
    return ReadingMarks(cf.name, frozenset(cf.ids), marks, legends) if marks else ReadingMarks()
