"""No function or method in the library is longer than 80 lines (issue 22 found 15 that were,
each doing several jobs); a long one is split by what it does, not by where it could be cut."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "survey_tools"
LIMIT = 80


def _long_functions(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > LIMIT:
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {node.name} is {length} lines")
    return found


def test_no_function_is_longer_than_80_lines() -> None:
    assert _long_functions() == []


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    pkg = tmp_path / "survey_tools"
    pkg.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (pkg / "long.py").write_text(f"def f():\n{body}\n", encoding="utf-8")
    (pkg / "short.py").write_text("def g():\n    return 1\n", encoding="utf-8")
    assert _long_functions(pkg) == [f"survey_tools/long.py:1: f is {LIMIT + 1} lines"]
