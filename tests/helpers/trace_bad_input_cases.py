"""What test_trace_bad_input.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

MINIMAL = {
    "trace_id": "t",
    "task_id": "t",
    "events": [{"id": "e1", "t": 0, "type": "stop", "agent": "o"}],
    "edges": [],
    "rewards": {},
    "costs": {"tokens": 0, "wall_clock_s": 0},
}
