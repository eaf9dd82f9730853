"""Imports are at the top of their module, where a reader sees what it depends on: at most
``LIMIT`` imports inside functions (tools/function_imports.py), each of a heavy or optional
library and each with the reason in a comment beside it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))

from function_imports import LIMIT, function_imports  # noqa: E402


def test_few_imports_inside_functions_each_with_its_reason() -> None:
    found = function_imports()
    listing = "\n".join(str(f) for f in found)
    assert len(found) <= LIMIT, (
        f"{len(found)} imports inside functions (at most {LIMIT}):\n{listing}"
    )
    unexplained = [str(f) for f in found if not f.reason]
    assert not unexplained, "imports inside functions without a reason:\n" + "\n".join(unexplained)


def test_no_import_of_the_package_itself_inside_a_function() -> None:
    # The package's own modules are never heavy: a late import of one hides a layering problem.
    inner = [
        str(f)
        for f in function_imports()
        if any(m.startswith(("survey_tools", ".")) for m in f.modules)
    ]
    assert not inner, "the package imported inside functions:\n" + "\n".join(inner)
