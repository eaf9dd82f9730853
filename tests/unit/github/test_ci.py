"""CI on GitHub runs what .ci/run runs: both call tools/ci.sh; the pull-request workflow runs
what ``tools/ci.sh pull-request`` runs (the privileged report workflow: test_pr_report.py); main's
regeneration commits once and is loop-safe; actions are pinned to commits."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers.support import REPO

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
    # python3 3.11.2, below tarfile's filter= (3.11.4); pinned by digest
    assert re.fullmatch(r"debian:12@sha256:[0-9a-f]{64}", job["container"])
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


# The privileged report workflow: tests/acceptance/github/test_pr_report.py runs its steps.


def test_regeneration_is_least_privilege_and_loop_safe() -> None:
    wf = workflow("regenerate.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"] == {}
    assert wf["concurrency"]["cancel-in-progress"] is False
    job = wf["jobs"]["regenerate"]
    assert job["permissions"] == {"contents": "write"}
    # who pushed decides, not words a pull request's title can carry into the merge commit
    assert job["if"] == "${{ github.actor != 'github-actions[bot]' }}"
    assert "head_commit" not in (REPO / ".github/workflows/regenerate.yml").read_text()
    steps = job["steps"]
    assert steps[0]["with"]["persist-credentials"] is False
    assert [s.get("run") for s in steps if "run" in s][:2] == [
        "tools/ci.sh install-survey", "tools/ci.sh regenerate"]
    with_token = [s["name"] for s in steps if "github.token" in str(s.get("env", {}))]
    assert with_token == ["Push the commit"]


def evaluate(condition: str, context: dict[str, str]) -> bool:
    """A workflow `if:` of comparisons joined by && and ||, evaluated on ``context``."""
    expr = condition.strip().removeprefix("${{").removesuffix("}}")
    expr = re.sub(r"[a-z_]+(?:\.[a-z_]+)+", lambda m: repr(context.get(m.group(), "")), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("!=", "!=").replace("'", '"')
    return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 - the workflow's own comparisons


@pytest.mark.parametrize(("actor", "message", "runs"), [
    ("alice", "Merge pull request #7: Add a paper [survey-regenerate]", True),  # words decide nothing
    ("alice", "Add a paper", True),
    ("github-actions[bot]", "Regenerate the outputs from the records", False),
    ("github-actions[bot]", "anything at all", False),
])
def test_regeneration_is_decided_by_who_pushed(actor: str, message: str, runs: bool) -> None:
    context = {"github.actor": actor, "github.event.head_commit.message": message, "github.event_name": "push"}
    assert evaluate(workflow("regenerate.yml")["jobs"]["regenerate"]["if"], context) is runs
    scaffold = yaml.safe_load(__import__("survey_tools.adopt.init", fromlist=["workflow"]).workflow())
    assert evaluate(scaffold["jobs"]["regenerate"]["if"], context) is runs


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
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s+#\s+v\d+\.\d+\.\d+", comment), (ref, comment)


def test_dependabot_watches_actions_and_pip() -> None:
    cfg = yaml.safe_load((REPO / ".github" / "dependabot.yml").read_text())
    assert cfg["version"] == 2
    assert {u["package-ecosystem"] for u in cfg["updates"]} == {"github-actions", "pip"}


# --- .gitattributes: every output of the build is marked ------------------------------------------


