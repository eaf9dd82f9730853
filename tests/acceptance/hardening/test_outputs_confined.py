"""Nothing outside the survey folder is ever written, deleted or published by `survey build`.

A hostile pull request can replace an output folder (or file) with a symbolic link that points
outside the survey; the build must refuse to write or delete through it, and `--check` must fail.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.cli import cli

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny-survey"


def survey(*args: str, root: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--root", str(root), *args])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """A built tiny survey and a 'victim' folder beside it with files and a subfolder."""
    root = tmp_path / "survey"
    shutil.copytree(TINY, root)
    code, out = survey("build", root=root)
    assert code == 0, out
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "keep.txt").write_text("precious\n")
    (victim / "sub" / "deep.txt").write_text("also precious\n")
    return root, victim


@pytest.mark.parametrize("owned", ["reports/tables", "reports/site/papers", "reports/site"])
def test_symlinked_output_folder_is_refused_and_nothing_outside_is_touched(
    built: tuple[Path, Path], owned: str
) -> None:
    root, victim = built
    shutil.rmtree(root / owned)
    (root / owned).symlink_to(os.path.relpath(victim, (root / owned).parent))
    before_victim, before_survey = snapshot(victim), snapshot(root)

    code, out = survey("build", root=root)
    assert code == 1
    assert f"{owned} is a symbolic link" in out
    assert "nothing was written or deleted" in out
    assert snapshot(victim) == before_victim
    assert snapshot(root) == before_survey

    code, out = survey("build", "--check", root=root)
    assert code == 1
    assert f"unsafe: {owned}" in out


def test_an_output_file_replaced_by_a_link_is_not_written_through(built: tuple[Path, Path]) -> None:
    root, victim = built
    (root / "README.md").unlink()
    (root / "README.md").symlink_to(victim / "keep.txt")
    code, out = survey("build", root=root)
    assert code == 1
    assert "README.md is a symbolic link" in out
    assert (victim / "keep.txt").read_text() == "precious\n"
    assert (root / "README.md").is_symlink()


def test_a_link_or_pipe_among_published_files_fails_the_check(built: tuple[Path, Path]) -> None:
    root, victim = built
    (root / "reports/site/leak.html").symlink_to(victim / "keep.txt")
    os.mkfifo(root / "reports/site/papers/pipe.html")
    code, out = survey("build", "--check", root=root)
    assert code == 1
    assert "unsafe: reports/site/leak.html" in out
    assert "unsafe: reports/site/papers/pipe.html" in out
    code, out = survey("build", root=root)
    assert code == 1
    assert "reports/site/leak.html is a symbolic link among generated outputs" in out
    assert "reports/site/papers/pipe.html is not a regular file" in out
    assert (victim / "keep.txt").read_text() == "precious\n"


def test_unexpected_files_in_the_site_are_reported_then_removed(built: tuple[Path, Path]) -> None:
    root, _ = built
    (root / "reports/site/phish.html").write_text("<a href=x>login</a>")
    code, out = survey("build", "--check", root=root)
    assert code == 1
    assert "extra: reports/site/phish.html" in out
    code, _ = survey("build", root=root)
    assert code == 0
    assert not (root / "reports/site/phish.html").exists()


# Both builds: the full one, and the incremental one that finds nothing changed (it once
# returned before the sweep, leaving a killed build's files behind).
@pytest.mark.parametrize("no_cache", ["1", "0"])
def test_a_killed_builds_temporary_files_are_cleaned_up(
    built: tuple[Path, Path], no_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = built
    monkeypatch.setenv("SURVEY_NO_CACHE", no_cache)
    if no_cache == "0":
        assert survey("build", root=root)[0] == 0  # the manifest of an up-to-date tree
    left = [root / ".README.md.k2j3h4.tmp", root / "reports/site/.index.html.abc123.tmp"]
    for p in left:
        p.write_text("half")
    code, out = survey("build", "--check", root=root)
    assert code == 0, out  # not outputs: a check does not fail on them
    code, _ = survey("build", root=root)
    assert code == 0
    assert not any(p.exists() for p in left)
