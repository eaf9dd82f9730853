"""Functions a reader can hold in mind: no function of the package has a cyclomatic grade of E or
F (radon: complexity above 30), which the 80-line cap of test_function_size.py does not see.

A function that fails is split by the decisions it makes (a table of rules, one helper per
branch family), not by moving lines around. ``python3 -m radon cc -s -n D survey_tools`` lists
the ones near the limit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity", reason="radon is in the test extra")

PACKAGE = Path(__file__).resolve().parents[3] / "survey_tools"
FAILING = ("E", "F")


def test_no_function_is_of_grade_e_or_f() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
            grade = radon_complexity.cc_rank(block.complexity)
            if grade in FAILING:
                found.append(
                    f"{rel}:{block.lineno}: {block.fullname}: {grade} ({block.complexity})"
                )
    assert not found, "functions of grade E or F (split them):\n" + "\n".join(found)
