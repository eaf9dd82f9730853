"""``survey screen``: what each form of the command does, one function each, over the queue
and decisions of :mod:`survey_tools.curate.screening` and the hand-found lists of
:mod:`survey_tools.curate.found`. The command parses its options, picks the function and prints
what it returns (the interactive walk, which asks at each candidate, stays in the command).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.adopt.table import MAX_ENTRIES
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.protocol import Protocol
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.curate import adding, found, screening, search
from survey_tools.curate.search import valid_corpus
from survey_tools.errors import UsageError
from survey_tools.fileio import atomic_write


def queue_listing(root: Path, fmt: str, limit: int | None) -> list[screening.Candidate]:
    """The queue best first (the best ``limit``), for a listing as a table or JSON."""
    if fmt not in ("table", "json"):
        raise UsageError(
            f"--format {fmt} is for `survey screen export`; the listing is table or json"
        )
    return screening.ranked(screening.list_queue(root))[:limit]


@dataclass(frozen=True)
class DecisionRequest:
    """``survey screen ID --retain|--exclude``: the candidate and tag options as typed."""

    words: tuple[str, ...]
    retain: bool
    stage: str | None = None
    key: str | None = None
    summary: str | None = None
    note: str = ""
    date: str | None = None


def decide(root: Path, request: DecisionRequest) -> screening.Decision:
    """One candidate retained as a record or excluded, its decision logged."""
    corpus, protocol = valid_corpus(root)
    tax = corpus.taxonomy
    coll = tax.retained if request.retain else tax.excluded
    if coll is None:
        raise UsageError("this survey has no exclusion log")
    tags, refs = adding.parse_field_options(tax, coll, list(request.words))
    if len(refs) != 1:
        raise UsageError(f"give exactly one candidate id (got {len(refs)})")
    cand = screening.find(screening.load_queue(root), refs[0])
    if request.retain:
        decision = screening.plan_retain(
            root,
            corpus,
            protocol,
            cand,
            tags,
            request.key,
            request.summary,
            request.stage,
            request.date,
        )
    else:
        if request.stage:
            tags[protocol.fields["stage"]] = request.stage
        decision = screening.plan_exclude(
            root, corpus, protocol, cand, tags, request.note, request.date
        )
    screening.apply(root, decision)
    return decision


def export_queue(root: Path, fmt: str | None, out: Path) -> int:
    """The queue written to ``out`` for ASReview (CSV) or a reference manager (RIS); how many
    candidates it holds."""
    if fmt not in ("asreview", "ris"):
        raise UsageError("survey screen export needs --format asreview or --format ris")
    tax = load_taxonomy(root)
    queue = screening.load_queue(root)
    # One writer per export format.
    writers = {
        "asreview": lambda q: screening.asreview_csv(load_corpus(root, tax), q),
        "ris": screening.ris_text,
    }
    atomic_write(out, writers[fmt](queue))
    return len(queue)


@dataclass(frozen=True)
class LabelsImported:
    """What ``survey screen import-labels`` decided: each decision's message, and the counts."""

    messages: tuple[str, ...]
    retained: int
    excluded: int
    labels: screening.LabelFile

    def summary(self) -> str:
        f = self.labels
        return (
            f"retained {self.retained}, excluded {self.excluded}; {f.unlabelled} unlabelled stay in the queue "
            f"(labels from {f.column}; {f.prior} labelled rows are decided records)"
        )


def import_labels(
    root: Path, path: Path, stage: str | None, date: str | None, max_entries: int = MAX_ENTRIES
) -> LabelsImported:
    """ASReview's labels (or LAB's export) as decisions: relevant retained, irrelevant excluded
    with the protocol's stage and first reason, to be refined by the screener; a file of more
    than ``max_entries`` rows is refused (--max-entries)."""
    corpus, protocol = valid_corpus(root)
    labels = screening.read_labels(path, screening.load_queue(root), corpus, max_entries)
    messages: list[str] = []
    retained = excluded = 0
    for lab in labels.labels:
        if lab.relevant:
            d = screening.plan_retain(
                root, corpus, protocol, lab.candidate, {}, stage=stage, date=date
            )
            retained += 1
        else:
            d = screening.plan_exclude(
                root,
                corpus,
                protocol,
                lab.candidate,
                _irrelevant_tags(protocol, stage),
                "Marked irrelevant in ASReview on title and abstract; reason to be refined by the screener.",
                date,
            )
            excluded += 1
        screening.apply(root, d)
        messages.append(d.message)
        corpus = load_corpus(root, corpus.taxonomy)
    return LabelsImported(tuple(messages), retained, excluded, labels)


def _irrelevant_tags(protocol: Protocol, stage: str | None) -> dict[str, Any]:
    st = stage or protocol.exclude_stage
    reason = next((r.reason for r in protocol.exclusion if r.reason), None)
    tags: dict[str, Any] = {}
    if st:
        tags[protocol.fields["stage"]] = st
    if reason:
        tags[protocol.fields["reason"]] = reason
    return tags


@dataclass(frozen=True)
class FoundImported:
    """What ``survey screen import-found`` queued: the run's plan and its summary lines."""

    plan: search.RunPlan
    lines: tuple[str, ...]


def import_found(root: Path, path: Path, date: str | None) -> FoundImported:
    """Candidates found by hand, checked whole, queued with a search run of their own."""
    corpus, protocol = valid_corpus(root)
    listed = found.read_found(path, protocol)
    day = search.parse_date(date, "--date") if date else dt.date.today()
    plan = found.plan_found(root, corpus, listed, day)
    plan.apply(root)
    labels = {f.id: f.label for f in protocol.families}
    return FoundImported(plan, tuple(search.run_summary(plan, labels)))


__all__ = [
    "DecisionRequest",
    "FoundImported",
    "LabelsImported",
    "decide",
    "export_queue",
    "import_found",
    "import_labels",
    "queue_listing",
    "valid_corpus",
]
