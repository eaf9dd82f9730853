"""Loopback HTTP servers standing in for the web (pytest-httpserver): one per port, each port a "host".

Every case `survey links` must classify has a path: ``/ok``, a 301 chain, a redirect loop,
404, 410, 405 on HEAD, 429 with Retry-After, 503 then 200, a server that never answers, a
very large body (which must not be downloaded); and hostile ones: a double-gzip bomb, a body
dripping one byte at a time, a redirect whose Location carries Markdown, redirects to private
addresses. A closed port gives connection refused. Loopback is a private address, so the
fixture allows 127.0.0.1 explicitly (``SURVEY_NET_ALLOW``); 127.0.0.2 and the rest stay refused.
"""

from __future__ import annotations

import functools
import re
import shutil
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from werkzeug import Request, Response

from helpers.loopback import LoopbackServer as HTTPServer

LARGE = 200 * 1024 * 1024  # what /large claims and would send: 200 MiB
CHUNK = 64 * 1024
BOMB = Path(__file__).resolve().parents[1] / "fixtures" / "net" / "gzip-bomb.bin"
EVIL_LOCATION = ("/ok/x> @octocat ![tracker](https://tracker.example/pixel.png) "
                 "[Click here](https://evil.example/phish) <")


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

    def route(self, port: int, req: Request) -> Response:
        key = f"{req.method} {req.full_path.rstrip('?')}"
        with self.lock:
            self.hits[key] += 1
            n = self.hits[key]
            self.in_flight[port] += 1
            self.max_in_flight[port] = max(self.max_in_flight[port], self.in_flight[port])
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.answer(req, req.full_path.rstrip("?"), n)
        finally:
            with self.lock:
                self.in_flight[port] -= 1

    def answer(self, req: Request, path: str, n: int) -> Response:
        head = req.method == "HEAD"
        if path.startswith("/ok") or path == "/final":
            return Response(b"<p>fine</p>", content_type="text/html")
        if path.startswith("/chain/"):
            step = int(path.rsplit("/", 1)[1])
            return _redirect(301, f"/chain/{step + 1}" if step < 3 else "/final")
        simple = {
            "/temporary": lambda: _redirect(302, "/final"),
            "/loop/a": lambda: _redirect(301, "/loop/b"),
            "/loop/b": lambda: _redirect(302, "/loop/a"),
            "/gone-404": lambda: Response(b"not found", status=404),
            "/gone-410": lambda: Response(b"gone", status=410),
            "/busy": lambda: Response(b"", status=429, headers={"Retry-After": "1"}),
            "/busy-long": lambda: Response(b"", status=429, headers={"Retry-After": "3600"}),
            "/down": lambda: Response(b"", status=503),
            "/evil": lambda: _redirect(301, EVIL_LOCATION),
            "/to-metadata": lambda: _redirect(302, "http://169.254.169.254/latest/meta-data/"),
            "/to-loopback": lambda: _redirect(302, f"http://127.0.0.2:{self.ports[0]}/ok"),
        }
        if path in simple:
            return simple[path]()
        if path == "/no-head":
            return Response(b"", status=405, headers={"Allow": "GET"}) if head else Response(b"fine with GET")
        if path == "/flaky":  # 503 on the first request, then 200
            return Response(b"", status=503, headers={"Retry-After": "0"}) if n == 1 else Response(b"back")
        if path == "/hang":
            self.release.wait(30)
            return Response(b"late")
        if path == "/bomb":
            if head:
                return Response(b"", status=405)  # so the checker has to GET it
            r = Response(BOMB.read_bytes(), content_type="application/json")
            r.headers["Content-Encoding"] = "gzip, gzip"
            return r
        if path == "/drip":
            if head:
                return Response(b"", status=405)  # the body is what drips: GET it

            def drip() -> Iterator[bytes]:
                for _ in range(10):
                    yield b"x"
                    if self.release.wait(0.5):
                        return
            r = Response(drip(), content_type="text/plain")
            r.headers["Content-Length"] = "10"
            r.automatically_set_content_length = False
            return r
        if path == "/large":
            if head:
                return Response(b"", status=405)  # so the checker has to GET it
            web = self

            def body() -> Iterator[bytes]:
                block = b"x" * CHUNK
                for _ in range(LARGE // CHUNK):
                    with web.lock:
                        web.large_sent += CHUNK
                    yield block

            r = Response(body(), content_type="application/octet-stream")
            r.headers["Content-Length"] = str(LARGE)
            r.automatically_set_content_length = False
            return r
        return Response(b"", status=404)


def _redirect(code: int, location: str) -> Response:
    r = Response(b"", status=code)
    r.headers["Location"] = location  # as sent: werkzeug must not make it absolute
    r.autocorrect_location_header = False
    return r


def _routed(state: Web, index: int, req: Request) -> Response:
    return state.route(state.ports[index], req)


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[Web]:
    state = Web()
    servers = []
    for _ in range(3):
        srv = HTTPServer(host="127.0.0.1", threaded=True)
        srv.expect_request(re.compile(".*")).respond_with_handler(
            functools.partial(_routed, state, len(servers)))
        srv.start()
        servers.append(srv)
        state.ports.append(srv.port)
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback servers, explicitly
    try:
        yield state
    finally:
        state.release.set()
        for srv in servers:
            srv.clear()
            srv.stop()


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
    entries: dict[str, str] = field(default_factory=dict)  # id -> entry served instead of the file


@pytest.fixture
def arxiv(monkeypatch: pytest.MonkeyPatch) -> Iterator[Arxiv]:
    """A loopback arXiv API that joins the recorded-format entries asked for in ``id_list``."""
    state = Arxiv()
    head = (FIXTURES / "feed-head.xml").read_text(encoding="utf-8")

    def answer(req: Request) -> Response:
        ids = req.args.get("id_list", "").split(",")
        state.requests.append(ids)
        entries = [(FIXTURES / f"entry-{i}.xml") for i in ids]
        found = [state.entries.get(i) or p.read_text(encoding="utf-8")
                 for i, p in zip(ids, entries, strict=True) if i in state.entries or p.is_file()]
        body = (head.format(ids=",".join(ids), total=len(found)) + "".join(found)
                + "</feed>\n").encode()
        return Response(body, content_type="application/atom+xml; charset=utf-8")

    srv = HTTPServer(host="127.0.0.1", threaded=True)
    srv.expect_request("/api/query").respond_with_handler(answer)
    srv.start()
    state.url = srv.url_for("/api/query")
    monkeypatch.setenv("SURVEY_ARXIV_URL", state.url)
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback server, explicitly
    try:
        yield state
    finally:
        srv.clear()
        srv.stop()


TINY = Path(__file__).resolve().parents[1] / "data" / "tiny-survey"


def make_survey(root: Path, records: dict[str, dict]) -> Path:
    """The tiny survey of tests/data with a `links` list and a resolvable identifier kind."""
    shutil.copytree(TINY / "taxonomy", root / "taxonomy")
    path = root / "taxonomy" / "survey.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["collections"]["tools"]["fields"]["links"] = {"type": "url_list"}
    doc["collections"]["tools"]["fields"]["identifiers"] = {"type": "identifiers"}
    doc["identifiers"] = {"handle": {"label": "Handle", "normalize": "none",
                                     "pattern": "^[a-z0-9-]+$", "url": records.pop("_template")}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    (root / "entries").mkdir()
    for key, extra in records.items():
        rec = {"slug": key, "name": key.title(), "language": ["rust"], "licence": "n/a", **extra}
        (root / "entries" / f"{key}.yaml").write_text(yaml.safe_dump(rec, sort_keys=False))
    return root
