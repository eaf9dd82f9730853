"""Views of the corpus: the living list (every record) or one of the survey's editions.

Every record names the edition it entered in (``editions.field`` in ``taxonomy/survey.yaml``).
The view of a published edition holds the records that entered up to that edition, with their
current tags; a record of that edition that was later moved to the exclusion log (its former
record kept under the exclusion's ``retained_record``) still counts as retained there, so the
survey's numbers keep holding while the living list grows and changes.
"""

from __future__ import annotations

from dataclasses import replace

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import FORMER_FIELD, Taxonomy


def view_ids(tax: Taxonomy) -> tuple[str, ...]:
    """Every view a report may ask for: the published editions, then the living list."""
    return tax.editions.ids if tax.editions else ()


def living_id(tax: Taxonomy) -> str:
    return tax.editions.living.id if tax.editions else ""


def edition_of(tax: Taxonomy, rec: Record) -> str:
    """The edition a record entered in (the living list's id when the record does not say)."""
    if tax.editions is None:
        return ""
    value = rec.get(tax.editions.field)
    return str(value) if value is not None else tax.editions.living.id


def view_label(tax: Taxonomy, view: str) -> str:
    e = tax.editions.get(view) if tax.editions else None
    return e.label if e else view


def corpus_view(corpus: Corpus, view: str | None) -> Corpus:
    """The records of ``view`` (an edition id or the living list's id; None or "" = living)."""
    tax = corpus.taxonomy
    ed = tax.editions
    if ed is None or not view or view == ed.living.id:
        return corpus
    if view not in ed.ids:
        raise KeyError(f"unknown view {view!r} (known: {', '.join(ed.ids)})")
    wanted = set(ed.up_to(view))
    records: dict[str, list[Record]] = {name: [] for name in corpus.records}
    retained = tax.retained.name
    for name, recs in corpus.records.items():
        for rec in recs:
            if edition_of(tax, rec) in wanted:
                records[name].append(rec)
                continue
            former = rec.get(FORMER_FIELD)
            if name != retained and isinstance(former, dict):
                value = former.get(ed.field)
                if value is not None and str(value) in wanted:
                    key = str(former.get(tax.retained.id_field, rec.id))
                    records[retained].append(replace(rec, collection=retained, id=key, data=former))
    out = {name: tuple(sorted(recs, key=lambda r: r.id)) for name, recs in records.items()}
    return replace(corpus, records=out)


def added_since(corpus: Corpus, view: str | None = None) -> tuple[Record, ...]:
    """Retained records that entered after ``view`` (default: the latest published edition)."""
    tax = corpus.taxonomy
    ed = tax.editions
    if ed is None or ed.latest is None:
        return ()
    base = {r.id for r in corpus_view(corpus, view or ed.latest.id).retained}
    return tuple(r for r in corpus.retained if r.id not in base)


def known_keys(corpus: Corpus) -> set[str]:
    """Keys of retained records in any view: a paper later excluded is still known by its key."""
    tax = corpus.taxonomy
    keys = {r.id for r in corpus.retained}
    if tax.editions is not None:
        for e in tax.editions.published:
            keys.update(r.id for r in corpus_view(corpus, e.id).retained)
    return keys
