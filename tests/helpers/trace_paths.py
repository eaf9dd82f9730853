"""Paths the trace tests share: examples and real runs, all in the repository."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "traces"
# Copies of upstream data (origin, licence and sha256 in tests/fixtures/SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures"
SURVEY_EXAMPLE = FIXTURES / "survey-artifact" / "example_trace.json"
WHO_AND_WHEN = FIXTURES / "who-and-when"
