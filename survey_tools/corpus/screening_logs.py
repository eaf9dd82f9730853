"""The living search's files under ``screening/``: where they are, and the one reader of its logs.

    screening/queue/<arXiv id>.yaml   one candidate each (``/`` of old-style ids becomes ``_``)
    screening/runs.yaml               one entry per search run (PRISMA identification)
    screening/decisions.yaml          one entry per screening decision (date, stage, outcome)

``survey search`` and ``survey screen`` (curate/) append to the logs; the living list's
PRISMA flow (reports/living.py) counts them. Both read a log with :func:`parse_log`: a log that
is not a list of entries, or an entry that is not a mapping, is reported with its line (never
dropped: a dropped decision would silently change the flow's counts).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.yamlio import parse_yaml_bytes
from survey_tools.errors import InvalidInput, Problem

SCREENING = "screening"
QUEUE = f"{SCREENING}/queue"
RUNS = f"{SCREENING}/runs.yaml"
DECISIONS = f"{SCREENING}/decisions.yaml"

# The C loader when PyYAML has it: the logs are machine-written and grow with every run.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _located(raw: bytes, rel: str, bad: list[int], message: str) -> list[Problem]:
    """Problems at the lines of the entries ``bad`` (the strict reader knows where they are)."""
    doc = parse_yaml_bytes(raw, rel)
    out = []
    for i in bad:
        line, col = doc.position((i,))
        out.append(Problem(rel, line, col, f"[{i}]", message))
    return out


def parse_log(raw: bytes | None, rel: str) -> list[dict[str, Any]]:
    """The entries of a log (none when the file is absent or empty); :class:`InvalidInput`
    names every problem: YAML that does not parse, a log that is not a list, each entry that
    is not a mapping."""
    if raw is None:
        return []
    try:
        data = yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError:
        # The strict reader says where and what in one line.
        doc = parse_yaml_bytes(raw, rel)
        raise InvalidInput(
            doc.problems or [Problem(rel, 0, 0, "", "not valid YAML")], f"{rel} cannot be read"
        ) from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise InvalidInput(
            [Problem(rel, 1, 1, "", "expected a list of entries")], f"{rel} is invalid"
        )
    bad = [i for i, x in enumerate(data) if not isinstance(x, dict)]
    if bad:
        raise InvalidInput(
            _located(raw, rel, bad, "expected an entry (key: value lines)"), f"{rel} is invalid"
        )
    return data


def read_log(source: Path | Reads, rel: str) -> list[dict[str, Any]]:
    """The log ``rel`` of a survey folder (or of a build's :class:`Reads`)."""
    reads = source if isinstance(source, Reads) else Reads(source)
    # No size limit: a log grows with every run and decision (the records' 2 MiB cap would
    # one day refuse a survey's own history).
    return parse_log(reads.file(rel), rel)


# How old the newest search run may be before `survey validate --strict` says so: a living list
# searched less than monthly is no longer current (issue 55).
MAX_SEARCH_AGE_DAYS = 31


def newest_run(source: Path | Reads) -> dt.date | None:
    """The date of the newest run in screening/runs.yaml (``survey search`` and hand runs alike);
    None when nothing was ever searched. A run whose date is not an ISO date is skipped here
    (the flow's reader reports malformed entries)."""
    dates = []
    for run in read_log(source, RUNS):
        try:
            dates.append(dt.date.fromisoformat(str(run.get("date", ""))))
        except ValueError:
            continue
    return max(dates, default=None)


def stale_search_warning(
    source: Path | Reads, today: dt.date, max_days: int = MAX_SEARCH_AGE_DAYS
) -> str | None:
    """A maintainer's warning when the newest search run is more than ``max_days`` old (or when
    no run is logged at all); None while the search is current."""
    last = newest_run(source)
    if last is None:
        return f"{RUNS}: no search run is logged: run `survey search` (or log a hand search with `survey screen import-found`)"
    age = (today - last).days
    if age <= max_days:
        return None
    return (
        f"{RUNS}: the newest search run is from {last.isoformat()}, {age} days ago (more than "
        f"{max_days}): run `survey search` (or log a hand search with `survey screen import-found`) "
        "so that the living list stays current"
    )


__all__ = [
    "DECISIONS",
    "MAX_SEARCH_AGE_DAYS",
    "QUEUE",
    "RUNS",
    "SCREENING",
    "newest_run",
    "parse_log",
    "read_log",
    "stale_search_warning",
]
