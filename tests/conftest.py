"""Shared fixtures: the repository root, the survey artifact (tests/fixtures), and throw-away survey folders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Copies of upstream data the tests read (origin, licence and sha256 in tests/fixtures/SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures"
ARTIFACT = FIXTURES / "survey-artifact"

# Tests must not leave a parse cache behind in the repository's folders.
os.environ.setdefault("SURVEY_NO_CACHE", "1")


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
    """A full copy of this repository's survey folder, safe to modify."""
    root = tmp_path / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, root / name)
    return root
