"""What test_input_stage.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.survey_copy import SURVEY

REPO = Path(__file__).resolve().parents[2]


NOT_COPIED = shutil.ignore_patterns(
    ".git",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "build",
    "*.egg-info",
)


RUN = """- date: '2026-06-01'
  source: arXiv
  hits: {agents: 3}
  unique: 3
  new: 2
"""


@pytest.fixture()
def survey(tmp_path: Path) -> Path:
    # The repository's survey without its screening/ folder: a survey that never ran a search,
    # to which the tests then add the logs one by one.
    # The survey's folders come from the frozen snapshot, the rest (docs, tools, outputs) from the
    # repository.
    root = tmp_path / "survey"
    live = {
        REPO / name for name in ("taxonomy", "corpus", "exclusions", "data", "screening", "tests")
    }

    def ignored(folder: str, names: list[str]) -> set[str]:
        return set(NOT_COPIED(folder, names)) | {n for n in names if Path(folder, n) in live}

    shutil.copytree(REPO, root, ignore=ignored, symlinks=True)
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(SURVEY / name, root / name)
    return root
