"""The one rule for a value that becomes a link: every ``href``, ``src``, feed link, CITATION.cff
``url`` and BibTeX ``url`` the toolkit writes, from any file (records, configuration, imported
lists, the review artifact), passes :func:`href_problem`.

A link a reader clicks must be a web address and nothing else: ``javascript:``, ``vbscript:``,
``data:`` or ``file:`` runs or reads something on the reader's side, and a browser reads the
scheme case-insensitively and with tabs and line breaks removed (``JaVa\\tScRiPt:``), so only a
value that starts with ``http://`` or ``https://`` exactly (case aside) is one. A link with a user
name or password (``https://user:secret@host/``) publishes the credential and hands it to every
client that follows it, and ``https://arxiv.org@evil.example/`` names evil.example, not arXiv.
The host is compared as a resolver sees it (:func:`normal_host`): percent-decoded, NFKC (fullwidth
digits ``１２７.０.０.１`` and circled letters are ASCII there), lower case, IDNA; so
``private_url`` and the arXiv and DOI host checks cannot be passed by spelling a host another way.

The checks of ``survey validate`` report a bad value with its file and line; the renderers
(:func:`safe_href`) and ``survey links`` apply it again as a last line of defence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from survey_tools import hidden

WEB_SCHEMES = ("http", "https")
# What a browser drops from a URL before it reads the scheme (the URL standard strips leading
# and trailing C0 controls and spaces and removes every tab and line break).
_STRIPPED = re.compile(r"[\x00-\x20\x7f]")
_CONTROL = hidden.pattern(hidden.C0, hidden.C1)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
# A host name after normalisation: labels of letters, digits, hyphens and underscores (some
# real hosts have one), or an IP literal in brackets.
_HOST = re.compile(
    r"^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.?$"
)
# The addresses nearly every link is: http(s), a host of ASCII labels as _HOST reads them (no
# port, user, percent sign or bracket), then a path, query or fragment of printable ASCII
# without a space. For these every step of _str_problem answers None (no control character, a
# web scheme, no space, nothing urlsplit refuses, no '@' before the path, a valid host), so they
# are answered without urlsplit: 190,000 questions of a cold 10k build, a tenth of its CPU.
# tests/unit/core/test_hrefs_plain.py checks that the full rule accepts every string it matches.
_PLAIN = re.compile(
    r"[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?\.)*"
    r"[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?\.?(?:[/?#][!-~]*)?"
)


def _shown(value: str, limit: int = 80) -> str:
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return repr(text)


@lru_cache(maxsize=4096)
def normal_host(host: str) -> str | None:
    """``host`` as a resolver reads it: percent-decoded, NFKC, lower case, IDNA (ASCII); None when
    it is no host name at all. An IP literal keeps its brackets off (``::1``)."""
    h = unicodedata.normalize("NFKC", unquote(host)).lower().strip("[]")
    if not h:
        return None
    if ":" in h:  # an IPv6 literal: the caller's ipaddress check decides
        return h if re.fullmatch(r"[0-9a-f:.%a-z]+", h) else None
    try:
        ascii_host = h.encode("idna").decode("ascii") if not h.isascii() else h
    except UnicodeError:
        return None
    return ascii_host if _HOST.match(ascii_host) else None


def href_problem(url: object) -> str | None:
    """Why ``url`` may not be written into a link (None: it may). The message starts with the
    value, as a ``file:line: field:`` problem shows it."""
    if not isinstance(url, str):
        return f"{url!r} is not a web address"
    if _PLAIN.fullmatch(url):
        return None
    # A str subclass (markupsafe's Markup) is shown by its own repr: not from the cache.
    return _str_problem(url) if type(url) is str else _str_problem.__wrapped__(url)


# One answer per address: a paper page's context and then its link check ask about the same
# addresses again (its links, evidence and metadata), 55,000 questions at 2,000 records, a tenth
# of a cold build before. The answer depends on the string alone. The questions about one page
# come together, so a few thousand entries answer them (64k kept 10,000 pages' addresses alive).
@lru_cache(maxsize=1 << 12)
def _str_problem(url: str) -> str | None:
    if _CONTROL.search(url):
        return f"{_shown(url)} holds a control character, tab or line break; write the address without it"
    m = _SCHEME.match(_STRIPPED.sub("", url))
    if m is None:
        return (
            f"{_shown(url)} is not an absolute web address: write the whole address, starting "
            "with https://"
        )
    if m.group(1).lower() not in WEB_SCHEMES or not url.strip().lower().startswith(
        ("http://", "https://")
    ):
        return (
            f"{_shown(url)} is a {m.group(1).lower()}: link, not a web address: only http:// "
            "and https:// addresses are written into links"
        )
    if " " in url.strip():
        return f"{_shown(url)} holds a space; percent-encode it (%20)"
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port that is no number raises here
    except ValueError:
        return f"{_shown(url)} is not a well-formed web address"
    if "@" in parts.netloc:
        return (
            f"{_shown(url)} holds a user name or password before '@' (the host is "
            f"{parts.netloc.rsplit('@', 1)[1]!r}); links must not carry credentials"
        )
    if not parts.hostname or normal_host(parts.hostname) is None:
        return f"{_shown(url)} names no valid host"
    return None


def safe_href(url: object) -> str:
    """``url`` when it may be written into a link, else "" (the renderers' last line of defence:
    a value validate refused never reaches a page as a link)."""
    return url if isinstance(url, str) and href_problem(url) is None else ""


def url_host(url: str) -> str:
    """The normalised host of a web address ("" when it has none or is no web address)."""
    if href_problem(url) is not None:
        return ""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return normal_host(host) or ""


def host_is(url: str, domain: str) -> bool:
    """Whether ``url`` is a web address on ``domain`` or a subdomain of it (``arxiv.org``,
    ``export.arxiv.org``; never ``evilarxiv.org`` or ``arxiv.org@evil.example``)."""
    host = url_host(url).rstrip(".")
    return host == domain or host.endswith("." + domain)


def redacted(url: str) -> str:
    """``url`` with any user name or password shown as ``***`` (a report never repeats one)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]).geturl()
