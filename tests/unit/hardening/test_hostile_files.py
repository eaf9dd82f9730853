"""Record discovery reads only regular files inside the survey; every other entry is named.

Links (to /etc/passwd, dangling, looping), pipes, folders named like records and file names that
cannot be printed on one line each get one clear problem line, never a traceback, a hang or the
content of a file outside the survey.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.cli import cli

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny-survey"
LINK = "is a symbolic link; records are read only from regular files inside the survey folder (copy the file in instead)"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "survey"
    shutil.copytree(TINY, root)
    return root


def validate(root: Path, *paths: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", *paths])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, (result.output + result.stderr).splitlines()


def test_links_pipes_and_folders_are_named_not_followed(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("title: TOP SECRET CONTENT\n")
    entries = root / "entries"
    (entries / "outside.yaml").symlink_to(secret)
    (entries / "dangling.yaml").symlink_to(entries / "nowhere.yaml")
    (entries / "loop.yaml").symlink_to("loop.yaml")
    (entries / "inside.yaml").symlink_to("oxidize.yaml")
    os.mkfifo(entries / "pipe.yaml")
    (entries / "folder.yaml").mkdir()
    code, lines = validate(root)
    assert code == 1
    for name in ("outside", "dangling", "loop", "inside"):
        assert f"entries/{name}.yaml: {LINK}" in lines
    assert "entries/pipe.yaml: is not a regular file (a pipe, device or socket); records are regular files" in lines
    assert "entries/folder.yaml: is a folder, not a record file" in lines
    assert not any("TOP SECRET" in line for line in lines)


def test_a_link_given_on_the_command_line_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "entries" / "alias.yaml").symlink_to("oxidize.yaml")
    code, lines = validate(root, str(root / "entries" / "alias.yaml"))
    assert code == 2
    assert any(LINK in line for line in lines)


def test_unprintable_file_names_are_one_line_each(root: Path) -> None:
    entries = root / "entries"
    (entries / "two\nlines.yaml").write_text("key: x\n")
    os.close(os.open(os.path.join(os.fsencode(entries), b"bad\xff.yaml"), os.O_CREAT | os.O_WRONLY))
    code, lines = validate(root)
    assert code == 1
    message = "file name is not valid UTF-8 or holds a control character; rename the file to its key"
    assert f"entries/two\\nlines.yaml: {message}" in lines
    assert f"entries/bad\\xff.yaml: {message}" in lines
