"""The README's maps and the site show the survey's edition apart from the living list, and mark
a tag whose reading rests on code (curation round 6, issue 55).

Read from the frozen survey (tests/fixtures/survey-snapshot/): its maps as they are, and a copy
whose readings field marks its `code` mode and whose `puppeteer` record (a Survey v1 record
whose O5 `learned` rests on its released code) places its readings."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.build import make_context
from survey_tools.corpus.views import corpus_view
from survey_tools.render.generators import readme as readme_generator
from survey_tools.render.generators import site as site_generator

EDITION = "2605.02801v1"
MARK = "\u2020"
LEGEND = "rests on the authors' released code, not on the paper's text"

# The code mode of taxonomy/fields/readings.yaml, marked (as the live survey's is).
_CODE_MODE = """  - {id: code, label: Code, description: "Read in the authors' released code or its README, at a named commit or release."}"""
_MARKED = f"""  - id: code
    label: Code
    description: "Read in the authors' released code or its README, at a named commit or release."
    mark: "{MARK}"
    legend: "the reading of this tag {LEGEND}"
"""
_WHERE = "abstract and Figure 1 of the arXiv HTML v2"
_PUPPETEER_READINGS = f"""readings:
  category: {{how: paper, where: {_WHERE}}}
  is_rl: {{how: paper, where: {_WHERE}}}
  reward_type: {{how: paper, where: {_WHERE}}}
  credit_granularity: {{how: paper, where: {_WHERE}}}
  strict_credit: {{how: paper, where: "secondary: the survey's audit file"}}
  orchestration_form: {{how: paper, where: {_WHERE}}}
  scenario: {{how: paper, where: "secondary: the survey's seed tag"}}
  O1: {{how: code, where: puppeteer/inference/reasoning/path.py at b24e6e6}}
  O2: {{how: paper, where: {_WHERE}}}
  O4: {{how: code, where: puppeteer/inference/reasoning/reasoning.py at b24e6e6}}
  O5: {{how: code, where: puppeteer/inference/reasoning/path.py at b24e6e6}}
"""


def _marked_copy(dest: Path) -> Path:
    for name in ("taxonomy", "corpus", "exclusions", "data", "screening"):
        if (SURVEY / name).exists():
            shutil.copytree(SURVEY / name, dest / name)
    readings = dest / "taxonomy" / "fields" / "readings.yaml"
    text = readings.read_text(encoding="utf-8")
    assert _CODE_MODE in text
    readings.write_text(text.replace(_CODE_MODE + "\n", _MARKED), encoding="utf-8")
    rec = dest / "corpus" / "puppeteer.yaml"
    body = rec.read_text(encoding="utf-8")
    assert "readings:" not in body
    rec.write_text(body.rstrip("\n") + "\n" + _PUPPETEER_READINGS, encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def plain() -> Any:
    return make_context(SURVEY)


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return make_context(_marked_copy(tmp_path_factory.mktemp("marked")))


def _readme(ctx: Any) -> str:
    text = readme_generator(ctx)["README.md"]
    assert isinstance(text, str)
    return text


def _maps(text: str) -> str:
    return text[text.index("## Survey Maps") : text.index("### Gaps")]


def _row(text: str, start: str) -> list[str]:
    line = next(ln for ln in text.splitlines() if ln.startswith(start))
    return [c.strip() for c in line.split("|")[1:-1]]


def _edition_count(ctx: Any, pred: Any) -> int:
    return sum(1 for r in corpus_view(ctx.corpus, EDITION).retained if pred(r))


def test_every_map_count_reads_edition_then_living(plain: Any) -> None:
    maps = _maps(_readme(plain))
    assert (
        "Each count reads *e* / *l*: *e* records of Survey v1 (the survey's edition, screened up to 2026-05-04)"
        in maps
    )
    heads = re.findall(r"^\| .*\|$", maps, re.M)
    assert (
        sum("Records (Survey v1 / living list)" in h for h in heads) == 3
    )  # rewards, credit units, topologies
    assert (
        "Learned (Survey v1 / living list)" in maps
        and "Unsettled (Survey v1 / living list)" in maps
    )
    counts = re.findall(r"\|\s+(\d+) / (\d+) \|", maps)
    assert len(counts) >= 8 + 8 + 5 * 3 + 6
    assert all(int(e) <= int(n) for e, n in counts)


def test_the_edition_count_is_the_edition_views(plain: Any) -> None:
    text = _readme(plain)
    team = _row(text, "| Team ")
    n_team = _edition_count(plain, lambda r: r.get("credit_granularity") == "team")
    assert team[2] == f"{n_team} / {plain.stats.table('credit_granularity').count('team')}"

    def o5(mode: str) -> Any:
        return lambda r: (
            (r.get("subdecisions") or {}).get("O5", {}).get("how") == mode
            if isinstance(r.get("subdecisions"), dict)
            else False
        )

    o5_row = _row(text, "| O5 stop")
    # columns: label, learned, learned by, designed, designed by, unsettled, unsettled by
    assert (
        o5_row[1]
        == f"{_edition_count(plain, o5('learned'))} / {plain.stats.table('subdecisions').count('O5', 'learned')}"
    )
    assert o5_row[1] == "1 / 2"  # puppeteer in the edition; RLCascadeRouter added since
    assert o5_row[3].split(" / ")[0] == str(_edition_count(plain, o5("designed")))


def test_without_a_marked_mode_nothing_is_marked(plain: Any) -> None:
    text = _readme(plain)
    assert MARK not in text
    assert LEGEND not in text


def test_a_code_reading_is_marked_in_the_maps_and_the_entry(marked: Any) -> None:
    text = _readme(marked)
    maps = _maps(text)
    assert f"{MARK} the reading of this tag {LEGEND}." in maps
    o5 = _row(text, "| O5 stop")
    assert o5[1] == "1 / 2"
    assert re.search(rf"\[puppeteer\]\(#r-puppeteer-\d+\){MARK}", o5[2]), o5[2]
    assert MARK not in o5[2].replace(
        re.search(rf"\[puppeteer\]\(#r-puppeteer-\d+\){MARK}", o5[2]).group(0), ""
    )  # type: ignore[union-attr]
    entry = next(ln for ln in text.splitlines() if "`puppeteer`" in ln)
    assert (
        f"O1 spawn (learned){MARK}, O2 delegate (learned), O4 aggregate (designed){MARK}, O5 stop (learned){MARK}"
        in entry
    )
    assert "Reward family: R7 Orchestration ·" in entry  # a tag read in the paper carries no mark
    assert f"({MARK} after a tag: the reading of this tag {LEGEND})" in text


def test_the_site_marks_code_readings_and_counts_the_edition(marked: Any) -> None:
    files = site_generator(marked)
    page = next(k for k in files if k.endswith("papers/puppeteer.html"))
    html = files.get(page)
    assert isinstance(html, str)
    assert html.count(f'<span class="mark">{MARK}</span>') >= 3
    assert (
        f'<p class="legend"><span class="mark">{MARK}</span> The reading of this tag rests on the authors&#39; released code'
        in html
    )
    stats = files.get(next(k for k in files if k.endswith("/stats.html") or k == "stats.html"))
    assert isinstance(stats, str)
    assert '<th scope="col">In Survey v1</th>' in stats
    row = next(ln for ln in stats.splitlines() if "O5 stop · learned" in ln)
    assert row.endswith("<td>1</td></tr>"), row
    other = next(k for k in files if k.endswith("papers/c3.html"))
    assert MARK not in str(files.get(other))
