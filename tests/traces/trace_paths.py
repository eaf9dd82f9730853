"""Paths the trace tests share: examples in the repository, real data beside it."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "traces"
SHARED = REPO / ".." / "shared" / "data"
SURVEY_EXAMPLE = SHARED / "survey-artifact" / "example_trace.json"
WHO_AND_WHEN = SHARED / "traces" / "who-and-when"
