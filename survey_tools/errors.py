"""Problems found in input, and the exceptions the library raises.

The library never prints or exits: it returns a :class:`Report` or raises a
:class:`SurveyError`; the CLI turns both into messages and exit codes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field

# Exit codes shared by every command: 0 clean, 1 invalid input, 2 usage error.
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
# A fault in the toolkit itself (a bug), never the input's fault: told apart from 1 and 2.
EXIT_FAULT = 3


# A problem whose message starts so is a warning, not a refusal: the record passes, and what is
# published is the cleaned value the message names (an http:// link upgraded, a decomposed
# accent composed). A contributor sees it on the same line as a problem, to copy the fix.
WARNING = "warning: "


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one file, formatted as ``file:line:col: field: message``."""

    file: str
    line: int = 0
    col: int = 0
    field: str = ""
    message: str = ""

    def format(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}"
            if self.col:
                where += f":{self.col}"
        if self.field:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class Report:
    """Every problem found in one run, in a stable order."""

    problems: list[Problem] = field(default_factory=list)
    checked: int = 0
    # Lines whose message starts with WARNING: said, never failing (see WARNING).
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: Problem) -> None:
        (self.warnings if problem.message.startswith(WARNING) else self.problems).append(problem)

    def extend(self, problems: Iterable[Problem]) -> None:
        for p in problems:
            self.add(p)

    def sorted(self) -> list[Problem]:
        return sorted(set(self.problems))

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.sorted())

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "problems": [p.to_dict() for p in self.sorted()],
            "warnings": [p.to_dict() for p in sorted(set(self.warnings))],
        }


class SurveyError(Exception):
    """Base class of the library's errors; the message is meant for the user."""

    exit_code = EXIT_INVALID


class UsageError(SurveyError):
    """The call itself is wrong (a missing folder, a bad option value)."""

    exit_code = EXIT_USAGE


class InvalidInput(SurveyError):
    """Input that cannot be used, carrying every problem found."""

    def __init__(self, problems: Iterable[Problem], summary: str = "invalid input") -> None:
        self.problems = sorted(set(problems))
        super().__init__(summary)
