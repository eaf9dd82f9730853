"""Fixtures for `survey add` and `survey exclude`: the loopback arXiv server and a survey copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.arxiv_replay import ArxivServer, serve_arxiv
from helpers.survey_copy import copy_edition

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def arxiv_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ArxivServer]:
    with serve_arxiv() as state:
        monkeypatch.setenv("SURVEY_ARXIV_URL", state.url)
        monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
        monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback server, explicitly
        yield state


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    """A copy of the real survey folder (the survey's edition) that a test may change."""
    return copy_edition(tmp_path / "survey", ("taxonomy", "corpus", "exclusions"))
