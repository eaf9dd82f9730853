"""Fetching papers' metadata from the arXiv query API.

The API (https://info.arxiv.org/help/api/user-manual.html) is asked over the toolkit's one HTTP
stack (:mod:`survey_tools.net`: deadlines, size caps, the retry policy, address checks) and its
Atom answer is read with feedparser. The ``arxiv`` package is not used: its client keeps a
``requests`` session in a private attribute with no way to hand it another client, and its
feed parser is private too, so using it meant patching its internals.

The endpoint is configurable (``SURVEY_ARXIV_URL`` or an option) so that tests can point the
client at a loopback server replaying recorded arXiv answers. Every failure is an
:class:`ArxivFetchError` whose message is one sentence for the user; every value the feed
holds is checked (ids parsed strictly, dates real, lengths capped) before anyone uses it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from survey_tools.errors import SurveyError
from survey_tools.net.client import (
    Answer,
    HttpClient,
    Limits,
    NetError,
    Refused,
    TimedOut,
    Transient,
)
from survey_tools.scholarly.metadata import doi_ok

ENV_URL = "SURVEY_ARXIV_URL"
ENV_DELAY = "SURVEY_ARXIV_DELAY"
DEFAULT_URL = "https://export.arxiv.org/api/query"
# arXiv's terms of use ask for at most one request every three seconds.
DEFAULT_DELAY = 3.0
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3
# The most ids asked in one request (`survey refresh`); arXiv's API pages by 100 comfortably.
BATCH = 100
# Longest text accepted from a feed for one field (a title, an author, an abstract).
MAX_TEXT = 20_000
MAX_AUTHORS = 2_000
_NEW_ID = re.compile(r"^(\d{4}\.\d{4,5})(?:v(\d{1,4}))?$")
_OLD_ID = re.compile(r"^([a-z-]{2,20}(?:\.[A-Z]{2})?/\d{7})(?:v(\d{1,4}))?$")
_ABS = re.compile(r"^https?://arxiv\.org/abs/(?P<id>[^?#\s]{1,60})$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T")


class ArxivFetchError(SurveyError):
    """arXiv could not be asked, or its answer cannot be used."""


@dataclass(frozen=True)
class ArxivPaper:
    """The metadata of one arXiv paper, as the API returned it (version kept separately)."""

    arxiv_id: str  # without version
    version: int
    title: str
    authors: tuple[str, ...]  # as arXiv writes them: "First Last"
    abstract: str
    published: str  # ISO date of version 1
    updated: str  # ISO date of the returned version
    primary_category: str
    categories: tuple[str, ...]
    doi: str | None
    journal_ref: str | None
    comment: str | None
    abs_url: str
    pdf_url: str | None

    @property
    def year(self) -> int:
        return int(self.published[:4])


@dataclass(frozen=True)
class ClientConfig:
    url: str = DEFAULT_URL
    delay: float = DEFAULT_DELAY
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    backoff: float | None = None  # first wait after a failure (default: the delay)
    deadline: float | None = None  # the command's deadline (time.monotonic()), if it has one

    @classmethod
    def from_env(
        cls, url: str | None = None, delay: float | None = None, timeout: float | None = None
    ) -> ClientConfig:
        """Options win over the environment, which wins over the defaults."""
        env_delay = os.environ.get(ENV_DELAY)
        try:
            d = delay if delay is not None else float(env_delay) if env_delay else DEFAULT_DELAY
        except ValueError as err:
            raise ArxivFetchError(f"{ENV_DELAY}={env_delay!r} is not a number of seconds") from err
        return cls(
            url=url or os.environ.get(ENV_URL) or DEFAULT_URL,
            delay=d,
            timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        )


@dataclass(frozen=True)
class Feed:
    """One page of an answer: its papers and the total the query has."""

    papers: tuple[ArxivPaper, ...]
    total: int


def split_id(raw: str) -> tuple[str, int] | None:
    """``2501.00001v3`` -> ``("2501.00001", 3)``; None when it is not a well-formed arXiv id."""
    if len(raw) > 40:
        return None
    for rx in (_NEW_ID, _OLD_ID):
        m = rx.match(raw)
        if m:
            return m.group(1), int(m.group(2) or 1)
    return None


def well_formed(body: bytes) -> bool:
    try:
        ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return False
    return True


class ArxivClient:
    """The arXiv API over one HTTP client: the politeness delay applies between requests."""

    def __init__(self, config: ClientConfig | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config or ClientConfig.from_env()
        c = self.config
        limits = Limits.from_env(timeout=c.timeout, retries=c.retries,
                                 backoff=c.backoff if c.backoff is not None else max(c.delay, 0.05),
                                 deadline=c.deadline)
        self.http = HttpClient(limits, interval=c.delay, sleep=sleep)

    @property
    def requests(self) -> int:
        return self.http.requests

    def ask(self, params: Mapping[str, str], what: str) -> Feed:
        """One request to the API with these query parameters; its papers, checked."""
        url = self.config.url.split("?", 1)[0]
        try:
            ans = self.http.get(url, params, accept=feed_complete)
        except TimedOut as err:
            if "deadline" in err.reason:
                raise ArxivFetchError(f"arXiv ({url}): {err.reason}") from None
            raise ArxivFetchError(
                f"arXiv did not answer within {self.config.timeout:g} s ({url}); try again later"
            ) from None
        except Transient:
            raise ArxivFetchError(
                f"arXiv's answer for {what} was cut off (not well-formed XML) after "
                f"{self.config.retries + 1} tries; try again later") from None
        except Refused as err:
            raise ArxivFetchError(f"arXiv at {url} for {what}: {err.reason}") from None
        except NetError as err:
            raise ArxivFetchError(
                f"cannot reach arXiv at {url} ({err.reason}); check the network or {ENV_URL}"
            ) from None
        if ans.status != 200:
            detail = _error_summary(ans.body)
            if detail:
                raise ArxivFetchError(f"arXiv refused the id {what!r} (HTTP {ans.status}: {detail})")
            # A wait it asked for and the command's deadline (or the longest wait) did not allow.
            asked = f" (it asked to wait {ans.retry_after:g} s)" if ans.retry_after is not None else ""
            raise ArxivFetchError(
                f"arXiv answered HTTP {ans.status} for {what} after {ans.tries} "
                f"{'try' if ans.tries == 1 else 'tries'}; try again later{asked}")
        return parse_feed(ans, what)

    def fetch(self, arxiv_id: str) -> ArxivPaper:
        """The paper with this id (no version: the latest); raise ArxivFetchError otherwise."""
        feed = self.ask({"id_list": arxiv_id, "start": "0", "max_results": "1"}, arxiv_id)
        if not feed.papers:
            raise ArxivFetchError(f"arXiv has no paper with the id {arxiv_id}")
        return feed.papers[0]

    def fetch_many(self, arxiv_ids: Sequence[str]) -> dict[str, ArxivPaper]:
        """The papers with these ids (no versions), asked in batches of up to ``BATCH`` ids per
        request with the politeness delay between requests; an id arXiv does not know is
        missing from the result."""
        out: dict[str, ArxivPaper] = {}
        ids = list(dict.fromkeys(arxiv_ids))
        for start in range(0, len(ids), BATCH):
            batch = ids[start : start + BATCH]
            what = f"{len(batch)} ids ({batch[0]}...)" if len(batch) > 1 else batch[0]
            feed = self.ask({"id_list": ",".join(batch), "start": "0",
                             "max_results": str(len(batch))}, what)
            for paper in feed.papers:
                out[paper.arxiv_id] = paper
        return out


def feed_complete(ans: Answer) -> bool:
    """A 200 answer must be whole XML; a cut-off feed is asked for again."""
    return ans.status != 200 or well_formed(ans.body)


def parse_feed(ans: Answer, what: str) -> Feed:
    """The papers of an Atom answer, every value checked; ArxivFetchError names what is wrong."""
    import feedparser  # loaded only when arXiv answered (its import costs ~50 ms)

    doc = feedparser.parse(ans.body, sanitize_html=False, resolve_relative_uris=False)
    feed = doc.get("feed") or {}
    if doc.get("bozo") and not doc.get("entries") and not feed:
        raise ArxivFetchError(f"arXiv's answer for {what} is not an Atom feed")
    papers = []
    for i, entry in enumerate(doc.get("entries") or []):
        eid = str(entry.get("id") or "")
        if "/api/errors" in eid:
            summary = _text(entry.get("summary"), 500)
            raise ArxivFetchError(f"arXiv refused the id {what!r} ({summary})")
        papers.append(_paper(entry, f"{what}, entry {i + 1}"))
    total_text = str(feed.get("opensearch_totalresults", len(papers))).strip()
    if not total_text.isdigit() or len(total_text) > 9:
        raise ArxivFetchError(f"arXiv's answer for {what} has totalResults {total_text[:40]!r}")
    return Feed(tuple(papers), int(total_text))


def _text(value: Any, cap: int = MAX_TEXT) -> str:
    return " ".join(str(value or "").split())[:cap]


def _bad(where: str, what: str) -> ArxivFetchError:
    return ArxivFetchError(f"arXiv's answer for {where} is unusable: {what}")


def _date(value: Any, where: str, name: str) -> str:
    s = str(value or "")
    m = _DATE.match(s)
    if not m:
        raise _bad(where, f"{name} {s[:40]!r} is not a date")
    year, month, day = (int(g) for g in m.groups())
    if not (1991 <= year <= 2200 and 1 <= month <= 12 and 1 <= day <= 31):
        raise _bad(where, f"{name} {s[:40]!r} is not a date")
    return s[:10]


def _paper(entry: Any, where: str) -> ArxivPaper:
    eid = str(entry.get("id") or "")
    m = _ABS.match(eid)
    parsed = split_id(m.group("id")) if m else None
    if parsed is None:
        raise _bad(where, f"the id {eid[:80]!r} is not an arXiv abs URL with a well-formed id")
    short, version = parsed
    title = _text(entry.get("title"))
    authors = entry.get("authors") or []
    if not isinstance(authors, list) or len(authors) > MAX_AUTHORS:
        raise _bad(where, "the author list is not a list of names")
    names = tuple(n for n in (_text(a.get("name"), 500) for a in authors if isinstance(a, dict)) if n)
    if not title or not names:
        raise _bad(where, "no title or no authors")
    primary = entry.get("arxiv_primary_category")
    prim = _text(primary.get("term"), 40) if isinstance(primary, dict) else ""
    cats = tuple(dict.fromkeys(_text(t.get("term"), 40) for t in entry.get("tags") or []
                               if isinstance(t, dict) and t.get("term")))
    doi = _text(entry.get("arxiv_doi"), 300) or None
    if doi is not None and not doi_ok(doi.lower()):
        raise _bad(where, f"the DOI {doi[:80]!r} is not a DOI")
    return ArxivPaper(
        arxiv_id=short,
        version=version,
        title=title,
        authors=names,
        abstract=_text(entry.get("summary")),
        published=_date(entry.get("published"), where, "published"),
        updated=_date(entry.get("updated"), where, "updated"),
        primary_category=prim,
        categories=cats,
        doi=doi,
        journal_ref=_text(entry.get("arxiv_journal_ref"), 1000) or None,
        comment=_text(entry.get("arxiv_comment"), 2000) or None,
        abs_url=f"https://arxiv.org/abs/{short}",
        pdf_url=f"https://arxiv.org/pdf/{short}",
    )


def _error_summary(body: bytes) -> str:
    """The text of an arXiv error entry (``incorrect id format for abc``), if the body has one."""
    atom = "{http://www.w3.org/2005/Atom}"
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return ""
    for entry in root.iter(f"{atom}entry"):
        eid = entry.findtext(f"{atom}id") or ""
        if "/api/errors" in eid:
            return " ".join((entry.findtext(f"{atom}summary") or "").split())[:500]
    return ""
