"""CI on GitHub runs what .ci/run runs: both call tools/ci.sh; the pull-request workflow runs
what ``tools/ci.sh pull-request`` runs; the privileged report workflow never runs the pull
request's code and comments once (tested with a stand-in ``gh`` that records its calls); main's
regeneration commits once and is loop-safe; actions are pinned to commits."""

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
                              "build-check", "awesome-lint", "page-scripts", "test"]
    assert 'python3 -m pytest -q\n' in CI.read_text()  # the README's test command


def test_the_workflow_runs_every_step_of_the_script() -> None:
    job = workflow("ci.yml")["jobs"]["test"]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    called = [r.removeprefix("tools/ci.sh ").strip() for r in runs]
    assert all(r.startswith("tools/ci.sh ") for r in runs), runs
    assert called == steps_of_all()


def test_build_check_runs_only_when_started_by_hand() -> None:
    # main is regenerated after every push (regenerate.yml): a pull request or the push that the
    # bot commit follows would always be "stale"; a maintainer's manual run checks main.
    wf = workflow("ci.yml")
    step = next(s for s in wf["jobs"]["test"]["steps"] if s.get("run") == "tools/ci.sh build-check")
    assert "github.event_name == 'workflow_dispatch'" in step["if"]
    assert "workflow_dispatch" in wf["on"]
    # a pull request carrying only records is the pull-request workflow's alone
    assert wf["on"]["pull_request"]["paths-ignore"] == ["corpus/**", "exclusions/**", "data/corrections.yaml"]


def test_the_lowest_python_is_debian_12s() -> None:
    job = workflow("ci.yml")["jobs"]["lowest-python"]
    assert job["container"] == "debian:12"  # python3 3.11.2, below tarfile's filter= (3.11.4)
    script = job["steps"][-1]["run"]
    assert "python3 -m venv .venv && . .venv/bin/activate" in script
    assert "pip install -c constraints.txt -e ." in script and "survey diff" in script
    project = (REPO / "pyproject.toml").read_text()
    assert 'requires-python = ">=3.11"' in project


def steps_of(group: str) -> list[str]:
    res = subprocess.run([str(CI), f"--list-{group}"], capture_output=True, text=True, check=True)
    return res.stdout.split()


def test_the_pull_request_workflow_runs_exactly_the_script() -> None:
    wf = workflow("pull-request.yml")
    assert list(wf["on"]) == ["pull_request"]
    assert wf["permissions"] == {"contents": "read"}
    job = wf["jobs"]["check"]
    assert job["permissions"] == {"contents": "read"}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ["tools/ci.sh install-survey", "tools/ci.sh pull-request"]
    assert steps_of("pull-request") == ["validate", "pr-build", "check-paths", "pr-report"]
    text = CI.read_text()
    assert 'for s in "${PULL_REQUEST[@]}"; do run_step "$s"; done ;;' in text
    # contributors never see the maintainers' warnings; the base is the pull request's
    assert "export SURVEY_MAINTAINER_WARNINGS=0" in text
    pr_step = next(s for s in job["steps"] if s.get("run") == "tools/ci.sh pull-request")
    assert pr_step["env"]["BASE_SHA"] == "${{ github.event.pull_request.base.sha }}"
    upload = job["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "${{ always() }}"
    assert upload["with"]["name"] == "review-report"
    checkout = job["steps"][0]
    assert checkout["with"]["persist-credentials"] is False


def test_the_privileged_report_workflow_never_runs_the_pull_requests_code() -> None:
    wf = workflow("pull-request-report.yml")
    assert list(wf["on"]) == ["workflow_run"]
    assert wf["on"]["workflow_run"]["workflows"] == [workflow("pull-request.yml")["name"]]
    assert wf["permissions"] == {}
    [job] = wf["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert job["timeout-minutes"] <= 10
    text = (REPO / ".github/workflows/pull-request-report.yml").read_text()
    # no checkout, no action at all (so nothing of the pull request's is fetched), no install,
    # no tool of this repository, no event text in a script
    assert all("uses" not in s for s in job["steps"])
    for s in job["steps"]:
        run = s["run"]
        # a program at a command's start: line start, after ; & | ! ( or if/then/do/exec
        command = r"(?m)(^|[;&|!(]|\bif|\bthen|\bdo|\bexec)\s*({})(\s|$)"
        programs = r"survey|python3?|pip3?|git|bash|sh|npm|npx|node|source|eval|chmod|\."
        for banned in (command.format(programs), r"checkout", r"tools/", r"\$\{\{", r"\./"):
            assert not re.search(banned, run), (banned, s["name"])
    assert "head_branch" not in text and "head_commit" not in text and "pull_request_target" not in text
    assert "head.sha" in text  # the artifact's pull-request number is checked against the run


def test_regeneration_is_least_privilege_and_loop_safe() -> None:
    wf = workflow("regenerate.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"] == {}
    assert wf["concurrency"]["cancel-in-progress"] is False
    job = wf["jobs"]["regenerate"]
    assert job["permissions"] == {"contents": "write"}
    assert "[survey-regenerate]" in job["if"]
    steps = job["steps"]
    assert steps[0]["with"]["persist-credentials"] is False
    assert [s.get("run") for s in steps if "run" in s][:2] == [
        "tools/ci.sh install-survey", "tools/ci.sh regenerate"]
    with_token = [s["name"] for s in steps if "github.token" in str(s.get("env", {}))]
    assert with_token == ["Push the commit"]
    assert "[survey-regenerate]" in CI.read_text()


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_has_a_timeout_and_its_own_permissions(path: Path) -> None:
    wf = workflow(path.name)
    assert wf["permissions"] in ({}, {"contents": "read"}), path.name
    for name, job in wf["jobs"].items():
        assert 0 < job["timeout-minutes"] <= 60, (path.name, name)
        assert "permissions" in job, (path.name, name)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_pipes_fail_and_checkouts_keep_no_token(path: Path) -> None:
    wf = workflow(path.name)
    for name, job in wf["jobs"].items():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, (path.name, name)
            run = step.get("run", "")
            if re.search(r"(?<![|])\|(?![|])", run):
                assert "set -o pipefail" in run or "set -euo pipefail" in run, (path.name, step.get("name"))


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
    assert job["permissions"] == {"contents": "read"}  # the report is pull-request-report.yml's


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_full_commit_shas(path: Path) -> None:
    uses = re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", path.read_text(), re.M)
    if path.name == "pull-request-report.yml":  # privileged: runs no action at all
        assert uses == []
        return
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s+#\s+v\d+\.\d+\.\d+", comment), (ref, comment)


def test_dependabot_watches_actions_and_pip() -> None:
    cfg = yaml.safe_load((REPO / ".github" / "dependabot.yml").read_text())
    assert cfg["version"] == 2
    assert {u["package-ecosystem"] for u in cfg["updates"]} == {"github-actions", "pip"}


# --- the report comment, run from the workflow's own script with a stand-in ``gh`` -------------

FAKE_GH = """#!/usr/bin/env python3
import json, os, sys
log = os.environ["GH_LOG"]
args = sys.argv[1:]
body = next((a[len("body=@"):] for a in args if a.startswith("body=@")), None)
with open(log, "a") as fh:
    fh.write(json.dumps({"args": args, "body": open(body).read() if body else None}) + "\\n")
if args[:2] == ["api", "--paginate"]:  # listing the comments
    sys.stdout.write(os.environ.get("GH_EXISTING", ""))
elif "-X" not in args:  # the pull request's head
    sys.stdout.write(os.environ.get("GH_HEAD", "abc") + "\\n")
sys.exit(0)
"""


def comment_script() -> str:
    job = workflow("pull-request-report.yml")["jobs"]["comment"]
    return next(s["run"] for s in job["steps"] if s["name"] == "Post or update the comment")


def post(tmp_path: Path, report: str | None, number: str | None, **extra: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    bin_dir, report_dir = tmp_path / "bin", tmp_path / "report"
    bin_dir.mkdir()
    report_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "gh").chmod(0o755)
    if report is not None:
        (report_dir / "report.md").write_text(report)
    if number is not None:
        (report_dir / "pr-number").write_text(number)
    log = tmp_path / "gh.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "RUNNER_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", GH_LOG=str(log), GH_REPO="owner/survey",
               HEAD_SHA="abc", REPORT_DIR=str(report_dir), RUNNER_TEMP=str(tmp_path), **extra)
    res = subprocess.run(["bash", "-c", comment_script()], env=env, capture_output=True, text=True, timeout=60)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return res, calls


REPORT = "## Survey changes against `0123456789ab`\n\n### Added to Papers (1)\n"


def test_the_first_report_posts_one_comment(tmp_path: Path) -> None:
    res, calls = post(tmp_path, REPORT, "7\n")
    assert res.returncode == 0, res.stderr
    assert [c["args"][:2] for c in calls] == [["api", "repos/owner/survey/pulls/7"], ["api", "--paginate"],
                                              ["api", "--silent"]]
    assert calls[2]["args"][2:5] == ["-X", "POST", "repos/owner/survey/issues/7/comments"]
    assert calls[2]["body"] == "<!-- survey-report: updated by CI on every push -->\n" + REPORT


def test_a_later_report_updates_that_comment(tmp_path: Path) -> None:
    res, calls = post(tmp_path, REPORT, "7", GH_EXISTING="42\n")
    assert res.returncode == 0, res.stderr
    assert calls[-1]["args"][2:5] == ["-X", "PATCH", "repos/owner/survey/issues/comments/42"]


def test_an_artifact_naming_another_pull_request_is_not_believed(tmp_path: Path) -> None:
    res, calls = post(tmp_path, REPORT, "8", GH_HEAD="def")
    assert res.returncode == 0, res.stderr
    assert "not commenting" in res.stdout
    assert [c for c in calls if "-X" in c["args"]] == []


@pytest.mark.parametrize("number", ["7; rm -rf /", "$(id)", "-1", "1234567890123"])
def test_a_pull_request_number_that_is_not_a_number_fails(tmp_path: Path, number: str) -> None:
    res, calls = post(tmp_path, REPORT, number)
    assert res.returncode == 1
    assert calls == []


def test_no_report_no_comment(tmp_path: Path) -> None:
    res, calls = post(tmp_path, None, None)
    assert res.returncode == 0 and calls == []


def test_a_huge_report_is_cut(tmp_path: Path) -> None:
    res, calls = post(tmp_path, REPORT + "x" * 100_000, "7")
    assert res.returncode == 0, res.stderr
    body = calls[-1]["body"]
    assert len(body.encode()) < 60_200 and "cut at 60,000 bytes" in body


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          cwd=root, check=True, capture_output=True, text=True).stdout.strip()


# --- .gitattributes: every output of the build is marked ------------------------------------------


def test_gitattributes_is_what_the_script_writes() -> None:
    res = subprocess.run([sys.executable, str(REPO / "tools" / "gitattributes.py"), "--root", str(REPO),
                          "--check"], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert res.returncode == 0, res.stderr


def test_every_output_is_generated_and_merges(tmp_path: Path) -> None:
    from survey_tools.build import plan_build

    outputs = sorted(plan_build(REPO).outputs)
    root = tmp_path / "attrs"
    root.mkdir()
    shutil.copy2(REPO / ".gitattributes", root / ".gitattributes")
    git(root, "init", "-q")
    res = subprocess.run(["git", "check-attr", "--stdin", "linguist-generated", "merge"], cwd=root,
                         input="\n".join([*outputs, "corpus/c3.yaml"]) + "\n", capture_output=True, text=True, check=True)
    got: dict[str, dict[str, str]] = {}
    for line in res.stdout.splitlines():
        path, attr, value = line.split(": ")
        got.setdefault(path, {})[attr] = value
    missing = [p for p in outputs if got[p] != {"linguist-generated": "true", "merge": "survey-generated"}]
    assert missing == []
    assert got["corpus/c3.yaml"] == {"linguist-generated": "unspecified", "merge": "unspecified"}
