"""Candidates found by hand, queued as ``survey search`` queues its hits.

A curator who searches outside arXiv's API (paper trackers, conference pages, listings read in
a browser) writes what was found as a list, one candidate a row: its arXiv id, its title and
the address of the page it was found on (CSV with a header row, or YAML). ``survey screen
import-found FILE`` checks the whole list first (every problem at once, as
``file:line: field: message``; nothing written), compares each candidate with the retained
records, the exclusion log and the queue by the rules ``survey search`` uses, queues the new
ones in ``screening/queue/`` with a relevance score, and appends one run to
``screening/runs.yaml``: the same trail as an arXiv search, so the PRISMA flow counts both.

The list holds what a page said, never an abstract: a queue file of a hand-found candidate has
no ``abstract`` field, only the page it came from (``found_at``) and the curator's note.

YAML layout (CSV has the same columns; list cells such as ``authors`` are ``;``-joined)::

    source: paper trackers and conference pages     # optional: the run's source
    queries: [multi-agent reinforcement learning LLM, ...]   # optional: what was asked
    candidates:
      - id: 2607.01234            # arXiv id or abs/pdf URL (required)
        title: A Paper's Title    # as the page gives it (required)
        url: https://...          # the page it was found on (required)
        authors: [First Last, ...]  # optional, as the page lists them
        published: 2026-07-02     # optional; else the year and month the id carries
        family: orchestration     # optional: a query family of the protocol (id or label)
        note: what was read       # optional, in the curator's words

A plain YAML list of candidates is read too.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.corpus.identifiers import normalize_arxiv
from survey_tools.corpus.protocol import Protocol
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml_bytes
from survey_tools.csvcells import read_csv_rows
from survey_tools.curate import ranking, screening
from survey_tools.curate.search import RunPlan, index_of, scored_queue, sort_found
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.net.hrefs import href_problem
from survey_tools.schema_words import suggest
from survey_tools.scholarly.arxiv_client import ArxivPaper

COLUMNS = ("id", "title", "url", "authors", "published", "family", "note")
REQUIRED = ("id", "title", "url")
# Who found them, when the list does not say.
DEFAULT_SOURCE = "hand search"
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
_URL = re.compile(r"^https?://[^\s/]+\.[^\s]+$")
# A list is a curator's reading notes, not a dump: far larger is a mistake.
MAX_BYTES = 4 * 1024 * 1024
MAX_CELL = 2000


@dataclass(frozen=True)
class Found:
    """One row of the list, checked."""

    line: int
    arxiv_id: str
    title: str
    url: str
    authors: tuple[str, ...]
    published: str
    family: str | None
    note: str

    def paper(self) -> ArxivPaper:
        return ArxivPaper(
            arxiv_id=self.arxiv_id,
            version=1,
            title=self.title,
            authors=self.authors,
            abstract="",
            published=self.published,
            updated=self.published,
            primary_category="",
            categories=(),
            doi=None,
            journal_ref=None,
            comment=None,
            abs_url=f"https://arxiv.org/abs/{self.arxiv_id}",
            pdf_url=None,
        )


@dataclass(frozen=True)
class FoundList:
    source: str
    queries: tuple[str, ...]
    rows: tuple[Found, ...]
    file: str


def _id_month(arxiv_id: str) -> str:
    """The year and month a new-style arXiv id carries (2607.01234 -> 2026-07)."""
    m = re.match(r"^(\d{2})(\d{2})\.\d{4,5}$", arxiv_id)
    return f"20{m.group(1)}-{m.group(2)}" if m else ""


def _rows_of_csv(
    raw: bytes, rel: str
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]], list[Problem]]:
    # a .tsv list is tab-separated (a spreadsheet's "Save as TSV"); anything else, comma
    delimiter = "\t" if rel.lower().endswith(".tsv") else ","
    read = read_csv_rows(raw.decode("utf-8-sig"), rel, delimiter, strict=False)
    header = [h.strip().lower() for h in read.header or ()]
    problems = [
        Problem(rel, 1, i + 1, h, f"unknown column{_hint(h, COLUMNS)}")
        for i, h in enumerate(header)
        if h not in COLUMNS
    ]
    problems += [Problem(rel, 1, 1, c, "missing column") for c in REQUIRED if c not in header]
    rows = []
    for line, cells in read.rows:
        row: dict[str, Any] = {h: c for h, c in zip(header, cells, strict=False) if h in COLUMNS}
        if isinstance(row.get("authors"), str):
            row["authors"] = [a for a in row["authors"].split(";") if a.strip()]
        rows.append((line, row))
    return {}, rows, problems + list(read.problems)


def _rows_of_yaml(
    raw: bytes, rel: str
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]], list[Problem]]:
    doc = parse_yaml_bytes(raw, rel)
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read; nothing written")
    data = doc.data
    head: dict[str, Any] = {}
    prefix: tuple[Any, ...] = ()
    problems: list[Problem] = []
    if isinstance(data, dict):
        for k in data:
            if k not in ("source", "queries", "candidates"):
                line, col = doc.position((k,), key=True)
                problems.append(
                    Problem(
                        rel,
                        line,
                        col,
                        str(k),
                        f"unknown key{_hint(str(k), ('source', 'queries', 'candidates'))}",
                    )
                )
        head = {k: data[k] for k in ("source", "queries") if k in data}
        data, prefix = data.get("candidates"), ("candidates",)
    if not isinstance(data, list):
        raise InvalidInput(
            [Problem(rel, 1, 1, "candidates", "expected a list of candidates")],
            f"{rel} is not a list of candidates; nothing written",
        )
    rows = []
    for i, item in enumerate(data):
        line, col = doc.position((*prefix, i))
        if not isinstance(item, dict):
            problems.append(
                Problem(rel, line, col, "", "a candidate is a mapping (id, title, url, ...)")
            )
            continue
        for k in item:
            if k not in COLUMNS:
                kl, kc = doc.position((*prefix, i, k), key=True)
                problems.append(
                    Problem(rel, kl, kc, str(k), f"unknown key{_hint(str(k), COLUMNS)}")
                )
        rows.append((line, {k: v for k, v in item.items() if k in COLUMNS}))
    return head, rows, problems


def _hint(value: str, choices: Sequence[str]) -> str:
    near = suggest(value, choices)
    return f"; did you mean {near!r}?" if near else f" (known: {', '.join(choices)})"


def _text(row: Mapping[str, Any], name: str) -> str:
    v = row.get(name)
    if v is None:
        return ""
    if isinstance(v, dt.date):
        return v.isoformat()
    return str(v).strip()


def _url_problem(url: str) -> str | None:
    """Why a found page's address is refused (it becomes the record's found_at link), or None."""
    if not _URL.match(url):
        return f"{url!r} is not an http(s) address of the page the candidate was found on"
    return href_problem(url)  # the one href rule: no credentials, a host as a resolver reads it


def _check_row(
    rel: str, line: int, row: Mapping[str, Any], protocol: Protocol
) -> tuple[Found | None, list[Problem]]:
    problems = []

    def bad(name: str, message: str) -> None:
        problems.append(Problem(rel, line, 0, name, message))

    for name in REQUIRED:
        if not _text(row, name):
            bad(name, "required")
    for name in COLUMNS:
        if len(_text(row, name)) > MAX_CELL:
            bad(name, f"longer than {MAX_CELL} characters")
    raw_id = _text(row, "id")
    aid = normalize_arxiv(raw_id) if raw_id else None
    if raw_id and aid is None:
        bad("id", f"{raw_id!r} is not an arXiv id or abs/pdf URL (e.g. 2607.01234)")
    url = _text(row, "url")
    if url and (why := _url_problem(url)):
        bad("url", why)
    published = _text(row, "published")
    if published:
        try:
            if not _DATE.match(published):
                raise ValueError
            dt.date.fromisoformat(published if len(published) == 10 else f"{published}-01")
        except ValueError:
            bad("published", f"{published!r} is not a date (YYYY-MM-DD or YYYY-MM)")
    authors = row.get("authors") or []
    if isinstance(authors, str):
        authors = [authors]
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        bad("authors", "a list of names (in CSV: ';'-joined)")
        authors = []
    fam = _text(row, "family")
    family = None
    if fam:
        f = protocol.family(fam) or next(
            (x for x in protocol.families if x.label.lower() == fam.lower()), None
        )
        if f is None:
            bad(
                "family",
                f"{fam!r} is not a query family of the protocol{_hint(fam, [x.id for x in protocol.families])}",
            )
        else:
            family = f.id
    if problems or aid is None:
        return None, problems
    return Found(
        line,
        aid,
        _text(row, "title"),
        url,
        tuple(a.strip() for a in authors),
        published or _id_month(aid),
        family,
        _text(row, "note"),
    ), []


def read_found(path: Path, protocol: Protocol) -> FoundList:
    """The list, every row checked; InvalidInput with every problem at once otherwise."""
    rel = str(path)
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise InvalidInput(
            [Problem(rel, 0, 0, "", f"larger than {MAX_BYTES // (1024 * 1024)} MiB")],
            f"{rel} is too large; nothing written",
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(
            [Problem(rel, 0, 0, "", "not UTF-8 text")], f"{rel} cannot be read; nothing written"
        ) from None
    reader = _rows_of_csv if path.suffix.lower() in (".csv", ".tsv") else _rows_of_yaml
    head, rows, problems = reader(raw, rel)
    checked: list[Found] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        found, probs = _check_row(rel, line, row, protocol)
        problems += probs
        aid = normalize_arxiv(_text(row, "id"))
        if aid in seen:
            problems.append(
                Problem(rel, line, 0, "id", f"{aid} is listed twice (first on line {seen[aid]})")
            )
            continue
        if aid:
            seen[aid] = line
        if found is not None:
            checked.append(found)
    source = head.get("source", DEFAULT_SOURCE)
    queries = head.get("queries", [])
    if not isinstance(source, str) or not source.strip():
        problems.append(Problem(rel, 1, 1, "source", "a short text naming where the list was made"))
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        problems.append(Problem(rel, 1, 1, "queries", "a list of the queries asked"))
    if not rows and not problems:
        problems.append(Problem(rel, 1, 1, "candidates", "no candidate listed"))
    if problems:
        raise InvalidInput(
            sorted(problems),
            f"{rel} has {len(problems)} problem{'s' if len(problems) != 1 else ''}; nothing written",
        )
    return FoundList(str(source).strip(), tuple(str(q) for q in queries), tuple(checked), path.name)


def plan_found(
    root: Path,
    corpus: Corpus,
    found: FoundList,
    today: dt.date,
    ranker: ranking.Ranker | None = None,
) -> RunPlan:
    """Queue the list's new candidates as a search run would (nothing is written here)."""
    queue = screening.load_queue(root)
    index = index_of(corpus, queue)
    by_id = {f.arxiv_id: f for f in found.rows}
    # A row without a family is counted under the run's own name, as a family's hits are.
    fam_of = {f.arxiv_id: f.family or "hand" for f in found.rows}
    hits: dict[str, int] = {}
    for f in found.rows:
        hits[fam_of[f.arxiv_id]] = hits.get(fam_of[f.arxiv_id], 0) + 1
    # Families and queries go in step (a family found it with that query): a row of a family
    # names the page it was found on as its query; the page of every row is kept as found_at.
    tuples = {
        f.arxiv_id: (f.paper(), [f.family] if f.family else [], [f.url] if f.family else [])
        for f in found.rows
    }
    kinds = {k: 0 for k in (*corpus.taxonomy.collections, "queue")}
    queue_by_rel = {c.rel: c for c in queue}
    refreshed, new_papers = sort_found(tuples, index, queue_by_rel, kinds)
    day = today.isoformat()
    fresh = []
    for p, fams, urls in new_papers:
        row = by_id[p.arxiv_id]
        data = screening.candidate_data(p, fams, urls, day, 0.0)
        data.pop("abstract", None)
        data["found_at"] = row.url
        if row.note:
            data["note"] = row.note
        fresh.append(screening.Candidate(data, screening.file_name(p.arxiv_id)))
    whole = [refreshed.get(c.rel, c) for c in queue] + fresh
    ranker = ranker or ranking.train(corpus)
    write = scored_queue(whole, ranker.score([c.text() for c in whole]), queue_by_rel)
    run: dict[str, Any] = {
        "date": day,
        "source": found.source,
        "kind": "hand",
        "file": found.file,
        "queries": list(found.queries),
        "hits": hits,
        "unique": len(found.rows),
        "duplicates": kinds,
        "new": len(fresh),
    }
    write[screening.RUNS] = dump_yaml([*screening.read_log(root, screening.RUNS), run])
    return RunPlan({}, hits, len(found.rows), kinds, [c.id for c in fresh], write, run)


__all__ = ["COLUMNS", "Found", "FoundList", "plan_found", "read_found"]
