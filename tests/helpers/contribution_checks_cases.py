"""What test_contribution_checks.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers.survey_copy import SURVEY
from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    root = tmp_path / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(SURVEY / name, root / name)
    return root


def run(root: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["--root", str(root), *args])
    return res.exit_code, res.stdout + res.stderr
