"""Where the tests find ASReview LAB's Python. LAB pins pandas and rispy below the toolkit's, so
it lives in a virtual environment of its own (tools/ci.sh step_install): $ASREVIEW_PYTHON, or
that environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ASREVIEW_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "survey-tools-ci" / \
    "asreview" / "bin" / "python"


def find_asreview_python() -> str:
    """LAB's interpreter, or the test is skipped (failed on CI, where tools/ci.sh installs it)."""
    for candidate in (os.environ.get("ASREVIEW_PYTHON"), str(ASREVIEW_VENV)):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    if os.environ.get("CI"):
        pytest.fail(f"ASReview LAB is not installed (tools/ci.sh puts it in {ASREVIEW_VENV.parent.parent})")
    pytest.skip("ASReview LAB is not installed: python3 -m venv V && V/bin/pip install asreview==3.0.8, "
                "then ASREVIEW_PYTHON=V/bin/python (the committed exports in tests/fixtures/asreview "
                "are tested without it)")
