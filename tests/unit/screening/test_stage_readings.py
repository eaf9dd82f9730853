"""A retention's screening stage agrees with its record's placed readings (issue 55): a
`full_text_screen` whose readings all name the abstract, or an `abstract_screen` whose readings
name a section or the authors' code, is reported at its line in screening/decisions.yaml with
the stage to write; writing it validates.

On a copy of the frozen survey (tests/fixtures/survey-snapshot/), taken before round 6 fixed
its stages: 16 retentions say full_text_screen on the abstract alone, 3 say abstract_screen on
the authors' code README."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.support import run
from helpers.survey_copy import SURVEY

READ_AT = """  read_at:
    abstract_screen: abstract
    full_text_screen: full_text
    artifact_screen: artifact
  abstract_places: [abstract, title block]
  secondhand: [secondary]
  artifact_modes: [code, docs]
"""
_LINE = re.compile(
    r"^screening/decisions\.yaml:(\d+):\d+: \[(\d+)\]\.stage: (\w+) for (corpus/[\w-]+\.yaml), but .*: write `stage: (\w+)`"
)


def _copy(dest: Path, read_at: bool = True) -> Path:
    for name in ("taxonomy", "corpus", "exclusions", "data", "screening"):
        shutil.copytree(SURVEY / name, dest / name)
    if read_at:
        proto = dest / "taxonomy" / "protocol.yaml"
        text = proto.read_text(encoding="utf-8")
        line = next(
            ln for ln in text.splitlines(keepends=True) if ln.startswith("  retain_stage: ")
        )
        proto.write_text(text.replace(line, line + READ_AT, 1), encoding="utf-8")
    return dest


def _problems(root: Path) -> list[str]:
    r = run(root, "validate")
    return [ln for ln in r.output.splitlines() if ln.startswith("screening/decisions.yaml:")]


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    return _copy(tmp_path / "s")


def test_each_stage_that_says_more_or_less_than_the_readings_is_named(survey: Path) -> None:
    lines = _problems(survey)
    assert lines[0] == (
        "screening/decisions.yaml:4:10: [0].stage: full_text_screen for corpus/coskill2026.yaml, but every "
        "reading names the abstract only (or someone else's notes): write `stage: abstract_screen`, or place "
        "the reading where it was read (where: Section 3.2)"
    )
    assert (
        "screening/decisions.yaml:376:10: [44].stage: abstract_screen for corpus/mea2026.yaml, but the readings "
        "place category at 'README (Overview, Training)', beyond the abstract: write `stage: artifact_screen`"
    ) in lines
    found = [_LINE.match(ln) for ln in lines]
    assert all(found), lines
    said = {m.group(4): (m.group(3), m.group(5)) for m in found if m}
    assert len(said) == 19
    assert sum(1 for was, _ in said.values() if was == "full_text_screen") == 16
    assert {k for k, (_, to) in said.items() if to == "artifact_screen"} == {
        "corpus/mea2026.yaml",
        "corpus/scope-simulator-collapse2026.yaml",
        "corpus/dagent2026.yaml",
    }
    # the records read in full (tracer2026: sections, equations and code) are not named
    assert "corpus/tracer2026.yaml" not in said


def test_writing_the_stage_each_line_gives_validates(survey: Path) -> None:
    lines = _problems(survey)
    log = survey / "screening" / "decisions.yaml"
    text = log.read_text(encoding="utf-8").split("\n")
    for ln in lines:
        m = _LINE.match(ln)
        assert m, ln
        i = int(m.group(1)) - 1
        assert text[i] == f"  stage: {m.group(3)}"
        text[i] = f"  stage: {m.group(5)}"
    log.write_text("\n".join(text), encoding="utf-8")
    assert _problems(survey) == []
    assert run(survey, "validate").exit_code == 0


def test_a_reading_placed_in_a_section_makes_the_abstract_stage_wrong(survey: Path) -> None:
    rec = survey / "corpus" / "coskill2026.yaml"
    body = rec.read_text(encoding="utf-8")
    m = re.search(r"(  O2:\n    how: paper\n(?:    .*\n)*?    where: )(.*)\n", body)
    assert m, body
    rec.write_text(
        body.replace(m.group(0), m.group(1) + "Section 3.2 and Table 2 of the arXiv HTML v1\n", 1),
        encoding="utf-8",
    )
    lines = _problems(survey)
    assert not any("coskill2026" in ln for ln in lines)  # full_text_screen now agrees
    log = survey / "screening" / "decisions.yaml"
    log.write_text(
        log.read_text(encoding="utf-8").replace(
            "  stage: full_text_screen", "  stage: abstract_screen", 1
        ),
        encoding="utf-8",
    )
    lines = _problems(survey)
    assert lines[0] == (
        "screening/decisions.yaml:4:10: [0].stage: abstract_screen for corpus/coskill2026.yaml, but the readings "
        "place O2 at 'Section 3.2 and Table 2 of the arXiv HTML v1', beyond the abstract: write `stage: full_text_screen`"
    )


def test_without_read_at_the_stages_are_not_checked(tmp_path: Path) -> None:
    assert _problems(_copy(tmp_path / "s", read_at=False)) == []
