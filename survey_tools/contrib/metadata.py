"""Metadata of a work from Crossref (by DOI) and OpenReview (by note id), for ``survey add``.

Both are read with ``requests`` from their public REST APIs: Crossref's ``/works/{doi}`` and
OpenReview's API 2 ``/notes?id=``. The endpoints can be pointed elsewhere (a loopback server in
the tests) with ``SURVEY_CROSSREF_URL`` / ``SURVEY_OPENREVIEW_URL`` or the command's options.
Every failure is a :class:`MetadataError` with one sentence for the user.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import requests

from survey_tools._version import DISTRIBUTION
from survey_tools.errors import SurveyError

CROSSREF_URL = "https://api.crossref.org"
OPENREVIEW_URL = "https://api2.openreview.net"
TIMEOUT = 30.0
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


def _get_json(url: str, params: dict[str, str] | None, what: str, timeout: float) -> Any:
    try:
        resp = requests.get(url, params=params, timeout=timeout,
                            headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    except requests.Timeout:
        raise MetadataError(f"{what} did not answer within {timeout:g} s ({url}); try again later") from None
    except requests.RequestException as err:
        raise MetadataError(f"cannot reach {what} ({url}): {type(err).__name__}") from None
    if resp.status_code == 404:
        return None
    if resp.status_code != 200:
        raise MetadataError(f"{what} answered HTTP {resp.status_code} for {url}; try again later")
    try:
        return resp.json()
    except ValueError:
        raise MetadataError(f"{what}'s answer for {url} is not JSON") from None


def _date_year(parts: Any) -> int | None:
    try:
        y = parts["date-parts"][0][0]
    except (KeyError, IndexError, TypeError):
        return None
    return y if isinstance(y, int) and not isinstance(y, bool) else None


def _person(a: Any) -> str:
    if not isinstance(a, dict):
        return ""
    family, given = str(a.get("family") or "").strip(), str(a.get("given") or "").strip()
    if family:
        return f"{family}, {given}" if given else family
    return str(a.get("name") or "").strip()  # an organisation as author


@dataclass(frozen=True)
class CrossrefClient:
    url: str = CROSSREF_URL
    timeout: float = TIMEOUT

    @classmethod
    def from_env(cls, url: str | None = None, timeout: float | None = None) -> CrossrefClient:
        return cls(url or os.environ.get("SURVEY_CROSSREF_URL") or CROSSREF_URL, timeout or TIMEOUT)

    def fetch(self, doi: str) -> Work:
        """The work registered under ``doi`` (lowercase, no resolver prefix)."""
        body = _get_json(f"{self.url.rstrip('/')}/works/{quote(doi, safe='/')}", None, "Crossref", self.timeout)
        if body is None:
            raise MetadataError(f"Crossref has no work with the DOI {doi}")
        msg = body.get("message") if isinstance(body, dict) else None
        if not isinstance(msg, dict) or body.get("status") != "ok":
            raise MetadataError(f"Crossref's answer for {doi} has no work in it")
        titles = [t for t in msg.get("title") or [] if isinstance(t, str) and t.strip()]
        if not titles:
            raise MetadataError(f"Crossref has no title for {doi}")
        year = None
        for key in ("issued", "published", "published-print", "published-online", "created"):
            year = _date_year(msg.get(key))
            if year:
                break
        venue = next((v for v in msg.get("container-title") or [] if isinstance(v, str) and v), "")
        venue = venue or str(msg.get("publisher") or "")
        authors = tuple(n for n in (_person(a) for a in msg.get("author") or []) if n)
        return Work(
            title=" ".join(titles[0].split()),
            authors=authors,
            year=year,
            venue=venue,
            identifiers={"doi": doi},
            links=(f"https://doi.org/{doi}",),
            abstract=str(msg.get("abstract") or ""),
            note=f"Metadata from Crossref ({msg.get('type', 'work')}).",
            source=f"DOI:{doi}",
        )


def _value(content: dict[str, Any], key: str) -> Any:
    v = content.get(key)
    return v.get("value") if isinstance(v, dict) else v  # API 2 wraps every field in {"value": ...}


@dataclass(frozen=True)
class OpenReviewClient:
    url: str = OPENREVIEW_URL
    timeout: float = TIMEOUT

    @classmethod
    def from_env(cls, url: str | None = None, timeout: float | None = None) -> OpenReviewClient:
        return cls(url or os.environ.get("SURVEY_OPENREVIEW_URL") or OPENREVIEW_URL, timeout or TIMEOUT)

    def fetch(self, note_id: str) -> Work:
        body = _get_json(f"{self.url.rstrip('/')}/notes", {"id": note_id}, "OpenReview", self.timeout)
        notes = body.get("notes") if isinstance(body, dict) else None
        if not notes:
            raise MetadataError(f"OpenReview has no note with the id {note_id}")
        note = notes[0]
        content = note.get("content") if isinstance(note, dict) else None
        if not isinstance(content, dict):
            raise MetadataError(f"OpenReview's note {note_id} has no content")
        title = _value(content, "title")
        if not isinstance(title, str) or not title.strip():
            raise MetadataError(f"OpenReview's note {note_id} has no title")
        names = _value(content, "authors") or []
        authors = tuple(_last_first(str(n)) for n in names if isinstance(n, str) and n.strip())
        stamp = note.get("pdate") or note.get("cdate")
        year = dt.datetime.fromtimestamp(stamp / 1000, dt.UTC).year if isinstance(stamp, int | float) else None
        venue = _value(content, "venue")
        return Work(
            title=" ".join(title.split()),
            authors=authors,
            year=year,
            venue=str(venue) if isinstance(venue, str) else "",
            identifiers={"openreview": note_id},
            links=(f"https://openreview.net/forum?id={note_id}",),
            abstract=str(_value(content, "abstract") or ""),
            note="Metadata from OpenReview.",
            source=f"OpenReview:{note_id}",
        )


def _last_first(name: str) -> str:
    parts = name.split()
    if len(parts) < 2 or "," in name:
        return name.strip()
    return f"{parts[-1]}, {' '.join(parts[:-1])}"
