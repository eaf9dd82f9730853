"""Metrics on hand-built traces with known answers (tests/data/traces/metrics/).

Each ``NAME.json`` is a trace worked out by hand; ``NAME.expected.json`` holds the
metrics it must give (docs/traces.md has the definitions). The traces are the shapes
nested spans leave behind: an agent called inside a tool call (sequential and two at
once), a step holding its own agent's model calls, and two agents working side by side
that never delegated to each other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

DATA = Path(__file__).resolve().parents[2] / "data" / "traces" / "metrics"
CASES = sorted(p for p in DATA.glob("*.json") if not p.name.endswith(".expected.json"))


def test_there_are_cases() -> None:
    assert len(CASES) >= 4


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_metrics_of_hand_built_trace(path: Path) -> None:
    report, trace = check_file(path)
    assert report.ok and trace is not None, [p.format() for p in report.sorted()]
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    got = compute(trace)
    assert {k: got[k] for k in expected} == expected


def test_sequential_work_is_never_above_the_critical_path() -> None:
    # The old rule (a sum of every duration) counted the researcher's 7 s twice: once
    # in its model calls and once in the coordinator's tool call that held them.
    _, trace = check_file(DATA / "agent-as-tool-sequential.json")
    assert trace is not None
    m = compute(trace)
    assert m["total_work_s"] <= m["critical_path_s"]
