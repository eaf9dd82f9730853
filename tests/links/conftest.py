"""Loopback HTTP servers standing in for the web: one per port, each port a "host".

Every case `survey links` must classify has a path: ``/ok``, a 301 chain, a redirect loop,
404, 410, 405 on HEAD, 429 with Retry-After, 503 then 200, a server that never answers, a
very large body (which must not be downloaded). A closed port gives connection refused.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

LARGE = 200 * 1024 * 1024  # what /large claims and would send: 200 MiB
CHUNK = 64 * 1024


@dataclass
class Web:
    """State shared by the servers; tests read ``hits`` and ``large_sent``."""

    delay: float = 0.0  # every answer waits this long (per-host limit tests)
    hits: Counter[str] = field(default_factory=Counter)  # "METHOD /path" -> count
    large_sent: int = 0
    in_flight: Counter[int] = field(default_factory=Counter)  # port -> requests now
    max_in_flight: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)
    ports: list[int] = field(default_factory=list)
    large_total: int = LARGE

    def url(self, path: str, host: int = 0) -> str:
        return f"http://127.0.0.1:{self.ports[host]}{path}"


def _handler(web: Web) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _reply(self, code: int, headers: dict[str, str] | None = None,
                   body: bytes = b"") -> None:
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _route(self) -> None:
            port = self.server.server_address[1]
            key = f"{self.command} {self.path}"
            with web.lock:
                web.hits[key] += 1
                n = web.hits[key]
                web.in_flight[port] += 1
                web.max_in_flight[port] = max(web.max_in_flight[port], web.in_flight[port])
            try:
                if web.delay:
                    time.sleep(web.delay)
                self._answer(self.path, n)
            finally:
                with web.lock:
                    web.in_flight[port] -= 1

        def _answer(self, path: str, n: int) -> None:
            if path.startswith("/ok") or path == "/final":
                self._reply(200, {"Content-Type": "text/html"}, b"<p>fine</p>")
            elif path.startswith("/chain/"):
                step = int(path.rsplit("/", 1)[1])
                target = f"/chain/{step + 1}" if step < 3 else "/final"
                self._reply(301, {"Location": target})
            elif path == "/temporary":
                self._reply(302, {"Location": "/final"})
            elif path == "/loop/a":
                self._reply(301, {"Location": "/loop/b"})
            elif path == "/loop/b":
                self._reply(302, {"Location": "/loop/a"})
            elif path == "/gone-404":
                self._reply(404, body=b"not found")
            elif path == "/gone-410":
                self._reply(410, body=b"gone")
            elif path == "/no-head":
                if self.command == "HEAD":
                    self._reply(405, {"Allow": "GET"})
                else:
                    self._reply(200, body=b"fine with GET")
            elif path == "/busy":
                self._reply(429, {"Retry-After": "1"})
            elif path == "/busy-long":
                self._reply(429, {"Retry-After": "3600"})
            elif path == "/flaky":
                # 503 on the first request, then 200.
                if n == 1:
                    self._reply(503, {"Retry-After": "0"})
                else:
                    self._reply(200, body=b"back")
            elif path == "/down":
                self._reply(503)
            elif path == "/hang":
                web.release.wait(30)
            elif path == "/large":
                if self.command == "HEAD":
                    self._reply(405)  # so the checker has to GET it
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(LARGE))
                self.end_headers()
                block = b"x" * CHUNK
                try:
                    for _ in range(LARGE // CHUNK):
                        self.wfile.write(block)
                        with web.lock:
                            web.large_sent += CHUNK
                except OSError:
                    return  # the client hung up: what we want
            else:
                self._reply(404)

        def do_HEAD(self) -> None:  # noqa: N802 - the name http.server calls
            self._route()

        def do_GET(self) -> None:  # noqa: N802
            self._route()

    return Handler


@pytest.fixture
def web() -> Iterator[Web]:
    state = Web()
    servers = []
    for _ in range(3):
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        state.ports.append(server.server_address[1])
    try:
        yield state
    finally:
        state.release.set()
        for s in servers:
            s.shutdown()
            s.server_close()


@pytest.fixture
def closed_port() -> int:
    """A port nobody listens on (bound, then closed): connecting is refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(d))
    return d


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv-refresh"


@dataclass
class Arxiv:
    url: str = ""
    requests: list[list[str]] = field(default_factory=list)  # id_list of each request


@pytest.fixture
def arxiv(monkeypatch: pytest.MonkeyPatch) -> Iterator[Arxiv]:
    """A loopback arXiv API that joins the recorded-format entries asked for in ``id_list``."""
    from urllib.parse import parse_qs, urlsplit

    state = Arxiv()
    head = (FIXTURES / "feed-head.xml").read_text(encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            ids = parse_qs(urlsplit(self.path).query).get("id_list", [""])[0].split(",")
            state.requests.append(ids)
            entries = [(FIXTURES / f"entry-{i}.xml") for i in ids]
            found = [p.read_text(encoding="utf-8") for p in entries if p.is_file()]
            body = (head.format(ids=",".join(ids), total=len(found)) + "".join(found)
                    + "</feed>\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    monkeypatch.setenv("SURVEY_ARXIV_URL", state.url)
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback server, explicitly
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
