"""zizmor (pinned in the test extra) on the project's workflows and on a freshly scaffolded list's:
no finding of high severity, and no finding at all in its default persona. The one workflow_run
trigger is ignored inline, with the reason beside it (pull-request-report.yml)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.support import run

REPO = Path(__file__).resolve().parents[3]
ZIZMOR = shutil.which("zizmor")
pytestmark = pytest.mark.skipif(
    ZIZMOR is None, reason="zizmor is not installed (pip install -e '.[test]')"
)


def findings(folder: Path, persona: str) -> list[dict]:
    res = subprocess.run(
        [
            ZIZMOR or "zizmor",
            "--offline",
            "--no-progress",
            "--format",
            "json",
            "--persona",
            persona,
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode in (0, 10, 11, 12, 13, 14), res.stderr[
        -2000:
    ]  # 10+: findings, by severity
    return list(json.loads(res.stdout or "[]"))


def summary(found: list[dict]) -> list[tuple[str, str]]:
    return sorted((f["determinations"]["severity"], f["ident"]) for f in found)


def scaffolded(tmp_path: Path, *extra: str) -> Path:
    root = tmp_path / "list"
    res = run(
        root,
        "init",
        str(root),
        "--controlled",
        "kind=Method,Benchmark",
        "--title",
        "Scanned",
        *extra,
    )
    assert res.exit_code == 0, res.output
    return root / ".github" / "workflows"


def test_the_projects_workflows_have_no_findings() -> None:
    folder = REPO / ".github" / "workflows"
    assert summary(findings(folder, "regular")) == []
    assert [f for f in summary(findings(folder, "pedantic")) if f[0] in ("High", "Medium")] == []


@pytest.mark.parametrize(
    "extra",
    [
        (),
        (
            "--toolkit-repository",
            "https://github.com/example/survey-tools",
            "--toolkit-commit",
            "0123456789abcdef0123456789abcdef01234567",
        ),
    ],
)
def test_a_scaffolded_lists_workflows_have_no_high_findings(
    tmp_path: Path, extra: tuple[str, ...]
) -> None:
    folder = scaffolded(tmp_path, *extra)
    assert summary(findings(folder, "regular")) == []
    assert [f for f in summary(findings(folder, "pedantic")) if f[0] in ("High", "Medium")] == []
