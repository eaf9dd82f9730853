"""The search and screening protocol (``taxonomy/protocol.yaml``): sources, query families and
their terms, inclusion and exclusion rules, the edition's cutoff, as data.

The file is checked against a JSON Schema (written to ``taxonomy/schema/protocol.schema.json``
by ``survey build``) and then against the taxonomy: the exclusion-log values it names (source,
query family, reason, stage) must exist, and every protocol term must be used by its family's
query. Problems come back as ``file:line:col`` lines, all at once.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.configs import checked
from survey_tools.corpus.protocol_schema import PROTOCOL_FILE
from survey_tools.corpus.taxonomy import ControlledField, Taxonomy
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import InvalidInput, Problem
from survey_tools.schema_words import suggest


@dataclass(frozen=True)
class Source:
    id: str
    label: str
    value: str | None  # the exclusion log's source value
    search: str | None  # "arxiv" when `survey search` can query it


@dataclass(frozen=True)
class Family:
    id: str
    label: str
    terms: tuple[str, ...]  # the protocol's own terms
    query: tuple[tuple[str, ...], ...]  # AND of ORs
    query_family: str | None  # the exclusion log's value


@dataclass(frozen=True)
class ExclusionRule:
    text: str
    reason: str | None


@dataclass(frozen=True)
class Protocol:
    title: str
    document: str
    dated: str
    edition_cutoff: str
    design: str
    fields: Mapping[str, str]
    sources: tuple[Source, ...]
    families: tuple[Family, ...]
    inclusion: tuple[str, ...]
    exclusion: tuple[ExclusionRule, ...]
    page_size: int
    max_results: int
    delay: float
    exclude_stage: str | None
    retain_stage: str | None
    # What each stage says was read (stage -> abstract | full_text | artifact), and the words
    # that tell readings apart (corpus/stages.py checks decisions against the records' readings).
    read_at: Mapping[str, str] = field(default_factory=dict)
    abstract_places: tuple[str, ...] = ()
    secondhand: tuple[str, ...] = ()
    artifact_modes: tuple[str, ...] = ()

    def family(self, fid: str) -> Family | None:
        return next((f for f in self.families if f.id == fid), None)

    @property
    def arxiv_source(self) -> Source | None:
        return next((s for s in self.sources if s.search == "arxiv"), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title, "edition_cutoff": self.edition_cutoff,
            "sources": [s.label for s in self.sources],
            "families": [{"id": f.id, "label": f.label, "terms": list(f.terms)} for f in self.families],
            "inclusion": list(self.inclusion),
            "exclusion": [r.text for r in self.exclusion],
        }


def has_protocol(tax: Taxonomy) -> bool:
    return tax.document(PROTOCOL_FILE) is not None


def load_protocol(tax: Taxonomy) -> Protocol:
    """Read and check ``taxonomy/protocol.yaml``; raise InvalidInput listing every problem."""
    doc = tax.document(PROTOCOL_FILE)
    if doc is None:
        raise InvalidInput(
            [Problem(PROTOCOL_FILE, 0, 0, "", "missing: this survey has no search protocol")],
            f"no {PROTOCOL_FILE}",
        )
    if doc.problems:
        raise InvalidInput(doc.problems, f"{PROTOCOL_FILE} cannot be read")
    data = doc.data
    # The schema (config_schemas/protocol.schema.yaml) names every shape mistake, through the
    # explainer every configuration file uses; the code below checks what it cannot say.
    problems = checked("protocol", doc, PROTOCOL_FILE)[1]
    if problems:
        raise InvalidInput(problems, f"{PROTOCOL_FILE} is invalid")
    assert isinstance(data, dict)
    problems = _cross_check(tax, doc, data)
    if problems:
        raise InvalidInput(problems, f"{PROTOCOL_FILE} is invalid")
    return _protocol(data)


class _Problems:
    """The problems of a schema-valid protocol, each pointing at its value in the file."""

    def __init__(self, doc: YamlDocument) -> None:
        self.doc = doc
        self.found: list[Problem] = []
        # role -> the exclusion log's field that holds it (None: the file names no such field)
        self.fields: dict[str, ControlledField | None] = {}

    def bad(self, p: tuple[Any, ...], msg: str) -> None:
        line, col = self.doc.position(p)
        self.found.append(Problem(PROTOCOL_FILE, line, col, ".".join(map(str, p)), msg))

    def check_value(self, p: tuple[Any, ...], role: str, value: Any) -> None:
        cf = self.fields.get(role)
        if cf is None or value is None or value in cf.ids:
            return
        hint = suggest(value, cf.ids)
        did_you_mean = f" (did you mean {hint!r}?)" if hint else ""
        self.bad(p, f"{value!r} is not a {cf.noun}{did_you_mean}")


def _cross_check(tax: Taxonomy, doc: YamlDocument, data: dict[str, Any]) -> list[Problem]:
    """What the schema cannot say: names from the taxonomy, unique ids, a real date."""
    out = _Problems(doc)
    excluded = tax.excluded
    for role, name in data["fields"].items():
        cf = excluded.controlled_field(str(name)) if excluded else None
        if cf is None:
            out.bad(("fields", role), f"{name!r} is not a controlled field of the exclusion log")
        out.fields[role] = cf
    try:
        dt.date.fromisoformat(data["protocol"]["edition_cutoff"])
    except ValueError:
        cutoff = data["protocol"]["edition_cutoff"]
        out.bad(("protocol", "edition_cutoff"), f"{cutoff!r} is not a date")
    seen: set[str] = set()
    for i, s in enumerate(data["sources"]):
        if s["id"] in seen:
            out.bad(("sources", i, "id"), f"{s['id']!r} is used twice")
        seen.add(s["id"])
        out.check_value(("sources", i, "value"), "source", s.get("value"))
    _check_families(out, data["families"])
    for i, r in enumerate(data["exclusion"]):
        out.check_value(("exclusion", i, "reason"), "reason", r.get("reason"))
    screening = data.get("screening") or {}
    for role in ("exclude_stage", "retain_stage"):
        out.check_value(("screening", role), "stage", screening.get(role))
    for stage in screening.get("read_at") or {}:
        out.check_value(("screening", "read_at", stage), "stage", stage)
    return out.found


def _check_families(out: _Problems, families: list[dict[str, Any]]) -> None:
    seen: set[str] = set()
    for i, f in enumerate(families):
        if f["id"] in seen:
            out.bad(("families", i, "id"), f"{f['id']!r} is used twice")
        seen.add(f["id"])
        out.check_value(("families", i, "query_family"), "query_family", f.get("query_family"))
        # A term the query does not use would be reported as searched while it never was.
        used = {t for group in f["query"] for t in group}
        for j, t in enumerate(f["terms"]):
            if t not in used:
                out.bad(
                    ("families", i, "terms", j),
                    f"the term {t!r} is in no group of the family's query",
                )
        for j, group in enumerate(f["query"]):
            for k, t in enumerate(group):
                if '"' in t:
                    out.bad(("families", i, "query", j, k), "a term cannot contain a double quote")


def _protocol(data: dict[str, Any]) -> Protocol:
    meta = data["protocol"]
    search = data.get("search") or {}
    screening = data.get("screening") or {}
    return Protocol(
        title=meta["title"],
        document=meta.get("document", ""),
        dated=meta.get("dated", ""),
        edition_cutoff=meta["edition_cutoff"],
        design=meta.get("design", ""),
        fields=dict(data["fields"]),
        sources=tuple(
            Source(s["id"], s["label"], s.get("value"), s.get("search")) for s in data["sources"]
        ),
        families=tuple(
            Family(
                f["id"],
                f["label"],
                tuple(f["terms"]),
                tuple(tuple(g) for g in f["query"]),
                f.get("query_family"),
            )
            for f in data["families"]
        ),
        inclusion=tuple(data["inclusion"]),
        exclusion=tuple(ExclusionRule(r["text"], r.get("reason")) for r in data["exclusion"]),
        page_size=int(search.get("page_size", 100)),
        max_results=int(search.get("max_results", 500)),
        delay=float(search.get("delay", 3)),
        exclude_stage=screening.get("exclude_stage"),
        retain_stage=screening.get("retain_stage"),
        read_at={str(k): str(v) for k, v in (screening.get("read_at") or {}).items()},
        abstract_places=tuple(screening.get("abstract_places") or ()),
        secondhand=tuple(screening.get("secondhand") or ()),
        artifact_modes=tuple(screening.get("artifact_modes") or ()),
    )


__all__ = ["PROTOCOL_FILE", "ExclusionRule", "Family", "Protocol", "Source",
           "has_protocol", "load_protocol"]
