"""Metadata of a work from Crossref (by DOI) and OpenReview (by note id), for ``survey add``.

Both are read over the toolkit's one HTTP stack (:mod:`survey_tools.net`) from their public
REST APIs: Crossref's ``/works/{doi}`` and OpenReview's API 2 ``/notes?id=``. The endpoints can
be pointed elsewhere (a loopback server in the tests) with ``SURVEY_CROSSREF_URL`` /
``SURVEY_OPENREVIEW_URL`` or the command's options.

An answer is data from a stranger: every value is checked for the shape the service documents
(a title is a list of strings in Crossref, a string under ``{"value": ...}`` in OpenReview API
2; authors a list; a date a number of milliseconds in range) and any other shape is one
:class:`MetadataError` naming the service's answer, never a crash and never a silently wrong
value (a title string is not read as a list of characters). Identifiers are parsed strictly
before they go into a URL: no path separators or ``..`` where none belong, length caps.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson

from survey_tools._version import DISTRIBUTION
from survey_tools.errors import SurveyError, UsageError
from survey_tools.net.client import Answer, HttpClient, Limits, NetError, TimedOut

CROSSREF_URL = "https://api.crossref.org"
OPENREVIEW_URL = "https://api2.openreview.net"
TIMEOUT = 30.0
MAX_TITLE = 1000
MAX_NAME = 300
MAX_AUTHORS = 2000
# Braces, quotes and backslashes appear in no registered DOI Crossref recommends, and are what
# a BibTeX injection needs: a DOI from the network with them is refused.
_DOI = re.compile(r'^10\.\d{4,9}/[^\s\x00-\x1f\x7f{}"\\]{1,200}$')
_OPENREVIEW_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Crossref asks clients to say who they are (its "polite" pool); no address is sent.
USER_AGENT = f"{DISTRIBUTION} (https://pypi.org/project/{DISTRIBUTION}/)"


class MetadataError(SurveyError):
    """The service did not give usable metadata."""


@dataclass(frozen=True)
class Work:
    """A work as ``survey add`` writes it, whatever service described it."""

    title: str
    authors: tuple[str, ...] = ()  # "Last, First", or an organisation's name
    year: int | None = None
    venue: str = ""
    identifiers: dict[str, str] = field(default_factory=dict)
    links: tuple[str, ...] = ()
    abstract: str = ""
    note: str = ""  # where the metadata came from (the record's notes, when it has them)
    source: str = ""  # "arXiv:…", "DOI:…" or "OpenReview:…", for messages


def doi_ok(doi: str) -> bool:
    """``10.NNNN/suffix`` with no whitespace, control character, brace, quote or backslash,
    no ``.`` or ``..`` path segment, at most 200 characters after the prefix."""
    return bool(_DOI.match(doi)) and not any(seg in (".", "..") for seg in doi.split("/"))


def strict_doi(doi: str) -> str:
    """A DOI fit for a URL path (:func:`doi_ok`), lowercased; UsageError otherwise."""
    d = doi.strip().lower()
    if not doi_ok(d):
        raise UsageError(f"{doi[:80]!r} is not a DOI this tool can look up (10.NNNN/suffix, "
                         "no whitespace, braces, quotes or backslashes, no '.' or '..' path "
                         "segment, at most 200 characters)")
    return d


def strict_openreview_id(note_id: str) -> str:
    if not _OPENREVIEW_ID.match(note_id):
        raise UsageError(f"{note_id[:80]!r} is not an OpenReview id (letters, digits, - and _, "
                         "at most 64 characters)")
    return note_id


def get_json(http: HttpClient, url: str, params: dict[str, str] | None, what: str) -> Any:
    """The JSON answer of ``url``; None for 404; MetadataError for every other failure."""
    try:
        ans = http.get(url, params, {"Accept": "application/json"})
    except TimedOut as err:
        if "deadline" in err.reason:
            raise MetadataError(f"{what} ({url}): {err.reason}") from None
        raise MetadataError(f"{what} did not answer within {http.limits.timeout:g} s ({url}); "
                            "try again later") from None
    except NetError as err:
        raise MetadataError(f"cannot use {what}'s answer: {err}") from None
    if ans.status == 404:
        return None
    if ans.status != 200:
        raise MetadataError(f"{what} answered HTTP {ans.status} for {url} after {ans.tries} "
                            f"{'try' if ans.tries == 1 else 'tries'}; try again later")
    return _json(ans, what)


def _json(ans: Answer, what: str) -> Any:
    # orjson: nesting deeper than 1024 levels, NaN and the like are errors, never a crash.
    try:
        return orjson.loads(ans.body)
    except orjson.JSONDecodeError as err:
        raise MetadataError(f"{what}'s answer for {ans.url} is not JSON ({err})") from None


class Shape:
    """Checks of one answer's values; every failure names the service and the field."""

    def __init__(self, what: str) -> None:
        self.what = what

    def fail(self, path: str, why: str) -> MetadataError:
        return MetadataError(f"{self.what}'s answer is unusable: {path} {why}")

    def text(self, value: Any, path: str, cap: int, required: bool = False) -> str:
        if value is None or (value == "" and not required):
            if required:
                raise self.fail(path, "is missing")
            return ""
        if not isinstance(value, str):
            raise self.fail(path, f"is {_kind(value)}, not text")
        s = " ".join(value.split())
        if required and not s:
            raise self.fail(path, "is empty")
        if len(s) > cap:
            raise self.fail(path, f"is longer than {cap} characters")
        return s

    def texts(self, value: Any, path: str, cap: int) -> list[str]:
        """A list of strings (Crossref's title, container-title)."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, f"is {_kind(value)}, not a list of text")
        return [self.text(v, f"{path}[{i}]", cap) for i, v in enumerate(value)]

    def items(self, value: Any, path: str, cap: int = MAX_AUTHORS) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, f"is {_kind(value)}, not a list")
        if len(value) > cap:
            raise self.fail(path, f"has more than {cap} entries")
        return value

    def mapping(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"is {_kind(value)}, not an object")
        return value


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return f"the number {v!r}"[:60]
    if isinstance(v, str):
        return "text"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _year(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 2200 else None


def _date_year(parts: Any) -> int | None:
    if not isinstance(parts, dict):
        return None
    dp = parts.get("date-parts")
    if isinstance(dp, list) and dp and isinstance(dp[0], list) and dp[0]:
        return _year(dp[0][0])
    return None


def crossref_person(shape: Shape, a: Any, path: str) -> str:
    a = shape.mapping(a, path)
    family = shape.text(a.get("family"), f"{path}.family", MAX_NAME)
    given = shape.text(a.get("given"), f"{path}.given", MAX_NAME)
    if family:
        return f"{family}, {given}" if given else family
    return shape.text(a.get("name"), f"{path}.name", MAX_NAME)  # an organisation as author


@dataclass(frozen=True)
class CrossrefWork:
    """What Crossref says about one DOI, checked."""

    doi: str
    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str
    kind: str
    abstract: str


def parse_crossref(body: Any, doi: str) -> CrossrefWork:
    shape = Shape("Crossref")
    body = shape.mapping(body, "the answer")
    if body.get("status") != "ok":
        raise shape.fail("status", f"is {str(body.get('status'))[:40]!r}, not 'ok'")
    msg = shape.mapping(body.get("message"), "message")
    titles = [t for t in shape.texts(msg.get("title"), "message.title", MAX_TITLE) if t]
    if not titles:
        raise MetadataError(f"Crossref has no title for {doi}")
    year = None
    for key in ("issued", "published", "published-print", "published-online", "created"):
        year = _date_year(msg.get(key))
        if year:
            break
    venues = [v for v in shape.texts(msg.get("container-title"), "message.container-title", MAX_TITLE) if v]
    venue = venues[0] if venues else shape.text(msg.get("publisher"), "message.publisher", MAX_TITLE)
    authors = tuple(n for i, a in enumerate(shape.items(msg.get("author"), "message.author"))
                    if (n := crossref_person(shape, a, f"message.author[{i}]")))
    return CrossrefWork(doi, titles[0], authors, year, venue,
                        shape.text(msg.get("type"), "message.type", 60) or "work",
                        shape.text(msg.get("abstract"), "message.abstract", 50_000))


@dataclass(frozen=True)
class CrossrefClient:
    url: str = CROSSREF_URL
    timeout: float = TIMEOUT
    http: HttpClient | None = None

    @classmethod
    def from_env(cls, url: str | None = None, timeout: float | None = None,
                 deadline: float | None = None) -> CrossrefClient:
        t = timeout or TIMEOUT
        return cls(url or os.environ.get("SURVEY_CROSSREF_URL") or CROSSREF_URL, t,
                   HttpClient(Limits.from_env(timeout=t, deadline=deadline)))

    def work(self, doi: str) -> CrossrefWork | None:
        """Crossref's record of ``doi`` (None when it has none)."""
        doi = strict_doi(doi)
        http = self.http or HttpClient(Limits.from_env(timeout=self.timeout))
        body = get_json(http, f"{self.url.rstrip('/')}/works/{quote(doi, safe='/')}", None, "Crossref")
        return None if body is None else parse_crossref(body, doi)

    def fetch(self, doi: str) -> Work:
        """The work registered under ``doi`` (lowercase, no resolver prefix)."""
        w = self.work(doi)
        if w is None:
            raise MetadataError(f"Crossref has no work with the DOI {doi}")
        return Work(
            title=w.title, authors=w.authors, year=w.year, venue=w.venue,
            identifiers={"doi": w.doi}, links=(f"https://doi.org/{w.doi}",),
            abstract=w.abstract, note=f"Metadata from Crossref ({w.kind}).", source=f"DOI:{w.doi}",
        )


def openreview_value(content: dict[str, Any], key: str) -> Any:
    v = content.get(key)
    return v.get("value") if isinstance(v, dict) else v  # API 2 wraps every field in {"value": ...}


@dataclass(frozen=True)
class OpenReviewNote:
    note_id: str
    title: str
    authors: tuple[str, ...]  # as OpenReview writes them: "First Last"
    year: int | None
    venue: str
    abstract: str


def _stamp_year(shape: Shape, value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise shape.fail(path, f"is {_kind(value)}, not a time in milliseconds")
    if not math.isfinite(value) or not 0 <= value <= 7_258_118_400_000:  # up to 2200-01-01
        raise shape.fail(path, f"is {_kind(value)}, not a time in milliseconds")
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC).year


def parse_openreview(body: Any, note_id: str) -> OpenReviewNote | None:
    shape = Shape("OpenReview")
    body = shape.mapping(body, "the answer")
    notes = shape.items(body.get("notes"), "notes", 1000)
    if not notes:
        return None
    note = shape.mapping(notes[0], "notes[0]")
    content = shape.mapping(note.get("content"), "notes[0].content")
    title = shape.text(openreview_value(content, "title"), "notes[0].content.title", MAX_TITLE,
                       required=True)
    names = shape.items(openreview_value(content, "authors"), "notes[0].content.authors")
    authors = tuple(n for i, a in enumerate(names)
                    if (n := shape.text(a, f"notes[0].content.authors[{i}]", MAX_NAME)))
    stamp = note.get("pdate") if note.get("pdate") is not None else note.get("cdate")
    year = _stamp_year(shape, stamp, "notes[0].pdate" if note.get("pdate") is not None else "notes[0].cdate")
    return OpenReviewNote(
        note_id, title, authors, year,
        shape.text(openreview_value(content, "venue"), "notes[0].content.venue", MAX_TITLE),
        shape.text(openreview_value(content, "abstract"), "notes[0].content.abstract", 50_000),
    )


@dataclass(frozen=True)
class OpenReviewClient:
    url: str = OPENREVIEW_URL
    timeout: float = TIMEOUT
    http: HttpClient | None = None

    @classmethod
    def from_env(cls, url: str | None = None, timeout: float | None = None,
                 deadline: float | None = None) -> OpenReviewClient:
        t = timeout or TIMEOUT
        return cls(url or os.environ.get("SURVEY_OPENREVIEW_URL") or OPENREVIEW_URL, t,
                   HttpClient(Limits.from_env(timeout=t, deadline=deadline)))

    def note(self, note_id: str) -> OpenReviewNote | None:
        note_id = strict_openreview_id(note_id)
        http = self.http or HttpClient(Limits.from_env(timeout=self.timeout))
        body = get_json(http, f"{self.url.rstrip('/')}/notes", {"id": note_id}, "OpenReview")
        return None if body is None else parse_openreview(body, note_id)

    def fetch(self, note_id: str) -> Work:
        n = self.note(note_id)
        if n is None:
            raise MetadataError(f"OpenReview has no note with the id {note_id}")
        return Work(
            title=n.title,
            authors=tuple(_last_first(a) for a in n.authors),
            year=n.year,
            venue=n.venue,
            identifiers={"openreview": n.note_id},
            links=(f"https://openreview.net/forum?id={n.note_id}",),
            abstract=n.abstract,
            note="Metadata from OpenReview.",
            source=f"OpenReview:{n.note_id}",
        )


def _last_first(name: str) -> str:
    parts = name.split()
    if len(parts) < 2 or "," in name:
        return name.strip()
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


