"""The hostile inputs padded to a mebibyte or more (``% pad`` in their ``.expected`` file, 100 MiB
each): each ends with its exact message within the case's time limit, never a traceback or a
half-written file."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.hostile import case_id, cases, check_case

HUGE = cases(huge=True)


def test_the_huge_cases_are_there() -> None:
    # a case of each reader that takes a whole file: records, claims, audit, CSV, taxonomy,
    # traces and an importer
    assert {p.parent.name for p in HUGE} >= {
        "records",
        "claims",
        "audit",
        "csv",
        "taxonomy",
        "traces",
        "importers",
    }


@pytest.mark.parametrize("expected", HUGE, ids=map(case_id, HUGE))
def test_huge_hostile_case(expected: Path, tmp_path: Path) -> None:
    check_case(expected, tmp_path)
