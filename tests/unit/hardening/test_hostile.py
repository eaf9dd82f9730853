"""Every hostile input in tests/data/hostile/ ends with its exact message, never a traceback.
The cases padded to a mebibyte or more are in tests/stress/hardening/test_hostile_huge.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.hostile import case_id, cases, check_case

ALL = cases()
CASES = cases(huge=False)


def test_enough_cases() -> None:
    kinds = {p.parent.name for p in ALL}
    assert len(ALL) >= 60
    assert {
        "records",
        "exclusions",
        "taxonomy",
        "claims",
        "audit",
        "csv",
        "traces",
        "render",
    } <= kinds
    # the quick loop keeps a case of every kind but the huge importer one
    assert len(CASES) >= 50


@pytest.mark.parametrize("expected", CASES, ids=map(case_id, CASES))
def test_hostile_case(expected: Path, tmp_path: Path) -> None:
    check_case(expected, tmp_path)
