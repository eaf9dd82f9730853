"""Issue 26 in real Chromium: every paper findable, a search that cannot break, focus kept in the
phone sheet and through redraws, filters carried by links and undone by Back, curation state on
paper pages, quiet announcements, the CSV export in pandas, and the new pages (statistics, tags,
feed) read by the tools that consume them (axe-core, feedparser, metadata_parser, extruct)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from helpers.render_page_round2_cases import SITE_URL
from helpers.render_page_round2_cases import ctx as ctx  # a fixture, found by name
from helpers.render_page_round2_cases import site as site  # a fixture, found by name
from helpers.render_support import (
    Built,
)

# --- every paper findable ---------------------------------------------------------------------------


# --- a search that cannot break -------------------------------------------------------------------------


# --- focus ----------------------------------------------------------------------------------------------------


# --- keeping the reader's place -----------------------------------------------------------------------------


# --- phone ----------------------------------------------------------------------------------------------------


# --- curation state -----------------------------------------------------------------------------------------


# --- announcements ---------------------------------------------------------------------------------------


# --- CSV in pandas --------------------------------------------------------------------------------------------


# --- the new pages and what tools read from them -----------------------------------------------------------


def test_stats_page_has_figures_additions_and_counts_per_tag(site: Path, ctx: Any) -> None:
    html = (site.parent / "stats.html").read_text(encoding="utf-8")
    for f in ctx.config.plots:
        # the copy in the site's own folder (Pages publishes that folder alone; that the
        # committed copies are the same files is tests/unit/live/'s)
        assert f'src="figures/{f["name"]}.svg"' in html
    assert "Additions over time" in html and "Survey v1 (to 2026-05-04)" in html
    # the bar of November 2026 counts the living records added that month (later rounds add
    # bars of their own)
    living = sum(
        1
        for r in ctx.display.retained
        if r.get("edition") == "living" and str(r.get("added", "")).startswith("2026-11")
    )
    assert (
        '<th scope="row">2026-11</th><td><span class="bar" style="width: ' in html
        and f"</span> {living}</td>" in html
    )


def test_every_value_of_every_facet_has_a_tag_page(site: Path, ctx: Any) -> None:
    from survey_tools.render.site import _Site, slug

    s = _Site(ctx.taxonomy, ctx.display, ctx.stats, None)
    for f in s.facets:
        for v in f.values:
            if v.get("sentinel"):
                continue
            page = site.parent / "tags" / slug(f.name) / f"{slug(str(v['id']))}.html"
            assert page.is_file(), page
            n = sum(
                1
                for r in s.records
                if s.facets.index(f) >= 0 and f.pos[(v["key"], v["id"])] in f.of(ctx.taxonomy, r)
            )
            text = page.read_text(encoding="utf-8")
            # each paper of the value once (the nav's "All titles" link is not one of them)
            assert (
                text.count('<li><a href="../../papers/')
                - text.count('<li><a href="../../papers/index.html">')
                == n
            )


def test_feed_is_atom_that_feedparser_reads(site: Path, ctx: Any) -> None:
    import feedparser

    feed = feedparser.parse((site.parent / "feed.xml").read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    entries = feed.entries
    assert len(entries) == min(len(ctx.display.retained), 100)  # site.feed_entries' default
    dates = [e.updated for e in entries]
    assert dates == sorted(dates, reverse=True)
    new = {
        f"{SITE_URL}/papers/{r.id}.html"
        for r in ctx.display.retained
        if r.get("edition") == "living"
    }
    assert {e.id for e in entries[: len(new)]} == new
    assert entries[0].link.startswith(SITE_URL + "/papers/")
    assert len({e.id for e in entries}) == len(entries)


def test_the_other_pages_load_one_paper_js_beside_them(site: Path) -> None:
    import re

    from survey_tools.render.scripts import bundle

    folder = site.parent
    assert (folder / "paper.js").read_text(encoding="utf-8") == bundle("paper.mjs")
    # not the list (site) nor papers/index.html, the no-JavaScript list of titles
    # nor 404.html, served at any depth (absolute links, no script)
    pages = [
        p
        for p in folder.rglob("*.html")
        if (p.name != "index.html" or p.parent.name == "tags") and p.name != "404.html"
    ]
    assert len(pages) > 100  # every paper, the statistics, the tag index and the tag pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        srcs = re.findall(r'<script src="([^"]+)"></script>', html)
        assert (
            len(srcs) == 1 and (page.parent / srcs[0]).resolve() == (folder / "paper.js").resolve()
        ), page
        assert "// --- hashstate.mjs" not in html  # the bundle itself is not inlined
    assert "// --- hashstate.mjs" in site.read_text(
        encoding="utf-8"
    )  # the index keeps its own inline


def test_the_feed_holds_the_newest_additions_it_is_asked_for(ctx: Any) -> None:
    import feedparser

    from survey_tools.render.site import FEED_FILE, site_files

    survey = ctx.taxonomy.survey
    tax = replace(
        ctx.taxonomy,
        survey={**survey, "site": {**survey["site"], "url": SITE_URL, "feed_entries": 5}},
    )
    full = feedparser.parse(
        site_files(ctx.taxonomy, ctx.display, ctx.stats, None)[FEED_FILE].encode("utf-8")
    )
    five = feedparser.parse(
        site_files(tax, ctx.display, ctx.stats, None)[FEED_FILE].encode("utf-8")
    )
    assert not five.bozo and len(five.entries) == 5
    # the five newest: the living list's additions, dated by the day each was added
    assert [e.updated for e in five.entries] == [e.updated for e in full.entries[:5]]
    assert [e.title for e in five.entries] == [e.title for e in full.entries[:5]]
    assert five.feed.updated == full.feed.updated == full.entries[0].updated


def test_citation_meta_tags_read_by_a_parser(site: Path, ctx: Any) -> None:
    import metadata_parser

    rec = ctx.display.by_id("retained")["agentspawn"]
    html = (site.parent / "papers" / "agentspawn.html").read_text(encoding="utf-8")
    page = metadata_parser.MetadataParser(html=html, search_head_only=True).parsed_result
    meta = {
        k: page.get_metadatas(k, strategy=["meta"])["meta"]
        for k in (
            "citation_title",
            "citation_author",
            "citation_publication_date",
            "citation_arxiv_id",
        )
    }
    assert meta["citation_title"] == [rec.title]
    assert meta["citation_author"] == [str(a) for a in rec.get("authors")]
    assert meta["citation_publication_date"] == [str(rec.get("year"))]
    assert meta["citation_arxiv_id"] == [rec.get("identifiers")["arxiv"]]
    assert page.get_metadatas("title", strategy=["og"])["og"] == [rec.title]
    assert f'<link rel="canonical" href="{SITE_URL}/papers/agentspawn.html">' in html
    with_doi = next(r for r in ctx.display.retained if (r.get("identifiers") or {}).get("doi"))
    dhtml = (site.parent / "papers" / f"{with_doi.id}.html").read_text(encoding="utf-8")
    dpage = metadata_parser.MetadataParser(html=dhtml, search_head_only=True).parsed_result
    assert dpage.get_metadatas("citation_doi", strategy=["meta"])["meta"] == [
        with_doi.get("identifiers")["doi"]
    ]


def test_json_ld_and_cards_read_by_extruct(site: Path, ctx: Any) -> None:
    import extruct

    index = extruct.extract(
        (site.parent / "index.html").read_text(encoding="utf-8"),
        base_url=SITE_URL + "/index.html",
        syntaxes=["json-ld", "opengraph"],
    )
    ds = index["json-ld"][0]
    assert (
        ds["@type"] == "Dataset"
        and ds["url"] == SITE_URL + "/"  # the folder's own address, as Pages serves it
        and ds["name"] == ctx.taxonomy.survey["list_title"]
    )
    og = dict(index["opengraph"][0]["properties"])
    assert og["og:url"] == SITE_URL + "/" and og["og:type"] == "website"
    paper = extruct.extract(
        (site.parent / "papers" / "c3.html").read_text(encoding="utf-8"), syntaxes=["json-ld"]
    )
    art = paper["json-ld"][0]
    assert art["@type"] == "ScholarlyArticle" and art["url"] == SITE_URL + "/papers/c3.html"
    assert [a["name"] for a in art["author"]] == [
        str(a) for a in ctx.display.by_id("retained")["c3"].get("authors")
    ]


def test_no_canonical_without_a_site_address(real: Built) -> None:
    from dataclasses import replace

    from survey_tools.render.site import site_files

    survey = real.tax.survey
    tax = replace(
        real.tax, survey={**survey, "site": {k: v for k, v in survey["site"].items() if k != "url"}}
    )
    files = site_files(tax, real.corpus, real.stats, card=True)
    assert 'rel="canonical"' not in files["index.html"] and "og:url" not in files["papers/c3.html"]
    # a card's address must be absolute, and crawlers' files name absolute addresses: none
    assert (
        "og:image" not in files["index.html"]
        and "sitemap.xml" not in files
        and "robots.txt" not in files
    )
    assert 'href="index.html"' in files["404.html"]
    assert (
        json.loads(
            files["index.html"]
            .split('<script type="application/ld+json">')[1]
            .split("</script>")[0]
        )["@type"]
        == "Dataset"
    )
