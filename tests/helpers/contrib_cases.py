"""The mistakes first-time contributors make, as data: ``tests/data/contrib/*.yaml``.

One case file per mistake::

    mistake: what the contributor did (one sentence)
    seen: where such a mistake was seen (issue 43's walk-through, a public pull request)
    check: validate | paths   # validate: `survey validate`; paths: `survey check-paths`'s rule
    path: corpus/relay-credit.yaml          # where the file is saved, relative to the survey
    saved: {newlines: lf, bom: false, final_newline: false}   # the bytes the web editor writes
    record: |-                              # the file's text (before `saved` is applied)
      ...
    exit: 1                                 # 0: the record passes
    validate_exit: 1                        # paths cases: validate's exit (default 0, unseen)
    expected: [exact output lines]          # `survey validate`'s lines, or check-paths' lines
    tells_what_to_type: true                # read as someone who does not program would
    reading: how that reader takes the message
    grade: valid | fixable | partly | wrong fix | silent   # round 5 on
    fixed: |-                               # the record with the message's fix applied
      ...                                   # (must validate), or
    fixed_deletes: true                     # the fix is to delete the file
    also: {corpus/other.yaml: text}         # records the survey already holds

The record is written as GitHub's web editor saves it: LF line ends and no final newline by
default, with cases for CRLF, a byte-order mark and a final newline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from helpers.support import run
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.review.placement import placement_problems

CASES = Path(__file__).resolve().parents[1] / "data" / "contrib"


@dataclass(frozen=True)
class Case:
    name: str
    spec: dict[str, Any]

    @property
    def path(self) -> str:
        return str(self.spec["path"])

    def data(self) -> bytes:
        saved = self.spec.get("saved") or {}
        text = str(self.spec["record"]).rstrip("\n")
        if saved.get("final_newline"):
            text += "\n"
        if saved.get("newlines") == "crlf":
            text = text.replace("\n", "\r\n")
        raw = text.encode("utf-8")
        return (b"\xef\xbb\xbf" + raw) if saved.get("bom") else raw


def cases(folder: Path = CASES) -> list[Case]:
    return [
        Case(p.stem, yaml.safe_load(p.read_text(encoding="utf-8")))
        for p in sorted(folder.glob("*.yaml"))
    ]


def outcome(case: Case, root: Path) -> tuple[int, list[str], int]:
    """Put the case's file in the survey at ``root`` and check it as the case says: the exit
    code and lines of the check, and `survey validate`'s exit code."""
    for rel, text in (case.spec.get("also") or {}).items():  # records already in the survey
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    target = root / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = case.data()
    if case.spec.get("deleted"):  # the fix is to remove the file (the other record is the one)
        target.unlink(missing_ok=True)
    else:
        target.write_bytes(raw)
    res = run(root, "validate", env={"SURVEY_MAINTAINER_WARNINGS": "0"})
    assert "warning:" not in res.stderr, res.stderr  # no maintainer-only warning for contributors
    if case.spec["check"] == "validate":
        return res.exit_code, res.stdout.splitlines(), res.exit_code
    problems = placement_problems(load_taxonomy(root), [case.path], {case.path: raw})
    lines = [p.format() for p in problems]
    return (1 if lines else 0), lines, res.exit_code
