"""Portability: the package imports without POSIX-only modules, the build lock comes from
filelock, and paths given the platform's way (backslashes on Windows) are validated.

These run on Linux in the suite and on windows-latest in the GitHub workflow (job `windows`).
"""

from __future__ import annotations

import ast
import shutil
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.build import build_lock
from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "survey_tools"
# Modules that do not exist on Windows: never imported at a module's top level.
POSIX_ONLY = {"fcntl", "pwd", "grp", "termios", "resource", "posix"}


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_no_posix_only_module_is_imported_at_module_level() -> None:
    found = {
        path.relative_to(REPO).as_posix(): sorted(_top_level_imports(path) & POSIX_ONLY)
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_build_lock_serialises_two_holders(tmp_path: Path) -> None:
    events: list[str] = []

    def second() -> None:
        with build_lock(tmp_path):
            events.append("second")

    with build_lock(tmp_path):
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.3)  # the second holder waits for the first
        events.append("first done")
    t.join(10)
    assert events == ["first done", "second"]


def _tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny survey"  # a space in the path, as under "C:\Users\A Name"
    shutil.copytree(REPO / "tests" / "data" / "tiny-survey", root)
    return root


def test_validate_takes_paths_written_the_platforms_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tiny(tmp_path)
    monkeypatch.chdir(root)  # relative paths are relative to the working folder
    record = sorted((root / "entries").glob("*.yaml"))[0]
    native = str(Path("entries") / record.name)  # entries\x.yaml on Windows
    for arg in (native, str(record), record.relative_to(root).as_posix()):
        result = CliRunner().invoke(cli, ["--root", str(root), "validate", arg])
        assert result.exit_code == 0, (arg, result.output)
    whole = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    assert whole.exit_code == 0, whole.output
