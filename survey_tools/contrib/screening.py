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
import datetime as dt
import io
import marshal
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from survey_tools.cachedir import cache_dir
from survey_tools.contrib import adding, exclusions
from survey_tools.contrib.arxiv_client import ArxivPaper
from survey_tools.contrib.ranking import record_text
from survey_tools.corpus.checks import suggest
from survey_tools.corpus.identifiers import normalize_arxiv, normalize_doi
from survey_tools.corpus.loading import cache_enabled
from survey_tools.corpus.protocol import Protocol
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml_bytes
from survey_tools.errors import InvalidInput, Problem, SurveyError, UsageError
from survey_tools.fileio import atomic_write

SCREENING = "screening"
QUEUE = f"{SCREENING}/queue"
RUNS = f"{SCREENING}/runs.yaml"
DECISIONS = f"{SCREENING}/decisions.yaml"

# The fields of a queue file, in the order they are written.
FIELDS = ("id", "version", "title", "authors", "published", "updated", "abstract",
          "primary_category", "categories", "doi", "journal_ref", "comment", "links",
          "families", "queries", "first_seen", "score")

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
        """What the ranker reads: the title and the abstract."""
        return f"{self.title} {self.data.get('abstract', '')}"

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


def read_log(root: Path, rel: str) -> list[dict[str, Any]]:
    if not (root / rel).is_file():
        return []
    data = _read_yaml(root, rel)
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise InvalidInput([Problem(rel, 1, 1, "", "expected a list of entries")], f"{rel} is invalid")
    return data


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

# ASReview's tabular dataset columns (ASReview LAB 1.x documentation, "Data format"): title,
# abstract, authors, doi, url, keywords, and the label column "included" (1 relevant,
# 0 irrelevant, empty not yet screened).
ASREVIEW_COLUMNS = ("record_id", "title", "abstract", "authors", "keywords", "doi", "url", "included")
# Label columns ASReview accepts on import, and the one its own exports use.
LABEL_COLUMNS = ("included", "asreview_label", "label_included", "final_included", "label",
                 "included_label", "included_final", "included_flag", "include")


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
            "authors": "; ".join(authors) if isinstance(authors, list) else "",
            "keywords": "", "doi": str(ids.get("doi", "")), "url": url,
            "included": "1" if rec.collection == tax.retained.name else "0",
        })
    for c in ranked(queue):
        d = c.data
        rows.append({
            "record_id": f"arXiv:{c.id}", "title": c.title, "abstract": str(d.get("abstract", "")),
            "authors": "; ".join(str(a) for a in d.get("authors") or []),
            "keywords": "; ".join(str(x) for x in d.get("categories") or []),
            "doi": str(d.get("doi") or ""), "url": f"https://arxiv.org/abs/{c.id}", "included": "",
        })
    return rows


def asreview_csv(corpus: Corpus, queue: Sequence[Candidate]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(ASREVIEW_COLUMNS), lineterminator="\n")
    w.writeheader()
    w.writerows(asreview_rows(corpus, queue))
    return buf.getvalue()


def ris_text(queue: Sequence[Candidate]) -> str:
    """The queue, best first, as RIS (through rispy) for reference managers."""
    import rispy  # a small pure-Python library, needed only by this export

    entries = []
    for c in ranked(queue):
        d = c.data
        e: dict[str, Any] = {
            "type_of_reference": "JOUR" if d.get("journal_ref") else "GEN",
            "title": c.title, "authors": [adding.author_name(str(a)) for a in d.get("authors") or []],
            "abstract": str(d.get("abstract", "")), "year": c.year,
            "date": str(d.get("published", "")).replace("-", "/"),
            "urls": [f"https://arxiv.org/abs/{c.id}"], "publisher": "arXiv",
            "keywords": [str(x) for x in d.get("categories") or []],
            "notes": [f"arXiv:{c.id}", f"score {c.score:.4f}", "ASReview_not_seen"],
        }
        if d.get("doi"):
            e["doi"] = str(d["doi"])
        entries.append(e)
    return rispy.dumps(entries)


@dataclass(frozen=True)
class Label:
    row: int
    candidate: Candidate
    relevant: bool


def read_labels(path: Path, queue: Sequence[Candidate]) -> tuple[list[Label], int]:
    """ASReview's exported labels for queue candidates; (labels, unlabelled rows of the queue).

    Rows are matched to candidates by their record_id (``arXiv:ID``), their url, or their DOI;
    rows that name records already decided (the prior knowledge) are ignored.
    """
    rel = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    low = {h.lower(): h for h in header}
    col = next((low[c] for c in LABEL_COLUMNS if c in low), None)
    if col is None:
        raise InvalidInput([Problem(rel, 1, 1, "", f"no label column (expected one of: {', '.join(LABEL_COLUMNS)})")],
                           f"{rel} is not an ASReview export")
    by_id = {c.id: c for c in queue}
    by_doi = {str(c.data["doi"]).lower(): c for c in queue if c.data.get("doi")}
    labels, problems, unlabelled = [], [], 0
    for n, row in enumerate(reader, start=2):
        ref = next((row.get(low[k]) or "" for k in ("record_id", "url") if k in low and row.get(low[k])), "")
        cand = by_id.get(normalize_arxiv(ref) or "")
        if cand is None and "doi" in low:
            cand = by_doi.get(normalize_doi(row.get(low["doi"]) or "") or "")
        if cand is None:
            continue
        value = (row.get(col) or "").strip()
        if value in ("", "-1", "nan"):
            unlabelled += 1
            continue
        if value not in ("0", "1", "0.0", "1.0"):
            problems.append(Problem(rel, n, 1, col, f"{value!r} is not a label (1 relevant, 0 irrelevant, empty unseen)"))
            continue
        labels.append(Label(n, cand, value.startswith("1")))
    if problems:
        raise InvalidInput(problems, f"{rel} has labels that cannot be read; nothing written")
    return labels, unlabelled


__all__ = [
    "ASREVIEW_COLUMNS", "Candidate", "DECISIONS", "Decision", "Label", "QUEUE", "RUNS", "apply",
    "asreview_csv", "candidate_data", "dump_candidate", "file_name", "find", "load_queue",
    "plan_exclude", "plan_retain", "ranked", "read_labels", "read_log", "ris_text",
]
