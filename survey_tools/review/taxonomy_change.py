"""A pull request that changes the taxonomy (its fields, values or rules), said one way everywhere.

CONTRIBUTING says a contributor's pull request adds records only: a missing value is proposed
in an issue, and the taxonomy is the maintainers' to change. `survey check-paths` (a step of the
pull-request job) holds a pull request to that:

- a contributor's pull request (GitHub's ``author_association`` of its author, which the
  pull-request workflow passes as ``PR_AUTHOR_ASSOCIATION``, is not OWNER, MEMBER or
  COLLABORATOR) that changes ``taxonomy/fields/`` or ``taxonomy/survey.yaml`` fails, naming what
  it changes (the values it adds or removes) and saying to propose it in an issue;
- unless a maintainer allows it by labelling the pull request ``taxonomy-change``
  (``SURVEY_TAXONOMY_ALLOWED``), or the author is a maintainer, or no pull request is known (a
  local run, the pre-commit hook): then the change passes with a note on what the maintainer who
  merges it checks, with the records tagged with a value it removes named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from survey_tools.corpus.yamlio import parse_yaml_bytes
from survey_tools.errors import Problem

# The taxonomy's fields, values and rules (not its own texts, taxonomy/readme/ and the like).
TAXONOMY_PATHS = ("taxonomy/fields/", "taxonomy/survey.yaml")
# GitHub's author_association values of those who may change the taxonomy in a pull request.
MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
# The label a maintainer puts on a contributor's pull request to allow its taxonomy change.
TAXONOMY_LABEL = "taxonomy-change"
WHAT = "changes the survey's taxonomy (its fields, values or rules)"
CHECKS = (
    "the maintainer merging it checks that every record still validates (the validate step of "
    "this job) and that the records the change concerns are tagged again"
)
REFUSED = (
    "a contributor's pull request adds records only (CONTRIBUTING.md): undo the change to this "
    "file and propose it in an issue (what the value is for and two works it would tag); if a "
    f"maintainer agrees, they label this pull request {TAXONOMY_LABEL}, and then {CHECKS}"
)


@dataclass(frozen=True)
class Who:
    """Who opened the pull request (GitHub's author_association; None: no pull request known)
    and whether a maintainer allowed its taxonomy change (the label)."""

    association: str | None = None
    allowed: bool = False

    @property
    def may_change(self) -> bool:
        return self.allowed or self.association is None or (
            self.association.upper() in MAINTAINER_ASSOCIATIONS
        )


def _ids(raw: bytes | None, rel: str) -> list[str]:
    data = parse_yaml_bytes(raw, rel, positions=False).data if raw else None
    values = data.get("values") if isinstance(data, dict) else None
    if not isinstance(values, list):
        return []
    return [str(v.get("id")) for v in values if isinstance(v, dict) and "id" in v]


def _what_changes(rel: str, before: bytes | None, after: bytes | None) -> tuple[str, list[str]]:
    """The change in words (``adds the value robotics to scenario``) and the removed ids."""
    if not rel.startswith("taxonomy/fields/"):
        return WHAT, []
    field = PurePosixPath(rel).stem
    old, new = _ids(before, rel), _ids(after, rel)
    added = [v for v in new if v not in old]
    removed = [v for v in old if v not in new]
    parts = []
    if added:
        parts.append(f"adds the value{'s' if len(added) > 1 else ''} {', '.join(added)} to {field}")
    if removed:
        parts.append(f"removes {', '.join(removed)} from {field}")
    return (f"{WHAT}: it {' and '.join(parts)}" if parts else WHAT), removed


def _tagged_with(records: Mapping[str, Mapping[str, Any]], field: str, removed: list[str]) -> list[str]:
    out = []
    for key, data in sorted(records.items()):
        value = data.get(field)
        values = value if isinstance(value, list) else [value]
        if any(str(v) in removed for v in values):
            out.append(key)
    return out


def taxonomy_change_lines(
    changed: Iterable[str],
    before: Mapping[str, bytes | None],
    staged: Mapping[str, bytes | None],
    records: Callable[[], Mapping[str, Mapping[str, Any]]],
    who: Who,
) -> tuple[list[Problem], list[str]]:
    """The problems (a contributor's change not allowed) and notes (an allowed change) for
    every changed taxonomy file; ``records()`` gives the branch's records by key (read only
    when a value is removed)."""
    problems: list[Problem] = []
    notes: list[str] = []
    for rel in changed:
        if not rel.startswith(TAXONOMY_PATHS):
            continue
        what, removed = _what_changes(rel, before.get(rel), staged.get(rel))
        if not who.may_change:
            problems.append(Problem(rel, 0, 0, "", f"{what}; {REFUSED}"))
            continue
        how = (f"allowed by the label {TAXONOMY_LABEL}" if who.allowed else "allowed (a "
               "contributor proposes a new value in an issue first, CONTRIBUTING.md)")
        tagged = _tagged_with(records(), PurePosixPath(rel).stem, removed) if removed else []
        also = f" (records tagged with a removed value: {', '.join(tagged)})" if tagged else ""
        notes.append(f"{rel}: {what}; {how}: {CHECKS}{also}")
    return problems, notes
