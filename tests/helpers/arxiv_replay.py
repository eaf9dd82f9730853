"""A loopback HTTP server (pytest-httpserver) replaying arXiv API answers recorded from the real API.

The arXiv client talks to it over HTTP exactly as it would to export.arxiv.org, so the tests
exercise the real client, its retries and our error handling, without the internet. The
recordings live in tests/fixtures/arxiv-api/ (MIT, from lukasschwab/arxiv.py's test fixtures;
see tests/fixtures/SOURCES.md). Used by the add and end-to-end tests.

Loopback is a private address: whoever points a client here must allow it explicitly
(``SURVEY_NET_ALLOW=127.0.0.1``, see :data:`ALLOW`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from werkzeug import Request, Response

from helpers.loopback import serving

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv-api"
ALLOW = {"SURVEY_NET_ALLOW": "127.0.0.1"}


def _recorded() -> dict[str, tuple[int, bytes]]:
    out: dict[str, tuple[int, bytes]] = {}
    for path in sorted(RECORDED.glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        from urllib.parse import parse_qs, urlsplit

        ids = parse_qs(urlsplit(d["url"]).query).get("id_list", [""])[0]
        out[ids] = (int(d["status_code"]), d["body"].encode("utf-8"))
    if "0000.0000" not in out:
        raise FileNotFoundError(f"the recorded arXiv responses are missing from {RECORDED}")
    return out


@dataclass
class ArxivServer:
    """What the server does; tests change ``mode`` and read ``requests``."""

    url: str = ""
    mode: str = "replay"  # replay | flaky | hang | truncated
    failures_left: int = 0  # for flaky: how many 503s before replaying
    requests: list[str] = field(default_factory=list)  # the query string of each request
    responses: dict[str, tuple[int, bytes]] = field(default_factory=_recorded)
    release: threading.Event = field(default_factory=threading.Event)

    def answer(self, request: Request) -> Response:
        self.requests.append(request.query_string.decode("ascii", "replace"))
        ids = request.args.get("id_list", "")
        if self.mode == "hang":
            self.release.wait(10)
            return Response(b"", status=204)
        if self.mode == "flaky" and self.failures_left > 0:
            self.failures_left -= 1
            return Response(b"Service Unavailable", status=503)
        status, body = self.responses.get(ids, self.responses["0000.0000"])
        if self.mode == "truncated":
            body = body[: len(body) // 2]
        return Response(body, status=status, content_type="application/atom+xml; charset=utf-8")


@contextmanager
def serve_arxiv() -> Iterator[ArxivServer]:
    """Serve the recordings on 127.0.0.1 (a free port) until the block ends."""
    state = ArxivServer()
    with serving("/api/query", state.answer, state.release.set) as url:
        state.url = url
        yield state
