"""Validation of a whole survey folder: every record on its own, then across records.

Across records, besides duplicates: a published edition is closed (its membership and the facts
of its records are recorded in a manifest, ``data/editions/<edition>.yaml``); a link must not
name another work than the record's identifier; a summary must not repeat another record's; an
evidence URL must not name another record's work.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from survey_tools.corpus.configs import data_config_problems
from survey_tools.corpus.duplicates import (
    cross_check,
    declared_problems,
    fuzzy_title_problems,
    near_pairs,
)
from survey_tools.corpus.identifiers import ids_from_url, normalize
from survey_tools.corpus.loading import discover, load_corpus
from survey_tools.corpus.pasted import pasted_summary_problems, summary_fields
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.stages import stage_problems
from survey_tools.corpus.taxonomy import FORMER_FIELD, Collection, Edition, Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml, load_yaml_file
from survey_tools.errors import Problem, Report, UsageError
from survey_tools.hashing import content_hexdigest

# The closed editions' manifests, one per published edition.
MANIFESTS = "data/editions"
# The facts of a record that a published edition fixes (absent fields are skipped): what the
# survey cited. Tags, summaries and notes stay editable; facts change through a correction.
FACTS = ("title", "authors", "year", "venue", "identifiers")
# A summary this similar (rapidfuzz ratio, 0-100) to another record's is a copy.
SUMMARY_SIMILARITY = 90


def require_fields(corpus: Corpus, fields: Sequence[str]) -> list[Problem]:
    """Problems for records whose ``fields`` are missing or still untagged."""
    tax = corpus.taxonomy
    problems: list[Problem] = []
    for name in fields:
        cf = tax.find_field(name)
        if cf is None:
            known = [c.name for coll in tax.collections.values() for c in coll.controlled]
            raise UsageError(
                f"--require {name}: no such controlled field (known: {', '.join(known)})"
            )
        for rec in corpus.of(cf.collection or tax.retained.name):
            value = rec.get(name)
            if value is None or value == tax.untagged:
                line, col = rec.where((name,))
                problems.append(
                    Problem(
                        rec.path, line, col, name, f"not yet tagged (required by --require {name})"
                    )
                )
    return problems


def validate_corpus(
    root: Path | str,
    paths: Sequence[Path] | None = None,
    require: Sequence[str] = (),
    tax: Taxonomy | None = None,
) -> Report:
    """Check every record (or only those in ``paths``) and return every problem found.

    Cross-record checks always look at the whole corpus, so that a new file is compared with
    every existing one; with ``paths``, only problems in those files are reported. ``tax`` is
    the survey's taxonomy when the caller has loaded it already.
    """
    root = Path(root)
    tax = load_taxonomy(root) if tax is None else tax
    corpus = load_corpus(root, tax)
    report = report_for(corpus, paths, require)
    if not paths:  # the whole folder: its configuration files too
        report.extend(data_config_problems(tax.document, tax.files))
    return report


def report_for(
    corpus: Corpus, paths: Sequence[Path] | None = None, require: Sequence[str] = ()
) -> Report:
    tax = corpus.taxonomy
    report = Report(checked=corpus.files)
    report.extend(corpus.problems)
    report.extend(corpus.warnings)
    report.extend(cross_check(corpus))
    # Near-identical titles (a typo, a changed subtitle): the same work entered twice.
    report.extend(fuzzy_title_problems(corpus))
    report.extend(declared_problems(corpus))
    report.extend(closed_edition_problems(corpus))
    report.extend(link_problems(corpus))
    report.extend(copied_summary_problems(corpus))
    report.extend(pasted_summary_problems(corpus, {c.name: _summary_fields(c) for c in tax.collections.values()}))
    report.extend(evidence_problems(corpus))
    report.extend(stage_problems(corpus))
    report.extend(require_fields(corpus, require))
    if paths:
        wanted = {rel for _, rel in discover(tax, paths)[0]}
        report.problems = [p for p in report.problems if p.file in wanted]
        report.warnings = [p for p in report.warnings if p.file in wanted]
        report.checked = len(wanted)
    return report


# --- closed editions ---------------------------------------------------------------------------


def _fingerprint(value: Any) -> str:
    """The first 12 hex digits of the sha256 of the value's canonical JSON: equal facts, equal fingerprints."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    # "sha256:" keeps an all-digit hash a string for every YAML reader
    return "sha256:" + content_hexdigest(text.encode("utf-8"), 6)


def manifest_path(edition: Edition) -> str:
    return f"{MANIFESTS}/{edition.id}.yaml"


def edition_manifest(corpus: Corpus, edition: Edition) -> str:
    """The manifest of ``edition`` as the corpus holds it now: every member's key per collection,
    with a fingerprint of each of its facts. Written once, when the edition is published
    (``python3 tools/edition_manifest.py``), then committed and never rewritten."""
    tax = corpus.taxonomy
    assert tax.editions is not None
    members: dict[str, dict[str, dict[str, str]]] = {}
    for name in tax.collections:
        recs = [r for r in corpus.of(name) if str(r.get(tax.editions.field)) == edition.id]
        if recs:
            members[name] = {r.id: {f: _fingerprint(r.get(f)) for f in FACTS if r.get(f) is not None}
                             for r in recs}
    doc = {"edition": edition.id, "facts": list(FACTS), "records": members}
    head = (f"# The published edition {edition.label} ({edition.id}), closed: its records and a\n"
            "# fingerprint of each of their facts. `survey validate` refuses a record that claims this\n"
            "# edition without being listed here, and reports an edition record whose facts changed.\n"
            "# Written by tools/edition_manifest.py when the edition was published; never edit it.\n")
    return head + dump_yaml(doc)


def _manifest(tax: Taxonomy, edition: Edition) -> tuple[dict[str, dict[str, dict[str, str]]], tuple[str, ...]] | None:
    path = tax.root / manifest_path(edition)
    if not path.is_file():
        return None
    doc = load_yaml_file(path, manifest_path(edition)).data
    if not isinstance(doc, Mapping) or not isinstance(doc.get("records"), Mapping):
        return None
    facts = tuple(str(f) for f in doc.get("facts") or FACTS)
    return {str(c): {str(k): dict(v or {}) for k, v in (recs or {}).items()}
            for c, recs in doc["records"].items()}, facts


def closed_edition_problems(corpus: Corpus) -> list[Problem]:
    """A record may name a published edition only if that edition's manifest lists it; an edition
    record's facts must be those the edition published."""
    tax = corpus.taxonomy
    if tax.editions is None:
        return []
    out: list[Problem] = []
    field = tax.editions.field
    for edition in tax.editions.published:
        loaded = _manifest(tax, edition)
        if loaded is None:
            continue
        members, facts = loaded
        for name in tax.collections:
            listed = members.get(name, {})
            renamed = _renamed_members(corpus, name, listed)
            out.extend(_missing_members(corpus, edition, name, listed, renamed))
            for rec in corpus.of(name):
                if str(rec.get(field)) != edition.id:
                    continue
                line, col = rec.where((field,))
                if rec.id in renamed:
                    out.append(Problem(rec.path, *rec.where((tax.collections[name].id_field,)),
                                       tax.collections[name].id_field, (
                        f"this is {renamed[rec.id]!r} of {edition.label} ({edition.id}) renamed: a "
                        f"published edition's records keep their keys: rename the file back to "
                        f"{renamed[rec.id]}.yaml and write {tax.collections[name].id_field}: "
                        f"{renamed[rec.id]}; to amend the record, propose the change in "
                        f"{tax.data_file('corrections')}")))
                    continue
                if rec.id not in listed:
                    out.append(Problem(rec.path, line, col, field, (
                        f"{edition.id!r} ({edition.label}) is a published edition and closed: "
                        f"{rec.id!r} is not one of its records ({manifest_path(edition)}); "
                        f"a new record belongs to the living list: write "
                        f"`{field}: {tax.editions.living.id}` and `{tax.editions.added_field}: YYYY-MM-DD`, "
                        f"or let `survey add ID` write the record")))
                    continue
                for fact in facts:
                    want = listed[rec.id].get(fact)
                    value = rec.get(fact)
                    have = _fingerprint(value) if value is not None else None
                    if want != have:
                        fl, fc = rec.where((fact,)) if value is not None else (line, col)
                        out.append(Problem(rec.path, fl, fc, fact, (
                            f"differs from what {edition.label} ({edition.id}) published; its records "
                            f"keep their facts: restore the value and propose the change in "
                            f"{tax.data_file('corrections')} (kind: metadata, "
                            f"with the page you read as evidence), then run `survey corrections`")))
    return out


def _kept_ids(corpus: Corpus, name: str) -> set[str]:
    """The ids of a collection's records, and of those kept whole in another collection (a
    paper moved to the exclusion log by a correction keeps its record there)."""
    ids = {r.id for r in corpus.of(name)}
    id_field = corpus.taxonomy.collections[name].id_field
    for other in corpus.taxonomy.collections.values():
        for rec in corpus.of(other.name):
            former = rec.get(FORMER_FIELD)
            if isinstance(former, dict) and isinstance(former.get(id_field), str):
                ids.add(former[id_field])
    return ids


def _renamed_members(
    corpus: Corpus, name: str, listed: Mapping[str, Mapping[str, str]]
) -> dict[str, str]:
    """New id -> listed id, for a record of the edition saved under another key: not listed
    itself, its title's fingerprint that of a listed record no record has any more."""
    title = corpus.taxonomy.collections[name].title_field
    present = _kept_ids(corpus, name)
    gone = {facts.get(title): rid for rid, facts in listed.items() if rid not in present}
    out = {}
    for rec in corpus.of(name):
        value = rec.get(title)
        if rec.id not in listed and value is not None and _fingerprint(value) in gone:
            out[rec.id] = gone[_fingerprint(value)]
    return out


def _missing_members(
    corpus: Corpus, edition: Edition, name: str, listed: Mapping[str, Mapping[str, str]],
    renamed: Mapping[str, str],
) -> list[Problem]:
    """A record the edition lists that no file holds (deleted, not renamed)."""
    tax = corpus.taxonomy
    folder = tax.collections[name].folder
    present = _kept_ids(corpus, name) | set(renamed.values())
    return [Problem(f"{folder}/{rid}.yaml", 0, 0, "", (
        f"is a record of {edition.label} ({edition.id}), a published edition, and is missing: its "
        f"records are never deleted or renamed: restore the file; to remove or amend it, propose "
        f"the change in {tax.data_file('corrections')} (then run `survey corrections`)"))
        for rid in sorted(listed) if rid not in present]


# --- links, summaries and evidence against other records -------------------------------------


def _identifier_kinds(tax: Taxonomy) -> dict[str, str]:
    return {k: v.normalize for k, v in tax.identifiers.items()}


def _declared(rec: Record, kinds: Mapping[str, str]) -> dict[str, str]:
    ids = rec.get("identifiers")
    if not isinstance(ids, Mapping):
        return {}
    return {k: normalize(k, kinds[k], str(v)) for k, v in ids.items() if k in kinds and v}


def _well_formed(tax: Taxonomy, kind: str, rec: Record) -> bool:
    ids = rec.get("identifiers")
    value = ids.get(kind) if isinstance(ids, Mapping) else None
    spec = tax.identifiers.get(kind)
    return isinstance(value, str) and (spec is None or re.match(spec.pattern, value) is not None)


def _urls(value: Any) -> Iterable[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield (), value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, str):
                yield (i,), v


def link_problems(corpus: Corpus) -> list[Problem]:
    """A link naming an arXiv id, DOI or OpenReview id other than the record's own (of the same
    kind): usually a link left behind from the record it was copied from."""
    tax = corpus.taxonomy
    kinds = _identifier_kinds(tax)
    out: list[Problem] = []
    for rec in corpus:
        own = _declared(rec, kinds)
        # An identifier that is itself malformed (curly quotes, a number) is reported where it
        # stands; comparing links with it would only add a second, misleading line.
        own = {k: v for k, v in own.items() if _well_formed(tax, k, rec)}
        if not own:
            continue
        for name in ("links", "url"):
            for sub, url in _urls(rec.get(name)):
                for kind, value in ids_from_url(url).items():
                    if kind in own and kind in kinds and normalize(kind, kinds[kind], value) != own[kind]:
                        line, col = rec.where((name, *sub))
                        where = name + "".join(f"[{i}]" for i in sub)
                        out.append(Problem(rec.path, line, col, where, (
                            f"links to {kind} {value}, but the record's identifiers.{kind} is {own[kind]}; "
                            f"a link left from another record? Link this work, or fix identifiers.{kind}")))
    return out


def _summary_fields(coll: Collection) -> list[str]:
    return summary_fields(coll)


def copied_summary_problems(corpus: Corpus) -> list[Problem]:
    """A summary equal or nearly equal to another record's (each says what *its* work does).

    The pairs come from :func:`~survey_tools.corpus.duplicates.near_pairs`, the titles' blocking
    by rare words: comparing every pair would be quadratic (10^10 comparisons at 100k records)."""
    tax = corpus.taxonomy
    out: list[Problem] = []
    for coll in tax.collections.values():
        for name in _summary_fields(coll):
            recs = [r for r in corpus.of(coll.name) if isinstance(r.get(name), str)]
            texts = [" ".join(str(r.get(name)).lower().split()) for r in recs]
            others: dict[int, list[tuple[int, float]]] = defaultdict(list)
            for (i, j), score in near_pairs(texts, SUMMARY_SIMILARITY).items():
                others[i].append((j, score))
                others[j].append((i, score))
            for i in sorted(others):
                rec = recs[i]
                line, col = rec.where((name,))
                for j, score in sorted(others[i]):
                    # The score as a whole percentage, rounded half up.
                    how = "the same as" if texts[i] == texts[j] else f"{math.floor(score + 0.5)}% similar to"
                    out.append(Problem(rec.path, line, col, name, (
                        f"{how} the {name} of {recs[j].path}; write what this work does, in your own words")))
    return out


def _evidence_urls(value: Any, path: tuple[Any, ...], in_evidence: bool) -> Iterable[tuple[tuple[Any, ...], str]]:
    """URLs given as evidence: the ``url`` of an evidence field, and every ``evidence:`` URL nested
    in a record (a sub-decision's evidence)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(v, str) and ((in_evidence and k == "url") or k == "evidence"):
                yield (*path, k), v
            elif isinstance(v, (Mapping, list)):
                yield from _evidence_urls(v, (*path, k), False)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _evidence_urls(v, (*path, i), False)


def evidence_problems(corpus: Corpus) -> list[Problem]:
    """An evidence URL that names another record's work (and not this one's)."""
    tax = corpus.taxonomy
    kinds = _identifier_kinds(tax)
    owner: dict[tuple[str, str], Record] = {}
    declared: dict[int, dict[str, str]] = {}  # by id(): each record's identifiers, normalised once
    for rec in corpus:
        own = declared[id(rec)] = _declared(rec, kinds)
        for k, v in own.items():
            owner.setdefault((k, v), rec)
    out: list[Problem] = []
    for coll in tax.collections.values():
        evidence = {f.name for f in coll.fields if f.type == "evidence"}
        for rec in corpus.of(coll.name):
            own = declared[id(rec)]
            for name, value in rec.data.items():
                if not isinstance(value, (Mapping, list)):
                    continue  # a plain field's text (most fields of every record) holds no evidence
                for path, url in _evidence_urls(value, (name,), name in evidence):
                    for kind, ident in ids_from_url(url).items():
                        if kind not in kinds:
                            continue
                        ident = normalize(kind, kinds[kind], ident)
                        other = owner.get((kind, ident))
                        if other is not None and other is not rec and own.get(kind) != ident:
                            line, col = rec.where(path)
                            out.append(Problem(rec.path, line, col, ".".join(map(str, path)), (
                                f"names {kind} {ident}, the work of {other.path}; evidence about "
                                f"this record is a page of this work")))
    return out
