"""Issue 56, the published address everywhere: survey.site.url (or GitHub Pages' default for the
configured repository, with a warning) reaches the README's links, the pages' canonical links and
cards, the social card the build draws, the sitemap, robots.txt and the 404 page."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any

import pytest
from helpers.render_support import Built

from survey_tools.corpus.repository import Repository, pages_default, site_url, site_url_warning
from survey_tools.reports.plots import Card

URL = "https://lists.example.org/rl-mas"


def _with(
    tax: Any, site: dict[str, Any] | None = None, repository: dict[str, str] | None = None
) -> Any:
    survey = {k: v for k, v in tax.survey.items() if k != "repository"}
    survey["site"] = {k: v for k, v in tax.survey["site"].items() if k != "url"} | (site or {})
    if repository is not None:
        survey["repository"] = repository
    return replace(tax, survey=survey)


@pytest.mark.parametrize(
    ("repo", "expected"),
    [
        ("https://github.com/Someone/rl-mas-list", "https://someone.github.io/rl-mas-list"),
        ("https://github.com/someone/rl-mas-list.git", "https://someone.github.io/rl-mas-list"),
        ("https://github.com/Someone/someone.github.io", "https://someone.github.io"),
        ("https://gitlab.com/someone/rl-mas-list", ""),
    ],
)
def test_pages_default_of_a_repository(repo: str, expected: str) -> None:
    assert pages_default(Repository(repo, "main")) == expected


def test_the_address_is_the_configured_one_else_pages_default_with_a_warning(real: Built) -> None:
    tax = _with(real.tax, {"url": URL + "/"}, {"url": "https://github.com/someone/rl-mas-list"})
    assert site_url(tax) == URL and site_url_warning(tax) is None
    guessed = _with(real.tax, repository={"url": "https://github.com/someone/rl-mas-list"})
    assert site_url(guessed) == "https://someone.github.io/rl-mas-list"
    warning = site_url_warning(guessed)
    assert warning is not None and warning.startswith(
        "taxonomy/survey.yaml: survey.site.url is not set"
    )
    assert "https://someone.github.io/rl-mas-list/" in warning
    bare = _with(real.tax)
    assert site_url(bare) == "" and "set `url:` under `survey.site`" in str(site_url_warning(bare))
    # this survey names its address
    assert site_url(real.tax).startswith("https://") and site_url_warning(real.tax) is None


def test_the_readme_links_to_the_published_pages(real: Built) -> None:
    from survey_tools.render.markdown import render_readme

    text = render_readme(
        _with(real.tax, {"url": URL}), real.corpus, real.stats, site_path="reports/site/index.html"
    )
    assert "reports/site/index.html" not in text
    assert f"the list is published, to search, filter and export, at [{URL}/]({URL}/)" in text
    assert text.count(f"]({URL}/#") >= 10  # every map's "N more" opens the published list
    # without an address the README still reaches the page's file
    assert "](reports/site/index.html" in render_readme(
        _with(real.tax), real.corpus, real.stats, site_path="reports/site/index.html"
    )


def test_pages_sitemap_robots_and_404_name_the_address(real: Built) -> None:
    from survey_tools.render.site import site_files

    files = site_files(_with(real.tax, {"url": URL}), real.corpus, real.stats, card=True)
    pages = sorted(rel for rel in files if rel.endswith(".html") and rel != "404.html")
    for rel in ("index.html", "stats.html", "papers/c3.html", "tags/index.html"):
        html = files[rel]
        assert f'<meta property="og:image" content="{URL}/card.png">' in html, rel
        assert '<meta name="twitter:card" content="summary_large_image">' in html, rel
    assert f'<link rel="canonical" href="{URL}/">' in files["index.html"]
    assert f'<link rel="canonical" href="{URL}/tags/">' in files["tags/index.html"]
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ET.fromstring(files["sitemap.xml"]).findall("s:url/s:loc", ns)]
    assert locs[0] == f"{URL}/" and len(locs) == len(set(locs)) == len(pages)
    served = {f"{URL}/{rel}".removesuffix("index.html") for rel in pages}
    assert set(locs) == served
    assert files["robots.txt"] == f"User-agent: *\nAllow: /\n\nSitemap: {URL}/sitemap.xml\n"
    lost = files["404.html"]
    assert (
        f'<a href="{URL}/">' in lost
        and f'href="{URL}/papers/index.html"' in lost
        and 'href="papers/' not in lost
    )
    assert "<style>" in lost  # the stylesheet inlined: nothing to resolve at any depth
    feed = files["feed.xml"]
    assert f'xml:base="{URL}/"' in feed and f"<id>{URL}/papers/c3.html</id>" in feed


def test_the_card_is_a_1200_by_630_png_drawn_the_same_every_time() -> None:
    card = Card(
        "A list of papers",
        "What the list holds, in a sentence.",
        ("12 retained papers", "3 records in the exclusion log"),
    )
    (png,) = card.draw()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1200, 630)
    assert card.draw() == (png,)
    assert Card(card.title, card.subtitle, ("13 retained papers",)).draw() != (png,)
