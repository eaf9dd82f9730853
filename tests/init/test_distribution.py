"""The toolkit's distribution name is its own, and the workflow an adopter gets pins it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from survey_tools._version import DISTRIBUTION, __version__
from tests.init.support import REPO, run


def test_pyproject_uses_the_distribution_name() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["name"] == DISTRIBUTION == "survey-corpus-tools"
    # the import package and the command keep their names
    assert meta["scripts"] == {"survey": "survey_tools.cli:main"}


def test_scaffolded_workflow_pins_the_toolkit(tmp_path: Path) -> None:
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0, res.output
    workflow = (root / ".github" / "workflows" / "survey.yml").read_text(encoding="utf-8")
    assert f'pip install "{DISTRIBUTION}=={__version__}"' in workflow
    assert "survey-tools" not in workflow.replace(DISTRIBUTION, "")


def test_version_option_does_not_depend_on_the_installed_name(tmp_path: Path) -> None:
    res = run(tmp_path, "--version")
    assert res.exit_code == 0 and __version__ in res.output


def test_scaffolded_workflow_takes_record_only_pull_requests(tmp_path: Path) -> None:
    # The adopter's CONTRIBUTING says a pull request carries records and main regenerates: the
    # workflow must agree (no `build --check` on pull requests; a write token only where main's
    # outputs are committed), and actionlint must accept it.
    import shutil
    import subprocess

    import yaml

    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0, res.output
    path = root / ".github" / "workflows" / "survey.yml"
    jobs = yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]
    check_runs = [s.get("run", "") for s in jobs["check"]["steps"]]
    assert "survey validate" in check_runs and "survey build" in check_runs
    assert not any("--check" in r for r in check_runs)
    assert "survey check-paths --built ." in check_runs  # a record saved outside corpus/ fails
    assert jobs["check"]["permissions"] == {"contents": "read"}
    assert jobs["regenerate"]["permissions"] == {"contents": "write"}
    assert "[survey-regenerate]" in jobs["regenerate"]["if"]
    actionlint = shutil.which("actionlint")
    if actionlint:
        done = subprocess.run([actionlint, str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
