"""Fixtures for the trace tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from trace_paths import SURVEY_EXAMPLE


@pytest.fixture
def survey_example() -> Path:
    if not SURVEY_EXAMPLE.is_file():
        pytest.skip(f"the survey's example trace is not at {SURVEY_EXAMPLE} (../shared missing)")
    return SURVEY_EXAMPLE
