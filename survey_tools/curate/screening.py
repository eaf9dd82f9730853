"""The screening queue: candidates found by ``survey search``, waiting for a decision.

Layout, under the survey folder::

    screening/queue/<arXiv id>.yaml   one candidate each (``/`` of old-style ids becomes ``_``)
    screening/runs.yaml               one entry per search run (PRISMA identification)
    screening/decisions.yaml          one entry per screening decision (date, stage, outcome)

A decision writes the record (``corpus/<key>.yaml`` through :mod:`.adding`, or the next
exclusion through :mod:`.exclusions`, so it is validated exactly as ``survey add`` and
``survey exclude`` validate), appends to the decision log and removes the candidate.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime as dt
import io
import marshal
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from survey_tools.adopt.excel import xlsx_rows
from survey_tools.adopt.table import MAX_ENTRIES, limited, read_limits, too_many
from survey_tools.cachedir import cache_dir
from survey_tools.corpus.identifiers import normalize_arxiv, normalize_doi
from survey_tools.corpus.loading import cache_enabled
from survey_tools.corpus.protocol import Protocol
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.screening_logs import DECISIONS, QUEUE, RUNS, read_log
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml_bytes
from survey_tools.csvcells import from_spreadsheet_safe, read_csv_rows, spreadsheet_safe
from survey_tools.curate import adding, exclusions
from survey_tools.curate.ranking import record_text
from survey_tools.errors import InvalidInput, Problem, SurveyError, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.latex import plain_text
from survey_tools.schema_words import suggest
from survey_tools.scholarly.arxiv_client import ArxivPaper

# The paths and the logs' one reader live with the corpus (corpus/screening_logs.py): the
# living list's flow reads the same logs the same way.

# The fields of a queue file, in the order they are written.
FIELDS = ("id", "version", "title", "authors", "published", "updated", "abstract",
          "primary_category", "categories", "doi", "journal_ref", "comment", "links",
          "families", "queries", "found_at", "note", "first_seen", "score")

# The C loader when PyYAML has it: queue files are machine-written, and listing 10,000 of them
# must stay fast.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Candidate:
    data: Mapping[str, Any]
    rel: str

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))

    @property
    def score(self) -> float:
        s = self.data.get("score")
        return float(s) if isinstance(s, int | float) else 0.0

    @property
    def families(self) -> list[str]:
        return [str(f) for f in self.data.get("families") or []]

    @property
    def year(self) -> str:
        return str(self.data.get("published", ""))[:4]

    def text(self) -> str:
        """What the ranker reads: the title and the abstract (a candidate found by hand has
        no abstract, only the curator's note)."""
        return f"{self.title} {self.data.get('abstract') or self.data.get('note') or ''}"

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "score": self.score,
                "families": self.families, "first_seen": str(self.data.get("first_seen", ""))}

    def paper(self) -> ArxivPaper:
        """The stored metadata as the arXiv client returns it (no second fetch)."""
        d = self.data
        links = [str(u) for u in d.get("links") or []]
        return ArxivPaper(
            arxiv_id=self.id, version=int(d.get("version") or 1), title=self.title,
            authors=tuple(str(a) for a in d.get("authors") or []),
            abstract=str(d.get("abstract", "")), published=str(d.get("published", "")),
            updated=str(d.get("updated", "")), primary_category=str(d.get("primary_category", "")),
            categories=tuple(str(c) for c in d.get("categories") or []),
            doi=d.get("doi") or None, journal_ref=d.get("journal_ref") or None,
            comment=d.get("comment") or None,
            abs_url=links[0] if links else f"https://arxiv.org/abs/{self.id}",
            pdf_url=links[1] if len(links) > 1 else None,
        )


def file_name(arxiv_id: str) -> str:
    return f"{QUEUE}/{arxiv_id.replace('/', '_')}.yaml"


def candidate_data(paper: ArxivPaper, families: Sequence[str], queries: Sequence[str],
                   first_seen: str, score: float) -> dict[str, Any]:
    values: dict[str, Any] = {
        "id": paper.arxiv_id, "version": paper.version, "title": paper.title,
        "authors": list(paper.authors), "published": paper.published, "updated": paper.updated,
        "abstract": paper.abstract, "primary_category": paper.primary_category,
        "categories": list(paper.categories), "doi": paper.doi, "journal_ref": paper.journal_ref,
        "comment": paper.comment, "links": [u for u in (paper.abs_url, paper.pdf_url) if u],
        "families": list(families), "queries": list(queries), "first_seen": first_seen,
        "score": score,
    }
    return {k: values[k] for k in FIELDS if values.get(k) is not None}


def dump_candidate(data: Mapping[str, Any]) -> str:
    extra = {k: v for k, v in data.items() if k not in FIELDS}
    ordered = {k: data[k] for k in FIELDS if k in data}
    return dump_yaml({**ordered, **extra})


def _read_yaml(root: Path, rel: str) -> Any:
    path = root / rel
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InvalidInput([Problem(rel, 0, 0, "", f"cannot read: {err.strerror}")], f"cannot read {rel}") from None
    try:
        return yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError:
        # The strict reader says where and what in one line.
        doc = parse_yaml_bytes(raw, rel)
        raise InvalidInput(doc.problems or [Problem(rel, 0, 0, "", "not valid YAML")],
                           f"{rel} cannot be read") from None


def load_queue(root: Path) -> list[Candidate]:
    """Every candidate, in file-name order; InvalidInput names every unreadable file."""
    folder = root / QUEUE
    if not folder.is_dir():
        return []
    out, problems = [], []
    for path in sorted(folder.glob("*.yaml")):
        rel = f"{QUEUE}/{path.name}"
        try:
            data = _read_yaml(root, rel)
        except InvalidInput as err:
            problems.extend(err.problems)
            continue
        if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data.get("title"):
            problems.append(Problem(rel, 1, 1, "id", "a queue file needs an id and a title"))
            continue
        out.append(Candidate(data, rel))
    if problems:
        raise InvalidInput(problems, "the screening queue has unreadable files")
    return out


_INDEX_FORMAT = 1


def _index_path(root: Path) -> Path:
    return cache_dir(root) / "screening-queue.marshal"


def list_queue(root: Path) -> list[Candidate]:
    """The queue for listing: each file parsed once and kept in the parse cache (by name,
    modification time and size), so that listing 10,000 candidates reads only what changed.
    The candidates carry only the fields a listing shows (and the ranking order needs)."""
    folder = root / QUEUE
    if not folder.is_dir():
        return []
    use = cache_enabled()
    old: dict[str, tuple[int, int, dict[str, Any]]] = {}
    if use:
        with contextlib.suppress(OSError, EOFError, ValueError, TypeError):
            fmt, old = marshal.loads(_index_path(root).read_bytes())
            if fmt != _INDEX_FORMAT or not isinstance(old, dict):
                old = {}
    new: dict[str, tuple[int, int, dict[str, Any]]] = {}
    out, problems = [], []
    keep = ("id", "title", "score", "families", "first_seen", "published")
    with os.scandir(folder) as it:
        entries = sorted((e for e in it if e.name.endswith(".yaml")), key=lambda e: e.name)
    for e in entries:
        st = e.stat()
        hit = old.get(e.name)
        rel = f"{QUEUE}/{e.name}"
        if hit and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            data = hit[2]
        else:
            try:
                full = _read_yaml(root, rel)
            except InvalidInput as err:
                problems.extend(err.problems)
                continue
            if not isinstance(full, dict) or not isinstance(full.get("id"), str) or not full.get("title"):
                problems.append(Problem(rel, 1, 1, "id", "a queue file needs an id and a title"))
                continue
            data = {k: full[k] for k in keep if k in full}
        new[e.name] = (st.st_mtime_ns, st.st_size, data)
        out.append(Candidate(data, rel))
    if problems:
        raise InvalidInput(problems, "the screening queue has unreadable files")
    if use and new != old:
        with contextlib.suppress(OSError, ValueError):
            atomic_write(_index_path(root), marshal.dumps((_INDEX_FORMAT, new)))
    return out


def ranked(queue: Iterable[Candidate]) -> list[Candidate]:
    """Best first: highest score, then newest, then id (a stable order for ties)."""
    by_id = sorted(queue, key=lambda c: c.id)
    by_date = sorted(by_id, key=lambda c: str(c.data.get("published", "")), reverse=True)
    return sorted(by_date, key=lambda c: -c.score)


def find(queue: Sequence[Candidate], ref: str) -> Candidate:
    """The candidate with this arXiv id (any version, or its URL); UsageError otherwise."""
    want = normalize_arxiv(ref) or ref.strip()
    for c in queue:
        if c.id == want:
            return c
    ids = [c.id for c in queue]
    near = suggest(want, ids)
    hint = f"; did you mean {near}?" if near else ""
    raise UsageError(f"{ref!r} is not in the screening queue ({len(ids)} candidates){hint}")


def appended(root: Path, rel: str, entry: Mapping[str, Any]) -> str:
    """The log's text with ``entry`` appended (the caller writes it)."""
    return dump_yaml([*read_log(root, rel), dict(entry)])


# --- decisions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """Files to write and the candidate file to remove, applied in that order."""

    candidate: Candidate
    write: tuple[tuple[str, str], ...]
    remove: tuple[str, ...]
    message: str
    untagged: tuple[str, ...] = ()


def _check_date(day: str | None) -> str:
    d = day or dt.date.today().isoformat()
    try:
        dt.date.fromisoformat(d)
    except ValueError:
        raise UsageError(f"--date {d!r} is not an ISO date (YYYY-MM-DD)") from None
    return d


def _check_stage(corpus: Corpus, protocol: Protocol, stage: str | None, default: str | None) -> str:
    coll = corpus.taxonomy.excluded
    cf = coll.controlled_field(protocol.fields["stage"]) if coll else None
    s = stage or default
    if cf is None:
        raise UsageError("the exclusion log has no stage field to record the screening stage")
    if s is None:
        raise UsageError(f"give --stage (one of: {', '.join(cf.ids)})")
    if s not in cf.ids:
        near = suggest(s, cf.ids)
        hint = f"; did you mean {near!r}?" if near else f" (one of: {', '.join(cf.ids)})"
        raise UsageError(f"--stage {s!r} is not a {cf.noun}{hint}")
    return s


def _families_label(protocol: Protocol, cand: Candidate) -> str:
    labels = [f.label if (f := protocol.family(x)) else x for x in cand.families]
    return ", ".join(labels) or "no family"


def plan_retain(root: Path, corpus: Corpus, protocol: Protocol, cand: Candidate,
                tags: Mapping[str, Any], key: str | None = None, summary: str | None = None,
                stage: str | None = None, date: str | None = None) -> Decision:
    """The candidate as a retained record, built and checked by ``survey add``'s own code."""
    day = _check_date(date)
    st = _check_stage(corpus, protocol, stage, protocol.retain_stage)
    paper = cand.paper()
    note = (f"Screened from the living search: retained on {day} at {st}; found by "
            f"{_families_label(protocol, cand)} on {cand.data.get('first_seen', day)}.")
    plan = adding.plan_add(root, corpus, cand.id, lambda _id: paper, tags, key, summary, note=note)
    entry = {"id": cand.id, "title": cand.title, "decision": "retained", "stage": st, "date": day,
             "record": plan.rel, "families": cand.families}
    return Decision(cand, ((plan.rel, plan.text), (DECISIONS, appended(root, DECISIONS, entry))),
                    (cand.rel,), f"retained {cand.id} as {plan.rel}", plan.untagged)


def plan_exclude(root: Path, corpus: Corpus, protocol: Protocol, cand: Candidate,
                 tags: Mapping[str, Any], note: str, date: str | None = None) -> Decision:
    """The candidate as the next exclusion, built and checked by ``survey exclude``'s code."""
    tax = corpus.taxonomy
    fields = protocol.fields
    given = dict(tags)
    st = _check_stage(corpus, protocol, given.get(fields["stage"]), None)
    given[fields["stage"]] = st
    src = protocol.arxiv_source
    if fields["source"] not in given and src is not None and src.value:
        given[fields["source"]] = src.value
    if fields["query_family"] not in given:
        fam = next((f for x in cand.families if (f := protocol.family(x)) and f.query_family), None)
        if fam is not None:
            given[fields["query_family"]] = fam.query_family
    day = _check_date(date)
    move = exclusions.plan_exclusion(root, corpus, f"arXiv:{cand.id}", given, note, cand.title, day)
    rel = move.write[0][0]
    entry = {"id": cand.id, "title": cand.title, "decision": "excluded", "stage": st, "date": day,
             "record": rel, "reason": given.get(fields["reason"]), "families": cand.families}
    assert tax.excluded is not None
    return Decision(cand, (*move.write, (DECISIONS, appended(root, DECISIONS, entry))),
                    (cand.rel,), f"excluded {cand.id} as {rel}")


def apply(root: Path, decision: Decision) -> None:
    """Write the record and the decision log, then take the candidate off the queue."""
    first = decision.write[0][0]
    if (root / first).exists():
        raise SurveyError(f"{first} appeared meanwhile; nothing written")
    for rel, text in decision.write:
        atomic_write(root / rel, text)
    for rel in decision.remove:
        (root / rel).unlink(missing_ok=True)


# --- exports and imports ----------------------------------------------------------------------

# ASReview's tabular dataset columns (ASReview LAB documentation, "Data format"): title,
# abstract, authors, doi, url, keywords, and the label column "included" (1 relevant,
# 0 irrelevant, empty not yet screened).
ASREVIEW_COLUMNS = ("record_id", "title", "abstract", "authors", "keywords", "doi", "url", "included")
# The label columns ASReview LAB reads, in its own order of precedence (asreview 3.0
# data/base.py, ``__alternative_column_names__["included"]``). LAB's dataset export keeps the
# input's columns (our ``included``, empty on queue rows) and writes its decisions to
# ``asreview_label``, so that column must win.
LABEL_COLUMNS = ("asreview_label", "included", "label", "final_included", "label_included",
                 "included_label", "included_final", "included_flag", "include")
# LAB's RIS export carries the label as a note (asreview 3.0 data/ris.py).
RIS_LABEL_NOTES = {"ASReview_relevant": True, "ASReview_irrelevant": False, "ASReview_not_seen": None}
# Label values LAB reads (data/utils.py standardize_included_label), and what pandas makes of
# them when the column also holds empty cells (1.0, 0.0).
_LABEL_VALUES = {"1": True, "1.0": True, "yes": True, "y": True,
                 "0": False, "0.0": False, "no": False, "n": False}
_UNLABELLED = {"", "-1", "-1.0", "nan", "none"}
# ASReview joins list cells (authors, keywords) with ";" and splits them on ";" without
# stripping, so "; " would give every name after the first a leading space.
LIST_JOIN = ";"
# The largest cell pandas' CSV reader (and so ASReview) accepts, also our limit on import.
CELL_LIMIT = 131072


def _cell(text: str) -> str:
    """A text cell of our CSV export: TeX escapes decoded, spreadsheet formulas neutralised."""
    return spreadsheet_safe(plain_text(text))


def asreview_rows(corpus: Corpus, queue: Sequence[Candidate]) -> list[dict[str, str]]:
    """Decided records first (labelled: prior knowledge), then the queue best first (unlabelled)."""
    tax = corpus.taxonomy
    rows: list[dict[str, str]] = []
    for rec in corpus:
        ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
        links = rec.get("links") or rec.get("url") or []
        url = links[0] if isinstance(links, list) and links else str(links or "")
        authors = rec.get("authors")
        rows.append({
            "record_id": rec.id, "title": rec.title,
            "abstract": record_text(tax, rec)[len(rec.title):].strip(),
            "authors": LIST_JOIN.join(str(a).strip() for a in authors) if isinstance(authors, list) else "",
            "keywords": "", "doi": str(ids.get("doi", "")), "url": url,
            "included": "1" if rec.collection == tax.retained.name else "0",
        })
    for c in ranked(queue):
        d = c.data
        rows.append({
            "record_id": f"arXiv:{c.id}", "title": c.title, "abstract": str(d.get("abstract", "")),
            "authors": LIST_JOIN.join(str(a).strip() for a in d.get("authors") or []),
            "keywords": LIST_JOIN.join(str(x) for x in d.get("categories") or []),
            "doi": str(d.get("doi") or ""), "url": f"https://arxiv.org/abs/{c.id}", "included": "",
        })
    return [{k: _cell(v) for k, v in row.items()} for row in rows]


def asreview_csv(corpus: Corpus, queue: Sequence[Candidate]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(ASREVIEW_COLUMNS), lineterminator="\n")
    w.writeheader()
    w.writerows(asreview_rows(corpus, queue))
    return buf.getvalue()


def _rispy() -> Any:
    # rispy, the RIS library ASReview uses, is core (survey init reads RIS lists); loaded for RIS only
    import rispy

    return rispy


def ris_text(queue: Sequence[Candidate]) -> str:
    """The queue, best first, as RIS (through rispy) for reference managers and ASReview."""
    rispy = _rispy()

    entries = []
    for c in ranked(queue):
        d = c.data
        journal = plain_text(str(d.get("journal_ref") or "")).strip()
        e: dict[str, Any] = {
            "type_of_reference": "JOUR" if journal else "GEN",
            "title": plain_text(c.title),
            "authors": [plain_text(adding.author_name(str(a))) for a in d.get("authors") or []],
            "abstract": plain_text(str(d.get("abstract", ""))), "year": c.year,
            "date": str(d.get("published", "")).replace("-", "/"),
            "urls": [f"https://arxiv.org/abs/{c.id}"], "publisher": "arXiv",
            "keywords": [str(x) for x in d.get("categories") or []],
            "notes": [f"arXiv:{c.id}", f"score {c.score:.4f}", "ASReview_not_seen"],
        }
        if journal:
            # A journal article names its journal: JO (journal name) and T2 (secondary title),
            # the two tags reference managers read it from. arXiv gives it as the journal ref.
            e["journal_name"] = journal
            e["secondary_title"] = journal
        if d.get("doi"):
            e["doi"] = str(d["doi"])
        entries.append(e)
    return rispy.dumps(entries)


@dataclass(frozen=True)
class Label:
    row: int
    candidate: Candidate
    relevant: bool


@dataclass(frozen=True)
class LabelFile:
    """What an ASReview export says about the queue."""

    labels: tuple[Label, ...]
    unlabelled: int  # queue candidates in the file without a label
    prior: int  # labelled rows naming records already decided (ASReview's prior knowledge)
    column: str  # where the labels were read from (a column, or RIS notes)


@dataclass(frozen=True)
class _Row:
    line: int
    refs: tuple[str, ...]  # record_id, urls, notes naming an arXiv id
    doi: str
    title: str
    label: str | None  # the raw label cell; None: the row has no label at all


def _too_big(rel: str, line: int, field: str) -> InvalidInput:
    return InvalidInput([Problem(rel, line, 1, field, f"a cell is over {CELL_LIMIT // 1024} KiB; "
                                 "is this an ASReview export?")], f"{rel} cannot be read")


def _table_rows(rel: str, header: list[str], rows: Iterable[tuple[int, list[str]]]) -> tuple[str, list[_Row]]:
    low = {h.strip().lower(): i for i, h in reversed(list(enumerate(header)))}
    col = next((c for c in LABEL_COLUMNS if c in low), None)
    if col is None:
        raise InvalidInput([Problem(rel, 1, 1, "", f"no label column (expected one of: {', '.join(LABEL_COLUMNS)})")],
                           f"{rel} is not an ASReview export")

    def get(cells: list[str], name: str) -> str:
        i = low.get(name)
        return from_spreadsheet_safe(cells[i].strip()) if i is not None and i < len(cells) else ""

    out = []
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        # A project made from our CSV keeps record_id and url; one made from our RIS has urls
        # and notes (";"-joined lists, as LAB writes list cells).
        listed = [x.strip() for n in ("urls", "notes") for x in get(cells, n).split(LIST_JOIN)]
        refs = tuple(x for x in (get(cells, "record_id"), get(cells, "url"), *listed) if x)
        out.append(_Row(line, refs, get(cells, "doi"), get(cells, "title"), get(cells, col)))
    return col, out


def _csv_rows(path: Path, rel: str, delimiter: str, max_rows: int) -> tuple[str, list[_Row]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        # ASReview's own CSV reader falls back to Latin-1 as well.
        text = path.read_text(encoding="latin-1")
    read = read_csv_rows(text, rel, delimiter, strict=False, cell_limit=CELL_LIMIT, max_rows=max_rows)
    if len(read.rows) > max_rows:
        raise too_many(rel, read.rows[max_rows][0], "rows")
    for p in read.problems:
        if "field limit" in p.message:
            raise _too_big(rel, max(p.line, 2), "")
        raise InvalidInput([Problem(rel, p.line, 1, "", p.message)], f"{rel} cannot be read")
    return _table_rows(rel, list(read.header or ()), read.rows)


def _xlsx_rows(path: Path, rel: str, max_rows: int) -> tuple[str, list[_Row]]:
    # the Excel files ASReview writes (pandas' to_excel with openpyxl), read as survey init reads
    # a workbook; no size limit, as for its CSV, and no cell to measure against CELL_LIMIT: an
    # Excel cell holds at most 32,767 characters
    header, rows = xlsx_rows(path, rel, limit=None, rows=max_rows)
    return _table_rows(rel, header, rows)


def _ris_rows(path: Path, rel: str, max_rows: int) -> tuple[str, list[_Row]]:
    rispy = _rispy()

    text = path.read_text(encoding="utf-8-sig")
    for n, line in enumerate(text.splitlines(), start=1):
        if len(line) > CELL_LIMIT:
            raise _too_big(rel, n, "")
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if line.startswith("TY  -")]
    if len(starts) > max_rows:  # counted before rispy builds them
        raise too_many(rel, starts[max_rows], "records")
    try:
        entries = rispy.loads(text, skip_unknown_tags=True)
    except (OSError, ValueError, KeyError) as err:
        raise InvalidInput([Problem(rel, 1, 1, "", f"not RIS: {err}")], f"{rel} cannot be read") from None
    out = []
    for i, e in enumerate(entries):
        notes = [str(x).strip() for x in e.get("notes") or []]
        label = next((x for x in notes if x in RIS_LABEL_NOTES), None)
        refs = [*(str(u) for u in e.get("urls") or []), *(x for x in notes if normalize_arxiv(x))]
        raw = None if label is None else {True: "1", False: "0", None: ""}[RIS_LABEL_NOTES[label]]
        out.append(_Row(starts[i] if i < len(starts) else 1, tuple(refs), str(e.get("doi") or ""),
                        str(e.get("title") or e.get("primary_title") or ""), raw))
    if not any(r.label is not None for r in out):
        raise InvalidInput([Problem(rel, 1, 1, "N1", "no ASReview label notes (ASReview_relevant, "
                                    "ASReview_irrelevant, ASReview_not_seen)")], f"{rel} is not an ASReview export")
    return "N1", out


def _rows(path: Path, max_rows: int) -> tuple[str, list[_Row]]:
    rel = str(path)
    try:
        head = path.open("rb").read(8)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    suffix = path.suffix.lower()
    if head.startswith(b"PK\x03\x04") or suffix in (".xlsx", ".xlsm"):
        return _xlsx_rows(path, rel, max_rows)
    if suffix in (".ris", ".txt") or head.lstrip(b"\xef\xbb\xbf").startswith(b"TY  -"):
        return _ris_rows(path, rel, max_rows)
    return _csv_rows(path, rel, "\t" if suffix in (".tsv", ".tab") else ",", max_rows)


def _known_refs(corpus: Corpus) -> set[str]:
    """Every way an export row can name a record already decided (ASReview's prior knowledge)."""
    refs: set[str] = set()
    for rec in corpus:
        refs.add(rec.id)
        refs.add(normalize_title(plain_text(rec.title)))
        ids = rec.get("identifiers")
        if isinstance(ids, dict):
            refs.update(str(v).lower() for v in ids.values() if v)
        links = rec.get("links") or rec.get("url") or []
        refs.update(str(u) for u in (links if isinstance(links, list) else [links]) if u)
    return refs


def read_labels(path: Path, queue: Sequence[Candidate], corpus: Corpus | None = None,
                max_entries: int = MAX_ENTRIES) -> LabelFile:
    """ASReview LAB's labels for queue candidates, from any export LAB writes (CSV, TSV, Excel, RIS).

    Rows are matched to candidates by their record_id (``arXiv:ID``), their url, or their DOI;
    rows that name records already decided (the prior knowledge) are counted, not imported.
    A file whose labels match nothing in the queue is an error, not "0 imported". A file of more
    than ``max_entries`` rows (--max-entries, as init's readers) is refused at the first row past
    it, before the rest is read.
    """
    rel = str(path)
    with limited(dataclasses.replace(read_limits(), max_entries=max_entries)):  # too_many's words
        col, rows = _rows(path, max_entries)
    known = _known_refs(corpus) if corpus is not None else set()
    by_id = {c.id: c for c in queue}
    by_doi = {str(c.data["doi"]).lower(): c for c in queue if c.data.get("doi")}
    # LAB's RIS export of a project made from a CSV drops record_id and url (rispy has no tag
    # for them): such rows are found by their DOI or, failing that, their title.
    by_title = {normalize_title(plain_text(c.title)): c for c in queue}
    labels: list[Label] = []
    problems: list[Problem] = []
    unmatched: list[int] = []
    unlabelled = prior = 0
    for row in rows:
        cand = next((by_id[a] for r in row.refs if (a := normalize_arxiv(r) or "") in by_id), None)
        if cand is None and row.doi:
            cand = by_doi.get(normalize_doi(row.doi) or "")
        if cand is None and row.title:
            cand = by_title.get(normalize_title(row.title))
        value = (row.label or "").strip().lower()
        if value in _UNLABELLED:
            unlabelled += cand is not None
            continue
        if cand is None:
            aids = {normalize_arxiv(r) or "" for r in row.refs} - {""}
            if (known & {*row.refs, *aids, (normalize_doi(row.doi) or "").lower(),
                         normalize_title(row.title) if row.title else ""}) - {""}:
                prior += 1
            else:
                unmatched.append(row.line)
            continue
        if value not in _LABEL_VALUES:
            problems.append(Problem(rel, row.line, 1, col, f"{row.label!r} is not a label (1 relevant, 0 irrelevant, empty unseen)"))
            continue
        labels.append(Label(row.line, cand, _LABEL_VALUES[value]))
    if problems:
        raise InvalidInput(problems, f"{rel} has labels that cannot be read; nothing written")
    if not labels and unmatched:
        shown = ", ".join(str(n) for n in unmatched[:5]) + (", ..." if len(unmatched) > 5 else "")
        raise InvalidInput([Problem(rel, unmatched[0], 1, col,
                                    f"{len(unmatched)} labelled row{'s' if len(unmatched) != 1 else ''} "
                                    f"(line {shown}) match no candidate of the screening queue "
                                    f"({len(queue)} candidates; matched by record_id arXiv:ID, url or DOI); "
                                    "nothing imported")],
                           f"{rel}: no label could be matched")
    return LabelFile(tuple(labels), unlabelled, prior, col)


__all__ = [
    "ASREVIEW_COLUMNS", "Candidate", "DECISIONS", "Decision", "LABEL_COLUMNS", "Label", "LabelFile", "QUEUE", "RUNS", "apply",
    "asreview_csv", "candidate_data", "dump_candidate", "file_name", "find", "load_queue",
    "plan_exclude", "plan_retain", "ranked", "read_labels", "read_log", "ris_text",
]
