"""The tests of test_render_site.py that drive the built pages in headless Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.render_support import HOSTILE_TITLE, Built, write_site


def write_page(folder: Path, b: Built) -> Path:
    return write_site(folder, b)


@pytest.fixture(scope="module")
def real_page(real: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_page(tmp_path_factory.mktemp("site"), real)


@pytest.fixture
def page(browser: Any, real_page: Path) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # The page must work offline: any request other than the file itself fails the test.
    pg.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort())
    pg.goto(real_page.as_uri())
    pg.errors = errors
    yield pg
    assert not errors, errors
    ctx.close()


def visible_rows(pg: Any) -> int:
    """Rows that match (the page draws only those in view, so ask it, not the DOM)."""
    return int(pg.evaluate("surveyPage.keys().length"))


def check(pg: Any, facet: str, value: str) -> None:
    box = pg.locator(f'fieldset[data-facet="{facet}"] input[value="{value}"]')
    if not box.is_visible():  # a long group shows its top values until "Show all"
        pg.locator(f'fieldset[data-facet="{facet}"] button.more').click()
    box.check()


def test_all_records_then_credit_unit_message(page: Any, real: Built) -> None:
    assert visible_rows(page) == real.stats.headline["retained"]
    check(page, "credit_granularity", "message")
    # (the survey's claim ledger counts two message-level tags in the edition; the frozen copy's
    # living records add their own, so the number comes from the copy's statistics)
    expected = real.stats.table("credit_granularity").count("message")
    assert expected >= 2
    assert visible_rows(page) == expected
    assert "message" in page.evaluate("location.hash")
    # Facet counts follow the filter: the category counts now add up to the visible rows.
    counts = page.locator('fieldset[data-facet="category"] .n').all_text_contents()
    assert sum(int(c) for c in counts) == expected


def test_two_values_of_one_facet_add_up(page: Any, real: Built) -> None:
    t = real.stats.table("credit_granularity")
    check(page, "credit_granularity", "orchestrator")
    assert visible_rows(page) == t.count("orchestrator")
    check(page, "credit_granularity", "message")
    assert visible_rows(page) == t.count("orchestrator") + t.count("message")
    # Across facets the filters combine: orchestrator-or-message AND reward family R7.
    check(page, "reward_family", "R7")
    both = [
        r
        for r in real.corpus.retained
        if r.get("credit_granularity") in ("orchestrator", "message") and r.get("reward_type") == "orchestration"
    ]
    assert visible_rows(page) == len(both)


def test_subdecision_learned_facet(page: Any, real: Built) -> None:
    check(page, "subdecisions", "O5:learned")
    assert visible_rows(page) == real.stats.table("subdecisions").count("O5", "learned")


def test_search_title_authors_and_summary(page: Any, real: Built) -> None:
    page.fill("#q", "counterfactual")
    # Word prefixes: "counterfactual" also finds "counterfactuals", never "noncounterfactual".
    rx = re.compile(r"\bcounterfactual", re.I)
    expected = [
        r.id
        for r in real.corpus.retained
        if rx.search(" ".join([r.title, r.id, " ".join(r.get("authors") or []), str(r.get("venue")), str(r.get("summary"))]))
    ]
    assert expected and visible_rows(page) == len(expected)
    ids = page.evaluate("surveyPage.keys()")
    assert sorted(ids) == sorted(expected)
    # Titles rank first: every title match comes before every summary-only match.
    in_title = [bool(rx.search(real.corpus.by_id("retained")[k].title)) for k in ids]
    assert in_title == sorted(in_title, reverse=True)
    page.wait_for_function("location.hash.indexOf('q=counterfactual') >= 0")  # written after the pause


def test_year_range(page: Any, real: Built) -> None:
    page.fill("#y0", "2026")
    expected = sum(1 for r in real.corpus.retained if r.get("year") >= 2026)
    assert visible_rows(page) == expected


def test_sort_by_year_both_ways(page: Any) -> None:
    header = page.locator("#papers th button", has_text="Year")
    header.click()
    years = [int(y) for y in page.locator("#rows tr:not(.spacer) td:nth-child(2)").all_text_contents()]
    assert len(years) > 5 and years == sorted(years)
    header.press("Enter")  # keyboard works too: the header is a button
    years = [int(y) for y in page.locator("#rows tr:not(.spacer) td:nth-child(2)").all_text_contents()]
    assert years == sorted(years, reverse=True)
    assert page.locator("#papers th", has_text="Year").get_attribute("aria-sort") == "descending"


def test_filter_restored_from_the_url_hash(browser: Any, real_page: Path, real: Built) -> None:
    pg = browser.new_page()
    pg.goto(real_page.as_uri() + "#credit_granularity=orchestrator&sort=year.desc")
    assert visible_rows(pg) == real.stats.table("credit_granularity").count("orchestrator")
    assert pg.locator('fieldset[data-facet="credit_granularity"] input[value="orchestrator"]').is_checked()
    # Changing the hash in place (a shared link pasted into the same tab) re-applies it.
    pg.evaluate("location.hash = 'credit_granularity=message'")
    n = real.stats.table("credit_granularity").count("message")
    pg.wait_for_function(f"surveyPage.keys().length === {n}")
    pg.close()


def test_exclusion_tab_with_the_keyboard(page: Any, real: Built) -> None:
    page.locator("#tab-papers").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("#panel-exclusions").is_visible()
    assert not page.locator("#panel-papers").is_visible()
    assert page.locator("#exclusions tbody tr").count() == real.stats.headline["excluded"]
    assert "tab=exclusions" in page.evaluate("location.hash")


def test_script_in_a_title_is_text(browser: Any, hostile: Built, tmp_path: Path) -> None:
    path = write_page(tmp_path, hostile)
    pg = browser.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.goto(path.as_uri())
    link = pg.locator("#p-hostile td.paper > a.title")
    assert link.text_content() == HOSTILE_TITLE
    assert pg.evaluate("window.__pwned") is None and not dialogs
    assert pg.locator("#p-hostile script, #p-hostile img").count() == 0
    # Searching for the markup finds the row by its text.
    pg.fill("#q", "<script>")
    assert "hostile" in pg.evaluate("surveyPage.keys()")
    assert pg.evaluate("window.__pwned") is None
    pg.close()


def test_phone_width_has_no_horizontal_scroll(browser: Any, real_page: Path, real: Built) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.goto(real_page.as_uri())
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    # The cards themselves fit: an inner scroll box must not hide their right edge.
    right = pg.evaluate(
        "Math.max(...[...document.querySelectorAll('#papers tr')].map("
        "r => r.getBoundingClientRect().right))"
    )
    assert right <= 390
    assert not pg.locator("#sidebar").is_visible()  # filters live in a sheet on a phone
    pg.locator("#filter-open").click()
    check(pg, "credit_granularity", "message")
    assert visible_rows(pg) == real.stats.table("credit_granularity").count("message")
    ctx.close()


def test_bibtex_entry_is_shown_and_copyable(browser: Any, real: Built, tmp_path: Path) -> None:
    from survey_tools.render.bibtex import bibtex_entry as fn

    path = write_site(tmp_path, real)
    pg = browser.new_page()
    pg.goto(path.as_uri() + "#q=c3")
    pg.locator("#p-c3 button.bibbtn").click()
    dialog = pg.locator("#bib-dialog")
    dialog.wait_for(state="visible")
    entry = pg.locator("#bib-text").text_content()
    assert entry == fn(real.corpus.by_id("retained")["c3"], real.tax)
    assert entry.lstrip().startswith("@")
    # The entry has the dialog's width, not a table column's.
    assert dialog.bounding_box()["width"] > 500
    button = pg.locator("#bib-copy")
    button.click()
    # From file:// the clipboard may be refused; the entry is then selected for Ctrl+C.
    assert button.text_content() in ("Copied", "Selected: press Ctrl+C")
    assert pg.evaluate("window.getSelection().toString()").strip() == entry.strip()
    pg.keyboard.press("Escape")
    assert not dialog.is_visible()
    pg.close()


