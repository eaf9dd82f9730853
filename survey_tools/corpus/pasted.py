"""A summary pasted from the abstract: six or more words in a row that are the abstract's own.

A record's summary says what the work does in the project's own words (CONTRIBUTING; the
licence of the list's data depends on it). Where the abstract is at hand, a summary that shares a
run of :data:`MIN_RUN` words with it (case, punctuation and accents aside) is named, quoting the
run. The abstract is at hand:

- in `survey add`, from the metadata the lookup returned (curate/adding.py);
- in `survey validate`, from the screening queue (``screening/queue/<arxiv id>.yaml``: what
  `survey search` stored for a candidate, abstract included), or from a field ``abstract`` the
  record itself holds, when its collection has one.

Records carry no abstract otherwise (screening decisions and found lists keep notes, not
abstracts, and the arXiv client keeps no cache), so a record whose candidate left the queue
is not checked again: the check is made when the summary is written.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.screening_logs import QUEUE
from survey_tools.corpus.taxonomy import Collection
from survey_tools.corpus.yamlio import parse_yaml_bytes
from survey_tools.errors import Problem

# The shortest run of the abstract's words in a row that makes a summary a paste: five words in
# a row are often a technical term ("multi-agent reinforcement learning with shared rewards").
MIN_RUN = 6
_WORD = re.compile(r"\w+(?:[-'\u2019]\w+)*")


def _words(text: str) -> list[tuple[str, int, int]]:
    """Each word of ``text`` compared without case or accents, with where it stands."""
    out = []
    for m in _WORD.finditer(text):
        bare = "".join(c for c in unicodedata.normalize("NFKD", m.group()) if not unicodedata.combining(c))
        out.append((bare.casefold().replace("\u2019", "'"), m.start(), m.end()))
    return out


def shared_run(summary: str, abstract: str, least: int = MIN_RUN) -> str | None:
    """The longest run of at least ``least`` words in a row that ``summary`` shares with
    ``abstract``, as the summary writes it; None when there is none."""
    s, a = _words(summary), _words(abstract)
    if len(s) < least or len(a) < least:
        return None
    a_words = [w for w, _, _ in a]
    best, end = 0, 0
    prev = [0] * (len(a) + 1)
    for i, (w, _, _) in enumerate(s, 1):
        cur = [0] * (len(a) + 1)
        for j, aw in enumerate(a_words, 1):
            if w == aw:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best, end = cur[j], i
        prev = cur
    if best < least:
        return None
    return summary[s[end - best][1] : s[end - 1][2]]


def summary_fields(coll: Collection) -> list[str]:
    """The required prose fields of a collection with a minimum length (a summary, not a code)."""
    return [f.name for f in coll.fields if f.type == "text" and f.required and f.min_length]


def pasted_words(name: str, run: str, source: str) -> str:
    n = len(_WORD.findall(run))
    return (f"{run!r} is the abstract's own words ({n} in a row, {source}): write the {name} "
            f"in your own words, with no more than {MIN_RUN - 1} words in a row from the abstract")


def _queued_abstract(root: Path, arxiv_id: str) -> str | None:
    path = root / QUEUE / f"{arxiv_id.replace('/', '_')}.yaml"
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    data = parse_yaml_bytes(raw, str(path), positions=False).data
    abstract = data.get("abstract") if isinstance(data, Mapping) else None
    return abstract if isinstance(abstract, str) and abstract.strip() else None


def _abstract_at_hand(root: Path, rec: Record, queued: frozenset[str]) -> tuple[str, str] | None:
    own = rec.get("abstract")
    if isinstance(own, str) and own.strip():
        return own, f"the abstract of {rec.path}"
    idents: Any = rec.get("identifiers")
    arxiv = idents.get("arxiv") if isinstance(idents, Mapping) else None
    if isinstance(arxiv, str) and arxiv.replace("/", "_") in queued:
        abstract = _queued_abstract(root, arxiv)
        if abstract:
            return abstract, f"the abstract {QUEUE}/{arxiv.replace('/', '_')}.yaml holds"
    return None


def pasted_summary_problems(corpus: Corpus, fields: Mapping[str, list[str]]) -> list[Problem]:
    """Each summary (``fields``: the collection's summary fields) sharing a run of MIN_RUN
    words with an abstract at hand (see the module)."""
    out: list[Problem] = []
    root = corpus.taxonomy.root
    try:  # one listing of the queue: a record's candidate is read only when it is there
        queued = frozenset(e.name[: -len(".yaml")] for e in os.scandir(root / QUEUE) if e.name.endswith(".yaml"))
    except OSError:
        queued = frozenset()
    for cname, names in fields.items():
        for rec in corpus.of(cname):
            found = _abstract_at_hand(root, rec, queued) if names else None
            if found is None:
                continue
            for name in names:
                value = rec.get(name)
                run = shared_run(value, found[0]) if isinstance(value, str) else None
                if run:
                    line, col = rec.where((name,))
                    out.append(Problem(rec.path, line, col, name, pasted_words(name, run, found[1])))
    return out
