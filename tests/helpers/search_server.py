"""A loopback HTTP server answering arXiv API search queries in the real Atom format, with paging.

Every query gets the same result list (tests/fixtures/arxiv-search/entries.xml), sliced by the
request's ``start`` and ``max_results``, so the real ``arxiv`` client pages through it as it would
through export.arxiv.org (served by pytest-httpserver, see conftest.py). Modes: ``replay``, ``empty``, ``flaky`` (503 a few times, then replay),
``hang`` (never answers), ``truncated`` (a feed cut in the middle).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from werkzeug import Request, Response

from helpers.loopback import serving

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "arxiv-search"
HEAD = (FIXTURES / "feed-head.xml").read_text(encoding="utf-8")
TAIL = (FIXTURES / "feed-tail.xml").read_text(encoding="utf-8")
ENTRIES = re.findall(r"  <entry>.*?</entry>\n", (FIXTURES / "entries.xml").read_text(encoding="utf-8"), re.S)


def feed(entries: list[str], start: int, per_page: int, total: int, query: str = "q") -> bytes:
    head = HEAD.format(query=query.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;"),
                       per_page=per_page, total=total, start=start)
    return (head + "".join(entries) + TAIL).encode("utf-8")


@dataclass
class SearchServer:
    url: str = ""
    mode: str = "replay"
    failures_left: int = 0
    entries: list[str] = field(default_factory=lambda: list(ENTRIES))
    requests: list[dict[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def answer(state: SearchServer, request: Request) -> Response:
    q = dict(request.args.items())
    state.requests.append(q)
    if state.mode == "hang":
        state.release.wait(10)
        return Response(b"", status=204)
    if state.mode == "flaky" and state.failures_left > 0:
        state.failures_left -= 1
        return Response(b"Service Unavailable", status=503)
    start, size = int(q.get("start", 0)), int(q.get("max_results", 10))
    entries = [] if state.mode == "empty" else state.entries
    body = feed(entries[start:start + size], start, size, len(entries), q.get("search_query", ""))
    if state.mode == "truncated":
        body = body[: len(body) // 2]
    return Response(body, status=200, content_type="application/atom+xml; charset=utf-8")


@contextmanager
def search_service() -> Iterator[SearchServer]:
    """The loopback arXiv search server, running while the block runs."""
    state = SearchServer()
    with serving("/api/query", lambda r: answer(state, r), state.release.set) as url:
        state.url = url
        yield state
