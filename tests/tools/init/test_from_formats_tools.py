"""The tests of test_from_formats.py that run a real outside program on what the toolkit writes."""

from __future__ import annotations

from pathlib import Path

from helpers.external_tools import awesome_lint
from helpers.from_formats_cases import port as port  # a fixture, found by name


def test_readme_passes_awesome_lint(port: tuple[str, Path]) -> None:
    _, root = port
    res = awesome_lint(root)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "awesome-lint: ok" in res.stdout
