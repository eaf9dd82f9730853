"""The link check's shortcut for a plain relative address reads it as the full reading does."""

from __future__ import annotations

import posixpath
import random
from urllib.parse import unquote, urlsplit

import pytest

from survey_tools.render import sitelinks


def _full(folder: str, ref: str) -> object:
    """The file ``ref`` names read through ``urlsplit`` alone (the reading before the shortcut),
    or the error it raises."""
    try:
        if not ref or ref.startswith(("#", "//")) or sitelinks._SCHEME.match(ref):
            return None
        path = unquote(urlsplit(ref).path)
    except ValueError as e:
        return ("error", str(e))
    if path.startswith("/"):
        return path
    if not path:
        return None
    joined = posixpath.normpath(posixpath.join(folder, path))
    if path.endswith("/") or joined == ".":
        joined = posixpath.join(joined, "index.html") if joined != "." else "index.html"
    return joined


def _short(folder: str, ref: str) -> object:
    try:
        return sitelinks._target(folder, ref)
    except ValueError as e:
        return ("error", str(e))


_CASES = [
    "../index.html#p-x",
    "../../papers/paper-1.html",
    "a#b#c",
    "x/#",
    "./",
    "../",
    "a\t#b",
    "%41#",
    "a?b#c",
    "a#?b",
    " a.html",
    "a.html ",
    "a b.html",
    "[x]#y",
    "~u/a.html#",
    "-",
]


@pytest.mark.parametrize("folder", ["", "papers", "tags/x"])
def test_plain_relative_addresses_read_as_urlsplit_reads_them(folder: str) -> None:
    rng = random.Random(51)
    alphabet = "ab./-_~#?%: \t\n\r\x00A9&;=\\@[]é"
    drawn = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(20_000)
    ]
    for ref in [*_CASES, *drawn]:
        assert _short(folder, ref) == _full(folder, ref), (folder, ref)


def _by_classification(page: str, refs: list[str], files: frozenset[str]) -> list[str]:
    """check_references without its two shortcuts: every link through _classified."""
    out = []
    folder = posixpath.dirname(page)
    for ref in refs:
        kind, where = sitelinks._classified(folder, ref)
        if kind == sitelinks._FILE:
            if where not in files:
                out.append(f"{page}: {ref!r} names {where}, which the site does not have")
        elif kind != sitelinks._FINE:
            out.append(f"{page}: {ref!r} {kind}")
    return out


_PAGES = ["index.html", "papers/p.html", "tags/x/v.html", "tags/x/y/v.html", "a./b/v.html",
          "./p.html", "a//b/v.html", "../v.html", "t/../v.html", "~/-/v.html", ".x/v.html"]


@pytest.mark.parametrize("page", _PAGES)
def test_the_shortcuts_answer_as_the_classification(page: str) -> None:
    # A web address the href rule passes and a plain relative path (climbing or not) are
    # answered without _classified: the same messages, in the same order, for any page.
    rng = random.Random(52)
    alphabet = "ab./-_~#?%: \t\x00A9&@é"
    parts = ["../", "../", "a", "b.html", "/", ".", "~", "-", "#", "x..y", "papers/", "tags/x/"]
    drawn = ["".join(rng.choice(parts) for _ in range(rng.randint(0, 6))) for _ in range(4_000)]
    drawn += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(4_000)]
    web = ["https://example.org/a", "http://example.org/b?c#d", "https://user@evil.example/",
           "https://exa mple.org/", "https://[::1]/", "https://ex\tample.org/", "HTTPS://example.org/",
           "https://例え.jp/", "https://example.org/\x00", "https://%41.org/"]
    refs = [*_CASES, *web, *drawn]
    # every file some of these name, so that both the found and the missing are compared
    named = {sitelinks._classified(posixpath.dirname(page), r)[1] for r in refs}
    files = frozenset(sorted(w for w in named if w)[::2])
    assert len(files) > 10 or page.startswith("../")  # from above the site, nothing is in it
    for i in range(0, len(refs), 50):
        chunk = refs[i : i + 50]
        assert sitelinks.check_references(page, chunk, files) == _by_classification(page, chunk, files), chunk
