"""Issue 56, figures consistent with the text: every count the flow figures print is one the
pages print (the headline counts, the stage table, the living flow: the same computed
objects), read back from the drawn SVG; long lines are wrapped inside their boxes; and the
living flow stays legible in a 375 px window."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers.render_support import REPO

from survey_tools.reports.plots import _wrap, figures


@pytest.fixture(scope="module")
def survey() -> Any:
    from survey_tools.build import make_context

    return make_context(REPO)


def _figure(survey: Any, kind: str) -> Any:
    return next(f for f in figures(survey.corpus, survey.stats, survey.config) if f.kind == kind)


def _svg_lines(svg: bytes) -> list[str]:
    """The text lines of a matplotlib SVG (text kept as text: svg.fonttype none)."""
    return [
        re.sub(r"<[^>]+>", "", t).strip()
        for t in re.findall(r"<text[^>]*>(.*?)</text>", svg.decode("utf-8"), re.S)
    ]


def test_the_screening_flow_prints_the_pages_counts(survey: Any) -> None:
    from survey_tools.render.site import site_files

    tax, stats = survey.taxonomy, survey.stats
    fig = _figure(survey, "flow")
    retained, total = (
        stats.headline[tax.retained.name],
        stats.headline[survey.config.headline_total],
    )
    assert fig.data["retained"] == retained == len(survey.corpus.retained)
    assert fig.data["screened"] == total
    stage = stats.table(next(str(p["field"]) for p in survey.config.plots if p["kind"] == "flow"))
    assert [n for _label, n in fig.data["stages"]] == [
        stage.count(v) for v in stage.row_values if v in stage.rows.values
    ]
    assert fig.data["screened"] - sum(n for _l, n in fig.data["stages"]) == retained
    lines = _svg_lines(fig.draw()[0])
    assert lines[lines.index(tax.retained.label) + 1] == f"n = {retained}"
    assert f"n = {total}" in lines
    # the statistics page and the list say the same numbers
    files = site_files(tax, survey.display, stats)
    assert (
        f'<span class="big">{retained}</span>' in files["stats.html"]
        and f"({retained})" in files["index.html"]
    )


def test_the_living_flow_prints_the_living_flows_counts(survey: Any) -> None:
    flow = survey.stats.living
    assert flow is not None
    lines = _svg_lines(_figure(survey, "prisma").draw()[0])
    text = "\n".join(lines)
    for n in (
        flow.identified,
        flow.duplicates,
        flow.screened,
        flow.excluded,
        flow.included,
        flow.awaiting,
    ):
        assert f"n = {n}" in text
    assert flow.screened == flow.excluded + flow.included


def test_the_living_flow_is_legible_at_375_px(survey: Any) -> None:
    svg = _figure(survey, "prisma").draw()[0].decode("utf-8")
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))  # user units: points
    sizes = [float(s) for s in re.findall(r"font-size: ([\d.]+)px", svg)]
    # the statistics page at 375 px: the figure as wide as the column (padding 0.75rem a side)
    shown = min(width * 4 / 3, 375 - 2 * 0.75 * 15)
    assert min(sizes) * shown / width >= 10, (width, min(sizes))
    # every line fits its box: none longer than the wrap width of the widest box
    assert max(len(line) for line in _svg_lines(svg.encode("utf-8"))) <= 64


def test_wrap_keeps_lines_and_breaks_long_ones() -> None:
    assert _wrap("Records screened\nn = 44", 40) == "Records screened\nn = 44"
    assert _wrap("Excluded at a very long stage name for a screening step", 20).split("\n") == [
        "Excluded at a very",
        "long stage name for",
        "a screening step",
    ]
