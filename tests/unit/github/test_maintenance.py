"""The maintenance workflow: scheduled, least privilege, every action pinned to a commit."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
WORKFLOW = REPO / ".github" / "workflows" / "maintenance.yml"


def test_schedule_and_manual_start() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text())
    on = doc[True]  # YAML 1.1 reads the key `on` as true
    crons = [s["cron"] for s in on["schedule"]]
    assert len(crons) == 2
    weekly, monthly = crons
    assert weekly.split()[2:] == ["*", "*", "1"]  # every Monday
    assert monthly.split()[2:] == ["1", "*", "*"]  # the 1st of every month
    assert "workflow_dispatch" in on
    jobs = doc["jobs"]
    assert weekly in jobs["links"]["if"] and monthly in jobs["refresh"]["if"]


def test_least_privilege() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc["permissions"] == {}
    assert doc["jobs"]["links"]["permissions"] == {"contents": "read", "issues": "write"}
    assert doc["jobs"]["refresh"]["permissions"] == {"contents": "write",
                                                     "pull-requests": "write"}


def test_actions_pinned_to_full_commits() -> None:
    uses = re.findall(r"uses:\s*(\S+)(.*)", WORKFLOW.read_text())
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s*#\s*v\d+(\.\d+)*", comment), f"{ref}: no version comment"


def test_runs_the_commands() -> None:
    text = WORKFLOW.read_text()
    assert "survey links --format md" in text
    assert "gh issue create" in text and "gh issue edit" in text
    assert "survey refresh --write --sources all --format md" in text and "gh pr create" in text
