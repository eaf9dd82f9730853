"""Fixtures for the trace tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.trace_paths import SURVEY_EXAMPLE


@pytest.fixture
def survey_example() -> Path:
    return SURVEY_EXAMPLE
