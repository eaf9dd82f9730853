"""Our reconstruction of a structure-only, standard-library trace check.

The survey's artifact ships a stdlib validator that only checks structure; we do not
have its code. This is what such a validator does, written by us for a side-by-side
timing: ``json.load`` and then, in pure Python, per-event and per-edge checks that
each item is an object with its required keys, of the right types, with known enum
values. It checks no graph property at all. It is a yardstick, not a tool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EVENT_TYPES = {
    "orchestrator_decision",
    "spawn",
    "despawn",
    "message",
    "tool_call",
    "tool_result",
    "return",
    "aggregate",
    "human_intervention",
    "safety_event",
    "stop",
}
EDGE_TYPES = {
    "temporal",
    "causal",
    "spawn",
    "message",
    "tool_dependency",
    "return",
    "aggregate",
    "safety_flow",
}
TOP_REQUIRED = ("trace_id", "task_id", "events", "edges", "rewards", "costs")
EVENT_REQUIRED = ("id", "t", "type", "agent")
EDGE_REQUIRED = ("src", "dst", "type")


def check(path: Path) -> list[str]:
    errors: list[str] = []
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    if not isinstance(doc, dict):
        return ["top level is not an object"]
    for key in TOP_REQUIRED:
        if key not in doc:
            errors.append(f"missing {key}")
    for i, ev in enumerate(doc.get("events", [])):
        if not isinstance(ev, dict):
            errors.append(f"events[{i}] is not an object")
            continue
        for key in EVENT_REQUIRED:
            if key not in ev:
                errors.append(f"events[{i}] missing {key}")
        if not isinstance(ev.get("id"), str):
            errors.append(f"events[{i}].id is not a string")
        t = ev.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0:
            errors.append(f"events[{i}].t is not a non-negative number")
        if ev.get("type") not in EVENT_TYPES:
            errors.append(f"events[{i}].type is unknown")
        if not isinstance(ev.get("agent"), str):
            errors.append(f"events[{i}].agent is not a string")
    for i, ed in enumerate(doc.get("edges", [])):
        if not isinstance(ed, dict):
            errors.append(f"edges[{i}] is not an object")
            continue
        for key in EDGE_REQUIRED:
            if key not in ed:
                errors.append(f"edges[{i}] missing {key}")
        if not isinstance(ed.get("src"), str) or not isinstance(ed.get("dst"), str):
            errors.append(f"edges[{i}] endpoints are not strings")
        if ed.get("type") not in EDGE_TYPES:
            errors.append(f"edges[{i}].type is unknown")
    costs = doc.get("costs", {})
    if not isinstance(costs, dict) or "tokens" not in costs or "wall_clock_s" not in costs:
        errors.append("costs lack tokens or wall_clock_s")
    return errors


if __name__ == "__main__":
    errs = check(Path(sys.argv[1]))
    print(f"{len(errs)} error(s)")
    sys.exit(1 if errs else 0)
