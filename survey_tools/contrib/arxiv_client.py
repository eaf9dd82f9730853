"""Fetching a paper's metadata from the arXiv query API with the ``arxiv`` package.

The endpoint is configurable (``SURVEY_ARXIV_URL`` or an option) so that tests can point the
real client at a local HTTP server that replays recorded arXiv responses. Every failure becomes
an :class:`ArxivFetchError` whose message is one sentence for the user.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

# Imported only by the commands that fetch (the CLI loads their module when they run), so
# arxiv and requests cost nothing at `survey validate`'s start-up.
import arxiv
import requests

from survey_tools.errors import SurveyError

ENV_URL = "SURVEY_ARXIV_URL"
ENV_DELAY = "SURVEY_ARXIV_DELAY"
DEFAULT_URL = "https://export.arxiv.org/api/query"
# arXiv's terms of use ask for at most one request every three seconds.
DEFAULT_DELAY = 3.0
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3
# The most ids asked in one request (`survey refresh`); arXiv's API pages by 100 comfortably.
BATCH = 100
PAGE_SIZE = 10


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


def _split_version(short_id: str) -> tuple[str, int]:
    base, sep, ver = short_id.rpartition("v")
    if sep and ver.isdigit() and base and base[-1].isdigit():
        return base, int(ver)
    return short_id, 1


class ArxivClient:
    """One HTTP session to the arXiv API, reused so the rate-limit delay applies between calls."""

    def __init__(self, config: ClientConfig | None = None) -> None:
        self.config = config or ClientConfig.from_env()
        timeout = self.config.timeout
        owner = self

        class _Session(requests.Session):
            # The arxiv package sets no timeout; a server that never answers would hang forever.
            def request(self, *args: Any, **kwargs: Any) -> Any:
                kwargs.setdefault("timeout", timeout)
                resp = super().request(*args, **kwargs)
                owner._last_body = resp.content
                if resp.status_code == 200 and not well_formed(resp.content):
                    # A ConnectionError subclass, so the arxiv client retries it like a dropped
                    # connection: a cut-off feed is usually transient.
                    raise _TruncatedFeed("the feed is not well-formed XML")
                return resp

        self._last_body: bytes = b""
        self._client = arxiv.Client(
            page_size=PAGE_SIZE, delay_seconds=self.config.delay, num_retries=self.config.retries
        )
        self._client._session = _Session()
        # The client formats its query URL from this attribute; an instance value overrides it.
        self._client.query_url_format = self.config.url.split("?", 1)[0] + "?{}"

    def fetch(self, arxiv_id: str) -> ArxivPaper:
        """The paper with this id (no version: the latest); raise ArxivFetchError otherwise."""
        results = self._query(arxiv.Search(id_list=[arxiv_id], max_results=1), arxiv_id)
        if not results:
            raise ArxivFetchError(f"arXiv has no paper with the id {arxiv_id}")
        r = results[0]
        if "/api/errors" in r.entry_id:
            # Older API versions report a bad id as an "Error" entry with status 200.
            raise ArxivFetchError(f"arXiv refused the id {arxiv_id!r} ({r.summary.strip()})")
        return _to_paper(r, arxiv_id)

    def fetch_many(self, arxiv_ids: Sequence[str]) -> dict[str, ArxivPaper]:
        """The papers with these ids (no versions), asked in batches of up to ``BATCH`` ids per
        request with the client's politeness delay between requests; an id arXiv does not
        know is missing from the result."""
        out: dict[str, ArxivPaper] = {}
        ids = list(dict.fromkeys(arxiv_ids))
        for start in range(0, len(ids), BATCH):
            batch = ids[start : start + BATCH]
            what = f"{len(batch)} ids ({batch[0]}...)" if len(batch) > 1 else batch[0]
            self._client.page_size = len(batch)
            try:
                results = self._query(arxiv.Search(id_list=batch, max_results=len(batch)), what)
            finally:
                self._client.page_size = PAGE_SIZE
            for r in results:
                if "/api/errors" in r.entry_id:
                    raise ArxivFetchError(f"arXiv refused the ids of {what} ({r.summary.strip()})")
                paper = _to_paper(r, what)
                out[paper.arxiv_id] = paper
        return out

    def _query(self, search: Any, what: str) -> list[Any]:
        where = self.config.url
        try:
            return list(self._client.results(search))
        except arxiv.HTTPError as err:
            detail = _error_summary(self._last_body)
            if detail:
                raise ArxivFetchError(
                    f"arXiv refused the id {what!r} (HTTP {err.status}: {detail})"
                ) from None
            raise ArxivFetchError(
                f"arXiv answered HTTP {err.status} for {what} after "
                f"{self.config.retries + 1} tries; try again later"
            ) from None
        except _TruncatedFeed:
            raise ArxivFetchError(
                f"arXiv's answer for {what} was cut off (not well-formed XML) after "
                f"{self.config.retries + 1} tries; try again later"
            ) from None
        except requests.exceptions.Timeout:
            raise ArxivFetchError(
                f"arXiv did not answer within {self.config.timeout:g} s ({where}); try again later"
            ) from None
        except requests.exceptions.RequestException as err:
            raise ArxivFetchError(
                f"cannot reach arXiv at {where} ({type(err).__name__}); check the network or "
                f"{ENV_URL}"
            ) from None
        except arxiv.ArxivError as err:
            raise ArxivFetchError(f"arXiv's answer for {what} is unusable ({err})") from None


def _to_paper(r: Any, what: str) -> ArxivPaper:
    if not r.title.strip() or not r.authors:
        raise ArxivFetchError(f"arXiv's answer for {what} has no title or no authors")
    return paper_from_result(r)


def paper_from_result(r: Any) -> ArxivPaper:
    """An :class:`ArxivPaper` from one ``arxiv.Result`` (whitespace in the text collapsed)."""
    short, version = _split_version(r.get_short_id())
    return ArxivPaper(
        arxiv_id=short,
        version=version,
        title=" ".join(r.title.split()),
        authors=tuple(" ".join(a.name.split()) for a in r.authors),
        abstract=" ".join(r.summary.split()),
        published=r.published.date().isoformat(),
        updated=r.updated.date().isoformat(),
        primary_category=r.primary_category,
        categories=tuple(r.categories),
        doi=r.doi or None,
        journal_ref=" ".join(r.journal_ref.split()) if r.journal_ref else None,
        comment=" ".join(r.comment.split()) if r.comment else None,
        abs_url=f"https://arxiv.org/abs/{short}",
        pdf_url=f"https://arxiv.org/pdf/{short}",
    )


def well_formed(body: bytes) -> bool:
    try:
        ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return False
    return True


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
            return " ".join((entry.findtext(f"{atom}summary") or "").split())
    return ""


class _TruncatedFeed(requests.exceptions.ConnectionError):
    """A 200 answer whose XML is cut off."""
