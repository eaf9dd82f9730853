"""Every test module is collected: no folder of tests/ matches pytest's ``norecursedirs``."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_folder_is_skipped_by_norecursedirs(pytestconfig: pytest.Config) -> None:
    patterns = pytestconfig.getini("norecursedirs")
    skipped = sorted(
        str(module.relative_to(TESTS.parent))
        for module in TESTS.rglob("test_*.py")
        if any(fnmatch.fnmatch(part, pat) for part in module.relative_to(TESTS).parts[:-1] for pat in patterns)
    )
    assert skipped == [], f"folders pytest does not enter hold tests: {skipped}"
