"""Data-driven: every valid example passes with hand-checked metrics; every invalid
example fails with exactly the lines in its ``.expected`` file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.trace_paths import EXAMPLES

from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

VALID = sorted((EXAMPLES / "valid").glob("*.json"))
INVALID = sorted((EXAMPLES / "invalid").glob("*.json"))

# Worked out by hand from the example files (see docs/traces.md for definitions).
EXPECTED: dict[str, dict[str, Any]] = {
    "centralized": {
        "agents": 3,
        "spawn_tree_depth": 1,
        "max_fan_out": 2,
        "despawned_agents": 2,
        "alive_at_end": 0,
        "o1_spawns": 2,
        "o2_delegations": 4,
        "o3_messages": 2,
        "o4_aggregates": 1,
        "o4_fan_in_max": 2,
        "o5_stop_t": 11.0,
        "o5_last_useful_return": "e12",
        "o5_idle_tail_s": 3.0,
        "critical_path_s": 11.0,
        "critical_path": ["e1", "e3", "e5", "e10", "e11", "e12", "e13", "e14"],
        "total_work_s": 21.0,
        "work_basis": "agent_active_time",
        "parallelism_speedup": None,  # no durations: unknown
        "messages_per_tool_call": 1.0,
        "messages_per_agent": 0.666667,
        "tokens_per_event": 337.5,
        "tokens_per_reward": 5400.0,
        "untrusted_events": 1,
        "tainted_sources": 0,
        "taint_paths": [],
    },
    "planner_executor_critic": {
        "agents": 3,
        "spawn_tree_depth": 1,
        "max_fan_out": 2,
        "alive_at_end": 2,
        "o2_delegations": 3,
        "o2_by_kind": {"decision": 1, "spawn": 2, "parent_message": 0},
        "o5_stop_t": 10.0,
        "o5_last_useful_return": "e11",
        "o5_idle_tail_s": 2.0,
        "critical_path_s": 10.0,
        "critical_path": ["e1", "e2", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e12", "e13"],
        "total_work_s": 20.0,
        "parallelism_speedup": None,  # no durations: unknown
        "tokens_per_reward": 10250.0,
        "cost_per_reward": {
            "planner": {"tokens": 16400.0, "wall_clock_s": 20.0},
            "team": {"tokens": 10250.0, "wall_clock_s": 12.5},
        },
    },
    "debate": {
        "agents": 3,
        "o3_messages": 4,
        "messages_per_tool_call": None,
        "messages_per_agent": 1.333333,
        "o5_last_useful_return": "e9",
        "o5_idle_tail_s": 2.0,
        "critical_path": ["e1", "e2", "e4", "e5", "e6", "e7", "e8", "e10", "e11"],
        "critical_path_s": 8.0,
        "total_work_s": 16.0,
        "parallelism_speedup": None,  # no durations: unknown
        "despawned_agents": 2,
        "alive_at_end": 0,
    },
    "swarm": {
        "agents": 3,
        "spawn_tree_depth": 0,
        "max_fan_out": 0,
        "o2_delegations": 0,
        "o5_stop_t": 8.0,
        "o5_last_useful_return": None,
        "o5_idle_tail_s": None,
        "critical_path_s": 8.0,
        "total_work_s": 12.0,
        "parallelism_speedup": None,  # no durations: unknown
        "messages_per_tool_call": 1.5,
        "reward": 0.0,
        "tokens_per_reward": None,
        "untrusted_events": 2,
        "tainted_sources": 2,
        "taint_paths": [["e3", "e4", "e5", "e6", "e7", "e8"], ["e6", "e7", "e8"]],
    },
    "hierarchical": {
        "agents": 5,
        "spawn_tree_depth": 2,
        "max_fan_out": 2,
        "despawned_agents": 4,
        "alive_at_end": 0,
        "o2_delegations": 5,
        "o5_last_useful_return": "e13",
        "o5_idle_tail_s": 2.8,
        "critical_path_s": 10.0,
        "critical_path": ["e1", "e3", "e5", "e8", "e9", "e11", "e13", "e14", "e15"],
        "total_work_s": 7.5,
        "work_basis": "durations",
        "parallelism_speedup": 0.75,
        "makespan_s": 11.0,
    },
    "harness": {
        "agents": 3,
        "o2_delegations": 1,
        "o5_idle_tail_s": 2.0,
        "critical_path_s": 10.0,
        "critical_path": ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e9", "e10", "e11"],
        "total_work_s": 16.0,
        "parallelism_speedup": None,  # no durations: unknown
        "untrusted_events": 2,
        "tainted_sources": 0,
        "events_by_type": {
            "orchestrator_decision": 1,
            "spawn": 1,
            "despawn": 0,
            "message": 0,
            "tool_call": 2,
            "tool_result": 2,
            "return": 1,
            "aggregate": 1,
            "human_intervention": 1,
            "safety_event": 1,
            "stop": 1,
        },
    },
}


def test_one_valid_example_per_topology() -> None:
    topologies = {p.stem for p in VALID}
    assert (
        topologies
        == set(EXPECTED)
        == {
            "centralized",
            "planner_executor_critic",
            "debate",
            "swarm",
            "hierarchical",
            "harness",
        }
    )


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_example_metrics(path: Path) -> None:
    report, trace = check_file(path)
    assert report.ok, [p.format() for p in report.sorted()]
    assert trace is not None and trace.head["topology"] == path.stem
    got = compute(trace)
    want = EXPECTED[path.stem]
    assert {k: got[k] for k in want} == want


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_example_lines(path: Path) -> None:
    expected = path.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    report, _ = check_file(path, name=path.name, limit=0)
    assert not report.ok
    assert [p.format() for p in report.sorted()] == expected


def test_every_graph_check_has_an_invalid_example() -> None:
    tags = set()
    for path in INVALID:
        for line in path.with_suffix(".expected").read_text(encoding="utf-8").splitlines():
            tags.add(line.rsplit("[", 1)[1].rstrip("]"))
    assert tags >= {
        "duplicate-id",
        "dangling-edge",
        "edge-time",
        "cycle",
        "before-spawn",
        "return-target",
        "tool-result",
        "after-stop",
        "schema",
        "json",
        "type",
        "duplicate-key",
    }


def test_survey_example_stays_valid(survey_example: Path) -> None:
    report, trace = check_file(survey_example)
    assert report.ok, [p.format() for p in report.sorted()]
    assert trace is not None
    m = compute(trace)
    # Its quirks: the tool answering as an agent is not an agent; no stop.
    assert m["agents"] == 3
    assert m["o5_stop_t"] is None
    assert m["critical_path"] == ["e1", "e3", "e4", "e5", "e6", "e7", "e8"]
    assert m["taint_paths"] == [["e6", "e7", "e8"]]
