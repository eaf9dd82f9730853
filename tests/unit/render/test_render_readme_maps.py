"""README maps as people read them: records linked to their entries, keys that do not break at
hyphens, "N more" opening the page's filtered view, gap totals that add up to the rows shown.
The README is rendered from the frozen survey (tests/fixtures/survey-snapshot/), not read from
the live one, so that curating the list never moves these figures."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.build import make_context
from survey_tools.render.generators import readme as readme_generator


@pytest.fixture(scope="module")
def ctx() -> Any:
    return make_context(SURVEY)


@pytest.fixture(scope="module")
def readme(ctx: Any) -> str:
    text = readme_generator(ctx)["README.md"]
    assert isinstance(text, str)
    return text


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


def test_every_key_in_a_map_links_to_its_entry(readme: str) -> None:
    maps = section(readme, "## Survey Maps", "### Gaps")
    links = re.findall(r"\[([a-z0-9\u2011]+)\]\(#(r-[a-z0-9-]+-\d+)\)", maps)
    assert len(links) > 50
    anchors = set(re.findall(r'<a id="(r-[a-z0-9-]+-\d+)"></a>', readme))
    for shown, anchor in links:
        assert anchor in anchors, anchor
        key = shown.replace("\u2011", "-")
        assert anchor.startswith(f"r-{key}-")
        # The anchor sits on the record's own entry (its key follows on the same line).
        line = next(ln for ln in readme.splitlines() if f'<a id="{anchor}">' in ln)
        assert f"`{key}`" in line
        assert "-" not in shown  # non-breaking hyphens: "kimi-k2-6" stays on one line
    # No map cell is an unlinked code span any more.
    assert not re.search(r"\| `[a-z0-9-]+`", maps)


def test_more_links_open_the_page_filtered_to_the_cell(readme: str, ctx: Any) -> None:
    maps = section(readme, "## Survey Maps", "### Gaps")
    # the page in the survey (reports/site/index.html), or the published site once
    # survey.site_url is set
    more = re.findall(r"\[(\d+) more\]\(([^)#\s]+)#([a-z_]+)=([A-Za-z0-9_:]+)\)", maps)
    assert more
    stats = ctx.stats.to_dict()
    tables = {**stats["fields"], **stats["groups"]}
    for n, page, key, value in more:
        assert page == "reports/site/index.html" or page.startswith("https://"), page
        counts = tables[key]["counts"]
        total = counts[value.split(":")[0]][value.split(":")[1]] if ":" in value else counts[value]
        assert int(n) == total - 3  # three named, the rest behind the link
    # The widest table (sub-decisions) names at most three records per cell.
    sub = section(maps, "### Orchestration Sub-decisions", "### Topologies")
    for row in sub.splitlines()[2:]:
        for cell in row.split("|")[1:-1]:
            assert cell.count("](#r-") <= 3


def test_gap_totals_add_up_to_the_rows_shown(readme: str) -> None:
    gaps = section(readme, "### Gaps", "### Figures")
    assert "not applicable or untagged" in gaps
    for table in re.findall(r"(?:^\|.*\|\n)+", gaps, re.M):
        rows = [[c.strip() for c in ln.split("|")[1:-1]] for ln in table.strip().splitlines()[2:]]
        body, total = rows[:-1], rows[-1]
        assert total[0] == "total"

        def n(cell: str) -> int:
            return int(re.sub(r"\*\*|\\\[.*", "", cell).strip().split(" ")[0])

        multi = "Orchestration sub" in body[0][0] or any(r[0].startswith("O1") for r in body)
        if multi:
            continue  # a record touches several sub-decisions: rows overlap by design
        for col in range(1, len(total)):
            assert sum(n(r[col]) for r in body) == n(total[col]), (table[:80], col)
