"""What DBLP, Semantic Scholar, Crossref and OpenReview say about a paper: venue, DOI, authors.

``survey refresh`` asks arXiv first; arXiv rarely states an acceptance, so these services are
asked too (``--sources``), each over the toolkit's one HTTP stack with its politeness interval,
the retry policy (429 with Retry-After is common at Semantic Scholar) and a cache of answers in
the user's cache folder:

* **Semantic Scholar** Graph API, ``GET /graph/v1/paper/ARXIV:{id}?fields=...``: the venue
  (``publicationVenue.name`` or ``venue``), ``externalIds.DOI``, the authors;
* **DBLP** publication search, ``GET /search/publ/api?q=TITLE&format=json&h=10``: a hit whose
  title equals the record's and that is not CoRR (``Informal and Other Publications``) gives
  the venue, year, DOI and authors;
* **Crossref** ``/works/{doi}`` for a DOI the record or another service holds: the container
  title and the authors (:mod:`.metadata`);
* **OpenReview** API 2 ``/notes?id=`` for a record's OpenReview id: ``content.venue``.

Each value comes back as a :class:`Finding` naming its service and the page it came from, and
is checked (shape, length, DOI syntax) as every network answer is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from survey_tools.corpus.titles import normalize_title
from survey_tools.net.client import HttpClient, Limits
from survey_tools.scholarly.metadata import (
    MAX_NAME,
    MAX_TITLE,
    CrossrefClient,
    MetadataError,
    OpenReviewClient,
    Shape,
    doi_ok,
    get_json,
)

SOURCES = ("arxiv", "semanticscholar", "dblp", "crossref", "openreview")
DBLP_URL = "https://dblp.org"
S2_URL = "https://api.semanticscholar.org"
# Politeness: DBLP and Semantic Scholar (without a key) ask for about one request a second.
INTERVAL = {"dblp": 1.0, "semanticscholar": 1.0, "crossref": 0.2, "openreview": 0.5}
S2_FIELDS = "title,venue,year,externalIds,authors,publicationVenue"
_CORR = "Informal and Other Publications"


@dataclass(frozen=True)
class Finding:
    """What one service says about one paper."""

    source: str  # the service's name, for people ("DBLP", "Semantic Scholar", ...)
    url: str  # the page or API answer it came from (evidence)
    venue: str = ""
    year: int | None = None
    doi: str | None = None
    authors: tuple[str, ...] = ()  # "First Last" as the service writes them


def _doi(value: Any) -> str | None:
    """A DOI fit to propose: well-formed and not arXiv's own DataCite DOI."""
    if not isinstance(value, str):
        return None
    d = value.strip().lower()
    return d if doi_ok(d) and not d.startswith("10.48550/") else None


def parse_s2(body: Any, arxiv_id: str, page: str) -> Finding | None:
    shape = Shape("Semantic Scholar")
    doc = shape.mapping(body, "the answer")
    ids = doc.get("externalIds")
    ids = shape.mapping(ids, "externalIds") if ids is not None else {}
    pv = doc.get("publicationVenue")
    venue = ""
    if pv is not None:
        venue = shape.text(shape.mapping(pv, "publicationVenue").get("name"), "publicationVenue.name", MAX_TITLE)
    venue = venue or shape.text(doc.get("venue"), "venue", MAX_TITLE)
    year = doc.get("year")
    if year is not None and (isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 2200):
        raise shape.fail("year", "is not a year")
    authors = tuple(n for i, a in enumerate(shape.items(doc.get("authors"), "authors"))
                    if (n := shape.text(shape.mapping(a, f"authors[{i}]").get("name"),
                                        f"authors[{i}].name", MAX_NAME)))
    if venue.strip().lower() in ("arxiv", "arxiv.org", "corr"):
        venue = ""
    return Finding("Semantic Scholar", page, venue, year, _doi(ids.get("DOI")), authors)


def _dblp_authors(shape: Shape, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    container = shape.mapping(value, "info.authors")
    people = container.get("author")
    if isinstance(people, dict):  # DBLP writes one author as an object, several as a list
        people = [people]
    out = []
    for i, p in enumerate(shape.items(people, "info.authors.author")):
        name = p.get("text") if isinstance(p, dict) else p
        out.append(shape.text(name, f"info.authors.author[{i}]", MAX_NAME))
    return tuple(n for n in out if n)


def parse_dblp(body: Any, title: str, page: str) -> Finding | None:
    """The first non-CoRR hit whose title is the record's."""
    shape = Shape("DBLP")
    result = shape.mapping(shape.mapping(body, "the answer").get("result"), "result")
    hits = result.get("hits")
    if hits is None:
        return None
    hit_list = shape.mapping(hits, "result.hits").get("hit")
    if isinstance(hit_list, dict):
        hit_list = [hit_list]
    want = normalize_title(title)
    for i, hit in enumerate(shape.items(hit_list, "result.hits.hit", 1000)):
        info = shape.mapping(shape.mapping(hit, f"hit[{i}]").get("info"), f"hit[{i}].info")
        t = shape.text(info.get("title"), f"hit[{i}].info.title", MAX_TITLE)
        kind = shape.text(info.get("type"), f"hit[{i}].info.type", 200)
        if normalize_title(t.rstrip(".")) != want or kind == _CORR:
            continue
        venue = info.get("venue")
        if isinstance(venue, list):  # a paper in two venues: DBLP lists both
            venue = venue[0] if venue else ""
        venue_s = shape.text(venue, f"hit[{i}].info.venue", MAX_TITLE)
        year_s = shape.text(info.get("year"), f"hit[{i}].info.year", 4)
        year = int(year_s) if year_s.isdigit() and 1900 <= int(year_s) <= 2200 else None
        url = shape.text(info.get("url"), f"hit[{i}].info.url", 500)
        return Finding("DBLP", url if url.startswith("https://dblp.org/") else page,
                       f"{venue_s} {year}".strip() if venue_s and year else venue_s, year,
                       _doi(info.get("doi")), _dblp_authors(shape, info.get("authors")))
    return None


class Scholarly:
    """The services other than arXiv, each with its own client (interval, cache, limits)."""

    def __init__(self, sources: Sequence[str], timeout: float = 30.0,
                 urls: Mapping[str, str] | None = None, interval: float | None = None,
                 use_cache: bool = True, deadline: float | None = None) -> None:
        urls = dict(urls or {})
        self.sources = tuple(s for s in SOURCES if s in sources and s != "arxiv")

        def http(name: str) -> HttpClient:
            return HttpClient(Limits.from_env(timeout=timeout, deadline=deadline),
                              interval=INTERVAL[name] if interval is None else interval,
                              cache=f"refresh-{name}" if use_cache else None)

        self.s2_url = urls.get("semanticscholar") or os.environ.get("SURVEY_S2_URL") or S2_URL
        self.dblp_url = urls.get("dblp") or os.environ.get("SURVEY_DBLP_URL") or DBLP_URL
        self.http = {name: http(name) for name in self.sources}
        self.crossref = CrossrefClient(
            urls.get("crossref") or os.environ.get("SURVEY_CROSSREF_URL") or CrossrefClient.url,
            timeout, self.http.get("crossref"))
        self.openreview = OpenReviewClient(
            urls.get("openreview") or os.environ.get("SURVEY_OPENREVIEW_URL") or OpenReviewClient.url,
            timeout, self.http.get("openreview"))

    def findings(self, arxiv_id: str | None, title: str, doi: str | None,
                 openreview_id: str | None) -> list[Finding]:
        """What each chosen service says, in the order of SOURCES (MetadataError on a bad answer)."""
        out: list[Finding] = []
        if "semanticscholar" in self.sources and arxiv_id:
            base = self.s2_url.rstrip("/")
            url = f"{base}/graph/v1/paper/ARXIV:{quote(arxiv_id, safe='.')}"
            body = get_json(self.http["semanticscholar"], url, {"fields": S2_FIELDS},
                            "Semantic Scholar")
            if body is not None:
                f = parse_s2(body, arxiv_id, f"https://www.semanticscholar.org/arxiv/{arxiv_id}")
                if f is not None:
                    out.append(f)
        if "dblp" in self.sources and title:
            url = f"{self.dblp_url.rstrip('/')}/search/publ/api"
            body = get_json(self.http["dblp"], url, {"q": title[:300], "format": "json", "h": "10"}, "DBLP")
            if body is not None:
                f = parse_dblp(body, title, f"https://dblp.org/search?q={quote(title[:300])}")
                if f is not None:
                    out.append(f)
        known_doi = doi or next((f.doi for f in out if f.doi), None)
        if "crossref" in self.sources and known_doi:
            w = self.crossref.work(known_doi)
            if w is not None:
                out.append(Finding("Crossref", f"https://doi.org/{w.doi}", w.venue, w.year, w.doi,
                                   tuple(_first_last(a) for a in w.authors)))
        if "openreview" in self.sources and openreview_id:
            n = self.openreview.note(openreview_id)
            if n is not None and n.venue:
                out.append(Finding("OpenReview", f"https://openreview.net/forum?id={n.note_id}",
                                   n.venue, n.year, None, n.authors))
        return out


def _first_last(name: str) -> str:
    last, sep, first = name.partition(", ")
    return f"{first} {last}" if sep else name


__all__ = ["SOURCES", "Finding", "MetadataError", "Scholarly", "parse_dblp", "parse_s2"]
