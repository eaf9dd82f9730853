"""The review report as data: what the pull request's run hands the privileged comment job.

A pull request's run executes the contributor's code, so whatever it uploads is a stranger's
text. It therefore uploads facts (``survey diff --format json``: :func:`to_json`), never Markdown;
the comment job, running the base branch's code, reads them back with :func:`read_report` (a size
cap, strict JSON, the schema ``diff_report.schema.json`` with every string bounded and every list
capped) and renders the comment itself (:func:`comment_body`, through ``to_markdown``, where
every text goes through ``md_inert``). A forged artifact can say wrong things about the change,
in plain text, but cannot post markup, mentions, images or links of its own.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import lru_cache
from importlib import resources
from typing import Any

from survey_tools.errors import SurveyError
from survey_tools.review.diff import (
    ClaimChange,
    CorpusDiff,
    Moved,
    Paper,
    Retag,
    to_markdown,
    visible,
)

FORMAT = "survey-diff-report/1"
# The artifact is read whole: a bound far above any real report (a 5,000-paper change is about
# 3 MB) and far below what could slow the job.
MAX_BYTES = 8_000_000
# GitHub refuses a comment over 65,536 characters; the marker and the cut note fit in the rest.
MAX_COMMENT = 60_000
# The first line of every comment the job writes: with the bot as its author, the comment to edit.
MARKER = "<!-- survey-report: updated by CI on every push -->"


class ReportError(SurveyError):
    """The artifact is not a report this version can render (too big, not JSON, off schema)."""


def to_dict(rev: str, d: CorpusDiff) -> dict[str, Any]:
    """The report's facts as plain data (the shape of ``diff_report.schema.json``)."""

    def paper(p: Paper) -> dict[str, Any]:
        out = asdict(p)
        out["tags"] = [list(t) for t in p.tags]
        return out

    return {
        "format": FORMAT,
        "rev": rev,
        "base": d.base,
        "added": [paper(p) for p in d.added],
        "removed": [paper(p) for p in d.removed],
        "changed": [
            {
                "paper": paper(c.paper),
                "tags": [list(t) for t in c.tags],
                "other": [list(t) for t in c.other],
            }
            for c in d.changed
        ],
        "cells": [asdict(m) for m in d.cells],
        "gaps": [asdict(m) for m in d.gaps],
        "claims": [asdict(c) for c in d.claims],
        "notes": list(d.notes),
    }


def to_json(rev: str, d: CorpusDiff) -> str:
    return json.dumps(to_dict(rev, d), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = (
        resources.files("survey_tools.review")
        .joinpath("diff_report.schema.json")
        .read_text("utf-8")
    )
    return dict(json.loads(text))


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: Python's json would accept them


def _problems(data: Any) -> list[str]:
    import jsonschema  # the explaining validator; only the comment job reads artifacts

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}" for e in errors[:5]
    ]


def _visible(value: Any) -> Any:
    """Every string of the artifact without control, bidirectional and zero-width characters
    (a stranger's text: what the comment shows is what it says)."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [_visible(v) for v in value]
    if isinstance(value, dict):
        return {k: _visible(v) for k, v in value.items()}
    return value


def read_report(raw: bytes) -> tuple[str, CorpusDiff]:
    """An artifact's bytes -> (revision, report), or ReportError saying what is wrong."""
    if len(raw) > MAX_BYTES:
        raise ReportError(f"the report is {len(raw):,} bytes; the limit is {MAX_BYTES:,}")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise ReportError(f"the report is not JSON: {str(err)[:200]}") from None
    problems = _problems(data)
    if problems:
        raise ReportError("the report does not match its schema: " + "; ".join(problems))
    data = _visible(data)

    def paper(p: dict[str, Any]) -> Paper:
        return Paper(**{**p, "tags": tuple((a, b) for a, b in p["tags"])})

    def triples(rows: list[list[str]]) -> tuple[tuple[str, str, str], ...]:
        return tuple((a, b, c) for a, b, c in rows)

    d = CorpusDiff(
        added=tuple(paper(p) for p in data["added"]),
        removed=tuple(paper(p) for p in data["removed"]),
        changed=tuple(
            Retag(paper(c["paper"]), triples(c["tags"]), triples(c["other"]))
            for c in data["changed"]
        ),
        cells=tuple(Moved(**m) for m in data["cells"]),
        gaps=tuple(Moved(**m) for m in data["gaps"]),
        claims=tuple(ClaimChange(**c) for c in data["claims"]),
        notes=tuple(data["notes"]),
        base=data["base"],
    )
    return data["rev"], d


def comment_body(rev: str, d: CorpusDiff) -> str:
    """The comment: the marker, then the report rendered here, within GitHub's size limit (fewer
    rows per table until it fits, else cut at a line with a note)."""
    for limit in (200, 50, 20, 5):
        text = to_markdown(rev, d, limit)
        if len(text) <= MAX_COMMENT:
            return f"{MARKER}\n{text}"
    cut = text[:MAX_COMMENT].rsplit("\n", 1)[0]
    return f"{MARKER}\n{cut}\n\n_The report was cut at {MAX_COMMENT:,} characters; the job summary of the pull request's run has all of it._\n"


def render_report(raw: bytes) -> str:
    """``survey diff --render-report FILE``: the comment for an artifact's bytes."""
    return comment_body(*read_report(raw))
