"""The search's recall against known relevant papers: which of the protocol's query families
would retrieve each, read as arXiv reads a ``survey search`` query, and where the ranker places it.

Systematic reviewers validate a search against studies they already know to be relevant: a
family query that cannot find them will not find their successors either. ``survey search``
sends each family as ``(ti:"a" OR abs:"a" OR ti:"b" ...) AND (...)`` (``search.build_query``):
every group must match, any term of a group may, each term as a phrase of the title or the
abstract. :func:`retrieves` applies that rule to a paper's own title and abstract. arXiv's
index tokenises on letters and digits (``multi-agent`` is the phrase ``multi agent``) and
ignores case; whether it also stems words is not documented, so a term matches a token here
only as written or with a plural ``s`` added or removed (``agents``/``agent``). Where arXiv does
stem more (``orchestrated``/``orchestration``), it finds more than this says: the figure is a
lower bound, and a miss is named with the group that no term of matched.

Ranks come from the queue's own model (:mod:`survey_tools.curate.ranking`): the known papers
are scored among a background of unrelated search results, the model trained without them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.corpus.identifiers import normalize_arxiv
from survey_tools.corpus.protocol import Family, Protocol
from survey_tools.corpus.yamlio import load_yaml_file
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.tables import md, md_table

_TOKEN = re.compile(r"[0-9a-z]+")


def tokens(text: str) -> tuple[str, ...]:
    """The words arXiv's index sees: runs of letters and digits, lower-cased."""
    return tuple(_TOKEN.findall(text.lower()))


def _same(term: str, word: str) -> bool:
    # A plural s either way (agent/agents, LLM/LLMs); a longer word is not the term (RL is not
    # RLHF), as a phrase query of the index matches whole tokens.
    return (
        word == term
        or word == term + "s"
        or (len(term) > 3 and term.endswith("s") and word == term[:-1])
    )


def has_phrase(phrase: str, words: Sequence[str]) -> bool:
    """Whether ``phrase`` occurs in ``words`` as consecutive tokens (arXiv's quoted phrase)."""
    want = tokens(phrase)
    if not want:
        return False
    n = len(want)
    return any(
        all(_same(want[j], words[i + j]) for j in range(n)) for i in range(len(words) - n + 1)
    )


def missing_groups(family: Family, title: str, abstract: str) -> tuple[int, ...]:
    """The groups of ``family`` (0-based) that no term of matches the title or the abstract."""
    ti, ab = tokens(title), tokens(abstract)
    return tuple(
        i
        for i, group in enumerate(family.query)
        if not any(has_phrase(t, ti) or has_phrase(t, ab) for t in group)
    )


def retrieves(family: Family, title: str, abstract: str) -> bool:
    """Whether the family's arXiv query would return a paper with this title and abstract."""
    return not missing_groups(family, title, abstract)


@dataclass(frozen=True)
class KnownPaper:
    """A paper known to be relevant: its id, title and the text the query is matched against."""

    id: str
    title: str
    abstract: str
    source: str  # where the text was read (a page), or that it is our summary
    kind: str = "abstract"  # "abstract" (the paper's own words) or "summary" (ours)


def read_known(path: Path) -> list[KnownPaper]:
    """The known papers of a YAML file ``papers: [{id, title, abstract, read}]``; every problem
    at once as ``file:line: field: message``."""
    rel = path.name
    doc = load_yaml_file(path, rel)
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read")
    data = doc.data
    rows = data.get("papers") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise InvalidInput(
            [Problem(rel, 1, 1, "papers", "a list of papers (id, title, abstract, read)")],
            f"{rel} is invalid",
        )
    problems: list[Problem] = []
    out: list[KnownPaper] = []
    for i, row in enumerate(rows):
        line, col = doc.position(("papers", i))
        if not isinstance(row, dict):
            problems.append(
                Problem(rel, line, col, f"papers[{i}]", "expected id, title, abstract, read")
            )
            continue
        bad = [
            k
            for k in ("id", "title", "abstract", "read")
            if not isinstance(row.get(k), str) or not row[k].strip()
        ]
        arxiv = normalize_arxiv(str(row.get("id", "")))
        if "id" not in bad and arxiv is None:
            bad.append("id")
        for k in bad:
            # At the value when the row has the key, else at the row.
            at = doc.position(("papers", i, k)) if k in row else (line, col)
            problems.append(
                Problem(
                    rel,
                    at[0],
                    at[1],
                    f"papers[{i}].{k}",
                    "an arXiv id" if k == "id" else "required text",
                )
            )
        if not bad:
            out.append(
                KnownPaper(
                    str(arxiv),
                    row["title"].strip(),
                    " ".join(row["abstract"].split()),
                    row["read"].strip(),
                )
            )
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return out


@dataclass(frozen=True)
class PaperRecall:
    paper: KnownPaper
    families: tuple[str, ...]  # the families whose query retrieves it
    missed: dict[str, tuple[int, ...]]  # family id -> the groups that did not match
    rank: int | None = None  # 1 = first among the known papers and the background
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.paper.id,
            "title": self.paper.title,
            "text": self.paper.kind,
            "source": self.paper.source,
            "retrieved_by": list(self.families),
            "missed_groups": {k: list(v) for k, v in self.missed.items()},
            "rank": self.rank,
            "score": self.score,
        }


@dataclass(frozen=True)
class RecallReport:
    families: tuple[Family, ...]
    papers: tuple[PaperRecall, ...]
    pool: int  # how many texts were ranked (known papers and background)

    def retrieved(self, family_id: str | None = None) -> int:
        """Known papers retrieved by ``family_id`` (or by any family)."""
        return sum(1 for p in self.papers if (family_id in p.families if family_id else p.families))

    def to_dict(self) -> dict[str, Any]:
        n = len(self.papers)
        return {
            "papers": n,
            "retrieved_by_any": self.retrieved(),
            "pool": self.pool,
            "per_family": {f.id: self.retrieved(f.id) for f in self.families},
            "results": [p.to_dict() for p in self.papers],
        }


Scorer = Callable[[Sequence[str]], list[float]]


def measure(
    protocol: Protocol,
    papers: Iterable[KnownPaper],
    score: Scorer | None = None,
    background: Sequence[str] = (),
) -> RecallReport:
    """Each paper against every family of ``protocol``; with ``score`` (the ranker trained
    without these papers), its rank among the papers and ``background`` (unrelated results)."""
    known = list(papers)
    ranks: list[int | None] = [None] * len(known)
    scores: list[float | None] = [None] * len(known)
    if score is not None and known:
        texts = [f"{p.title}. {p.abstract}" for p in known] + list(background)
        got = score(texts)
        order = sorted(range(len(texts)), key=lambda i: (-got[i], i))
        place = {i: r for r, i in enumerate(order, start=1)}
        ranks = [place[i] for i in range(len(known))]
        scores = [got[i] for i in range(len(known))]
    out = []
    for p, rank, sc in zip(known, ranks, scores, strict=True):
        missed = {f.id: missing_groups(f, p.title, p.abstract) for f in protocol.families}
        hit = tuple(k for k, v in missed.items() if not v)
        out.append(PaperRecall(p, hit, {k: v for k, v in missed.items() if v}, rank, sc))
    pool = len(known) + len(background) if score is not None else len(known)
    return RecallReport(tuple(protocol.families), tuple(out), pool)


def recall_markdown(report: RecallReport) -> str:
    """The report as Markdown: recall per family, then one row per paper."""
    n, total = len(report.papers) or 1, len(report.papers)
    rows: list[list[Any]] = []
    for f in report.families:
        k = report.retrieved(f.id)
        rows.append([md(f.label), f"{k} of {total}", f"{k / n:.2f}"])
    k = report.retrieved()
    rows.append(["any family", f"{k} of {total}", f"{k / n:.2f}"])
    out = md_table(["query family", "retrieved", "recall"], rows, "lrr", pad=False)
    labels = {f.id: f.label for f in report.families}
    papers = [
        [
            md(f"{p.paper.id} {p.paper.title}"),
            p.paper.kind,
            md(", ".join(labels[x] for x in p.families) or "none"),
            f"{p.rank} of {report.pool}" if p.rank is not None else "",
        ]
        for p in report.papers
    ]
    return (
        out
        + "\n\n"
        + md_table(["paper", "text", "retrieved by", "rank"], papers, "lllr", pad=False)
        + "\n"
    )


__all__ = [
    "KnownPaper",
    "PaperRecall",
    "RecallReport",
    "has_phrase",
    "measure",
    "missing_groups",
    "read_known",
    "recall_markdown",
    "retrieves",
    "tokens",
]
