"""What test_metadata.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.loopback import LoopbackServer as HTTPServer

DOI = "10.5555/12345678"


TAGS = ["--category", "benchmark", "--date", "2026-05-20"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[HTTPServer]:
    srv = HTTPServer(host="127.0.0.1")
    srv.start()
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback server, explicitly
    try:
        yield srv
    finally:
        srv.clear()
        srv.stop()
