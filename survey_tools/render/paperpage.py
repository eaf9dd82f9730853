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
from typing import Any

_SPECIAL = frozenset("&<>'\"")


def esc(value: Any) -> str:
    """``value`` as Jinja's autoescape writes it (markupsafe's ``escape``, then ``str``)."""
    if hasattr(value, "__html__"):
        return str(value.__html__())
    s = value if type(value) is str else str(value)
    if _SPECIAL.isdisjoint(s):
        return s
    return (
        s.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


def _meta(out: list[str], meta: Mapping[str, Any], site_name: str) -> None:
    """``site/_meta.html.j2`` (a paper page's part of it)."""
    if meta["canonical"]:
        c = esc(meta["canonical"])
        out += (
            '<link rel="canonical" href="',
            c,
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
        out += ('<script type="application/ld+json">', esc(meta["jsonld"]), "</script>\n")


def _evidence(ev: Any, is_url: Any) -> str:
    e = esc(ev)
    return f'<a href="{e}">{e}</a>' if is_url else e


def _corrections(out: list[str], items: Sequence[Mapping[str, Any]]) -> None:
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
            _evidence(c["evidence"], c["evidence_is_url"]),
            "</span></li>\n",
        )
    out.append("  </ul>\n")


def _decision(out: list[str], d: Mapping[str, Any]) -> None:
    out += ("    <li>", esc(d["badge"]))
    if d["reason"]:
        out += (" ", esc(d["reason"]))
    if d["evidence"]:
        out += (
            ' <span class="ev">Evidence: ',
            _evidence(d["evidence"], d["evidence_is_url"]),
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


def _record(out: list[str], ctx: Mapping[str, Any]) -> None:
    """From the article's heading to the record's fields."""
    rec, cur = ctx["rec"], ctx["curation"]
    rid, url, index = esc(rec["id"]), esc(rec["url"]), esc(ctx["index_href"])
    out += (
        '<article class="paper" id="p-',
        rid,
        '">\n  <h1><a href="',
        url,
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
        url,
        '">Read the paper</a>\n',
    )
    for link in rec["links"]:
        out += ('<a class="btn" href="', esc(link["url"]), '">', esc(link["label"]), "</a> ")
    if ctx["edit_url"]:
        out += (
            '<a class="btn" href="',
            esc(ctx["edit_url"]),
            '">Edit this record</a> <a class="btn" href="',
            esc(ctx["report_url"]),
            '">Report a problem</a>',
        )
    out += (
        '    <a class="btn" href="',
        index,
        "#p-",
        rid,
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
                out += ('<a href="', esc(p["url"]), '">', esc(p["text"]), "</a>")
            else:
                out.append(esc(p["text"]))
        out.append("</dd>\n")


def _curation(out: list[str], cur: Mapping[str, Any]) -> None:
    out.append('  </dl>\n  <h2>Curation</h2>\n  <dl class="fields">\n    <dt>Entered in</dt><dd>')
    if cur["edition_url"]:
        out += ('<a href="', esc(cur["edition_url"]), '">', esc(cur["edition"]), "</a>")
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
        _corrections(out, cur["pending"])
    if cur["applied"]:
        out.append(
            "  <h3>Applied corrections</h3>\n  <p>Metadata corrected on this page from the record's stored"
            " values.</p>\n"
        )
        _corrections(out, cur["applied"])


def _tail(out: list[str], ctx: Mapping[str, Any]) -> None:
    """Tags, decisions, legends, BibTeX and the footer."""
    if ctx["tags"]:
        out.append('  <h2>Tags</h2>\n  <dl class="fields">\n')
        out += (esc(t["html"]) for t in ctx["tags"])
        out.append("  </dl>\n")
    decisions = ctx["decisions"]
    if decisions:
        out += ("  <h2>", esc(decisions[0]["field"]), '</h2>\n  <ul class="decisions">\n')
        for d in decisions:
            _decision(out, d)
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
            esc(ctx["report_url"]),
            '">Report a problem</a> or <a href="',
            esc(ctx["edit_url"]),
            '">edit the record</a>.',
        )
    out += (
        '</p></footer>\n<script src="',
        esc(ctx["paper_js_href"]),
        '"></script>\n</body>\n</html>\n',
    )


def paper_page(ctx: Mapping[str, Any]) -> str:
    """The page ``site/paper.html.j2`` renders from ``ctx`` (the same bytes), ``survey`` holding
    ``short_title`` and ``list_title`` (the caller renders with Jinja otherwise)."""
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
    _meta(out, ctx["meta"], site_name)
    out += (
        '<link rel="stylesheet" href="',
        esc(ctx["css_href"]),
        '">\n<link rel="icon" type="image/svg+xml" href="',
        esc(ctx["icon_href"]),
        '">\n<script>\n',
        esc(ctx["head_js"]),
        '\n</script>\n</head>\n<body class="paper-page">\n'
        '<a class="skip" href="#main">Skip to the paper</a>\n<header class="site">\n  <div class="bar">\n'
        '    <p class="crumb"><a href="',
        index,
        '" data-carry="',
        index,
        '">',
        site_name,
        "</a></p>\n"
        '    <button type="button" id="theme" class="btn needs-js" aria-pressed="false">Dark mode</button>\n'
        "  </div>\n  ",
        esc(ctx["links_html"]),
        '\n</header>\n<main id="main" tabindex="-1">\n',
    )
    _record(out, ctx)
    _curation(out, ctx["curation"])
    _tail(out, ctx)
    return "".join(out)
