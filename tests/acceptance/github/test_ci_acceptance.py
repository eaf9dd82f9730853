"""The tests of test_ci.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.support import REPO


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_gitattributes_is_what_the_script_writes() -> None:
    res = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gitattributes.py"), "--root", str(REPO), "--check"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert res.returncode == 0, res.stderr


def test_every_output_is_generated_and_merges(tmp_path: Path) -> None:
    from survey_tools.build import plan_build

    outputs = sorted(plan_build(REPO).outputs)
    root = tmp_path / "attrs"
    root.mkdir()
    shutil.copy2(REPO / ".gitattributes", root / ".gitattributes")
    git(root, "init", "-q")
    res = subprocess.run(
        ["git", "check-attr", "--stdin", "linguist-generated", "merge"],
        cwd=root,
        input="\n".join([*outputs, "corpus/c3.yaml"]) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    got: dict[str, dict[str, str]] = {}
    for line in res.stdout.splitlines():
        path, attr, value = line.split(": ")
        got.setdefault(path, {})[attr] = value
    missing = [
        p for p in outputs if got[p] != {"linguist-generated": "true", "merge": "survey-generated"}
    ]
    assert missing == []
    assert got["corpus/c3.yaml"] == {"linguist-generated": "unspecified", "merge": "unspecified"}
