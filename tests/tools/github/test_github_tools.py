"""The workflows pass actionlint, and actionlint, as installed here, catches a broken one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.support import REPO

ACTIONLINT = shutil.which("actionlint")
needs_actionlint = pytest.mark.skipif(
    ACTIONLINT is None, reason="actionlint is not installed (pip install -e '.[test]')"
)


@needs_actionlint
def test_workflows_pass_actionlint() -> None:
    res = subprocess.run(
        [ACTIONLINT or "actionlint", "-no-color"], cwd=REPO, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stdout + res.stderr


@needs_actionlint
def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    res = subprocess.run(
        [ACTIONLINT or "actionlint", "-no-color", str(bad)], capture_output=True, text=True
    )
    assert res.returncode == 1
    assert "nope" in res.stdout
