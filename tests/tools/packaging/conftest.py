"""Tools the packaging tests run: cffconvert (in a virtual environment of its own)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# cffconvert 2.0 pins jsonschema<4, which the toolkit cannot share (it needs >=4.18), so it is
# installed apart (.ci/run: a venv of its own) and found here: $CFFCONVERT, that venv, or PATH.
CI_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "survey-tools-ci" / \
    "cffconvert" / "bin" / "cffconvert"


@pytest.fixture
def cffconvert() -> str:
    for candidate in (os.environ.get("CFFCONVERT"), str(CI_VENV), shutil.which("cffconvert")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    if os.environ.get("CI"):
        pytest.fail(f"cffconvert is not installed (.ci/run puts it in {CI_VENV.parent.parent})")
    pytest.skip("cffconvert is not installed: python3 -m venv V && V/bin/pip install "
                "cffconvert==2.0.0, then CFFCONVERT=V/bin/cffconvert")
