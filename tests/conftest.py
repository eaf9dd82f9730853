"""Shared fixtures: the repository root, the survey artifact (tests/fixtures), and throw-away survey folders."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from survey_copy import copy_edition

REPO = Path(__file__).resolve().parents[1]
# Copies of upstream data the tests read (origin, licence and sha256 in tests/fixtures/SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures"
ARTIFACT = FIXTURES / "survey-artifact"

# Tests must not leave a parse cache behind: off by default, and whatever cache a test turns on
# (and the build lock) goes to a throw-away folder instead of the user's cache directory.
os.environ.setdefault("SURVEY_NO_CACHE", "1")


@pytest.fixture(scope="session", autouse=True)
def _cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    old = os.environ.get("SURVEY_CACHE_DIR")
    os.environ["SURVEY_CACHE_DIR"] = str(tmp_path_factory.mktemp("survey-cache"))
    yield
    if old is None:
        os.environ.pop("SURVEY_CACHE_DIR", None)
    else:
        os.environ["SURVEY_CACHE_DIR"] = old


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def artifact() -> Path:
    return ARTIFACT


@pytest.fixture
def survey_dir(tmp_path: Path) -> Path:
    """An empty survey folder with this repository's taxonomy."""
    root = tmp_path / "survey"
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    return root


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A copy of this repository's survey folder (the survey's edition), safe to modify."""
    return copy_edition(tmp_path / "survey")
