"""The generated README passes awesome-lint, the awesome-list community's linter (pinned in
package.json, run through tools/awesome-lint.mjs with every rule except awesome-github)."""

from __future__ import annotations

from pathlib import Path

from helpers.external_tools import awesome_lint
from helpers.render_support import Built

from survey_tools.render.markdown import gap_tables, render_contributing, render_readme


def write(folder: Path, b: Built) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(render_readme(b.tax, b.corpus, b.stats, gap_tables(b.gaps)), encoding="utf-8")
    (folder / "CONTRIBUTING.md").write_text(render_contributing(b.tax), encoding="utf-8")


def test_real_readme_passes_awesome_lint(real: Built, tmp_path: Path) -> None:
    write(tmp_path / "real", real)
    res = awesome_lint(tmp_path / "real", timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "awesome-lint: ok" in res.stdout


def test_hostile_titles_pass_awesome_lint(hostile: Built, tmp_path: Path) -> None:
    write(tmp_path / "hostile", hostile)
    res = awesome_lint(tmp_path / "hostile", timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_broken_list_item_fails(real: Built, tmp_path: Path) -> None:
    # The linter really runs: an item without the " - " separator is reported.
    write(tmp_path / "broken", real)
    readme = tmp_path / "broken" / "README.md"
    text = readme.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("- [") and "](#" not in line)
    readme.write_text(text.replace(first, first.replace(") - ", ") ", 1)), encoding="utf-8")
    res = awesome_lint(tmp_path / "broken", timeout=120)
    assert res.returncode == 1
    assert "awesome-list-item" in res.stdout
