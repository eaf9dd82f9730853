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
