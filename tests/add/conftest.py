"""A real HTTP server on 127.0.0.1 replaying arXiv API responses recorded from the real API.

The ``arxiv`` package talks to it over HTTP exactly as it would to export.arxiv.org, so the
tests exercise the real client, its retries and our error handling, without the internet.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
# Responses recorded from the real arXiv API (see tests/fixtures/SOURCES.md).
RECORDED = REPO / "tests" / "fixtures" / "arxiv-api"


def _recorded() -> dict[str, tuple[int, bytes]]:
    out: dict[str, tuple[int, bytes]] = {}
    for path in sorted(RECORDED.glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        ids = parse_qs(urlsplit(d["url"]).query).get("id_list", [""])[0]
        out[ids] = (int(d["status_code"]), d["body"].encode("utf-8"))
    return out


@dataclass
class ArxivServer:
    """What the server does; tests change ``mode`` and read ``requests``."""

    url: str = ""
    mode: str = "replay"  # replay | flaky | hang | truncated
    failures_left: int = 0  # for flaky: how many 503s before replaying
    requests: list[str] = field(default_factory=list)
    responses: dict[str, tuple[int, bytes]] = field(default_factory=_recorded)
    release: threading.Event = field(default_factory=threading.Event)


def _handler(state: ArxivServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            state.requests.append(self.path)
            ids = parse_qs(urlsplit(self.path).query).get("id_list", [""])[0]
            if state.mode == "hang":
                state.release.wait(10)
                return
            if state.mode == "flaky" and state.failures_left > 0:
                state.failures_left -= 1
                self._send(503, b"Service Unavailable")
                return
            status, body = state.responses.get(ids, state.responses["0000.0000"])
            if state.mode == "truncated":
                body = body[: len(body) // 2]
            self._send(status, body)

    return Handler


@pytest.fixture
def arxiv_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ArxivServer]:
    state = ArxivServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    monkeypatch.setenv("SURVEY_ARXIV_URL", state.url)
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    """A copy of the real survey folder that a test may change."""
    root = tmp_path / "survey"
    for name in ("taxonomy", "corpus", "exclusions"):
        shutil.copytree(REPO / name, root / name)
    return root
