"""Fixtures for the build stage: a throw-away copy of this repository's survey folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.survey_copy import copy_edition

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def copy_survey(dest: Path) -> Path:
    return copy_edition(dest)


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    """The real corpus, taxonomy and data files in a folder the test may change."""
    return copy_survey(tmp_path / "survey")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy that has been built once (shared by a module's read-only tests)."""
    from survey_tools.build import build

    root = copy_survey(tmp_path_factory.mktemp("built") / "survey")
    build(root)
    return root
