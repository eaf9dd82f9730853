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
