"""The tests of test_render_page_round2.py that drive the built pages in headless Chromium."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers.render_page_round2_cases import ctx as ctx  # a fixture, found by name
from helpers.render_page_round2_cases import site as site  # a fixture, found by name
from helpers.render_support import (
    Built,
    axe_violations,
    keys,
    open_page,
    pauses_over,
    synthetic,
    watch_typing,
    write_site,
)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def total(ctx: Any) -> int:
    """How many papers the list shows: counted from the corpus, so curation can add papers."""
    n = len(ctx.display.retained)
    assert n > 0
    return n


def titles_in_order(ctx: Any) -> list[str]:
    return [r.title for r in sorted(ctx.display.retained, key=lambda r: (r.title.lower(), r.id))]


def test_find_in_page_finds_every_paper(browser: Any, site: Path, ctx: Any, total: int, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    titles = titles_in_order(ctx)
    assert pg.locator("#rows tr").count() == len(titles) == total
    # The last title in the list's own order, then every other one (find-in-page, from the top).
    # One call for all of them (a round trip per title was most of this test's time).
    missing = pg.evaluate("""ts => ts.filter(t => {
      window.scrollTo(0, 0);
      getSelection().removeAllRanges();
      return !window.find(t, false, false, true);
    })""", [titles[-1], *titles])
    assert not missing
    # Screen readers get every row and its title link (Chromium's own accessibility tree).
    tree = pg.context.new_cdp_session(pg).send("Accessibility.getFullAXTree")["nodes"]
    live = [n for n in tree if not n.get("ignored")]
    rows = [n for n in live if n.get("role", {}).get("value") == "row"]
    links = {n.get("name", {}).get("value") for n in live if n.get("role", {}).get("value") == "link"}
    assert len(rows) == len(titles) + 1
    assert set(titles) <= links


def test_search_covers_the_tags_shown(browser: Any, site: Path, ctx: Any, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    pg.fill("#q", "hybrid local global")
    found = set(keys(pg))
    expected = {r.id for r in ctx.display.retained if r.get("reward_type") == "hybrid"}
    assert expected and expected <= found


def test_windowed_beyond_the_limit_says_how_many_rows(browser: Any, real: Built, tmp_path: Path, pages: list[Any]) -> None:
    big = synthetic(real, 1000)
    index = write_site(tmp_path, big, all_rows_limit=500)
    pg = open_page(browser, index.as_uri())
    pages.append(pg)
    assert pg.get_attribute("#papers", "aria-rowcount") == "1001"
    drawn = pg.locator("#rows tr:not(.spacer)")
    assert 0 < drawn.count() < 100
    assert drawn.first.get_attribute("aria-rowindex") == "2"
    assert pg.locator("#status").text_content() == "1,000 papers."
    # Typing waits for a pause (debounced) and then updates once.
    pg.locator("#q").press_sequentially("credit", delay=20)
    # The address is written after the list has drawn the whole word: then nothing is pending.
    pg.wait_for_function("location.hash === '#q=credit'")
    n = len(keys(pg))
    assert 0 < n < 1000
    assert pg.get_attribute("#papers", "aria-rowcount") == str(n + 1)


def test_a_10000_character_search_in_the_link(browser: Any, site: Path, total: int, pages: list[Any]) -> None:
    long = "credit" + "x" * 9994
    pg = open_page(browser, site.as_uri() + "#q=" + long)
    pages.append(pg)
    assert pg.locator("#q").input_value() == long
    assert keys(pg) == []
    assert pg.locator("#empty").is_visible()
    # The page keeps working: a later search counts right.
    pg.fill("#q", "")
    assert len(keys(pg)) == total and pg.locator("#status").text_content() == f"{total:,} papers."
    pg.fill("#q", "a" * 10000)
    assert keys(pg) == []


def test_tab_cycles_inside_the_phone_sheet_and_focus_returns(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri(), **PHONE)
    pages.append(pg)
    pg.locator("#filter-open").click()
    assert pg.evaluate("document.activeElement.id") == "filter-close"
    n = pg.evaluate("document.querySelectorAll('#sidebar input, #sidebar button, #sidebar summary').length")
    inside = []
    for _ in range(n + 5):
        pg.keyboard.press("Tab")
        inside.append(pg.evaluate("document.getElementById('sidebar').contains(document.activeElement)"))
    assert all(inside)
    # From the last control ("Clear all filters"), Tab goes to the first, not behind the sheet.
    pg.locator("#reset").focus()
    pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.id") == "filter-close"
    pg.keyboard.press("Shift+Tab")
    assert pg.evaluate("document.activeElement.id") == "reset"
    pg.keyboard.press("Escape")
    assert pg.locator("#sidebar").is_hidden() and pg.evaluate("document.activeElement.id") == "filter-open"
    pg.locator("#filter-open").click()
    pg.locator("#filter-close").click()
    assert pg.evaluate("document.activeElement.id") == "filter-open"


def test_focus_survives_a_redraw(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    # A row's secondary link (arXiv, code): the one readers lost when rows were drawn again.
    link = pg.locator("#rows .meta a:not(.perm):not(.details)").first
    row = link.evaluate("a => a.closest('tr').id")
    link.focus()
    label = link.text_content()
    for value in ("1.-1", "2.1", "-1"):
        pg.evaluate("v => { const s = document.getElementById('sort-select'); s.value = v; s.dispatchEvent(new Event('change')); }", value)
        assert pg.evaluate("document.activeElement.closest('tr') && document.activeElement.closest('tr').id") == row
        assert pg.evaluate("document.activeElement.textContent") == label


def test_back_undoes_three_filter_steps(browser: Any, site: Path, total: int, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    steps = [("category", "rl_method"), ("credit_granularity", "agent"), ("is_rl", "yes")]
    seen = [len(keys(pg))]
    for facet, value in steps:
        pg.locator(f'fieldset[data-facet="{facet}"] input[value="{value}"]').check()
        seen.append(len(keys(pg)))
    hashes = []
    for n in range(1, len(steps) + 1):
        pg.go_back()
        # The page redraws on the history event, after go_back returns: wait for it, not a fixed time.
        pg.wait_for_function(f"surveyPage.keys().length === {seen[-1 - n]}")
        hashes.append(pg.evaluate("location.hash"))
        assert len(keys(pg)) == seen[-1 - n]
    assert hashes[0] == "#category=rl_method&credit_granularity=agent"
    assert hashes[-1] == "" and len(keys(pg)) == total
    assert not pg.locator('fieldset[data-facet="category"] input[value="rl_method"]').is_checked()


def test_typing_is_one_history_entry(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    before = pg.evaluate("history.length")
    pg.evaluate("""window.__writes = 0;
      for (const f of ['pushState', 'replaceState']) {
        const orig = history[f].bind(history);
        history[f] = (...a) => { window.__writes++; return orig(...a); };
      }
      0;""")
    watch_typing(pg)
    pg.locator("#q").press_sequentially("credit", delay=30)
    pg.wait_for_function("location.hash === '#q=credit'")
    # The page writes the address once typing pauses for 500 ms (URL_PAUSE_MS in address.mjs).
    paused = pauses_over(pg, 450, len("credit"))
    writes = pg.evaluate("window.__writes")
    # One entry and one write of the address for the whole word, after the pause (one more per
    # pause the page saw while the word was typed).
    assert 1 <= writes <= 1 + paused and pg.evaluate("history.length") == before + writes, (writes, paused)


def test_filters_kept_through_the_paper_page_and_back(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri() + "#credit_granularity=orchestrator&q=orchestr")
    pages.append(pg)
    shown = keys(pg)
    first = shown[0]
    pg.locator(f"#p-{first} a.details").click()
    pg.wait_for_url(f"**/papers/{first}.html#*")
    assert "credit_granularity=orchestrator" in pg.url and "q=orchestr" in pg.url
    crumb = pg.locator(".crumb a").first.get_attribute("href")
    assert crumb == "../index.html#credit_granularity=orchestrator&q=orchestr"
    pg.locator("a", has_text="Show in the list").click()
    pg.wait_for_url("**/index.html#*")
    pg.wait_for_function(f"document.getElementById('p-{first}') && document.getElementById('p-{first}').classList.contains('target')")
    assert keys(pg) == shown
    # The row's own key link keeps the filters too.
    perm = pg.locator(f"#p-{first} a.perm")
    perm.click()
    assert "credit_granularity=orchestrator" in pg.evaluate("location.hash") and keys(pg) == shown


def test_phone_count_visible_and_search_without_the_sheet(browser: Any, site: Path, total: int, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri() + "#credit_granularity=agent", **PHONE)
    pages.append(pg)
    assert pg.locator("#q").is_visible() and pg.locator("#sidebar").is_hidden()
    pg.fill("#q", "debate")
    n = len(keys(pg))
    pg.evaluate("window.scrollTo(0, 2000)")
    box = pg.locator("#status").bounding_box()
    assert 0 <= box["y"] < 844
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert pg.evaluate(f"document.getElementById('status').contains(document.elementFromPoint({cx}, {cy}))")
    assert pg.locator("#status").text_content().startswith(f"{n} of {total:,}")


def test_paper_page_shows_pending_corrections_and_when_it_was_added(browser: Any, site: Path, ctx: Any, pages: list[Any]) -> None:
    pg = open_page(browser, (site.parent / "papers" / "agentspawn.html").as_uri())
    pages.append(pg)
    text = pg.locator("main").text_content()
    pending = [c for c in ctx.corrections.corrections if c.record == "agentspawn" and c.kind == "tag"]
    assert {c.id for c in pending} >= {"C001", "C002"}
    for c in pending:
        assert c.id in text and c.reason in text
        assert pg.locator(f'ul.corrections a[href="{c.evidence}"]').count() >= 1
    applied = [c for c in ctx.corrections.corrections if c.kind == "metadata"]
    apg = open_page(browser, (site.parent / "papers" / f"{applied[0].record}.html").as_uri())
    pages.append(apg)
    assert applied[0].id in apg.locator("main").text_content() and "Applied corrections" in apg.locator("main").text_content()
    new = [r for r in ctx.display.retained if r.get("edition") == "living"]
    npg = open_page(browser, (site.parent / "papers" / f"{new[0].id}.html").as_uri())
    pages.append(npg)
    assert npg.locator(".badge.new").text_content() == "New since Survey v1"
    assert npg.locator("time").get_attribute("datetime") == str(new[0].get("added"))


def test_list_has_new_since_badge_facet_and_newest_first(browser: Any, site: Path, ctx: Any, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    new = {r.id for r in ctx.display.retained if r.get("edition") == "living"}
    assert set(keys(pg)[: len(new)]) == new  # newest first without a search
    assert pg.locator("#rows .badge.new").count() == len(new)
    box = pg.locator('fieldset[data-facet="edition"] input[value="living"]')
    assert box.locator("xpath=..").locator(".n").text_content() == str(len(new))
    box.check()
    assert set(keys(pg)) == new
    pg.select_option("#sort-select", label="Oldest first")
    assert "sort=added.asc" in pg.evaluate("location.hash")


def test_one_announcement_per_settled_result(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    pg.evaluate("""window.__said = [];
      new MutationObserver(() => window.__said.push(document.getElementById('announce').textContent))
        .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true});""")
    watch_typing(pg)
    pg.locator("#q").press_sequentially("credit assignment", delay=25)
    pg.wait_for_function("window.__said.length > 0", timeout=15_000)
    pg.wait_for_timeout(1200)  # longer than the page waits: any second announcement is in
    said = pg.evaluate("window.__said")
    # A result is announced once it has stood for 700 ms (ANNOUNCE_MS in chips.mjs).
    settled = pauses_over(pg, 600, len("credit assignment"))
    assert 1 <= len(said) <= 1 + settled and said[-1].endswith("best matches first."), (said, settled)
    assert pg.get_attribute("#status", "aria-live") is None  # the visible count is not live


def test_bibtex_loading_is_shown(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri())
    pages.append(pg)
    pg.evaluate("""window.__loading = [];
      new MutationObserver(() => { const e = document.getElementById('bib-loading'); if (!e.hidden) window.__loading.push(e.textContent); })
        .observe(document.getElementById('bib-loading'), {attributes: true, childList: true});""")
    pg.locator("#rows button.bibbtn").first.click()
    pg.locator("#bib-dialog").wait_for()
    loading = pg.evaluate("window.__loading")
    assert loading and loading[0].startswith("Loading BibTeX (") and "kB" in loading[0]
    assert pg.locator("#bib-loading").is_hidden()


def test_csv_keeps_a_formula_like_title_as_text(browser: Any, real: Built, tmp_path: Path, pages: list[Any]) -> None:
    import pandas as pd

    from survey_tools.csvcells import from_spreadsheet_safe

    recs = list(real.corpus.retained)
    evil = "=HYPERLINK(\"https://example.org\",\"click\") and -2+3"
    author = "Müller, Jörg"
    recs[0] = replace(recs[0], data={**recs[0].data, "title": evil, "authors": [author], "authors_complete": True})
    records = dict(real.corpus.records)
    records[real.tax.retained.name] = tuple(recs)
    b = replace(real, corpus=replace(real.corpus, records=records))
    index = write_site(tmp_path, b)
    pg = open_page(browser, index.as_uri() + "#q=hyperlink")
    pages.append(pg)
    assert keys(pg) == [recs[0].id]
    with pg.expect_download() as dl:
        pg.locator("#export-csv").click()
    path = Path(dl.value.path())
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    df = pd.read_csv(path, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    title = df.loc[0, "title"]
    assert title == "'" + evil and from_spreadsheet_safe(title) == evil
    assert df.loc[0, "authors"] == author
    assert df.loc[0, "year"] == str(recs[0].get("year"))
    # one column per field: the year of the by-line is not written again as the Year column
    names = [c.lower() for c in pd.read_csv(path, encoding="utf-8-sig", nrows=0).columns]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("rel", ["stats.html", "tags/index.html", "tags/reward-family/r1.html", "tags/subdecisions/o1-learned.html", "papers/agentspawn.html"])
def test_new_pages_have_no_axe_violations(browser: Any, site: Path, pages: list[Any], rel: str) -> None:
    pg = open_page(browser, (site.parent / rel).as_uri())
    pages.append(pg)
    assert axe_violations(pg) == []


def test_axe_clean_with_the_phone_sheet_open(browser: Any, site: Path, pages: list[Any]) -> None:
    pg = open_page(browser, site.as_uri(), **PHONE)
    pages.append(pg)
    pg.locator("#filter-open").click()
    assert axe_violations(pg) == []


