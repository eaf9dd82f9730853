"""Proposed corrections to the records: still valid, and what applying them would change.

The corrections file (``files.corrections`` in ``taxonomy/survey.yaml``) is hand-written::

    corrections:
      - id: C001
        record: ippo2020        # a record key
        field: reward_type      # a controlled field, a plain field, or a dotted plain path
        current: individual     # must still equal the record's value (else the entry is stale)
        proposed: shared
        evidence: https://...
        reason: One sentence.
        kind: tag               # tag (default) or metadata

Its shape (keys, types, kinds) is ``corpus/config_schemas/corrections.schema.yaml``, checked
through the one explainer; :func:`parse_corrections` checks only what a schema cannot say.

Nothing is applied to the records: the report shows which count cells and which claims each
correction (and all of them together) would move. A ``metadata`` correction (an identifier, the
venue, year, DOI or authors: never a controlled field) is also shown where the records are
displayed (README, page, BibTeX; :func:`metadata_applied`), while counts and the CSV export keep
the records' own values.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from survey_tools.corpus.configs import checked
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import corpus_view
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.axes import get_path, mode_of, plain_str
from survey_tools.reports.claims import ClaimsReport
from survey_tools.reports.claims_file import Claim
from survey_tools.reports.report_config import ReportConfig
from survey_tools.reports.stats import Stats, record_cells


@dataclass(frozen=True)
class Correction:
    id: str
    record: str
    field: str
    current: Any
    proposed: Any
    evidence: str
    reason: str
    line: int = 0
    kind: str = "tag"  # tag: proposed only; metadata: also shown where the records are displayed


@dataclass(frozen=True)
class CellChange:
    cell: str
    before: int
    after: int


@dataclass(frozen=True)
class ClaimChange:
    claim: str
    before: int
    after: int
    status_before: str
    status_after: str


@dataclass(frozen=True)
class Effect:
    corrections: tuple[str, ...]
    cells: tuple[CellChange, ...]
    claims: tuple[ClaimChange, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "corrections": list(self.corrections),
            "cells": [{"cell": c.cell, "before": c.before, "after": c.after} for c in self.cells],
            "claims": [
                {"claim": c.claim, "before": c.before, "after": c.after, "status_before": c.status_before, "status_after": c.status_after}
                for c in self.claims
            ],
        }


@dataclass(frozen=True)
class CorrectionsReport:
    source: str
    corrections: tuple[Correction, ...]
    effects: tuple[Effect, ...]  # one per correction, in file order
    combined: Effect | None
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ok": self.ok,
            "problems": [p.format() for p in self.problems],
            "corrections": [
                {
                    "id": c.id, "kind": c.kind, "record": c.record, "field": c.field, "current": c.current,
                    "proposed": c.proposed, "evidence": c.evidence, "reason": c.reason,
                    "effect": e.to_dict(),
                }
                for c, e in zip(self.corrections, self.effects, strict=True)
            ],
            "combined": self.combined.to_dict() if self.combined else None,
        }


def load_corrections(tax: Taxonomy) -> tuple[str, tuple[Correction, ...]] | None:
    """Read the corrections file; ``None`` when there is none yet. :class:`InvalidInput` lists
    every problem, each naming its correction."""
    rel = tax.data_file("corrections")
    doc = tax.document(rel)
    if doc is None:
        return None
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read")
    return rel, parse_corrections(tax, doc, rel)


def parse_corrections(tax: Taxonomy, doc: YamlDocument, rel: str) -> tuple[Correction, ...]:
    """The corrections of ``doc``: its shape checked by the schema first (every shape mistake at
    once, ``corrections.schema.yaml``), then what only the taxonomy and the file as a whole can
    say: unique ids, fields the taxonomy has, proposed values valid for their field, and no
    controlled field called metadata. Whether the record exists and still holds ``current`` is
    :func:`evaluate_corrections`'s (it needs the records)."""
    doc, problems = checked("corrections", doc, rel)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    d = doc.data
    assert isinstance(d, dict)  # the schema says so
    out: list[Correction] = []
    seen: set[str] = set()
    for i, c in enumerate(d["corrections"]):
        line = doc.position(("corrections", i))[0]
        cid = c["id"]
        if cid in seen:
            il, ic = doc.position(("corrections", i, "id"))
            problems.append(Problem(rel, il, ic, f"correction {cid}", "duplicate id"))
        seen.add(cid)
        fld, kind = c["field"], c.get("kind", "tag")
        msg = _check_field(tax, fld, c["proposed"])
        if not msg and kind == "metadata" and tax.find_field(fld.split(".", 1)[0]) is not None:
            msg = f"{fld} is a tag (a controlled field), not metadata; drop `kind: metadata`"
        if msg:
            fl, fc = doc.position(("corrections", i, "field"))
            problems.append(Problem(rel, fl, fc, f"correction {cid}", msg))
            continue
        out.append(Correction(cid, c["record"], fld, c["current"], c["proposed"], c["evidence"], c["reason"], line, kind))
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return tuple(out)


def _check_field(tax: Taxonomy, name: str, proposed: Any) -> str:
    cf = tax.find_field(name.split(".", 1)[0])
    if cf is not None:
        if "." in name or cf.kind != "single":
            return ""  # mapping entries and lists are checked by value below only for single fields
        allowed = [*cf.ids, tax.na if cf.not_applicable else None, None if cf.required else tax.untagged]
        if plain_str(proposed) not in [a for a in allowed if a]:
            return f"{proposed!r} is not a value of {name} (known: {', '.join(a for a in allowed if a)})"
        return ""
    head = name.split(".", 1)[0]
    for coll in tax.collections.values():
        for f in coll.fields:
            if f.name == head:
                if f.type == "boolean" and not isinstance(proposed, bool):
                    return f"{name} is true or false, not {proposed!r}"
                return ""
    return f"unknown field {name!r}"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        if isinstance(a, dict) and isinstance(b, dict):
            return a == b
        return mode_of(a) == mode_of(b)
    return plain_str(a) == plain_str(b) if a is not None and b is not None else a is b


def _apply(rec: Record, fld: str, value: Any) -> Record:
    data = copy.deepcopy(dict(rec.data))
    parts = fld.split(".")
    cur = data
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value
    return replace(rec, data=data)


def _effect(
    tax: Taxonomy,
    stats: Stats,
    base_cells: Mapping[str, int],
    claims: Sequence[Claim],
    claims_report: ClaimsReport,
    pairs: Sequence[tuple[Record, Record]],
    ids: tuple[str, ...],
) -> Effect:
    delta: Counter[str] = Counter()
    claim_delta: Counter[str] = Counter()
    # A correction moves a claim only when the record is in the claim's view. The report's
    # claims are the evaluated ones (an audit claim's predicate knows the audited keys).
    universe = {r.claim.id: r.universe for r in claims_report.results}
    claims = [r.claim for r in claims_report.results]
    for before, after in pairs:
        living = before.path.startswith(f"{tax.retained.folder}/") or before.collection != tax.retained.name
        b, a = record_cells(tax, stats, before, living), record_cells(tax, stats, after, living)
        for k in a - b:
            delta[k] += 1
        for k in b - a:
            delta[k] -= 1
        for c in claims:
            if before.collection in c.collections and before.id in universe.get(c.id, frozenset()):
                claim_delta[c.id] += int(c.predicate(after)) - int(c.predicate(before))
    cells = tuple(
        CellChange(k, base_cells.get(k, 0), base_cells.get(k, 0) + d) for k, d in sorted(delta.items()) if d
    )
    changes = []
    for r in claims_report.results:
        d = claim_delta.get(r.claim.id, 0)
        if not d:
            continue
        n_after = r.count + d
        changes.append(ClaimChange(r.claim.id, r.count, n_after, _status(r.claim.holds(r.count)), _status(r.claim.holds(n_after))))
    return Effect(ids, cells, tuple(changes))


def _status(ok: bool) -> str:
    return "holds" if ok else "contradicted"


def evaluate_corrections(
    corpus: Corpus,
    config: ReportConfig,
    stats: Stats,
    claims_report: ClaimsReport,
    claims: Sequence[Claim],
    loaded: tuple[str, Sequence[Correction]],
) -> CorrectionsReport:
    """Check each correction against its record and compute what applying it would move."""
    del config  # the statistics already carry the configuration they were computed with
    tax = corpus.taxonomy
    source, corrections = loaded
    records = {r.id: r for r in corpus}
    # A paper excluded since the survey's edition keeps its key there (its former record).
    for e in tax.editions.published if tax.editions else ():
        for r in corpus_view(corpus, e.id):
            records.setdefault(r.id, r)
    base = stats.cells()
    problems: list[Problem] = []
    effects: list[Effect] = []
    edited: dict[str, Record] = {}
    for c in corrections:
        rec = records.get(c.record)
        if rec is None:
            problems.append(Problem(source, c.line, 0, f"correction {c.id}", f"no record with key {c.record!r}"))
            effects.append(Effect((c.id,), (), ()))
            continue
        now = get_path(rec.data, c.field)
        if not _same(now, c.current):
            problems.append(
                Problem(
                    source, c.line, 0, f"correction {c.id}",
                    f"stale: {rec.path} has {c.field} = {_show(now)}, not {_show(c.current)}"
                    + ("; the record carries the proposed value (applied)" if _same(now, c.proposed) else "")
                    + f"; run `survey corrections --settle {c.id}` to "
                    + ("remove the entry" if _same(now, c.proposed) else "take the record's value as current"),
                )
            )
        after = _apply(rec, c.field, c.proposed)
        effects.append(_effect(tax, stats, base, claims, claims_report, [(rec, after)], (c.id,)))
        edited[c.record] = _apply(edited.get(c.record, rec), c.field, c.proposed)
    combined = None
    if corrections:
        pairs = [(records[k], v) for k, v in sorted(edited.items())]
        combined = _effect(tax, stats, base, claims, claims_report, pairs, tuple(c.id for c in corrections))
    return CorrectionsReport(source, tuple(corrections), tuple(effects), combined, tuple(problems))


def metadata_applied(corpus: Corpus, report: CorrectionsReport | None) -> Corpus:
    """The corpus as it is displayed: every valid ``metadata`` correction applied (identifiers,
    venue, year, authors), tags untouched. Counts, claims and exports use the records as they are."""
    if report is None:
        return corpus
    stale = {p.field.removeprefix("correction ") for p in report.problems}
    todo = [c for c in report.corrections if c.kind == "metadata" and c.id not in stale]
    if not todo:
        return corpus
    records = {}
    for name, recs in corpus.records.items():
        out = []
        for rec in recs:
            for c in todo:
                if c.record == rec.id:
                    rec = _apply(rec, c.field, c.proposed)
            out.append(rec)
        records[name] = tuple(out)
    return replace(corpus, records=records)


def corrected_claims(claims_report: ClaimsReport, report: CorrectionsReport) -> ClaimsReport:
    if report.combined is None:
        return claims_report
    return claims_report.with_corrections({c.claim: c.after for c in report.combined.claims})


def _show(v: Any) -> str:
    return "missing" if v is None else json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)


def corrections_markdown(report: CorrectionsReport) -> str:
    out = [
        "# Proposed corrections",
        "",
        f"Generated by `survey build` from `{report.source}`; do not edit. The records keep their "
        "current values; each entry shows which count cells (`table/row/column`) and which claims "
        "applying it would move.",
        "",
    ]
    if report.combined is not None:
        cc = report.combined
        out += [
            "## All corrections together",
            "",
            f"{len(report.corrections)} corrections would move {len(cc.cells)} count cells and "
            f"{len(cc.claims)} claims.",
            "",
        ]
        out += _claim_lines(cc)
    out += ["## Each correction", ""]
    for c, e in zip(report.corrections, report.effects, strict=True):
        out.append(f"### {c.id}: `{c.record}` {c.field}: {_show(c.current)} → {_show(c.proposed)}")
        shown = (" Metadata: shown in the README, the page and the BibTeX; the survey's CSV export keeps "
                 "the record's value." if c.kind == "metadata" else "")
        out += ["", c.reason + shown, "", f"Evidence: {c.evidence}", ""]
        out += _claim_lines(e)
        if e.cells:
            out.append("Cells: " + "; ".join(f"{x.cell} {x.before}→{x.after}" for x in e.cells) + ".")
        else:
            out.append("Cells: none move.")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _claim_lines(e: Effect) -> list[str]:
    if not e.claims:
        return ["Claims: none change.", ""]
    lines = ["Claims:"]
    for x in e.claims:
        flip = f", {x.status_before} → **{x.status_after}**" if x.status_before != x.status_after else ""
        lines.append(f"- {x.claim}: count {x.before} → {x.after}{flip}")
    return [*lines, ""]


def corrections_outputs(report: CorrectionsReport, prefix: str = "reports") -> dict[str, str]:
    return {
        f"{prefix}/CORRECTIONS.md": corrections_markdown(report),
        f"{prefix}/corrections.json": json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n",
    }
