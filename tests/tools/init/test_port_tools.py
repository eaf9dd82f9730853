"""The tests of test_port.py that run a real outside program on what the toolkit writes: the
ported list's README under awesome-lint (Node.js)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.external_tools import missing_awesome_lint
from helpers.external_tools import node as external_node
from helpers.init_support import REPO
from helpers.port_cases import port as port  # a fixture, found by name


def test_readme_passes_awesome_lint(port: Path) -> None:
    why = missing_awesome_lint()
    if why is not None:
        pytest.skip(why)
    node = external_node()
    assert node is not None
    res = subprocess.run(
        [node, str(REPO / "tools" / "awesome-lint.mjs"), "README.md"],
        cwd=port,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "awesome-lint: ok" in res.stdout
