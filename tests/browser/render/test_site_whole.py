"""Issue 56, the site whole without scripts and in print, and every target big enough: in
Debian's headless Chromium on a full build of this survey. Without JavaScript no control that
needs the script is shown and the exclusion log is a page of its own; printed, the statistics'
bars stay; and every target passes axe-core's target-size rule (WCAG 2.5.8: 24 by 24 px, or
spaced so), with buttons and list links 24 px high themselves."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.render_support import AXE, REPO, open_page

from survey_tools.build import build

SCRIPTED = [
    "#q",
    "#filter-open",
    "#sort-select",
    "#export-csv",
    "#export-bib",
    "#theme",
    "#tab-exclusions",
    "#papers",
    "#facets",
]
PAGES = [
    "index.html",
    "stats.html",
    "tags/index.html",
    "papers/c3.html",
    "exclusions.html",
    "papers/index.html",
    "404.html",
]
WIDTHS = [375, 1024, 1440]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whole") / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data", "screening"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, root / name)
    build(root)
    return root / "reports" / "site"


def _url(site: Path, rel: str) -> str:
    return (site / rel).as_uri()


def _visible(pg: Any, selector: str) -> bool:
    return bool(
        pg.evaluate(
            "(s) => { const e = document.querySelector(s); if (!e) return false;"
            " const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0"
            " && getComputedStyle(e).visibility !== 'hidden'; }",
            selector,
        )
    )


def test_without_javascript_no_control_is_shown_that_does_nothing(
    browser: Any, site: Path, pages: list[Any]
) -> None:
    pg = open_page(browser, _url(site, "index.html"), java_script_enabled=False)
    pages.append(pg)
    shown = [s for s in SCRIPTED if _visible(pg, s)]
    assert shown == []
    # what works without the script: the titles, each paper's page, the exclusion log's page
    assert pg.locator("noscript ol.plain li, ol.plain li").count() > 100
    link = pg.locator("a[href='exclusions.html']").first
    assert link.is_visible()
    link.click()
    pg.wait_for_load_state()
    assert pg.url.endswith("/exclusions.html")
    assert pg.locator("#exclusions tbody tr").count() == len(
        list((REPO / "exclusions").glob("*.yaml"))
    )
    assert not _visible(pg, "#theme")
    # and with the script every control is there again
    on = open_page(browser, _url(site, "index.html"))
    pages.append(on)
    assert (
        _visible(on, "#q")
        and _visible(on, "#theme")
        and _visible(on, "#tab-exclusions")
        and _visible(on, "#export-csv")
    )


def test_every_page_links_the_exclusion_log(site: Path) -> None:
    for rel in PAGES[:-1]:
        html = (site / rel).read_text(encoding="utf-8")
        assert 'exclusions.html">Exclusion log</a>' in html or rel == "papers/index.html", rel


def test_printed_the_statistics_keep_their_bars(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, _url(site, "stats.html"))
    pages.append(pg)
    pg.emulate_media(media="print")
    bars = pg.evaluate("""() => [...document.querySelectorAll('table.bars .bar')].map((b) => {
        const s = getComputedStyle(b), r = b.getBoundingClientRect();
        return {w: r.width, ink: parseFloat(s.borderTopWidth), colour: s.borderTopColor, adjust: s.printColorAdjust};
    })""")
    assert len(bars) > 50
    drawn = [b for b in bars if b["w"] > 0]
    assert len(drawn) >= len(bars) * 0.8  # zero counts draw no bar
    assert all(
        b["ink"] >= 10 and b["colour"] == "rgb(0, 0, 0)" and b["adjust"] == "exact" for b in drawn
    ), drawn[:3]
    # the PDF a reader prints has them too: the page's ink, bars on, is more than with them hidden
    with_bars = len(pg.pdf(print_background=False))
    pg.add_style_tag(content="table.bars .bar { border: none !important; }")
    assert len(pg.pdf(print_background=False)) < with_bars


def _small_targets(pg: Any) -> list[dict[str, Any]]:
    """Buttons, form controls and links in lists and navigation under 24 px high (links inside
    a sentence are exempt, as WCAG 2.5.8 exempts them)."""
    return list(
        pg.evaluate("""() => {
      const sel = 'button, select, input:not([type=checkbox]):not([type=radio]), summary, nav a, ul.links a, ul.tagvalues a, ol.plain a, .crumb a';
      return [...document.querySelectorAll(sel)].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && !e.closest('.sr-only, .skip') && (r.height < 23.99);
      }).map((e) => ({tag: e.tagName, id: e.id, cls: e.className, text: e.textContent.trim().slice(0, 30), h: e.getBoundingClientRect().height}));
    }""")
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rel", PAGES)
def test_every_target_is_at_least_24_px(
    browser: Any, site: Path, pages: list[Any], rel: str, width: int
) -> None:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed: run `npm ci` at the repository root")
    pg = open_page(browser, _url(site, rel), viewport={"width": width, "height": 900})
    pages.append(pg)
    if rel == "index.html":  # the facets' "Show all (N more)" buttons are drawn by the script
        pg.wait_for_selector("button.more", state="attached")
    assert _small_targets(pg) == []
    pg.add_script_tag(path=str(AXE))
    result = pg.evaluate(
        "async () => (await axe.run(document, {runOnly: {type: 'rule', values: ['target-size']},"
        " resultTypes: ['violations']})).violations"
    )
    assert [n["target"] for v in result for n in v["nodes"]][:10] == []


@pytest.mark.parametrize(
    ("query", "expect"),
    [
        ("orchestraton evolving", "puppeteer"),
        ("https://arxiv.org/abs/2103.01955", "mappo2022"),
        ("when to stop", "maestro2026"),
    ],
)
def test_the_page_forgives_a_typo_an_address_and_the_taxonomys_words(
    browser: Any, site: Path, pages: list[Any], query: str, expect: str
) -> None:
    pg = open_page(browser, _url(site, "index.html"))
    pages.append(pg)
    pg.fill("#q", query)
    first = pg.evaluate("surveyPage.keys()")[:3]
    assert expect in first, (query, first)
