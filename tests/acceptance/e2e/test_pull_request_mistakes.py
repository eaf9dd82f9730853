"""Whole pull requests that each add one record with one mistake, checked as CI checks them:
`bash tools/ci.sh pull-request` in a git repository (a base commit of the survey, a branch adding
the file, BASE_SHA set as the pull-request workflow sets it). The records are cases of
tests/data/contrib/ (bytes as GitHub's web editor saves them). A good record passes however it
is saved; a syntax mistake fails at validate with words that say what to type; a record saved
where no record is read fails naming corpus/: at the root (validate never looks there) at
check-paths, inside corpus/ (a sub-folder, no .yaml) already at validate.
Contributors never see the maintainers' repository warning."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.contrib_cases import cases
from helpers.survey_copy import copy_edition

REPO = Path(__file__).resolve().parents[3]
CASES = {c.name: c for c in cases()}


class Repo:
    def __init__(self, root: Path, tmp: Path) -> None:
        self.root = root
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        survey = bin_dir / "survey"
        survey.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -c "from survey_tools.cli import main; main()" "$@"\n'
        )
        survey.chmod(0o755)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "RUNNER_", "BASE_SHA", "PR_", "SURVEY_"))
        }
        self.env.update(
            PATH=f"{bin_dir}{os.pathsep}{self.env['PATH']}",
            PYTHONPATH=str(REPO),
            SURVEY_PR_OUT=str(tmp / "pr-out"),
            XDG_CACHE_HOME=str(tmp / "cache"),
            GIT_AUTHOR_NAME="Contributor",
            GIT_AUTHOR_EMAIL="c@example.org",
            GIT_COMMITTER_NAME="Contributor",
            GIT_COMMITTER_EMAIL="c@example.org",
        )

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            cwd=self.root,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=900,
        )

    def git(self, *args: str) -> str:
        res = self.run("git", *args)
        assert res.returncode == 0, res.stderr
        return res.stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    tmp = tmp_path_factory.mktemp("pr-mistakes")
    root = copy_edition(tmp / "survey")
    (root / "tools").mkdir()
    shutil.copy2(REPO / "tools" / "ci.sh", root / "tools" / "ci.sh")
    r = Repo(root, tmp)
    r.git("init", "-q", "-b", "main")
    r.git("add", "-A")
    r.git("commit", "-qm", "the survey")
    return r


def pull_request(repo: Repo, name: str) -> subprocess.CompletedProcess[str]:
    """A branch off main that adds the case's file, checked by `tools/ci.sh pull-request`."""
    case = CASES[name]
    base = repo.git("rev-parse", "main")
    repo.git("checkout", "-q", "-b", f"pr-{name}", "main")
    target = repo.root / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(case.data())
    repo.git("add", "-A")
    repo.git("commit", "-qm", f"Add {case.path}")
    try:
        res = repo.run("bash", "tools/ci.sh", "pull-request", env={"BASE_SHA": base})
        assert repo.git("status", "--porcelain") == ""  # nothing written into the checkout
    finally:
        repo.git("checkout", "-q", "main")
    assert "Traceback" not in res.stderr, res.stderr
    assert "survey.repository" not in res.stdout + res.stderr  # a maintainer's setting
    return res


@pytest.mark.parametrize("name", ["good-record", "good-crlf", "good-bom", "blank-arxiv-left"])
def test_a_good_record_passes_however_it_is_saved(repo: Repo, name: str) -> None:
    res = pull_request(repo, name)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "== check-paths" in res.stdout and "0 with no place in the survey" in res.stderr


@pytest.mark.parametrize(
    ("name", "says", "never"),
    [
        (
            "title-colon-unquoted",
            "put it in quotes",
            "mapping values are not allowed in this context (line 4)\n",
        ),
        ("tab-indent", "indented with a tab", "cannot start any token:"),
        ("authors-on-one-line", "on its own line starting with '- '", "expected a list"),
        ("upper-case-file-name", "like zhang2026", "^["),
    ],
)
def test_a_record_mistake_fails_at_validate_in_plain_words(
    repo: Repo, name: str, says: str, never: str
) -> None:
    res = pull_request(repo, name)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "== validate" in res.stdout and "== pr-build" not in res.stdout
    assert CASES[name].spec["expected"][0] in res.stdout and says in out
    assert never not in res.stdout.split("\n    YAML parser:")[0]


def test_a_record_at_the_root_passes_validate_and_fails_at_check_paths(repo: Repo) -> None:
    res = pull_request(repo, "record-at-root")
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    # validate and the build pass (the file is never read); the path check stops it
    assert (
        "== pr-build" in res.stdout
        and "== check-paths" in res.stdout
        and "== pr-report" not in res.stdout
    )
    assert CASES["record-at-root"].spec["expected"][0] in res.stdout
    assert "records live in corpus/KEY.yaml" in res.stdout


@pytest.mark.parametrize("name", ["record-in-sub-folder", "record-without-extension"])
def test_a_record_in_the_folder_but_not_read_fails_and_names_corpus(repo: Repo, name: str) -> None:
    res = pull_request(repo, name)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "== validate" in res.stdout and "== pr-build" not in res.stdout  # validate reports it
    assert "records live" in res.stdout and "corpus/KEY.yaml" in res.stdout
