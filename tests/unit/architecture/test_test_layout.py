"""Every test module is collected (no folder of tests/ matches pytest's ``norecursedirs``) and
lives in the folder of its kind (tests/conftest.py)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest
from helpers.kinds import KINDS, kind_of

TESTS = Path(__file__).resolve().parents[2]


def test_no_test_folder_is_skipped_by_norecursedirs(pytestconfig: pytest.Config) -> None:
    patterns = pytestconfig.getini("norecursedirs")
    skipped = sorted(
        str(module.relative_to(TESTS.parent))
        for module in TESTS.rglob("test_*.py")
        if any(
            fnmatch.fnmatch(part, pat)
            for part in module.relative_to(TESTS).parts[:-1]
            for pat in patterns
        )
    )
    assert skipped == [], f"folders pytest does not enter hold tests: {skipped}"


def test_every_test_module_is_in_a_folder_of_its_kind() -> None:
    outside = sorted(
        str(m.relative_to(TESTS.parent))
        for m in TESTS.rglob("test_*.py")
        if m.relative_to(TESTS).parts[0] not in ("data", "fixtures") and not kind_of(m)
    )
    assert outside == [], f"test modules outside {KINDS}: {outside}"
    assert {p.name for p in TESTS.iterdir() if p.is_dir()} >= set(KINDS)
