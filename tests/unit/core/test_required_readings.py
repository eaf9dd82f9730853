"""`readings` is required of every record the living list adds (issue 55): `survey validate`
fails on a new record that does not say where its tags were read, with the line to write, and
not on a record of the closed edition. On a copy of the frozen survey whose readings field says
`required_when: {edition: [living]}` (as the live survey's does since curation round 6)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.support import run
from helpers.survey_copy import SURVEY

from survey_tools.corpus.examples import record_template
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.render.markdown import render_contributing

EXAMPLE = (
    "say where each tag you set was read, one entry per tag, like readings: {category: {how: paper, "
    "where: Section 3.1}, is_rl: {how: code, where: src/train.py at 1a2b3c4}}; how is one of paper, code, "
    "docs, where names a section, figure, table, equation, appendix or the abstract, or a code file at a commit"
)


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    root = tmp_path / "s"
    for name in ("taxonomy", "corpus", "exclusions", "data", "screening"):
        shutil.copytree(SURVEY / name, root / name)
    f = root / "taxonomy" / "fields" / "readings.yaml"
    text = f.read_text(encoding="utf-8")
    assert "required: false\nkind: mapping" in text
    f.write_text(
        text.replace(
            "required: false\n", "required: false\nrequired_when: {edition: [living]}\n", 1
        ),
        encoding="utf-8",
    )
    return root


def _without_readings(path: Path, replacement: str = "") -> None:
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^readings:\n(?:  .*\n)+", text, re.M)
    assert m, path
    path.write_text(text.replace(m.group(0), replacement), encoding="utf-8")


def test_exactly_the_living_records_without_readings_are_named(survey: Path) -> None:
    # the snapshot predates round 5's last conversions: a few living records place no readings
    lacking = {
        f"corpus/{p.name}"
        for p in (survey / "corpus").glob("*.yaml")
        if "\nedition: living\n" in (t := p.read_text(encoding="utf-8")) and "\nreadings:" not in t
    }
    assert lacking
    r = run(survey, "validate")
    named = {
        ln.split(":", 1)[0]
        for ln in r.stdout.splitlines()
        if ": readings: required field is missing" in ln
    }
    assert named == lacking
    assert r.exit_code == 1


def test_a_living_record_without_readings_fails_with_the_line_to_write(survey: Path) -> None:
    _without_readings(survey / "corpus" / "crew2026.yaml")
    r = run(survey, "validate", str(survey / "corpus" / "crew2026.yaml"))
    assert r.exit_code == 1
    assert r.stdout.splitlines()[0] == (
        "corpus/crew2026.yaml:1:1: readings: required field is missing: add a line readings: … "
        f"(when edition is living) ({EXAMPLE})"
    )


def test_readings_left_untagged_fails_too(survey: Path) -> None:
    _without_readings(survey / "corpus" / "crew2026.yaml", "readings: untagged\n")
    r = run(survey, "validate", str(survey / "corpus" / "crew2026.yaml"))
    assert r.exit_code == 1
    line = r.stdout.splitlines()[0]
    assert re.match(
        r"corpus/crew2026\.yaml:\d+:11: readings: not yet tagged \(required when edition is living; ",
        line,
    ), line
    assert line.endswith(f"; {EXAMPLE})")


def test_an_edition_record_needs_no_readings(survey: Path) -> None:
    text = (survey / "corpus" / "c3.yaml").read_text(encoding="utf-8")
    assert "edition: 2605.02801v1" in text and "readings:" not in text
    assert run(survey, "validate", str(survey / "corpus" / "c3.yaml")).exit_code == 0


def test_the_blank_record_shows_how_to_place_readings(survey: Path) -> None:
    text = record_template(load_taxonomy(survey))
    block = text[text.index("# Where each tag above was read") :]
    assert (
        'readings:\n  category:\n    how: paper\n    where: "Section 3.1"\n  is_rl:\n    how: code\n'
        in block
    )
    assert "readings: untagged" not in text


def test_contributing_says_what_to_write(survey: Path) -> None:
    text = render_contributing(load_taxonomy(survey))
    assert (
        "Under `readings`, say for each tag you set where you read it: `category: {how: paper, where: Section 3.1}` "
        "for a place in the paper, `O5: {how: code, where: src/train.py at 1a2b3c4}` for the authors' code; "
        "`survey validate` refuses a new record without it, and says what to write."
    ) in text
    assert "say under `readings` where you read each tag" in text
