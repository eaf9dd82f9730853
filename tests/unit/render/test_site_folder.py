"""The site's folder is what is published: its pages link only within it (a build fails
otherwise), paper pages link their tags, citation tags follow the entry's BibTeX type, and the
values the survey's claims name are never folded away in the list."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.errors import SurveyError
from survey_tools.render.bibtex import bibtex_entry, record_entry_type
from survey_tools.render.sitelinks import SiteLinkError, check_page, checked

FILES = {
    "index.html",
    "stats.html",
    "papers/a.html",
    "papers/index.html",
    "tags/f/v.html",
    "figures/x.svg",
}


@pytest.mark.parametrize(
    ("page", "ref", "problem"),
    [
        ("papers/a.html", "../index.html#category=x&amp;q=y", ""),
        ("papers/a.html", "../tags/f/v.html", ""),
        ("papers/a.html", "./", ""),  # the folder: its index
        ("stats.html", "figures/x.svg", ""),
        ("stats.html", "https://example.org/README.md", ""),
        ("stats.html", "data:image/svg+xml,%3Csvg%3E", ""),
        ("stats.html", "#main", ""),
        (
            "stats.html",
            "../figures/x.svg",
            "stats.html: '../figures/x.svg' leads outside the site's folder",
        ),
        (
            "papers/a.html",
            "../../README.md",
            "papers/a.html: '../../README.md' leads outside the site's folder",
        ),
        (
            "stats.html",
            "/figures/x.svg",
            "stats.html: '/figures/x.svg' starts at the server's root, outside the site's folder",
        ),
        (
            "papers/a.html",
            "b.html",
            "papers/a.html: 'b.html' names papers/b.html, which the site does not have",
        ),
        ("tags/f/v.html", "../../papers/", ""),
    ],
)
def test_a_link_leaves_the_folder_or_finds_its_file(page: str, ref: str, problem: str) -> None:
    attr = "src" if ref.endswith(".svg") else "href"
    assert check_page(page, f'<p><a {attr}="{ref}">x</a></p>', FILES) == (
        [problem] if problem else []
    )


def test_a_page_that_leaves_the_folder_is_refused_when_rendered() -> None:
    with pytest.raises(SiteLinkError) as err:
        checked(
            "papers/a.html", lambda: '<a href="../../README.md">README</a>', FILES, "reports/site"
        )
    assert str(err.value) == (
        "the site must work as its folder alone is published: "
        "reports/site/papers/a.html: '../../README.md' leads outside the site's folder"
    )


def test_the_build_fails_on_a_page_that_leaves_the_folder(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from helpers.init_support import FIXTURES, run

    from survey_tools.build import build
    from survey_tools.render import site

    source = FIXTURES / "ports" / "entries.yaml"
    shutil.copy(source, tmp_path / source.name)
    root = tmp_path / "s"
    res = run(
        root,
        "init",
        str(root),
        "--from",
        str(tmp_path / source.name),
        "--controlled",
        "task",
        "--distinct-titles",
    )
    assert res.exit_code == 0, res.output
    shutil.rmtree(root / "reports" / "site")
    # The links the pages drew before the site became its own unit: files of the repository.
    monkeypatch.setattr(
        site,
        "_project_links",
        lambda tax, up, has_bib: [{"label": "README", "url": up + "../../README.md"}],
    )
    with pytest.raises(SurveyError, match="leads outside the site's folder"):
        build(root)
    assert not (root / "reports" / "site").exists()  # nothing was written


@pytest.fixture(scope="module")
def ctx() -> Any:
    from survey_tools.build import make_context

    return make_context(SURVEY)


@pytest.fixture(scope="module")
def files(ctx: Any) -> Mapping[str, str]:
    """The real survey's site, each page rendered when a test reads it."""
    from survey_tools.render.generators import _figures
    from survey_tools.render.site import site_files

    claims = [r.claim.where for r in ctx.claims.results]
    return site_files(
        ctx.taxonomy,
        ctx.display,
        ctx.stats,
        bibtex_entry,
        ctx.corrections,
        _figures(ctx),
        claims=claims,
    )


# The venue tag and the JSON-LD type each entry type gets (None: no venue tag).
KINDS = {
    "article": ("citation_journal_title", "ScholarlyArticle"),
    "inproceedings": ("citation_conference_title", "ScholarlyArticle"),
    "techreport": ("citation_technical_report_institution", "Report"),
}
VENUE_TAGS = (
    "citation_journal_title",
    "citation_conference_title",
    "citation_technical_report_institution",
)


def test_citation_tags_follow_the_entry_type(ctx: Any, files: Mapping[str, str]) -> None:
    import extruct
    import metadata_parser

    by_kind: dict[str, Any] = {}
    for rec in ctx.display.retained:
        kind = record_entry_type(rec, ctx.taxonomy)
        arxiv = bool((rec.get("identifiers") or {}).get("arxiv"))
        by_kind.setdefault(kind if kind != "misc" else f"misc-{'arxiv' if arxiv else 'other'}", rec)
    # one page per kind the survey holds: journal, proceedings, report, preprint, blog or docs
    assert set(by_kind) >= {"article", "inproceedings", "techreport", "misc-arxiv", "misc-other"}, (
        sorted(by_kind)
    )
    for name, rec in sorted(by_kind.items()):
        html = files[f"papers/{rec.id}.html"]
        kind = name.split("-")[0]
        entry = re.search(r'<pre id="bibtex" tabindex="0">@(\w+)\{', html)
        assert entry is not None and entry.group(1) == kind, name
        page = metadata_parser.MetadataParser(html=html, search_head_only=True).parsed_result
        found = {
            t: (page.get_metadatas(t, strategy=["meta"]) or {}).get("meta") or []
            for t in VENUE_TAGS
        }
        tag, ld_type = KINDS.get(
            kind, (None, "ScholarlyArticle" if name == "misc-arxiv" else "CreativeWork")
        )
        assert {t: v for t, v in found.items() if v} == ({tag: [found[tag][0]]} if tag else {}), (
            name,
            rec.id,
            found,
        )
        if tag and kind != "techreport":
            assert found[tag] == [str(rec.get("venue"))], (name, rec.id)
        ld = extruct.extract(html, syntaxes=["json-ld"])["json-ld"][0]
        assert ld["@type"] == ld_type, (name, rec.id, ld["@type"])
        if kind == "article":
            assert {"@type": "Periodical", "name": str(rec.get("venue"))} in ld["isPartOf"]


def test_journal_articles_are_never_conference_papers(ctx: Any, files: Mapping[str, str]) -> None:
    """Every @article page names a journal and no conference (the survey's Nature, TMLR and
    Mathematics of Operations Research among them)."""
    articles = [r for r in ctx.display.retained if record_entry_type(r, ctx.taxonomy) == "article"]
    assert articles
    for rec in articles:
        html = files[f"papers/{rec.id}.html"]
        assert (
            'name="citation_journal_title"' in html and "citation_conference_title" not in html
        ), rec.id


def test_paper_pages_link_every_tag_a_facet_offers(ctx: Any, files: Mapping[str, str]) -> None:
    from survey_tools.render.site import _EditionFacet, _Site, _value_page

    s = _Site(ctx.taxonomy, ctx.display, ctx.stats, None)
    total = 0
    for rec, row in zip(s.records, s._facet_values, strict=True):
        html = files[f"papers/{rec.id}.html"]
        pages = set(
            re.findall(
                r'<a (?:class="badge" )?(?:rel="tag" )?href="\.\./tags/([^"]+)"(?: rel="tag")?',
                html,
            )
        )
        total += len(re.findall(r'rel="tag"', html))
        want = {
            _value_page(f, f.values[v])
            for f, vs in zip(s.facets, row, strict=True)
            if not isinstance(f, _EditionFacet)
            for v in vs
            if not f.values[v].get("sentinel")
        }
        assert want <= pages, (rec.id, sorted(want - pages))
        for p in pages:
            assert f"tags/{p}" in files, (rec.id, p)
        # each tag link has its way back to the list, filtered to the tag
        assert html.count('class="inlist" href="../index.html#') == len(
            re.findall(r'rel="tag"', html)
        ), rec.id
    assert total >= 3 * len(s.records)


def test_values_the_claims_name_are_never_folded(ctx: Any, files: Mapping[str, str]) -> None:
    from survey_tools.render.site import claimed_values

    claimed = set().union(*(claimed_values(r.claim.where) for r in ctx.claims.results))
    data = json.loads(
        files["index.html"]
        .split('<script type="application/json" id="survey-data">')[1]
        .split("</script>")[0]
    )
    kept = 0
    for f in data["facets"]:
        named = {i for i, v in enumerate(f["values"]) if (f["keys"][v[0]], str(v[1])) in claimed}
        assert set(f["keep"]) == named, f["name"]
        kept += len(named)
    # a mapping field's value as a claim names it ({subdecisions: {O5: learned}}) is among them
    assert any(":" in value for _, value in claimed) and kept > 0


def test_counts_read_as_words(files: Mapping[str, str]) -> None:
    stats = files["stats.html"]
    one = re.compile(r"(?<![\d,])1 papers|(?<![\d,])0 papers")
    assert not one.search(stats)
    assert re.search(r'aria-label="1 paper: show it in the list"', stats)
    for rel in (r for r in files if r.startswith("tags/") and r != "tags/index.html"):
        text = files[rel]
        assert not one.search(text), rel


def test_every_page_declares_its_icon(files: Mapping[str, str]) -> None:
    """No page leaves the browser to ask the server for a /favicon.ico the folder lacks."""
    for rel in (r for r in files if r.endswith(".html")):
        assert '<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,' in files[rel], rel
