"""The site's folder is what Pages publishes, and nothing else: every ``href`` and ``src`` a page
writes must lead to a file of that folder (or to another site altogether).

A link that climbs out of the folder (``../../README.md``) or starts at the server's root
(``/figures/x.svg``: on GitHub Pages a project site lives under ``/<repository>/``) works when the
repository is browsed as files and is dead where the site is served. :func:`check_page` finds
both, and links to files the site does not have, in the text of one page; the site's renderers
run it on every page they write, so such a page fails the build instead of being published.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable, Collection, Iterable
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from survey_tools.errors import SurveyError
from survey_tools.net.hrefs import href_problem, safe_href

# The site's templates write every address in double quotes (jinja2 escapes quotes inside).
# Found with str.find, not a regular expression: three times faster on a paper page.
_ATTRS = (' href="', ' src="', ' xml:base="')
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class SiteLinkError(SurveyError):
    """A page of the site refers to a file outside the site's folder, or to one it lacks."""


# Every page writes the site's icon (a long data: URI full of &#39;) and the same navigation.
unescaped = lru_cache(maxsize=1 << 12)(html.unescape)


def references(text: str) -> list[str]:
    """Every ``href``/``src`` of a page (HTML or the Atom feed), unescaped: the hrefs in order,
    then the srcs, then ``xml:base``."""
    hrefs, srcs, bases = references_by_attribute(text)
    return [*hrefs, *srcs, *bases]


def references_by_attribute(text: str) -> tuple[list[str], list[str], list[str]]:
    """:func:`references` of ``text`` as three lists: its hrefs, its srcs, its ``xml:base``.
    A fragment of markup read once is the same lists in every page that holds it whole
    (render/paperpage.py), so the page's own list is the fragments' lists in order."""
    out: tuple[list[str], list[str], list[str]] = ([], [], [])
    for attr, found in zip(_ATTRS, out, strict=True):
        start, n = text.find(attr), len(attr)
        while start >= 0:
            end = text.find('"', start + n)
            if end < 0:
                break
            ref = text[start + n : end]
            found.append(unescaped(ref) if "&" in ref else ref)
            start = text.find(attr, end)
    return out


def target(page: str, ref: str) -> str | None:
    """The file ``ref`` (written in the site page ``page``) names, relative to the site's folder;
    None for another site's address, a ``data:`` URI or a fragment of the page itself. A path
    that leaves the folder comes back starting with ``../`` (or as ``/...`` from the root)."""
    return _target(posixpath.dirname(page), ref)


# A relative address of the site's own shape (letters, digits, ``._~/-``, then perhaps a
# fragment): ``urlsplit`` would give its part before ``#`` as the path and ``unquote`` leave it
# as it is, so that part is the path (tag pages write about 100,000 such links at 10k records).
_PLAIN_RELATIVE = re.compile(r"[A-Za-z0-9._~/-]+(?=#|\Z)")


def _target(folder: str, ref: str) -> str | None:
    if not ref or ref.startswith(("#", "//")) or _SCHEME.match(ref):
        return None
    plain = _PLAIN_RELATIVE.match(ref)
    path = plain.group() if plain else unquote(urlsplit(ref).path)
    if path.startswith("/"):
        return path
    if not path:
        return None  # "?q" or "" alone: the page itself
    joined = posixpath.normpath(posixpath.join(folder, path))
    if path.endswith("/") or joined == ".":
        joined = posixpath.join(joined, "index.html") if joined != "." else "index.html"
    return joined


# The site's own icon (render/site.py) is the one data: URI a page writes: an SVG shown as an
# image runs no script.
_OWN_DATA = "data:image/svg+xml,"


def check_page(page: str, text: str, files: Collection[str]) -> list[str]:
    """What is wrong with the links of ``page`` (its path in the site folder), given the site's
    ``files``: one message per bad link. An address to another site must pass the href rule
    (net/hrefs.py): the last line of defence, should a value validate refuses reach a page."""
    return check_references(page, references(text), files)


# The two shapes of nearly every link a page holds that no other folder's page shares (tag pages
# list every paper on each facet's pages, about 190,000 links at 10k records, nine in ten of them
# new to _classified's cache): a web address the href rule passes as it is, and a plain relative
# path, perhaps climbing first (``../../papers/x.html``), whose segments are neither ``.`` nor
# ``..`` nor empty. Both are answered here as _classified answers them (tests/unit/render/
# test_sitelinks_plain.py holds the two equal): the first is fine wherever it is written; the
# second, in a folder of such segments that it climbs no higher than, names the folder's part
# it climbs to joined with the rest, which is what posixpath.normpath makes of them.
_WEB = ("https://", "http://")
_SEGMENT = r"[A-Za-z0-9_~-][A-Za-z0-9._~-]*"
_CLIMBING = re.compile(rf"((?:\.\./)*)({_SEGMENT}(?:/{_SEGMENT})*)(?=#|\Z)")
_CLEAN_FOLDER = re.compile(rf"(?:{_SEGMENT}(?:/{_SEGMENT})*)?")


def check_references(page: str, refs: Iterable[str], files: Collection[str]) -> list[str]:
    """:func:`check_page` of a page whose links (as :func:`references` reads them) are ``refs``."""
    out = []
    folder = posixpath.dirname(page)
    clean = not folder or _CLEAN_FOLDER.fullmatch(folder) is not None
    parts = folder.split("/") if folder else []
    climbs: dict[int, str] = {}  # how many ../ -> the folder they lead to, with its slash
    for ref in refs:
        if ref.startswith(_WEB) and href_problem(ref) is None:
            continue  # another site's address the href rule passes: fine from any folder
        plain = _CLIMBING.match(ref) if clean else None
        if plain is not None and (ups := len(plain.group(1)) // 3) <= len(parts):
            if ups not in climbs:
                kept = parts[: len(parts) - ups]
                climbs[ups] = "/".join(kept) + "/" if kept else ""
            where = climbs[ups] + plain.group(2)
            if where not in files:
                out.append(f"{page}: {ref!r} names {where}, which the site does not have")
            continue
        kind, where = _classified(folder, ref)
        if kind == _FILE:
            if where not in files:
                out.append(f"{page}: {ref!r} names {where}, which the site does not have")
        elif kind != _FINE:
            out.append(f"{page}: {ref!r} {kind}")
    return out


_FILE, _FINE = "file", "fine"


# What a link is, by the folder of its page and its text alone (whether the file it names
# exists is asked of the site's files each time). Pages of one folder share most of their links
# (navigation, stylesheet, tag pages, the icon): each is classified once. A few thousand entries
# hold those; a paper's own links pass through (64k entries kept 10,000 pages' links alive, 20 MB
# more at the peak of a 10k build).
@lru_cache(maxsize=1 << 12)
def _classified(folder: str, ref: str) -> tuple[str, str]:
    """(``_FILE``, the file it names), (``_FINE``, "") for a link to elsewhere that may be
    written, or (what is wrong, "")."""
    where = _target(folder, ref)
    if where is None:
        if (ref.startswith("//") or _SCHEME.match(ref.lstrip("\x00 \t\n\r"))) and not (
            ref.startswith(_OWN_DATA) or safe_href(ref)
        ):
            return f"is not a web address a page may link to ({href_problem(ref)})", ""
        return _FINE, ""
    if where.startswith("/"):
        return "starts at the server's root, outside the site's folder", ""
    if where == ".." or where.startswith("../"):
        return "leads outside the site's folder", ""
    return _FILE, where


def checked(page: str, render: Callable[[], str], files: Collection[str], folder: str) -> str:
    """``render()``'s page, refused (:class:`SiteLinkError`) when a link of it leaves the site's
    ``folder`` or names a file the site lacks."""
    text = render()
    _refuse(check_page(page, text, files), folder)
    return text


def checked_noted(
    page: str, render: Callable[[], tuple[str, list[str]]], files: Collection[str], folder: str
) -> str:
    """:func:`checked` of a renderer that hands back its page and the page's links, noted as it
    wrote them (the list :func:`references` reads from the page: tests/unit/render/
    test_paper_page.py holds the two equal), so the page is not read again."""
    text, refs = render()
    _refuse(check_references(page, refs, files), folder)
    return text


def confirmed(text: str, refs: list[str]) -> list[str]:
    """``refs``, the links a renderer noted as it wrote ``text``, when they are what
    :func:`references` reads from ``text``; else that reading. Each noted link is one of the
    page's ``href="``/``src="``/``xml:base="`` and is read to its closing quote, so when the text
    holds no more of those than were noted the two lists are the same. A value that itself ends
    in `` href=`` before a closing quote adds one the renderer did not write as a link (the full
    check reads it, and may refuse it): then the page is read, as every page was."""
    if sum(text.count(attr) for attr in _ATTRS) == len(refs):
        return refs
    return references(text)


def _refuse(problems: list[str], folder: str) -> None:
    if problems:
        where = f"{folder}/" if folder else ""
        shown = "; ".join(where + p for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise SiteLinkError(f"the site must work as its folder alone is published: {shown}{more}")
