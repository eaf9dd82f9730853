"""The generated README passes awesome-lint, the awesome-list community's linter (pinned in
package.json, run through tools/awesome-lint.mjs with every rule except awesome-github)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.external_tools import missing_awesome_lint
from helpers.external_tools import node as external_node
from helpers.render_support import REPO, Built

from survey_tools.render.markdown import gap_tables, render_contributing, render_readme


def run_lint(folder: Path) -> subprocess.CompletedProcess[str]:
    why = missing_awesome_lint()
    if why is not None:
        pytest.skip(why)
    node = external_node()
    assert node is not None
    # The README is linted in its own folder: the contributing rule looks for CONTRIBUTING.md
    # beside it, and that folder is not a git checkout with a GitHub remote.
    return subprocess.run(
        [node, str(REPO / "tools" / "awesome-lint.mjs"), "README.md"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "NODE_PATH": str(REPO / "node_modules"), "NO_COLOR": "1"},
    )


def write(folder: Path, b: Built) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(render_readme(b.tax, b.corpus, b.stats, gap_tables(b.gaps)), encoding="utf-8")
    (folder / "CONTRIBUTING.md").write_text(render_contributing(b.tax), encoding="utf-8")


def test_real_readme_passes_awesome_lint(real: Built, tmp_path: Path) -> None:
    write(tmp_path / "real", real)
    res = run_lint(tmp_path / "real")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "awesome-lint: ok" in res.stdout


def test_hostile_titles_pass_awesome_lint(hostile: Built, tmp_path: Path) -> None:
    write(tmp_path / "hostile", hostile)
    res = run_lint(tmp_path / "hostile")
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_broken_list_item_fails(real: Built, tmp_path: Path) -> None:
    # The linter really runs: an item without the " - " separator is reported.
    write(tmp_path / "broken", real)
    readme = tmp_path / "broken" / "README.md"
    text = readme.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("- [") and "](#" not in line)
    readme.write_text(text.replace(first, first.replace(") - ", ") ", 1)), encoding="utf-8")
    res = run_lint(tmp_path / "broken")
    assert res.returncode == 1
    assert "awesome-list-item" in res.stdout
