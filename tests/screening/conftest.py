"""Fixtures of the screening tests: the loopback arXiv search server and a living survey copy."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback import LoopbackServer as HTTPServer
from search_server import SearchServer, answer
from survey_copy import copy_edition


@pytest.fixture
def search_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SearchServer]:
    state = SearchServer()
    server = HTTPServer(host="127.0.0.1", threaded=True)
    server.expect_request("/api/query").respond_with_handler(lambda r: answer(state, r))
    server.start()
    state.url = server.url_for("/api/query")
    # Loopback is a private address: the client asks it only when allowed explicitly.
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")
    try:
        yield state
    finally:
        state.release.set()
        server.clear()
        server.stop()


@pytest.fixture
def living(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of this repository's survey folder (taxonomy, corpus, exclusions) to search into."""
    root = copy_edition(tmp_path / "survey")
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    monkeypatch.delenv("SURVEY_ARXIV_URL", raising=False)
    return root


# ASReview LAB pins pandas and rispy below the toolkit's, so it lives in a virtual environment
# of its own (tools/ci.sh step_install): $ASREVIEW_PYTHON, or that environment.
ASREVIEW_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "survey-tools-ci" / \
    "asreview" / "bin" / "python"


@pytest.fixture
def asreview_python() -> str:
    for candidate in (os.environ.get("ASREVIEW_PYTHON"), str(ASREVIEW_VENV)):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    if os.environ.get("CI"):
        pytest.fail(f"ASReview LAB is not installed (tools/ci.sh puts it in {ASREVIEW_VENV.parent.parent})")
    pytest.skip("ASReview LAB is not installed: python3 -m venv V && V/bin/pip install asreview==3.0.8, "
                "then ASREVIEW_PYTHON=V/bin/python (the committed exports in tests/fixtures/asreview "
                "are tested without it)")
