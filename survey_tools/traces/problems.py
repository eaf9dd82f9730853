"""Problems found in a trace, located by JSON path and event id.

A trace problem is reported as ``FILE: $.events[41].t: event 'e42': message [check]``
(with ``:LINE:COL`` after the file when the parser knows it). The exit-code
conventions are the package's own (:mod:`survey_tools.errors`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

from survey_tools.errors import EXIT_INVALID, EXIT_OK, SurveyError

_PATH_PART = re.compile(r"\[(\d+)\]|\.([^.\[]+)")


def json_path(parts: Iterable[str | int]) -> str:
    """``['events', 41, 't']`` -> ``$.events[41].t``."""
    out = ["$"]
    for p in parts:
        if isinstance(p, int):
            out.append(f"[{p}]")
        elif p.isidentifier() or p.replace("-", "_").isidentifier():
            out.append(f".{p}")
        else:
            out.append("[" + repr(p) + "]")
    return "".join(out)


def _path_key(path: str) -> tuple[tuple[int, int | str], ...]:
    # Natural order: $.events[9] before $.events[10].
    key: list[tuple[int, int | str]] = []
    for m in _PATH_PART.finditer(path):
        if m.group(1) is not None:
            key.append((0, int(m.group(1))))
        else:
            key.append((1, m.group(2)))
    return tuple(key)


@dataclass(frozen=True)
class TraceProblem:
    """One problem in one trace file."""

    file: str
    path: str = "$"
    message: str = ""
    check: str = ""
    event_id: str = ""
    line: int = 0
    col: int = 0

    def format(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}:{self.col}" if self.col else f":{self.line}"
        who = f"event {self.event_id!r}: " if self.event_id else ""
        tag = f" [{self.check}]" if self.check else ""
        return f"{where}: {self.path}: {who}{self.message}{tag}"

    def sort_key(self) -> tuple[object, ...]:
        return (self.file, self.line, self.col, _path_key(self.path), self.check, self.message)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class TraceReport:
    """Every problem found in one trace file, in a stable order.

    ``limit`` caps how many problems are *kept* (a systematic error in a
    million-event trace would otherwise print a million lines); ``total`` still
    counts all of them so the summary never understates.
    """

    file: str
    limit: int = 0
    problems: list[TraceProblem] = field(default_factory=list)
    total: int = 0
    events: int = 0
    edges: int = 0
    # Problems a profile reports without failing the trace (survey-v1: our stricter
    # rules), kept under the same limit; counted apart from ``total``.
    warnings: list[TraceProblem] = field(default_factory=list)
    warning_total: int = 0

    @property
    def ok(self) -> bool:
        return self.total == 0

    @property
    def omitted(self) -> int:
        return self.total - len(self.problems)

    def add(
        self,
        path: str,
        message: str,
        check: str,
        event_id: str = "",
        line: int = 0,
        col: int = 0,
    ) -> None:
        self.total += 1
        if self.limit and len(self.problems) >= self.limit:
            return
        self.problems.append(TraceProblem(self.file, path, message, check, event_id, line, col))

    def warn(self, problem: TraceProblem) -> None:
        self.warning_total += 1
        if self.limit and len(self.warnings) >= self.limit:
            return
        self.warnings.append(replace(problem, file=self.file))

    def sorted(self) -> list[TraceProblem]:
        return sorted(set(self.problems), key=TraceProblem.sort_key)

    def sorted_warnings(self) -> list[TraceProblem]:
        return sorted(set(self.warnings), key=TraceProblem.sort_key)

    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_INVALID

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "ok": self.ok,
            "events": self.events,
            "edges": self.edges,
            "problem_count": self.total,
            "problems": [p.to_dict() for p in self.sorted()],
            **(
                {
                    "warning_count": self.warning_total,
                    "warnings": [p.to_dict() for p in self.sorted_warnings()],
                }
                if self.warning_total
                else {}
            ),
        }


class InvalidTrace(SurveyError):
    """A trace that failed validation, carrying its report."""

    def __init__(self, report: TraceReport) -> None:
        self.report = report
        super().__init__(f"{report.file}: {report.total} problem(s)")
