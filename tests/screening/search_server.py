"""A loopback HTTP server answering arXiv API search queries in the real Atom format, with paging.

Every query gets the same result list (tests/fixtures/arxiv-search/entries.xml), sliced by the
request's ``start`` and ``max_results``, so the real ``arxiv`` client pages through it as it would
through export.arxiv.org. Modes: ``replay``, ``empty``, ``flaky`` (503 a few times, then replay),
``hang`` (never answers), ``truncated`` (a feed cut in the middle).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

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


def _handler(state: SearchServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            q = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            state.requests.append(q)
            if state.mode == "hang":
                state.release.wait(10)
                return
            if state.mode == "flaky" and state.failures_left > 0:
                state.failures_left -= 1
                self._send(503, b"Service Unavailable")
                return
            start, size = int(q.get("start", 0)), int(q.get("max_results", 10))
            entries = [] if state.mode == "empty" else state.entries
            body = feed(entries[start:start + size], start, size, len(entries), q.get("search_query", ""))
            if state.mode == "truncated":
                body = body[: len(body) // 2]
            self._send(200, body)

    return Handler
