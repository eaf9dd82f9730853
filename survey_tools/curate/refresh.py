"""``survey refresh``: what arXiv says now about the records' papers, against what they say.

Records with an arXiv id are asked about in batches (up to 100 ids a request, through the
``arxiv`` package and its politeness delay: :meth:`ArxivClient.fetch_many`). For each record
the refresh reports what changed since it was written:

* the latest version and its date (information: records keep the version they cite);
* the title, when it differs beyond case, accents and punctuation;
* the authors (the whole list, or the listed prefix when ``authors_complete`` is false);
* the DOI arXiv now knows (``identifiers.doi``);
* a venue, when the journal reference or the authors' comment states an acceptance
  ("Accepted at ICLR 2026") and the record still says the preprint server.

With ``--sources`` the other services of :mod:`.scholarly` are asked too (Semantic Scholar,
DBLP, Crossref, OpenReview): their venue, DOI and (when arXiv has no paper) authors are proposed
with the service and page they came from (:func:`compare_findings`).

Nothing is written by default: the result is a diff for a reviewer. With ``write=True`` the
changes are applied to records of the living list, and proposed as corrections (with the arXiv
page as evidence) for records of the survey's edition, whose export must keep reproducing the
survey's CSV. Which records are the survey's edition is decided by :func:`in_survey_edition`.

Fields are touched only when the collection declares them, under the names ``survey add``
writes (title field, ``authors``, ``authors_complete``, ``venue``, ``identifiers``).
"""

from __future__ import annotations

import copy
import io
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from survey_tools.adopt.taxonomy_edit import round_trip_yaml
from survey_tools.corpus.checks import check_record
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.curate.adding import author_name
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.reports.corrections import load_corrections
from survey_tools.reports.tables import md, md_inert, md_table
from survey_tools.scholarly.arxiv_client import ArxivClient, ArxivPaper, ClientConfig
from survey_tools.scholarly.scholarly import SOURCES, Finding, Scholarly

# Venues that mean "only a preprint" (compared case-insensitively).
PREPRINT_VENUES = frozenset({"", "arxiv", "arxiv preprint", "preprint", "corr"})
# "Accepted at ICLR 2026", "To appear in TMLR", "Published as a conference paper at ICLR 2025".
_ACCEPTED = re.compile(
    r"\b(?:accepted|to appear|published|appears?)\b"
    r"(?:\s+(?:as\s+an?\s+[\w -]*?(?:paper|talk|poster|spotlight|oral)|for\s+publication|"
    r"for\s+presentation))?"
    r"\s+(?:at|in|to|by|for)\s+(?:the\s+)?(?P<venue>[^.;()\n]+)",
    re.IGNORECASE,
)


def in_survey_edition(tax: Taxonomy, record: Record) -> bool:
    """Whether ``record`` belongs to the survey's edition (else: to the living list).

    With editions declared in taxonomy/survey.yaml, a record whose edition is a published one
    is the survey's and a record of the living list is not. A survey without editions has only
    its own records.
    """
    if tax.editions is None:
        return True
    edition = record.get(tax.editions.field)
    return str(edition) != tax.editions.living.id


@dataclass(frozen=True)
class Change:
    field: str  # a dotted path into the record
    current: Any
    proposed: Any
    why: str  # one sentence: which service says so
    source: str = ""  # the page it says so on (a correction's evidence); arXiv's abs page if ""


@dataclass(frozen=True)
class RecordRefresh:
    record: Record
    arxiv_id: str
    edition: str  # "survey" or "living"
    paper: ArxivPaper | None
    changes: tuple[Change, ...] = ()
    notes: tuple[str, ...] = ()  # information that changes nothing (the latest version)
    findings: tuple[Finding, ...] = ()  # what the other services said

    @property
    def missing(self) -> bool:
        return self.paper is None

    def to_dict(self) -> dict[str, Any]:
        p = self.paper
        return {
            "record": self.record.id,
            "file": self.record.path,
            "arxiv": self.arxiv_id,
            "edition": self.edition,
            "found": p is not None,
            "version": p.version if p else None,
            "updated": p.updated if p else None,
            "journal_ref": p.journal_ref if p else None,
            "comment": p.comment if p else None,
            "changes": [{"field": c.field, "current": c.current, "proposed": c.proposed,
                         "why": c.why, **({"source": c.source} if c.source else {})}
                        for c in self.changes],
            **({"sources": [{"source": f.source, "url": f.url, "venue": f.venue, "year": f.year,
                             "doi": f.doi, "authors": list(f.authors)} for f in self.findings]}
               if self.findings else {}),
            "notes": list(self.notes),
        }


@dataclass
class RefreshReport:
    taxonomy: Taxonomy
    items: list[RecordRefresh]
    written: list[str] = field(default_factory=list)  # files rewritten (records, corrections)
    proposed: list[str] = field(default_factory=list)  # correction ids appended

    @property
    def changed(self) -> list[RecordRefresh]:
        return [i for i in self.items if i.changes]

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": {"records": len(self.items), "changed": len(self.changed),
                        "changes": sum(len(i.changes) for i in self.items),
                        "not_found": sum(i.missing for i in self.items),
                        "written": self.written, "proposed": self.proposed},
            "records": [i.to_dict() for i in self.items],
        }


def accepted_venue(text: str | None) -> str | None:
    """The venue an arXiv comment states an acceptance at, if it states one."""
    if not text:
        return None
    m = _ACCEPTED.search(text)
    if not m:
        return None
    venue = " ".join(m.group("venue").split()).strip(" ,:-")
    return venue or None


def _declared(tax: Taxonomy, name: str) -> bool:
    return any(f.name == name for f in tax.retained.fields)


def compare(tax: Taxonomy, record: Record, paper: ArxivPaper) -> tuple[list[Change], list[str]]:
    """What arXiv says differently from the record; and what it says that changes nothing."""
    changes: list[Change] = []
    notes = [f"latest version v{paper.version} ({paper.updated})"]
    title_field = tax.retained.title_field
    title = record.get(title_field)
    if isinstance(title, str) and normalize_title(title) != normalize_title(paper.title):
        changes.append(Change(title_field, title, paper.title,
                              f"arXiv's v{paper.version} has this title"))
    authors = record.get("authors")
    if isinstance(authors, list) and _declared(tax, "authors"):
        ours = [author_name(a) for a in paper.authors]
        complete = record.get("authors_complete", True) is not False
        theirs = ours if complete else ours[: len(authors)]
        if [_fold(a) for a in authors] != [_fold(a) for a in theirs]:
            changes.append(Change("authors", list(authors), theirs,
                                  f"arXiv's v{paper.version} lists these authors"
                                  + ("" if complete else " (first ones, as the record lists)")))
    if paper.doi and "doi" in tax.identifiers and _declared(tax, "identifiers"):
        idents = record.get("identifiers")
        current = idents.get("doi") if isinstance(idents, Mapping) else None
        doi = paper.doi.strip().lower()
        if current is None or str(current).lower() != doi:
            changes.append(Change("identifiers.doi", current, doi, "arXiv records this DOI"))
    venue = _preprint_venue(tax, record)
    if venue is not None:
        if paper.journal_ref:
            changes.append(Change("venue", venue, paper.journal_ref,
                                  f"arXiv's journal reference is {paper.journal_ref!r}"))
        else:
            stated = accepted_venue(paper.comment)
            if stated:
                changes.append(Change("venue", venue, stated,
                                      f"the authors' arXiv comment says {paper.comment!r}"))
    if paper.journal_ref and not any(c.field == "venue" for c in changes):
        notes.append(f"journal reference: {paper.journal_ref}")
    return changes, notes


def _fold(name: Any) -> str:
    return normalize_title(str(name))


def _preprint_venue(tax: Taxonomy, record: Record) -> str | None:
    """The record's venue when it names a preprint server (a venue worth replacing)."""
    venue = record.get("venue")
    if isinstance(venue, str) and _declared(tax, "venue") and venue.strip().lower() in PREPRINT_VENUES:
        return venue
    return None


def _first(findings: Sequence[Finding], attr: str) -> Finding | None:
    """The most trusted service's finding that has ``attr``."""
    return next((f for f in _by_preference(findings) if getattr(f, attr)), None)


def _venue_finding(tax: Taxonomy, record: Record, findings: Sequence[Finding],
                   changes: list[Change]) -> list[Change]:
    # A journal reference on arXiv wins; a service's venue wins over the arXiv comment's.
    venue = _preprint_venue(tax, record)
    if venue is None or any(c.field == "venue" and "journal reference" in c.why for c in changes):
        return changes
    f = _first(findings, "venue")
    if f is None:
        return changes
    kept = [c for c in changes if not (c.field == "venue" and "comment" in c.why)]
    return [*kept, Change("venue", venue, f.venue, f"{f.source} lists the paper at {f.venue!r}", f.url)]


def _doi_finding(tax: Taxonomy, record: Record, findings: Sequence[Finding],
                 changes: list[Change]) -> list[Change]:
    if "doi" not in tax.identifiers or not _declared(tax, "identifiers") or \
            any(c.field == "identifiers.doi" for c in changes):
        return changes
    idents = record.get("identifiers")
    current = idents.get("doi") if isinstance(idents, Mapping) else None
    f = _first(findings, "doi")
    if current is not None or f is None:
        return changes
    return [*changes, Change("identifiers.doi", None, f.doi, f"{f.source} records this DOI", f.url)]


def _authors_finding(tax: Taxonomy, record: Record, findings: Sequence[Finding],
                     changes: list[Change]) -> list[Change]:
    authors = record.get("authors")
    f = _first(findings, "authors")
    if not isinstance(authors, list) or not _declared(tax, "authors") or f is None:
        return changes
    theirs = [author_name(a) for a in f.authors]
    if record.get("authors_complete", True) is False:
        theirs = theirs[: len(authors)]
    if [_fold(a) for a in authors] == [_fold(a) for a in theirs]:
        return changes
    return [*changes, Change("authors", list(authors), theirs, f"{f.source} lists these authors", f.url)]


def compare_findings(tax: Taxonomy, record: Record, paper: ArxivPaper | None,
                     findings: Sequence[Finding], changes: list[Change]) -> list[Change]:
    """Venue, DOI and (when arXiv has no paper) authors from the other services, each change
    naming its service and page. A journal reference on arXiv wins; another service's venue
    wins over a venue guessed from the authors' arXiv comment."""
    out = _venue_finding(tax, record, findings, list(changes))
    out = _doi_finding(tax, record, findings, out)
    if paper is None:
        out = _authors_finding(tax, record, findings, out)
    return out


_PREFERENCE = ("OpenReview", "DBLP", "Crossref", "Semantic Scholar")


def parse_sources(text: str) -> tuple[str, ...]:
    """``"arxiv,dblp"`` or ``"all"`` -> the services to ask (arXiv always)."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return SOURCES
    unknown = [n for n in names if n not in SOURCES]
    if unknown:
        raise UsageError(f"--sources: {', '.join(unknown)} is not a service this tool asks "
                         f"(choose from: {', '.join(SOURCES)}, or all)")
    return tuple(dict.fromkeys(["arxiv", *names]))


def other_sources(tax: Taxonomy, sources: Sequence[str], timeout: float | None,
                  interval: float | None = None, use_cache: bool = True,
                  deadline: float | None = None) -> Ask | None:
    """The callback :func:`plan` asks the services other than arXiv with (None: arXiv only)."""
    if not any(s != "arxiv" for s in sources):
        return None
    services = Scholarly(sources, timeout or 30.0, interval=interval, use_cache=use_cache,
                         deadline=deadline)

    def ask(record: Record, arxiv_id: str, paper: ArxivPaper | None) -> Sequence[Finding]:
        idents = record.get("identifiers")
        idents = idents if isinstance(idents, Mapping) else {}
        title = record.get(tax.retained.title_field)
        doi = idents.get("doi") if isinstance(idents.get("doi"), str) else None
        orid = idents.get("openreview") if isinstance(idents.get("openreview"), str) else None
        return services.findings(arxiv_id, paper.title if paper else str(title or ""),
                                 doi or (paper.doi.lower() if paper and paper.doi else None), orid)

    return ask


def _by_preference(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: _PREFERENCE.index(f.source)
                  if f.source in _PREFERENCE else len(_PREFERENCE))


Ask = Callable[[Record, str, ArxivPaper | None], Sequence[Finding]]


def plan(corpus: Corpus, keys: Sequence[str],
         fetch_many: Callable[[Sequence[str]], Mapping[str, ArxivPaper]],
         others: Ask | None = None) -> RefreshReport:
    """Ask arXiv (and, with ``others``, the other services) about the retained records with
    an arXiv id (or the ``keys`` given)."""
    tax = corpus.taxonomy
    records = list(corpus.retained)
    if keys:
        known = {r.id: r for r in records}
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise UsageError(f"no retained record with the key {', '.join(unknown)}")
        records = [known[k] for k in dict.fromkeys(keys)]
    with_ids: list[tuple[Record, str]] = []
    for r in records:
        idents = r.get("identifiers")
        a = idents.get("arxiv") if isinstance(idents, Mapping) else None
        if isinstance(a, str) and a.strip():
            with_ids.append((r, a.strip()))
        elif keys:
            raise UsageError(f"{r.id} has no arXiv id to refresh from")
    papers = fetch_many([a for _, a in with_ids]) if with_ids else {}
    items = []
    for r, a in with_ids:
        edition = "survey" if in_survey_edition(tax, r) else "living"
        paper = papers.get(a)
        findings = tuple(others(r, a, paper)) if others is not None else ()
        if paper is None:
            changes = compare_findings(tax, r, None, findings, [])
            items.append(RecordRefresh(r, a, edition, None, tuple(changes),
                                       ("arXiv returned no paper",), findings))
            continue
        changes, notes = compare(tax, r, paper)
        changes = compare_findings(tax, r, paper, findings, changes)
        items.append(RecordRefresh(r, a, edition, paper, tuple(changes), tuple(notes), findings))
    return RefreshReport(tax, items)


# ---------------------------------------------------------------------------------------------
# Writing


def _set(data: Any, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    cur = data
    for p in parts[:-1]:
        if cur.get(p) is None:
            cur[p] = {}
        cur = cur[p]
    cur[parts[-1]] = value


def check_applied(tax: Taxonomy, record: Record, changes: Sequence[Change],
                  source: str) -> list[Problem]:
    """The problems the record would have with ``changes`` applied: the network's values pass
    the same checks as a contributor's record (schema, identifiers, links, prose) before any
    file is written. Each message says where the value came from."""
    data = copy.deepcopy(dict(record.data))
    for c in changes:
        _set(data, c.field, copy.deepcopy(c.proposed))
    coll = tax.collections.get(record.collection, tax.retained)
    problems = check_record(tax, coll, record.path, parse_yaml(dump_yaml(data), record.path))
    changed = {c.field.split(".")[0] for c in changes}
    return [replace(p, message=f"{p.message} (the value {source} proposes)") for p in problems
            if p.field.split(".")[0].split("[")[0] in changed]


def write(root: Path, report: RefreshReport) -> RefreshReport:
    """Apply the living list's changes; propose the survey edition's as corrections.

    Every changed record is checked first as a contributor's record would be; everything is
    prepared, then written file by file atomically; nothing is written when a value fails the
    checks or a file cannot be rewritten.
    """
    tax_root = Path(root)
    y = round_trip_yaml()
    out: dict[str, str] = {}
    problems: list[Problem] = []
    for item in report.items:
        if item.changes:
            problems += check_applied(report.taxonomy, item.record, item.changes, "the refresh")
    if problems:
        raise InvalidInput(problems, "the metadata the services sent would make records "
                                     "invalid; nothing was written")
    for item in report.items:
        if item.edition != "living" or not item.changes:
            continue
        rel = item.record.path
        try:
            data = y.load((tax_root / rel).read_text(encoding="utf-8"))
            for c in item.changes:
                _set(data, c.field, c.proposed)
        except Exception as err:  # ruamel's errors have no common base; report, never crash
            problems.append(Problem(rel, 0, 0, "", f"cannot rewrite: {err}"))
            continue
        buf = io.StringIO()
        y.dump(data, buf)
        out[rel] = buf.getvalue()
    proposals = [(item, c) for item in report.items if item.edition == "survey"
                 for c in item.changes]
    proposed: list[str] = []
    if proposals:
        tax = report.taxonomy
        rel = tax.data_file("corrections")
        path = tax_root / rel
        existing = load_corrections(tax)
        have = existing[1] if existing else ()
        taken = {(c.record, c.field, json.dumps(c.proposed, sort_keys=True, default=str))
                 for c in have}
        numbers = [int(m.group(1)) for c in have if (m := re.match(r"^C(\d+)$", c.id))]
        next_no = max(numbers, default=0) + 1
        if path.is_file():
            doc = y.load(path.read_text(encoding="utf-8"))
        else:
            doc = y.load("# Proposed corrections to the survey's records.\ncorrections: []\n")
        entries = doc.setdefault("corrections", [])
        for item, c in proposals:
            k = (item.record.id, c.field, json.dumps(c.proposed, sort_keys=True, default=str))
            if k in taken:
                continue  # proposed before: a re-run adds nothing
            cid = f"C{next_no:03d}"
            next_no += 1
            entries.append({
                "id": cid, "record": item.record.id, "field": c.field, "current": c.current,
                "proposed": c.proposed,
                "evidence": c.source or (item.paper.abs_url if item.paper
                                         else f"https://arxiv.org/abs/{item.arxiv_id}"),
                "reason": f"Metadata refresh: {c.why}.",
            })
            proposed.append(cid)
        if proposed:
            buf = io.StringIO()
            y.dump(doc, buf)
            out[rel] = buf.getvalue()
    if problems:
        raise InvalidInput(problems, "nothing was written")
    for rel, text in out.items():
        atomic_write(tax_root / rel, text)
    report.written = sorted(out)
    report.proposed = proposed
    return report


# ---------------------------------------------------------------------------------------------
# Output


def _show(v: Any) -> str:
    if isinstance(v, list):
        return "; ".join(str(x) for x in v)
    return "(none)" if v is None else str(v)


def to_text(report: RefreshReport) -> str:
    """A reviewer-friendly diff: one block per record that changed."""
    lines: list[str] = []
    for item in report.items:
        if not item.changes and not item.missing:
            continue
        head = f"{item.record.id} ({item.record.path}, {item.edition} edition) arXiv {item.arxiv_id}"
        if item.paper:
            head += f"v{item.paper.version}, updated {item.paper.updated}"
        lines.append(head)
        if item.missing:
            lines.append("  ! arXiv returned no paper for this id")
        for c in item.changes:
            lines.append(f"  {c.field}:")
            lines.append(f"    - {_show(c.current)}")
            lines.append(f"    + {_show(c.proposed)}")
            lines.append(f"      ({c.why}{': ' + c.source if c.source else ''})")
        lines.append("")
    lines.append(_summary(report))
    return "\n".join(lines) + "\n"


def _summary(report: RefreshReport) -> str:
    n = len(report.changed)
    changes = sum(len(i.changes) for i in report.items)
    missing = sum(i.missing for i in report.items)
    s = f"{len(report.items)} records asked, {n} with {changes} change(s)"
    if missing:
        s += f", {missing} not found on arXiv"
    if report.written or report.proposed:
        s += f"; wrote {len(report.written)} file(s), proposed {len(report.proposed)} correction(s)"
    return s


def to_markdown(report: RefreshReport) -> str:
    """The body of the monthly pull request."""
    out = ["# Metadata refresh from arXiv", "", _summary(report), ""]
    for edition, title in (("living", "Applied to the living list"),
                           ("survey", "Proposed as corrections (the survey's edition)")):
        rows = [(i, c) for i in report.items if i.edition == edition for c in i.changes]
        if not rows:
            continue
        # Current values come from records, proposed ones and reasons from the network: all
        # inert (no mention, image or link can reach the pull request).
        table = [(f"[{md(i.record.id)}](https://arxiv.org/abs/{quote(i.arxiv_id, safe='./')})",
                  md(c.field), md_inert(_show(c.current)), md_inert(_show(c.proposed)),
                  md_inert(c.why)) for i, c in rows]
        out += [f"## {title}", "",
                md_table(["Record", "Field", "Current", "Proposed", "Why"], table, pad=False)]
        out.append("")
    missing = [i for i in report.items if i.missing]
    if missing:
        out += ["## Not found on arXiv", ""] + [f"- {md(i.record.id)}: {md_inert(i.arxiv_id)}"
                                                for i in missing]
    return "\n".join(out).rstrip("\n") + "\n"


def to_json(report: RefreshReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class RefreshRequest:
    """What ``survey refresh`` was asked."""

    keys: tuple[str, ...] = ()
    write: bool = False
    arxiv_url: str | None = None
    delay: float | None = None
    timeout: float | None = None
    sources: str = ""
    use_cache: bool = True
    deadline: float | None = None  # seconds from now


def refresh(root: Path, request: RefreshRequest) -> RefreshReport:
    """``survey refresh``: the records (every retained one with an arXiv id, or ``keys``)
    compared with arXiv and the other sources asked for; with ``write``, the living list's
    changes applied and the edition's proposed as corrections. The report either way."""
    corpus = load_corpus(root)
    if request.write and corpus.problems:
        raise UsageError("the corpus has invalid records; run survey validate and fix them first")
    chosen = parse_sources(request.sources)
    until = None if request.deadline is None else time.monotonic() + request.deadline
    config = ClientConfig.from_env(request.arxiv_url, request.delay, request.timeout)
    client = ArxivClient(replace(config, deadline=until))
    others = other_sources(corpus.taxonomy, chosen, request.timeout, request.delay, request.use_cache, until)
    report = plan(corpus, request.keys, client.fetch_many, others)
    if request.write:
        write(root, report)
    return report
