"""GitHub files: workflows pass actionlint; the issue form lists exactly the taxonomy's values."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from survey_tools.corpus.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parents[2]
ACTIONLINT = shutil.which("actionlint")
needs_actionlint = pytest.mark.skipif(
    ACTIONLINT is None, reason="actionlint is not installed (pip install -e '.[test]')"
)


@needs_actionlint
def test_workflows_pass_actionlint() -> None:
    res = subprocess.run([ACTIONLINT or "actionlint", "-no-color"], cwd=REPO,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


@needs_actionlint
def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n"
                   "    steps:\n      - run: echo ${{ github.nope }}\n")
    res = subprocess.run([ACTIONLINT or "actionlint", "-no-color", str(bad)],
                         capture_output=True, text=True)
    assert res.returncode == 1
    assert "nope" in res.stdout


def test_issue_form_lists_the_taxonomy() -> None:
    tax = load_taxonomy(REPO)
    form = yaml.safe_load((REPO / ".github/ISSUE_TEMPLATE/add-paper.yml").read_text())
    dropdowns = {b["id"]: b["attributes"]["options"] for b in form["body"]
                 if b["type"] == "dropdown"}
    for cf in tax.retained.controlled:
        if cf.kind == "mapping":
            for v in cf.values:
                assert dropdowns[f"{cf.name}-{v.id}"] == list(cf.mode_ids)
        else:
            extra = [tax.na] if cf.not_applicable else []
            assert dropdowns[cf.name] == [*cf.ids, *extra]


def test_pre_commit_hooks() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"]) for h in hooks] == [
        ("survey-validate", "survey validate"), ("survey-build-check", "survey build --check")]
