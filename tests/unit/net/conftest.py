"""Loopback servers for the HTTP layer's tests (pytest-httpserver, threaded so that a slow
handler does not hold the others), and the explicit allowance to ask them."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from helpers.loopback import LoopbackServer as HTTPServer


@pytest.fixture
def allow_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback is a private address: the tests' servers are asked only with this allowance."""
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown: slow and hanging handlers wait on it, so the server can stop."""
    ev = threading.Event()
    yield ev
    ev.set()


@pytest.fixture
def server(release: threading.Event) -> Iterator[HTTPServer]:
    srv = HTTPServer(host="127.0.0.1", threaded=True)
    srv.start()
    try:
        yield srv
    finally:
        release.set()
        srv.clear()
        srv.stop()
