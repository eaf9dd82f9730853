"""``survey search``: the protocol's query families asked of the arXiv API, new hits queued.

Each family becomes one arXiv ``search_query``: its term groups joined by ``AND``, the terms of
a group by ``OR``, each term a quoted phrase searched in the title (``ti:``) and the abstract
(``abs:``), and the submission dates limited with ``submittedDate:[FROM TO]``. Results are
read page by page (``start``/``max_results``) with the arXiv client of
:mod:`~survey_tools.scholarly.arxiv_client` (the toolkit's one HTTP stack), waiting the politeness
delay between requests and retrying failed pages with its retry policy; every hit is checked
(strict ids, dates, lengths) before the run plans anything.

Every hit is compared with the retained records, the exclusion log and the queue (arXiv ids
without version, DOIs, equal or near-equal titles; ``not_duplicate_of`` respected). The run is
planned completely before anything is written: a failure part way leaves the survey as it was.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools.corpus.duplicates import Known, KnownIndex
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.protocol import Family, Protocol, load_protocol
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.curate import ranking, screening
from survey_tools.errors import UsageError
from survey_tools.fileio import atomic_write
from survey_tools.net.client import NetError, TimedOut, Transient
from survey_tools.schema_words import suggest
from survey_tools.scholarly.arxiv_client import (
    DEFAULT_TIMEOUT,
    ENV_URL,
    ArxivClient,
    ArxivFetchError,
    ArxivPaper,
    ClientConfig,
    feed_complete,
    parse_feed,
)


class SearchError(ArxivFetchError):
    """The search could not be completed; nothing was written."""


def parse_date(value: str, option: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not an ISO date (YYYY-MM-DD)") from None


def build_query(family: Family, since: dt.date, until: dt.date) -> str:
    """The arXiv ``search_query`` of one family between two dates (both included)."""
    groups = []
    for group in family.query:
        terms = " OR ".join(f'ti:"{t}" OR abs:"{t}"' for t in group)
        groups.append(f"({terms})")
    dates = f"submittedDate:[{since:%Y%m%d}0000 TO {until:%Y%m%d}2359]"
    return " AND ".join([*groups, dates])


def select_families(protocol: Protocol, names: Sequence[str]) -> list[Family]:
    """The families named (by id or label, any case), or all of them; UsageError otherwise."""
    if not names:
        return list(protocol.families)
    known = {f.id: f for f in protocol.families}
    by_label = {f.label.lower(): f for f in protocol.families}
    out: list[Family] = []
    for n in names:
        f = known.get(n) or by_label.get(n.lower())
        if f is None:
            near = suggest(n, known) or suggest(n, [f.label for f in protocol.families])
            hint = f"; did you mean {near!r}?" if near else f" (known: {', '.join(known)})"
            raise UsageError(f"--family {n!r} is not a query family of the protocol{hint}")
        if f not in out:
            out.append(f)
    return out


@dataclass(frozen=True)
class SearchConfig:
    url: str
    delay: float
    timeout: float = DEFAULT_TIMEOUT
    retries: int = 3
    backoff: float = 2.0  # seconds before the first retry, doubled at each further one
    page_size: int = 100

    @classmethod
    def make(cls, protocol: Protocol, url: str | None, delay: float | None, timeout: float | None,
             retries: int | None = None, backoff: float | None = None) -> SearchConfig:
        base = ClientConfig.from_env(url, delay if delay is not None else None, timeout)
        # An explicit option or SURVEY_ARXIV_DELAY wins; otherwise the protocol's delay.
        d = delay if delay is not None else (base.delay if os.environ.get("SURVEY_ARXIV_DELAY")
                                              else protocol.delay)
        return cls(url=base.url, delay=d, timeout=base.timeout,
                   retries=3 if retries is None else retries,
                   backoff=d if backoff is None else backoff, page_size=protocol.page_size)


class ArxivSearcher:
    """Pages through one query after another on one arXiv client (politeness delay, retries)."""

    def __init__(self, config: SearchConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.client = ArxivClient(
            ClientConfig(url=config.url, delay=config.delay, timeout=config.timeout,
                         retries=config.retries, backoff=config.backoff), sleep=sleep)

    @property
    def requests(self) -> int:
        return self.client.requests

    def page(self, query: str, start: int, size: int) -> tuple[list[ArxivPaper], int]:
        """One page, retried by the HTTP layer's policy; SearchError with a one-line reason
        when it fails (the run then writes nothing)."""
        where = self.config.url
        params = {"search_query": query, "start": str(start), "max_results": str(size),
                  "sortBy": "submittedDate", "sortOrder": "descending"}
        tries = self.config.retries + 1
        try:
            ans = self.client.http.get(where.split("?", 1)[0], params, accept=feed_complete)
        except Transient:
            last = "the feed is not well-formed XML (cut off?)"
        except TimedOut:
            last = f"no answer within {self.config.timeout:g} s"
            tries = 1
        except NetError as err:
            last = f"{err.reason}; check the network or {ENV_URL}"
            tries = 1
        else:
            if ans.status == 200:
                try:
                    feed = parse_feed(ans, "the query")
                except ArxivFetchError as err:
                    raise SearchError(f"{err} ({where}); nothing written") from None
                return list(feed.papers), feed.total
            if not ans.transient:
                raise SearchError(f"arXiv answered HTTP {ans.status} at {where}; nothing written")
            last, tries = f"HTTP {ans.status}", ans.tries
        raise SearchError(f"arXiv failed at {where} after {tries} "
                          f"{'try' if tries == 1 else 'tries'}: {last}; nothing written")

    def run(self, query: str, max_results: int) -> Iterator[tuple[ArxivPaper, int]]:
        """Every hit of ``query`` (at most ``max_results``), with the total arXiv reports."""
        start = 0
        while start < max_results:
            size = min(self.config.page_size, max_results - start)
            papers, total = self.page(query, start, size)
            for p in papers:
                yield p, total
            start += len(papers)
            if not papers or start >= total:
                return


@dataclass
class RunPlan:
    """Everything one search run would write."""

    queries: dict[str, str]
    hits: dict[str, int]
    unique: int
    duplicates: dict[str, int]
    new: list[str]
    write: dict[str, str] = field(default_factory=dict)  # rel -> text
    run: dict[str, Any] = field(default_factory=dict)

    def apply(self, root: Path) -> None:
        # Candidates first, the run record last: a run record always describes files present.
        for rel in sorted(self.write):
            if rel != screening.RUNS:
                atomic_write(root / rel, self.write[rel])
        atomic_write(root / screening.RUNS, self.write[screening.RUNS])


def default_since(root: Path, protocol: Protocol) -> dt.date:
    """The day after the last run's end, or the edition's cutoff when nothing ran yet."""
    runs = screening.read_log(root, screening.RUNS)
    ends = [str(r.get("until")) for r in runs if r.get("until")]
    if ends:
        return parse_date(max(ends), "the last run's until") + dt.timedelta(days=1)
    return parse_date(protocol.edition_cutoff, "edition_cutoff")


def index_of(corpus: Corpus, queue: Sequence[screening.Candidate]) -> KnownIndex:
    """Known works: retained records, exclusions, and the queue."""
    index = KnownIndex.of_corpus(corpus)
    for c in queue:
        data = {"title": c.title, "identifiers": {"arxiv": c.id, **({"doi": c.data["doi"]} if c.data.get("doi") else {})}}
        refs = c.data.get("not_duplicate_of")
        nd = frozenset(str(x) for x in refs) if isinstance(refs, list) else frozenset()
        index.add(Known(c.rel, "queue", c.id, c.title, nd), data)
    return index


# A paper found by the search, with the families that found it and their queries (in step).
_Found = tuple[ArxivPaper, list[str], list[str]]


def plan_search(
    root: Path,
    corpus: Corpus,
    protocol: Protocol,
    families: Sequence[Family],
    since: dt.date,
    until: dt.date,
    max_results: int,
    searcher: ArxivSearcher,
    today: dt.date,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] = lambda x, _n: x,
    ranker: ranking.Ranker | None = None,
) -> RunPlan:
    """Ask every family, dedupe, score; return what to write (nothing is written here)."""
    if since > until:
        raise UsageError(f"--since {since} is after --until {until}")
    queue = screening.load_queue(root)
    index = index_of(corpus, queue)
    queries = {f.id: build_query(f, since, until) for f in families}
    hits, found = _ask(families, queries, searcher, max_results, progress)
    kinds = {k: 0 for k in (*corpus.taxonomy.collections, "queue")}
    queue_by_rel = {c.rel: c for c in queue}
    refreshed, new_papers = sort_found(found, index, queue_by_rel, kinds)
    day = today.isoformat()
    fresh = [
        screening.Candidate(
            screening.candidate_data(p, f, q, day, 0.0), screening.file_name(p.arxiv_id)
        )
        for p, f, q in new_papers
    ]
    whole = [refreshed.get(c.rel, c) for c in queue] + fresh
    ranker = ranker or ranking.train(corpus)
    write = scored_queue(whole, ranker.score([c.text() for c in whole]), queue_by_rel)
    src = protocol.arxiv_source
    run = {
        "date": day,
        "source": src.value or src.label if src else "arXiv",
        "since": since.isoformat(),
        "until": until.isoformat(),
        "max_results": max_results,
        "queries": queries,
        "hits": hits,
        "unique": len(found),
        "duplicates": kinds,
        "new": len(fresh),
    }
    write[screening.RUNS] = dump_yaml([*screening.read_log(root, screening.RUNS), run])
    return RunPlan(queries, hits, len(found), kinds, [c.id for c in fresh], write, run)


def _ask(
    families: Sequence[Family],
    queries: Mapping[str, str],
    searcher: ArxivSearcher,
    max_results: int,
    progress: Callable[[Iterable[Any], int], Iterable[Any]],
) -> tuple[dict[str, int], dict[str, _Found]]:
    """Each family's hits, and every paper found once, by arXiv id, with the families that
    found it: the run log counts both."""
    hits: dict[str, int] = {}
    found: dict[str, _Found] = {}
    for fam in families:
        q = queries[fam.id]
        n = 0
        for paper, total in progress(searcher.run(q, max_results), min(max_results, 10**9)):
            n += 1
            entry = found.setdefault(paper.arxiv_id, (paper, [], []))
            if fam.id not in entry[1]:
                entry[1].append(fam.id)
                entry[2].append(q)
            del total
        hits[fam.id] = n
    return hits, found


def sort_found(
    found: Mapping[str, _Found],
    index: KnownIndex,
    queue_by_rel: Mapping[str, screening.Candidate],
    kinds: dict[str, int],
) -> tuple[dict[str, screening.Candidate], list[_Found]]:
    """The queue's candidates found again (with every family that finds them) and the papers
    not known at all; ``kinds`` counts the known ones by where they are known."""
    refreshed: dict[str, screening.Candidate] = {}
    new_papers: list[_Found] = []
    for aid in sorted(found):
        paper, fams, qs = found[aid]
        data: dict[str, Any] = {"title": paper.title, "identifiers": {"arxiv": aid}}
        if paper.doi:
            data["identifiers"]["doi"] = paper.doi.lower()
        m = index.match(data, refs=[aid, f"arXiv:{aid}"])
        if m is None:
            new_papers.append((paper, fams, qs))
            # Known from now on: a later hit with the same title or DOI is not queued twice.
            index.add(Known(screening.file_name(aid), "queue", aid, paper.title), data)
            continue
        known, _why = m
        kinds[known.kind] = kinds.get(known.kind, 0) + 1
        if known.kind == "queue" and known.ref in queue_by_rel:
            # Found again, perhaps by another family: remember every family that finds it.
            c = refreshed.get(known.ref, queue_by_rel[known.ref])
            d = dict(c.data)
            fam_list, q_list = list(d.get("families") or []), list(d.get("queries") or [])
            for f, q in zip(fams, qs, strict=True):
                if f not in fam_list:
                    fam_list.append(f)
                    q_list.append(q)
            d["families"], d["queries"] = fam_list, q_list
            refreshed[known.ref] = screening.Candidate(d, known.ref)
    return refreshed, new_papers


def scored_queue(
    whole: Sequence[screening.Candidate],
    scores: Sequence[float],
    queue_by_rel: Mapping[str, screening.Candidate],
) -> dict[str, str]:
    """The queue files to write, each with its new score; a candidate whose data and score are
    unchanged is not rewritten."""
    write: dict[str, str] = {}
    for c, s in zip(whole, scores, strict=True):
        d = dict(c.data)
        d["score"] = s
        text = screening.dump_candidate(d)
        if (
            c.rel in queue_by_rel
            and c.data == queue_by_rel[c.rel].data
            and queue_by_rel[c.rel].score == s
        ):
            continue  # unchanged: not rewritten
        write[c.rel] = text
    return write


def run_summary(plan: RunPlan, labels: Mapping[str, str]) -> list[str]:
    lines = [f"{labels.get(f, f)}: {n} hit{'s' if n != 1 else ''}" for f, n in plan.hits.items()]
    dup = ", ".join(f"{n} {k}" for k, n in plan.duplicates.items() if n)
    lines.append(f"{plan.unique} distinct paper{'s' if plan.unique != 1 else ''}; already known: {dup or 'none'}; "
                 f"{len(plan.new)} new candidate{'s' if len(plan.new) != 1 else ''}")
    return lines


def valid_corpus(root: Path, tax: Taxonomy | None = None) -> tuple[Corpus, Protocol]:
    """The corpus and the search protocol, refused while any record is invalid (the living
    search's commands: search, screen)."""
    tax = tax if tax is not None else load_taxonomy(root)
    protocol = load_protocol(tax)
    corpus = load_corpus(root, tax)
    # Records retained from the queue stay untagged until someone tags them; that must not
    # stop the next decision. Anything else wrong must be fixed first.
    if any(not p.message.startswith("not yet tagged") for p in corpus.problems):
        raise UsageError("the corpus has invalid records; run survey validate and fix them first")
    return corpus, protocol


@dataclass(frozen=True)
class SearchRequest:
    """What ``survey search`` was asked."""

    families: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    max_results: int | None = None
    arxiv_url: str | None = None
    delay: float | None = None
    timeout: float | None = None
    retries: int = 3
    backoff: float | None = None
    dry_run: bool = False


@dataclass(frozen=True)
class SearchDone:
    """A dry run's queries (family label, id, query), or the run made: its plan, applied, and
    its summary lines."""

    queries: tuple[tuple[str, str, str], ...] = ()
    plan: RunPlan | None = None
    lines: tuple[str, ...] = ()


def run_search(
    root: Path,
    request: SearchRequest,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] = lambda items, total: items,
) -> SearchDone:
    """``survey search``: the protocol's query families on arXiv between two dates, every hit
    checked against what the survey knows, the new ones queued and the run logged (nothing
    written when a request fails); a dry run only builds the queries."""
    tax = load_taxonomy(root)
    protocol = load_protocol(tax)
    chosen = select_families(protocol, request.families)
    start = parse_date(request.since, "--since") if request.since else default_since(root, protocol)
    end = parse_date(request.until, "--until") if request.until else dt.date.today()
    if start > end:
        raise UsageError(f"--since {start} is after --until {end}")
    if request.dry_run:
        return SearchDone(queries=tuple((f.label, f.id, build_query(f, start, end)) for f in chosen))
    corpus, protocol = valid_corpus(root, tax)
    config = SearchConfig.make(
        protocol, request.arxiv_url, request.delay, request.timeout, request.retries, request.backoff
    )
    limit = request.max_results or protocol.max_results
    plan = plan_search(root, corpus, protocol, chosen, start, end, limit, ArxivSearcher(config), dt.date.today(), progress)
    plan.apply(root)
    labels = {f.id: f.label for f in protocol.families}
    return SearchDone(plan=plan, lines=tuple(run_summary(plan, labels)))


__all__ = ["ArxivSearcher", "RunPlan", "SearchConfig", "SearchDone", "SearchError", "SearchRequest", "build_query",
           "default_since", "index_of", "parse_date", "plan_search", "run_search", "run_summary",
           "scored_queue", "select_families", "sort_found", "valid_corpus"]
