"""CI on GitHub runs what .ci/run runs: both call tools/ci.sh; actions are pinned to commits;
the survey diff reaches the job summary and one pull-request comment (tested with a stand-in
``gh`` that records its calls)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CI = REPO / "tools" / "ci.sh"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def workflow(name: str) -> dict:
    data = yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps_of_all() -> list[str]:
    res = subprocess.run([str(CI), "--list"], capture_output=True, text=True, check=True)
    return res.stdout.split()


def test_ci_run_is_the_script() -> None:
    text = (REPO / ".ci" / "run").read_text()
    assert re.search(r'^exec "\$\(dirname "\$0"\)/\.\./tools/ci\.sh" all$', text, re.M)
    assert steps_of_all() == ["install", "system", "ruff", "mypy", "actionlint", "validate",
                              "build-check", "awesome-lint", "test"]
    assert 'python3 -m pytest -q\n' in CI.read_text()  # the README's test command


def test_the_workflow_runs_every_step_of_the_script() -> None:
    job = workflow("ci.yml")["jobs"]["test"]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    called = [r.removeprefix("tools/ci.sh ").strip() for r in runs]
    assert all(r.startswith("tools/ci.sh ") for r in runs), runs
    assert called == [*steps_of_all(), "pr-diff"]


def test_the_workflow_has_caches_timeouts_concurrency_and_a_matrix() -> None:
    wf = workflow("ci.yml")
    job = wf["jobs"]["test"]
    assert job["timeout-minutes"] <= 60
    assert wf["concurrency"]["cancel-in-progress"] is True and "github.ref" in wf["concurrency"]["group"]
    assert job["strategy"]["matrix"]["python-version"] == ["3.11", "3.12", "3.13"]
    by_action = {s["uses"].split("@")[0]: s for s in job["steps"] if "uses" in s}
    assert by_action["actions/setup-python"]["with"]["cache"] == "pip"
    assert by_action["actions/setup-node"]["with"]["cache"] == "npm"
    assert by_action["actions/checkout"]["with"]["fetch-depth"] == 0
    diff = job["steps"][-1]
    assert diff["run"] == "tools/ci.sh pr-diff"
    assert "always()" in diff["if"] and "matrix.python-version == '3.13'" in diff["if"]
    assert "head.repo.full_name == github.repository" in diff["env"]["COMMENT"]
    assert job["permissions"]["pull-requests"] == "write"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_full_commit_shas(path: Path) -> None:
    uses = re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", path.read_text(), re.M)
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s+#\s+v\d+\.\d+\.\d+", comment), (ref, comment)


def test_dependabot_watches_actions_and_pip() -> None:
    cfg = yaml.safe_load((REPO / ".github" / "dependabot.yml").read_text())
    assert cfg["version"] == 2
    assert {u["package-ecosystem"] for u in cfg["updates"]} == {"github-actions", "pip"}


# --- the pr-diff step, with stand-ins for `survey` (this checkout) and `gh` (a recorder) -------

FAKE_GH = """#!/usr/bin/env python3
import json, os, sys
log = os.environ["GH_LOG"]
args = sys.argv[1:]
body = next((a[len("body=@"):] for a in args if a.startswith("body=@")), None)
with open(log, "a") as fh:
    fh.write(json.dumps({"args": args, "body": open(body).read() if body else None}) + "\\n")
if "-X" not in args:  # listing the comments
    sys.stdout.write(os.environ.get("GH_EXISTING", ""))
sys.exit(int(os.environ.get("GH_FAIL_WRITE", "0")) if "-X" in args else 0)
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          cwd=root, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def pr(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A survey repository with one commit on a pull-request branch, and the step's environment."""
    tmp = tmp_path_factory.mktemp("pr")
    root = tmp / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / name, root / name)
    (root / "tools").mkdir()
    shutil.copy2(CI, root / "tools" / "ci.sh")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD")
    (root / "corpus" / "marft.yaml").unlink()
    git(root, "commit", "-qam", "drop marft")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "survey").write_text(
        f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -c '
        '"from survey_tools.cli import main; main()" "$@"\n')
    (bin_dir / "gh").write_text(FAKE_GH)
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "RUNNER_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", BASE_SHA=base, PR_NUMBER="7",
               GITHUB_REPOSITORY="owner/survey", GH_TOKEN="not-a-token", RUNNER_TEMP=str(tmp))
    return root, env


def pr_diff(pr: tuple[Path, dict[str, str]], tmp_path: Path, **extra: str) -> tuple[subprocess.CompletedProcess[str], str, list[dict]]:
    root, env = pr
    summary, log = tmp_path / "summary.md", tmp_path / "gh.log"
    env = {**env, "GITHUB_STEP_SUMMARY": str(summary), "GH_LOG": str(log), **extra}
    res = subprocess.run([str(root / "tools" / "ci.sh"), "pr-diff"], env=env, capture_output=True, text=True, timeout=300)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return res, summary.read_text() if summary.exists() else "", calls


def test_a_forks_pull_request_gets_the_summary_only(pr: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    res, summary, calls = pr_diff(pr, tmp_path, COMMENT="false")
    assert res.returncode == 0, res.stderr
    assert summary.startswith("## Survey changes against ")
    assert "MARFT: Multi-Agent Reinforcement Fine-Tuning (`marft`)" in summary
    assert calls == []


def test_the_first_run_posts_one_comment(pr: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    res, summary, calls = pr_diff(pr, tmp_path, COMMENT="true")
    assert res.returncode == 0, res.stderr
    assert [c["args"][:2] for c in calls] == [["api", "--paginate"], ["api", "--silent"]]
    post = calls[1]
    assert post["args"][2:5] == ["-X", "POST", "repos/owner/survey/issues/7/comments"]
    assert post["body"].startswith("<!-- survey-diff: updated by CI on every push -->\n## Survey changes")
    assert post["body"].endswith(summary)


def test_a_later_run_updates_that_comment(pr: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    res, _, calls = pr_diff(pr, tmp_path, COMMENT="true", GH_EXISTING="42\n")
    assert res.returncode == 0, res.stderr
    assert calls[1]["args"][2:5] == ["-X", "PATCH", "repos/owner/survey/issues/comments/42"]
    assert len(calls) == 2


def test_no_permission_is_a_warning_not_a_failure(pr: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    res, summary, _ = pr_diff(pr, tmp_path, COMMENT="true", GH_FAIL_WRITE="1")
    assert res.returncode == 0, res.stderr
    assert "::warning::survey diff: cannot comment" in res.stdout
    assert "## Survey changes" in summary
