"""A paper page written by render/paperpage.py is the page site/paper.html.j2 renders, byte for
byte: for every record of the survey's fixture and of the hostile corpus, for a synthetic corpus,
and for each of their contexts with every text made hostile and every switch turned."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.render_support import Built, build_inputs
from markupsafe import Markup

from survey_tools.render.bibtex import bibtex_entry
from survey_tools.render.paperpage import esc, paper_page
from survey_tools.render.site import PAPERS_DIR, _Site, site_files
from survey_tools.render.sitelinks import (
    SiteLinkError,
    check_page,
    checked_noted,
    confirmed,
    references,
)

# Every character markupsafe escapes, a tag, an entity and a non-ASCII letter.
_HOSTILE = "<b a='1'>&amp;\"é</b>"


def _jinja(site: _Site, ctx: dict[str, Any]) -> str:
    return site._paper_template.render(**ctx)


def _sites(b: Built) -> Iterator[_Site]:
    yield _Site(b.tax, b.corpus, b.stats, None)
    yield _Site(b.tax, b.corpus, b.stats, bibtex_entry)


def _same(site: _Site, ctx: dict[str, Any]) -> None:
    """The same bytes as the template, and the links the page noted are the ones the site's
    link check reads from the page, in the same order."""
    text, refs = paper_page(ctx)
    assert text == _jinja(site, ctx), ctx["rec"]["id"]
    assert refs == references(text), ctx["rec"]["id"]


def _hostile(value: Any) -> Any:
    """``value`` with each plain string made hostile (markup stays markup: it is the template's)."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return value + _HOSTILE if value else value
    if isinstance(value, dict):
        return {k: (v if k == "survey" else _hostile(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_hostile(v) for v in value)
    return value


def _turned(ctx: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``ctx`` with each optional part of the page on and off."""
    cur, meta = ctx["curation"], ctx["meta"]
    for new, added, edit, canonical, image, ev_url in itertools.product((True, False), repeat=6):
        c = {
            **ctx,
            "curation": {
                **cur,
                "new": new,
                "new_label": "New <here>",
                "added": "2026-01-02" if added else "",
                "edition_url": "https://example.org/e?a=1&b=2" if ev_url else "",
            },
            "edit_url": "https://example.org/edit?x=1&y='2'" if edit else "",
            "report_url": "https://example.org/r?t=1&u=2",
            "meta": {
                **meta,
                "canonical": "https://example.org/p?a&b" if canonical else "",
                "image": "https://example.org/i.png?x&y" if image else "",
                "jsonld": meta["jsonld"] if image else "",
            },
        }
        yield c


def _decorated(ctx: dict[str, Any]) -> dict[str, Any]:
    """``ctx`` with corrections, a decision with a second reading, a legend and links filled in."""
    correction = {
        "id": "C1",
        "field": "F <x>",
        "current": "a&b",
        "proposed": "c'd",
        "evidence": "https://e.org/?a&b",
        "evidence_is_url": True,
        "reason": "because <this>",
    }
    plain = {**correction, "evidence": "page 3 & 4", "evidence_is_url": False}
    second = {
        "mode": "By Code <X>",
        "disagrees": True,
        "by": "R&D",
        "date": "2026-01-01",
        "read": "full",
        "reason": "x<y",
    }
    decisions = [
        {
            "field": "Reward <O1>",
            "badge": Markup("<span>b</span>"),
            "reason": "r&r",
            "evidence": "https://e.org/?q",
            "evidence_is_url": True,
            "second": second,
        },
        {
            "field": "Reward",
            "badge": Markup("<span>c</span>"),
            "reason": "",
            "evidence": "p. 2",
            "evidence_is_url": False,
            "second": {**second, "disagrees": False, "reason": ""},
        },
        {
            "field": "Reward",
            "badge": Markup("<span>d</span>"),
            "reason": "",
            "evidence": "",
            "evidence_is_url": False,
            "second": None,
        },
    ]
    rec = {
        **ctx["rec"],
        "links": [{"url": "https://code.org/?a&b", "label": "Code <1>"}],
        "et_al": True,
        "authors": ["A <1>", "B & C"],
    }
    return {
        **ctx,
        "rec": rec,
        "decisions": decisions,
        "mark_legends": [{"mark": "†", "legend": "read by <code>"}],
        "curation": {**ctx["curation"], "pending": [correction, plain], "applied": [plain]},
        "details": [
            *ctx["details"],
            {
                "label": "L&L",
                "parts": [
                    {"text": "t<", "url": "https://u.org/?a&b"},
                    {"text": "; "},
                    {"text": "x'y"},
                ],
            },
        ],
    }


def _contexts(b: Built) -> Iterator[tuple[_Site, dict[str, Any]]]:
    for site in _sites(b):
        for rec in site.records:
            yield site, site.paper_context(rec)


def test_every_record_of_the_fixture(real: Built, hostile: Built) -> None:
    n = 0
    for b in (real, hostile):
        for site, ctx in _contexts(b):
            _same(site, ctx)
            _same(site, _hostile(ctx))
            n += 1
    assert n > 100


def test_every_switch_and_optional_part(real: Built) -> None:
    site = _Site(real.tax, real.corpus, real.stats, bibtex_entry)
    for rec in site.records[:3]:
        ctx = site.paper_context(rec)
        for c in _turned(ctx):
            _same(site, c)
            _same(site, _decorated(c))
            _same(site, _hostile(_decorated(c)))


def test_a_synthetic_corpus(tmp_path: Path) -> None:
    from benchmarks.bench_validate import make_corpus

    root = make_corpus(300, tmp_path)
    for rec in (root / "corpus").glob(
        "*.yaml"
    ):  # as benchmarks/bench_incremental.py: an edition each
        rec.write_text(
            rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8"
        )
    b = build_inputs(root)
    for site, ctx in _contexts(b):
        _same(site, ctx)


@pytest.mark.parametrize(
    "value", ["", "plain", "<&>'\"", "a&amp;b", 3, None, 2.5, Markup("<i>x</i>")]
)
def test_escape_is_markupsafes(value: Any) -> None:
    from markupsafe import escape

    assert esc(value) == str(escape(value))


def test_the_site_writes_its_pages_so(real: Built) -> None:
    site = _Site(real.tax, real.corpus, real.stats, bibtex_entry)
    for rec in site.records[:5]:
        assert site.paper(rec) == _jinja(site, site.paper_context(rec)).strip("\n") + "\n"


def test_the_noted_check_is_the_full_check(real: Built, hostile: Built) -> None:
    """Every paper page of the site: the check of its noted links finds what the full check of
    its text finds (nothing here), and a page whose noted link names a missing file is refused
    as the full check refuses it."""
    for b in (real, hostile):
        files = site_files(b.tax, b.corpus, b.stats, bibtex_entry)
        names = frozenset(files)
        for rel in names:
            if rel.startswith(f"{PAPERS_DIR}/") and rel != f"{PAPERS_DIR}/index.html":
                text = files[rel]
                assert check_page(rel, text, names) == []
    site = _Site(real.tax, real.corpus, real.stats, bibtex_entry)
    rec = site.records[0]
    rel = f"{PAPERS_DIR}/{rec.id}.html"
    text, refs = site.paper_noted(rec)
    lacking = frozenset({rel})  # a site without its index, stylesheet or script
    full = check_page(rel, text, lacking)
    assert full
    with pytest.raises(SiteLinkError) as noted_err:
        checked_noted(rel, lambda: (text, refs), lacking, "site")
    assert all(p in str(noted_err.value) for p in full[:5])


def _ending(value: Any, tail: str) -> Any:
    """``value`` with each plain string ending in ``tail`` (markup stays markup)."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return value + tail if value else value
    if isinstance(value, dict):
        return {k: (v if k == "survey" else _ending(v, tail)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_ending(v, tail) for v in value)
    return value


def test_a_value_ending_as_an_attribute_is_read_as_the_full_check_reads_it(real: Built) -> None:
    """A text ending in ` href=` before an attribute's closing quote makes the page's text hold
    one more ` href="` than was written as a link: the full check reads it (and may refuse it),
    so the noted list is not used for that page and the page is read, as before."""
    differed = 0
    for _site, ctx in _contexts(real):
        for tail in (" href=", " src=", " xml:base=", "x href"):
            text, refs = paper_page(_ending(ctx, tail))
            full = references(text)
            assert confirmed(text, refs) == full, ctx["rec"]["id"]
            differed += refs != full
        text, refs = paper_page(ctx)
        assert confirmed(text, refs) is refs  # the usual page: the noted list as it is
    assert differed  # the case is real: without the count the noted list would miss links
