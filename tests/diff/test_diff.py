"""``survey diff`` on a throw-away git repository holding a copy of the real survey."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[2]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   cwd=root, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diff") / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / name, root / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def run(root: Path, *args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["--root", str(root), *args])
    return res.exit_code, res.stdout, res.stderr


def test_no_change(repo: Path) -> None:
    code, out, _ = run(repo, "diff")
    assert code == 0
    assert out.endswith("\n\nNo record, statistic, gap cell or claim changes.\n")


def test_changes_are_reported(repo: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(repo, work)
    c3 = work / "corpus/c3.yaml"
    c3.write_text(c3.read_text().replace("credit_granularity: message",
                                         "credit_granularity: agent"))
    (work / "corpus/marft.yaml").unlink()
    code, out, err = run(work, "diff", "--base", "HEAD")
    assert code == 0, err
    assert "**Removed (1)**: `corpus/marft.yaml`\n" in out
    assert "| `corpus/c3.yaml` | credit_granularity | message | agent |\n" in out
    assert "| headline/retained | 84 | 83 |\n" in out
    assert "| credit_granularity/message | 2 | 1 |\n" in out
    assert "| credit_granularity-x-reward_family/broad/message/R1 | 1 | 0 |\n" in out
    assert "| message-credit | 2 (holds) | 1 (fails) |\n" in out


def test_bad_revision(repo: Path) -> None:
    code, _, err = run(repo, "diff", "--base", "no-such-rev")
    assert code == 2
    assert err == "error: no-such-rev is not a revision of this repository\n"
