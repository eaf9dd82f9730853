"""What the list's search reads besides the configured fields: each record's identifiers and
links (so an arXiv id, a DOI or a pasted URL finds its paper) and the taxonomy's own words for the
record's tags (each value's label and definition, so ``when to stop`` reaches the records tagged
with the stop sub-decision). The definitions are shipped once, each record naming its own by
position: a definition shared by hundreds of records costs the page its text once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from survey_tools.corpus.identifiers import record_identifiers
from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import Taxonomy, Value
from survey_tools.render import model
from survey_tools.reports.axes import Axis, get_path


def identifier_texts(tax: Taxonomy, records: Sequence[Record]) -> list[str]:
    """Per record: its identifiers (arXiv id, DOI, OpenReview id) and its links without their
    scheme, one searchable line."""
    kinds = {k: v.normalize for k, v in tax.identifiers.items()}
    out = []
    for r in records:
        ids = list(record_identifiers(r.data, kinds).values())
        links = [model.primary_link(r)] + [lk["url"] for lk in model.secondary_links(r, tax)]
        ids += [u.split("://", 1)[-1] for u in links if u]
        out.append(" ".join(dict.fromkeys(ids)))
    return out


def _definition(v: Value) -> str:
    return f"{v.label}. {v.description}" if v.description else v.label


def _axis_values(tax: Taxonomy, ax: Axis, rec: Record) -> list[Value]:
    """The taxonomy values of ``rec`` along ``ax`` (a mapping's keys, a group's value)."""
    if ax.kind == "keys" and ax.cf is not None:
        raw = get_path(rec.data, ax.field)
        keys = list(raw) if isinstance(raw, Mapping) else []
        return [v for v in (ax.cf.value(str(k)) for k in keys) if v is not None]
    if ax.kind == "group" and ax.group is not None:
        ids = set(ax.extract(rec, tax.untagged))
        return [g for g in ax.group.values if g.id in ids]
    if ax.cf is None:
        return []
    return [v for v in (ax.cf.value(i) for i in ax.extract(rec, tax.untagged)) if v is not None]


def taxonomy_words(
    tax: Taxonomy, axes: Sequence[Axis], records: Sequence[Record]
) -> tuple[list[str], list[list[int]]]:
    """The definitions of the values the records hold along ``axes`` (the list's facets), each
    once, and per record the positions of its own."""
    table: dict[str, int] = {}
    per: list[list[int]] = []
    for r in records:
        mine: dict[int, None] = {}
        for ax in axes:
            for v in _axis_values(tax, ax, r):
                text = _definition(v)
                mine[table.setdefault(text, len(table))] = None
        per.append(list(mine))
    return list(table), per
