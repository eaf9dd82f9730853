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
import re
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


def branch_change(repo: Repo, name: str, change, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    """A branch off main whose one commit is ``change(root)`` (deleting, renaming, editing
    files), checked by `tools/ci.sh pull-request` as the workflow checks it."""
    base = repo.git("rev-parse", "main")
    repo.git("checkout", "-q", "-b", f"pr-{name}", "main")
    change(repo.root)
    repo.git("add", "-A")
    repo.git("commit", "-qm", name)
    try:
        res = repo.run("bash", "tools/ci.sh", "pull-request", env={"BASE_SHA": base, **(env or {})})
    finally:
        repo.git("checkout", "-q", "-f", "main")
    assert "Traceback" not in res.stderr, res.stderr
    return res


def _rekey(root: Path, old: str, new: str) -> None:
    text = (root / f"corpus/{old}.yaml").read_text(encoding="utf-8")
    (root / f"corpus/{old}.yaml").unlink()
    (root / f"corpus/{new}.yaml").write_text(
        re.sub(rf"^key: {old}\b", f"key: {new}", text, count=1, flags=re.M), encoding="utf-8"
    )


def test_a_survey_v1_record_deleted_fails_naming_the_edition_and_corrections(repo: Repo) -> None:
    res = branch_change(repo, "delete-v1", lambda r: (r / "corpus/agent-lightning.yaml").unlink())
    assert res.returncode == 1
    assert (
        "corpus/agent-lightning.yaml: is a record of Survey v1 (2605.02801v1), a published "
        "edition, and is missing: its records are never deleted or renamed: restore the file; "
        "to remove or amend it, propose the change in data/corrections.yaml"
    ) in res.stdout


def test_a_survey_v1_record_renamed_is_told_to_go_back_to_its_key(repo: Repo) -> None:
    res = branch_change(repo, "rename-v1", lambda r: _rekey(r, "agent-qmix2026", "qmix-agents"))
    assert res.returncode == 1
    assert (
        "corpus/qmix-agents.yaml:1:6: key: this is 'agent-qmix2026' of Survey v1 (2605.02801v1) "
        "renamed: a published edition's records keep their keys: rename the file back to "
        "agent-qmix2026.yaml"
    ) in res.stdout
    assert "write `edition: living`" not in res.stdout  # the wrong fix of round 4


@pytest.fixture(scope="module")
def living(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """The survey with one living record on main (the good case's, corpus/relay-credit.yaml)."""
    tmp = tmp_path_factory.mktemp("pr-living")
    root = copy_edition(tmp / "survey")
    (root / "tools").mkdir()
    shutil.copy2(REPO / "tools" / "ci.sh", root / "tools" / "ci.sh")
    (root / "corpus/relay-credit.yaml").write_bytes(CASES["good-record"].data())
    r = Repo(root, tmp)
    r.git("init", "-q", "-b", "main")
    r.git("add", "-A")
    r.git("commit", "-qm", "the survey and one living record")
    return r


def test_a_living_record_deleted_is_named_by_the_pull_request_check(living: Repo) -> None:
    res = branch_change(
        living, "delete-living", lambda r: (r / "corpus/relay-credit.yaml").unlink()
    )
    assert res.returncode == 1
    assert "== check-paths" in res.stdout
    assert (
        "corpus/relay-credit.yaml: this pull request deletes the record 'relay-credit': a "
        "record leaves the list through `survey exclude relay-credit`"
    ) in res.stdout


def test_a_living_record_rekeyed_is_named_by_the_pull_request_check(living: Repo) -> None:
    res = branch_change(living, "rekey-living", lambda r: _rekey(r, "relay-credit", "relay"))
    assert res.returncode == 1
    assert (
        "corpus/relay.yaml: is the record 'relay-credit' (corpus/relay-credit.yaml) under a new "
        "key: a record's key never changes"
    ) in res.stdout


def _add_robotics(root: Path) -> None:
    path = root / "taxonomy/fields/scenario.yaml"
    path.write_text(
        path.read_text(encoding="utf-8") + "\n  - {id: robotics, label: Robotics, "
        "description: Embodied agents.}\n",
        encoding="utf-8",
    )


def test_a_contributors_taxonomy_value_fails_saying_to_propose_it_in_an_issue(repo: Repo) -> None:
    res = branch_change(
        repo, "taxonomy-value", _add_robotics, env={"PR_AUTHOR_ASSOCIATION": "FIRST_TIME_CONTRIBUTOR"}
    )
    assert res.returncode == 1
    assert (
        "taxonomy/fields/scenario.yaml: changes the survey's taxonomy (its fields, values or "
        "rules): it adds the value robotics to scenario; a contributor's pull request adds records "
        "only (CONTRIBUTING.md): undo the change to this file and propose it in an issue"
    ) in res.stdout


def test_a_taxonomy_value_a_maintainer_allowed_passes_with_what_they_check(repo: Repo) -> None:
    res = branch_change(
        repo, "taxonomy-value-allowed", _add_robotics,
        env={"PR_AUTHOR_ASSOCIATION": "FIRST_TIME_CONTRIBUTOR", "SURVEY_TAXONOMY_ALLOWED": "true"},
    )
    assert res.returncode == 0, res.stdout[-3000:]
    assert (
        "note: taxonomy/fields/scenario.yaml: changes the survey's taxonomy (its fields, values "
        "or rules): it adds the value robotics to scenario; allowed by the label taxonomy-change: "
        "the maintainer merging it checks that every record still validates"
    ) in res.stderr
