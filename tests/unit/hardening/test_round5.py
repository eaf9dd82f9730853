"""Hostile input, round 5 (issue 57): one href rule for every value that becomes a link, limits on
what a reader builds (a workbook's parts, rows, Markdown marks), the bot's comment free of
bidirectional and control characters, credentials never sent.

The data-driven cases are under tests/data/hostile/ (taxonomy/, records/, lists/, importers/);
here the rule's own table, the workbooks built at test time (a bomb is not committed), the
comment job and the renderers' last line of defence.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from helpers.loopback import serving
from helpers.support import run
from werkzeug import Request, Response

from survey_tools.corpus.identifiers import ids_from_url, normalize_arxiv
from survey_tools.net.client import Limits, Refused, send_once
from survey_tools.net.hrefs import host_is, href_problem, normal_host, redacted, safe_href
from survey_tools.render.markdown import md_url
from survey_tools.render.sitelinks import check_page
from survey_tools.review.diff_report import render_report
from survey_tools.review.placement import _stem

CONTROL = "only http:// and https:// addresses are written into links"

HREFS = [
    ("https://example.org/paper", None),
    ("HTTPS://Example.ORG/x", None),
    ("http://ｅｘａｍｐｌｅ.org/", None),  # fullwidth letters: NFKC reads example.org
    ("https://xn--80ak6aa92e.com/", None),  # punycode is a host name like any other
    (
        "javascript:alert(1)",
        f"'javascript:alert(1)' is a javascript: link, not a web address: {CONTROL}",
    ),
    (
        "JaVaScRiPt:alert(1)",
        f"'JaVaScRiPt:alert(1)' is a javascript: link, not a web address: {CONTROL}",
    ),
    (
        " javascript:alert(1)",
        f"' javascript:alert(1)' is a javascript: link, not a web address: {CONTROL}",
    ),
    (
        "vbscript:msgbox(1)",
        f"'vbscript:msgbox(1)' is a vbscript: link, not a web address: {CONTROL}",
    ),
    (
        "data:text/html,<b>x</b>",
        f"'data:text/html,<b>x</b>' is a data: link, not a web address: {CONTROL}",
    ),
    ("file:///etc/passwd", f"'file:///etc/passwd' is a file: link, not a web address: {CONTROL}"),
    (
        "java\tscript:alert(1)",
        "'java\\tscript:alert(1)' holds a control character, tab or line break; write the address without it",
    ),
    (
        "https://x.org/\nSet-Cookie",
        "'https://x.org/\\nSet-Cookie' holds a control character, tab or line break; write the address without it",
    ),
    (
        "//evil.example/x",
        "'//evil.example/x' is not an absolute web address: write the whole address, starting with https://",
    ),
    ("https:evil.example", "'https:evil.example' is a https: link, not a web address: " + CONTROL),
    (
        "https://user:secret@example.org/",
        "'https://user:secret@example.org/' holds a user name or password before '@' (the host is 'example.org'); links must not carry credentials",
    ),
    (
        "https://arxiv.org@evil.example/abs/2301.00001",
        "'https://arxiv.org@evil.example/abs/2301.00001' holds a user name or password before '@' (the host is 'evil.example'); links must not carry credentials",
    ),
    ("https://exa mple.org/", "'https://exa mple.org/' holds a space; percent-encode it (%20)"),
    ("https://<script>/", "'https://<script>/' names no valid host"),
    ("https://x.org:99999/", "'https://x.org:99999/' is not a well-formed web address"),
    (None, "None is not a web address"),
]


@pytest.mark.parametrize(("url", "expected"), HREFS, ids=[repr(u)[:40] for u, _ in HREFS])
def test_the_href_rule(url: object, expected: str | None) -> None:
    assert href_problem(url) == expected
    assert safe_href(url) == ("" if expected else url)


@pytest.mark.parametrize(
    ("host", "normal"),
    [
        ("１２７.０.０.１", "127.0.0.1"),
        ("ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", "localhost"),
        ("%6c%6f%63%61%6c%68%6f%73%74", "localhost"),
        ("Bücher.example", "xn--bcher-kva.example"),
        ("::ffff:7f00:1", "::ffff:7f00:1"),
        ("a<b", None),
    ],
)
def test_hosts_are_read_as_a_resolver_reads_them(host: str, normal: str | None) -> None:
    assert normal_host(host) == normal


def test_arxiv_is_arxiv_only_on_its_host() -> None:
    assert host_is("https://export.arxiv.org/abs/2301.00001", "arxiv.org")
    assert not host_is("https://evilarxiv.org/abs/2301.00001", "arxiv.org")
    assert not host_is("https://arxiv.org@evil.example/abs/2301.00001", "arxiv.org")
    assert ids_from_url("https://arxiv.org/abs/2301.00001v2") == {"arxiv": "2301.00001"}
    for url in (
        "https://arxiv.org@evil.example/abs/2301.00001",
        "https://evil.example/arxiv.org/abs/2301.00001",
        "https://evilarxiv.org/abs/2301.00001",
    ):
        assert ids_from_url(url) == {}
        assert normalize_arxiv(url) is None
    assert normalize_arxiv("arXiv:2301.00001v3") == "2301.00001"


def test_the_renderers_write_no_unsafe_link() -> None:
    assert md_url("javascript:alert(1)") == ""
    assert md_url("JAVA\tSCRIPT:alert(1)") == ""
    assert md_url("https://u:p@example.org/") == ""
    assert md_url("https://x.org/a (b)") == "https://x.org/a%20%28b%29"
    assert md_url("figures/a b.svg") == "figures/a%20b.svg"  # a path of the list's own
    page = '<a href="javascript:alert(1)">x</a><a href="https://example.org/">y</a><link rel="icon" href="data:image/svg+xml,%3Csvg%3E">'
    assert check_page("index.html", page, {"index.html"}) == [
        "index.html: 'javascript:alert(1)' is not a web address a page may link to ('javascript:alert(1)' is a "
        f"javascript: link, not a web address: {CONTROL})"
    ]


def test_credentials_are_never_sent() -> None:
    async def go() -> None:
        async with httpx.AsyncClient() as client:
            await send_once(client, "GET", "http://user:secret@127.0.0.1:9/x", Limits())

    with pytest.raises(Refused, match="credentials are never sent"):
        asyncio.run(go())


def _report(paper: dict[str, object]) -> bytes:
    return json.dumps(
        {
            "format": "survey-diff-report/1",
            "rev": "0" * 40,
            "base": "main\u202e",
            "added": [paper],
            "removed": [],
            "changed": [],
            "cells": [],
            "gaps": [],
            "claims": [],
            "notes": ["note \u2067x\u2069\u0007"],
        }
    ).encode()


PAPER = {
    "collection": "Papers",
    "key": "x",
    "title": "Fine \u202e)1(trela title\u200f",
    "path": "corpus/x.yaml",
    "tags": [["Category", "rl\u200bmethod"]],
    "link": "javascript:alert(1)",
    "identifier": "",
    "edition": "living",
    "summary": "A \u061c summary.",
}
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200e\u200f\u061c\u0007"


def test_the_bot_comment_shows_what_it_says() -> None:
    text = render_report(_report(PAPER))
    assert not any(c in text for c in HIDDEN)
    assert "javascript" not in text.lower()
    assert "| Link | (not a web address; left out) |" in text
    assert "Fine )1(trela title" in text and "rlmethod" in text
    kept = render_report(_report({**PAPER, "link": "https://example.org/paper"}))
    assert "<https://example.org/paper>" in kept


def _workbook(path: Path, sheet: bytes, shared: bytes | None = None) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        )
        z.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        )
        z.writestr(
            "xl/workbook.xml",
            '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        z.writestr("xl/worksheets/sheet1.xml", sheet)
        if shared is not None:
            z.writestr("xl/sharedStrings.xml", shared)


_SHEET = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>%s</sheetData></worksheet>'
_HEAD = b'<row r="1"><c r="A1" t="inlineStr"><is><t>title</t></is></c></row>'


def _row(n: int, text: bytes = b"Paper") -> bytes:
    return b'<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s</t></is></c></row>' % (n, n, text)


@pytest.mark.parametrize(
    ("name", "sheet", "shared", "args", "message"),
    [
        (
            "strings",
            _SHEET % (_HEAD + _row(2)),
            "51 MiB of shared strings",
            (),
            "strings.xlsx: the workbook's parts unpack to 53,478,{0} bytes (xl/sharedStrings.xml: 53,477,387); the limit is 52,428,800 (--max-bytes raises it)",
        ),
        (
            "laughs",
            b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            + _SHEET % (_HEAD + _row(2, b"&b;")),
            None,
            (),
            "laughs.xlsx: xl/worksheets/sheet1.xml declares a DOCTYPE (entities a workbook never has: an entity bomb or an external file); save the workbook again from a spreadsheet program",
        ),
        (
            "xxe",
            b'<?xml version="1.0"?>\n<!-- a comment first -->\n<!doctype w [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            + _SHEET % (_HEAD + _row(2, b"&x;")),
            None,
            (),
            "xxe.xlsx: xl/worksheets/sheet1.xml declares a DOCTYPE (entities a workbook never has: an entity bomb or an external file); save the workbook again from a spreadsheet program",
        ),
        (
            "rows",
            _SHEET % (_HEAD + b"".join(_row(n) for n in range(2, 7))),
            None,
            ("--max-entries", "3"),
            "rows.xlsx:5: more than 3 rows; the limit is 3 (--max-entries raises it)",
        ),
    ],
    ids=["shared-strings", "billion-laughs", "xxe", "rows"],
)
def test_a_workbook_is_bounded_before_it_is_expanded(
    tmp_path: Path, name: str, sheet: bytes, shared: str | None, args: tuple[str, ...], message: str
) -> None:
    book = tmp_path / f"{name}.xlsx"
    # 51 MiB that deflate packs into 50 KiB: built here, never committed
    _workbook(book, sheet, b"<sst>" + b"A" * (51 << 20) + b"</sst>" if shared else None)
    res = run(None, "init", str(tmp_path / "new"), "--from", str(book), "--dry-run", *args)
    assert res.exit_code == 1
    first = res.output.splitlines()[0]
    if "{0}" in message:  # the small parts' sizes depend on nothing but this test's own XML
        head, tail = message.split("{0}")
        assert first.startswith(head) and first.endswith(tail), first
    else:
        assert first == message
    assert not (tmp_path / "new").exists()


def test_a_markdown_line_past_the_markup_limit_names_the_option(tmp_path: Path) -> None:
    md = tmp_path / "list.md"
    md.write_text("# List\n\n- [Paper](https://example.org/a) - Uses " + "`code` " * 30 + "\n")
    res = run(
        None, "init", str(tmp_path / "new"), "--from", str(md), "--dry-run", "--max-markup", "50"
    )
    assert res.output.splitlines()[0] == (
        "list.md:3: 62 emphasis, code and link marks (*_[]`~<) on one line; the limit is 50 (--max-markup raises it)"
    )
    ok = run(None, "init", str(tmp_path / "new"), "--from", str(md), "--dry-run")
    assert ok.exit_code == 0, ok.output


def test_check_paths_advises_a_name_without_a_trailing_dot() -> None:
    assert _stem("newpaper.") == "newpaper"
    assert _stem("newpaper. .yaml.txt") == "newpaper"
    assert _stem("...") == "KEY"


def test_survey_add_does_not_wait_past_its_deadline(tmp_path: Path) -> None:
    """A server asking for 59 s on every try once made one `survey add` take three minutes: the
    command's default deadline (45 s) ends the tries as soon as a wait would pass it."""
    seen: list[str] = []

    def busy(request: Request) -> Response:
        seen.append(request.path)
        return Response("busy", status=503, headers={"Retry-After": "59"})

    repo = Path(__file__).resolve().parents[3]
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(repo / name, tmp_path / name)
    with serving("/api/query", busy, lambda: None) as url:
        start = time.monotonic()
        res = run(
            tmp_path, "add", "2301.00001", "--arxiv-url", url, env={"SURVEY_NET_ALLOW": "127.0.0.1"}
        )
        took = time.monotonic() - start
    assert res.exit_code == 1
    assert (
        "error: arXiv answered HTTP 503 for 2301.00001 after 1 try; try again later (it asked to wait 59 s)"
        in res.output
    )
    assert len(seen) == 1 and took < 20


def test_a_report_never_repeats_a_credential() -> None:
    assert redacted("http://user:secret@127.0.0.1:8080/p?q#f") == "http://***@127.0.0.1:8080/p?q#f"
    assert redacted("https://example.org/a@b") == "https://example.org/a@b"
