"""A paper page written by Python from the context ``site/paper.html.j2`` renders.

The template stays the page's source of truth: it says what the page shows, and
``tests/unit/render/test_paper_page.py`` renders every record of the survey's fixture and of
synthetic corpora both ways and requires the same bytes (an edit to the template fails that test
until this module says the same). This module exists for speed: a 10,000-record build renders
10,000 paper pages, and Jinja's cost per page (a new context, one generator step per output
node, one ``escape`` through markupsafe's ``Markup`` per field) was about a tenth of a cold
build. Here a page is a list of constant strings and escaped fields, joined once.

Escaping is markupsafe's (``&<>'"`` as ``&amp;&lt;&gt;&#39;&#34;``; a value with ``__html__``
is already markup), done by ``str.replace`` on the strings that hold such a character.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from survey_tools.render.sitelinks import references_by_attribute, unescaped

_SPECIAL = frozenset("&<>'\"")


def esc(value: Any) -> str:
    """``value`` as Jinja's autoescape writes it (markupsafe's ``escape``, then ``str``)."""
    # A plain str (most of a page's fields) first: it has no __html__, and asking hasattr of
    # one fails a lookup for each of the 750,000 fields of a 10k site's pages.
    if type(value) is str:
        s = value
    elif hasattr(value, "__html__"):
        return str(value.__html__())
    else:
        s = str(value)
    if _SPECIAL.isdisjoint(s):
        return s
    return (
        s.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


# The fragments many pages share (navigation, tag lines, badges, the head's script) are read
# once each; a page's own markup (its JSON-LD) holds no link and is not read (none has " href=", " src=" or " xml:base=").
_fragment_references = lru_cache(maxsize=1 << 12)(references_by_attribute)


class Refs:
    """The page's links as the site's link check reads them (``sitelinks.references``): each
    ``href`` in the page's order, then each ``src``, then each ``xml:base``, unescaped. Noted
    where a value enters the page, so that the check does not read the page again; a fragment of
    markup (navigation, tags, the script) is read once for every page that holds it."""

    __slots__ = ("hrefs", "srcs", "bases")

    def __init__(self) -> None:
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.bases: list[str] = []

    def href(self, value: Any) -> str:
        """``value`` escaped for an ``href`` attribute, noted as one."""
        e = esc(value)
        self.hrefs.append(unescaped(e) if "&" in e else e)
        return e

    def src(self, value: Any) -> str:
        e = esc(value)
        self.srcs.append(unescaped(e) if "&" in e else e)
        return e

    def markup(self, value: Any) -> str:
        """``value`` escaped (markup stays as it is), with the links its text holds."""
        e = esc(value)
        if " href=" in e or " src=" in e or " xml:base=" in e:
            hrefs, srcs, bases = _fragment_references(e)
            self.hrefs += hrefs
            self.srcs += srcs
            self.bases += bases
        return e

    def all(self) -> list[str]:
        return [*self.hrefs, *self.srcs, *self.bases]


def _meta(out: list[str], meta: Mapping[str, Any], site_name: str, r: Refs) -> None:
    """``site/_meta.html.j2`` (a paper page's part of it)."""
    if meta["canonical"]:
        c = esc(meta["canonical"])
        out += (
            '<link rel="canonical" href="',
            r.href(meta["canonical"]),
            '">\n<meta property="og:url" content="',
            c,
            '">\n',
        )
    title, desc = esc(meta["title"]), esc(meta["description"])
    out += (
        '<meta property="og:type" content="',
        esc(meta["type"]),
        '">\n<meta property="og:title" content="',
        title,
        '">\n<meta property="og:description" content="',
        desc,
        '">\n<meta property="og:site_name" content="',
        site_name,
        '">\n',
    )
    if meta["image"]:
        img = esc(meta["image"])
        out += (
            '<meta property="og:image" content="',
            img,
            '">\n<meta property="og:image:width" content="1200">\n'
            '<meta property="og:image:height" content="630">\n<meta property="og:image:alt" content="',
            site_name,
            '">\n<meta name="twitter:card" content="summary_large_image">\n'
            '<meta name="twitter:image" content="',
            img,
            '">\n',
        )
    else:
        out.append('<meta name="twitter:card" content="summary">\n')
    out += (
        '<meta name="twitter:title" content="',
        title,
        '">\n<meta name="twitter:description" content="',
        desc,
        '">\n',
    )
    for name, value in meta.get("citation", []):
        out += ('<meta name="', esc(name), '" content="', esc(value), '">\n')
    if meta["jsonld"]:
        out += ('<script type="application/ld+json">', r.markup(meta["jsonld"]), "</script>\n")


def _evidence(ev: Any, is_url: Any, r: Refs) -> str:
    if is_url:
        e = r.href(ev)
        return f'<a href="{e}">{e}</a>'
    return esc(ev)


def _corrections(out: list[str], items: Sequence[Mapping[str, Any]], r: Refs) -> None:
    out.append('  <ul class="decisions corrections">\n')
    for c in items:
        out += (
            "    <li><strong>",
            esc(c["id"]),
            "</strong>: ",
            esc(c["field"]),
            " ",
            esc(c["current"]),
            " → ",
            esc(c["proposed"]),
            ". ",
            esc(c["reason"]),
            ' <span class="ev">Evidence: ',
            _evidence(c["evidence"], c["evidence_is_url"], r),
            "</span></li>\n",
        )
    out.append("  </ul>\n")


def _decision(out: list[str], d: Mapping[str, Any], r: Refs) -> None:
    out += ("    <li>", r.markup(d["badge"]))
    if d["reason"]:
        out += (" ", esc(d["reason"]))
    if d["evidence"]:
        out += (
            ' <span class="ev">Evidence: ',
            _evidence(d["evidence"], d["evidence_is_url"], r),
            "</span>",
        )
    s = d["second"]
    if s:
        out += (
            ' <span class="ev">Second reading (',
            esc(s["by"]),
            ", ",
            esc(s["date"]),
            "; read ",
            esc(s["read"]),
            "): ",
            "<strong>disagrees</strong>, " if s["disagrees"] else "agrees, ",
            esc(str(s["mode"]).lower()),
        )
        if s["reason"]:
            out += (". ", esc(s["reason"]))
        out.append("</span>")
    out.append("</li>\n")


def _record(out: list[str], ctx: Mapping[str, Any], r: Refs) -> None:
    """From the article's heading to the record's fields."""
    rec, cur = ctx["rec"], ctx["curation"]
    rid, index = esc(rec["id"]), esc(ctx["index_href"])
    out += (
        '<article class="paper" id="p-',
        rid,
        '">\n  <h1><a href="',
        r.href(rec["url"]),
        '">',
        esc(rec["title"]),
        "</a></h1>\n",
    )
    if cur["new"]:
        out += ('<p><span class="badge new">', esc(cur["new_label"]), "</span></p>")
    out += (
        '  <p class="authors">',
        esc("; ".join(map(str, rec["authors"]))),
        "; et al." if rec["et_al"] else "",
        '</p>\n  <p class="summary">',
        esc(rec["summary"]),
        '</p>\n  <p class="actions">\n    <a class="btn" href="',
        r.href(rec["url"]),
        '">Read the paper</a>\n',
    )
    for link in rec["links"]:
        out += ('<a class="btn" href="', r.href(link["url"]), '">', esc(link["label"]), "</a> ")
    if ctx["edit_url"]:
        out += (
            '<a class="btn" href="',
            r.href(ctx["edit_url"]),
            '">Edit this record</a> <a class="btn" href="',
            r.href(ctx["report_url"]),
            '">Report a problem</a>',
        )
    out += (
        '    <a class="btn" href="',
        r.href(f"{ctx['index_href']}#p-{rec['id']}"),
        '" data-carry="',
        index,
        '" data-anchor="',
        rid,
        '">Show in the list</a>\n  </p>\n  <h2>Record</h2>\n  <dl class="fields">\n    <dt>Key</dt><dd><code>',
        rid,
        "</code></dd>\n",
    )
    for d in ctx["details"]:
        out += ("    <dt>", esc(d["label"]), "</dt><dd>")
        for p in d["parts"]:
            if "url" in p:
                out += ('<a href="', r.href(p["url"]), '">', esc(p["text"]), "</a>")
            else:
                out.append(esc(p["text"]))
        out.append("</dd>\n")


def _curation(out: list[str], cur: Mapping[str, Any], r: Refs) -> None:
    out.append('  </dl>\n  <h2>Curation</h2>\n  <dl class="fields">\n    <dt>Entered in</dt><dd>')
    if cur["edition_url"]:
        out += ('<a href="', r.href(cur["edition_url"]), '">', esc(cur["edition"]), "</a>")
    else:
        out.append(esc(cur["edition"]))
    out.append("</dd>\n")
    if cur["added"]:
        a = esc(cur["added"])
        out += ('<dt>Added</dt><dd><time datetime="', a, '">', a, "</time></dd>")
    out.append("  </dl>\n")
    if cur["pending"]:
        out.append(
            "  <h3>Pending corrections</h3>\n  <p>Proposed changes to this record's tags that the curators"
            " have not applied yet: the tags below still show the current values.</p>\n"
        )
        _corrections(out, cur["pending"], r)
    if cur["applied"]:
        out.append(
            "  <h3>Applied corrections</h3>\n  <p>Metadata corrected on this page from the record's stored"
            " values.</p>\n"
        )
        _corrections(out, cur["applied"], r)


def _tail(out: list[str], ctx: Mapping[str, Any], r: Refs) -> None:
    """Tags, decisions, legends, BibTeX and the footer."""
    if ctx["tags"]:
        out.append('  <h2>Tags</h2>\n  <dl class="fields">\n')
        out += (r.markup(t["html"]) for t in ctx["tags"])
        out.append("  </dl>\n")
    decisions = ctx["decisions"]
    if decisions:
        out += ("  <h2>", esc(decisions[0]["field"]), '</h2>\n  <ul class="decisions">\n')
        for d in decisions:
            _decision(out, d, r)
        out.append("  </ul>\n")
    for m in ctx["mark_legends"]:
        legend = str(m["legend"])
        out += (
            '  <p class="legend"><span class="mark">',
            esc(m["mark"]),
            "</span> ",
            esc(legend[:1].upper()),
            esc(legend[1:]),
            ".</p>\n",
        )
    if ctx["bibtex"]:
        out += (
            '  <h2>BibTeX</h2>\n  <pre id="bibtex" tabindex="0">',
            esc(ctx["bibtex"]),
            '</pre>\n  <p class="needs-js">'
            '<button type="button" id="copy-bib" class="btn primary">Copy BibTeX</button></p>\n',
        )
    out += (
        '</article>\n</main>\n<footer class="site"><p>This page shows the record <code>',
        esc(ctx["rec"]["id"]),
        "</code> as the survey's curators keep it.",
    )
    if ctx["edit_url"]:
        out += (
            ' Something wrong or missing? <a href="',
            r.href(ctx["report_url"]),
            '">Report a problem</a> or <a href="',
            r.href(ctx["edit_url"]),
            '">edit the record</a>.',
        )
    out += (
        '</p></footer>\n<script src="',
        r.src(ctx["paper_js_href"]),
        '"></script>\n</body>\n</html>\n',
    )


def paper_page(ctx: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The page ``site/paper.html.j2`` renders from ``ctx`` (the same bytes), ``survey`` holding
    ``short_title`` and ``list_title`` (the caller renders with Jinja otherwise), and its links
    as ``sitelinks.references`` reads them from the page (the same list)."""
    r = Refs()
    survey, rec = ctx["survey"], ctx["rec"]
    site_name = esc(survey["list_title"])
    index = esc(ctx["index_href"])
    out = [
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n<meta name="description" content="',
        esc(rec["summary"]),
        '">\n<title>',
        esc(rec["title"]),
        " · ",
        esc(survey["short_title"]),
        "</title>\n",
    ]
    _meta(out, ctx["meta"], site_name, r)
    out += (
        '<link rel="stylesheet" href="',
        r.href(ctx["css_href"]),
        '">\n<link rel="icon" type="image/svg+xml" href="',
        r.href(ctx["icon_href"]),
        '">\n<script>\n',
        r.markup(ctx["head_js"]),
        '\n</script>\n</head>\n<body class="paper-page">\n<a class="skip" href="',
        r.href("#main"),
        '">Skip to the paper</a>\n<header class="site">\n  <div class="bar">\n'
        '    <p class="crumb"><a href="',
        r.href(ctx["index_href"]),
        '" data-carry="',
        index,
        '">',
        site_name,
        "</a></p>\n"
        '    <button type="button" id="theme" class="btn needs-js" aria-pressed="false">Dark mode</button>\n'
        "  </div>\n  ",
        r.markup(ctx["links_html"]),
        '\n</header>\n<main id="main" tabindex="-1">\n',
    )
    _record(out, ctx, r)
    _curation(out, ctx["curation"], r)
    _tail(out, ctx, r)
    return "".join(out), r.all()
