"""The tests of test_port.py that run a real outside program on what the toolkit writes: the
ported list's README under awesome-lint (Node.js)."""

from __future__ import annotations

from pathlib import Path

from helpers.external_tools import awesome_lint
from helpers.port_cases import port as port  # a fixture, found by name


def test_readme_passes_awesome_lint(port: Path) -> None:
    res = awesome_lint(port)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "awesome-lint: ok" in res.stdout
