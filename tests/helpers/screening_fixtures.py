"""Fixtures of the screening tests: the loopback arXiv search server and a living survey copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.search_server import SearchServer, search_service
from helpers.survey_copy import copy_edition


@pytest.fixture
def search_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SearchServer]:
    # Loopback is a private address: the client asks it only when allowed explicitly.
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")
    with search_service() as state:
        yield state


@pytest.fixture
def living(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of this repository's survey folder (taxonomy, corpus, exclusions) to search into."""
    root = copy_edition(tmp_path / "survey")
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    monkeypatch.delenv("SURVEY_ARXIV_URL", raising=False)
    return root
