"""Metrics on hand-built traces with known answers (tests/data/traces/metrics/).

Each ``NAME.json`` is a trace worked out by hand; ``NAME.expected.json`` holds the
metrics it must give (docs/traces.md has the definitions). The traces are the shapes
nested spans leave behind: an agent called inside a tool call (sequential and two at
once), a step holding its own agent's model calls, two agents working side by side
that never delegated to each other, and two whose events say their spans' parents
(``attributes.span_id`` and ``attributes.parent``, as ``survey trace import`` writes them): a
graph's two branches at once, and a model call's span left open over the tool it asked for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from survey_tools.traces.metrics import _delegates, compute, own_work
from survey_tools.traces.table import EVENT_CODE
from survey_tools.traces.validate import check_file, check_value

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


def test_a_branch_running_beside_another_nests_by_its_spans() -> None:
    # By time alone the top of the stack when branch A's delegation starts is branch B's
    # node, so A's node held nothing (1.0 s counted whole) and one researcher's first model
    # call nested in the other's delegation: 3.63 s of work on a 1.1 s path. By the spans'
    # parents (span-branches-side-by-side.expected.json) it is 2.09 s; without the parents
    # written, the reading by time and agents stands as it was.
    doc = json.loads((DATA / "span-branches-side-by-side.json").read_text())
    for ev in doc["events"]:
        ev.get("attributes", {}).pop("parent", None)
    report, trace = check_value(doc, "branches-without-parents")
    assert report.ok and trace is not None
    assert compute(trace)["total_work_s"] == 3.63


def _swept(
    S: list[float], E: list[float], A: list[int], reach: dict[int, int], C: list[int]
) -> float:
    """The definition, swept one interval at a time: a stack of the intervals holding the
    current one (those ending before it dropped), the innermost of them whose agent is its
    own or delegated to it as parent (a tool call never the parent of its own agent's tool
    call, nor a delegation of its own agent's delegation, ``C`` marking tool calls 1 and
    spawns and messages 2), each parent's children merged where they overlap."""
    stack: list[int] = []
    lo = [0.0] * len(S)
    hi = [-1.0] * len(S)
    covered = 0.0
    for i, (s, e, a) in enumerate(zip(S, E, A, strict=True)):
        while stack and E[stack[-1]] < e:
            stack.pop()
        for j in reversed(stack):
            if A[j] == a and C[i] and C[i] == C[j]:
                continue  # two calls (or delegations) of one agent side by side
            if A[j] == a or (reach.get(A[j], 0) >> a) & 1:
                if hi[j] < 0:
                    lo[j], hi[j] = s, e
                elif s > hi[j]:
                    covered += hi[j] - lo[j]
                    lo[j], hi[j] = s, e
                elif e > hi[j]:
                    hi[j] = e
                break
        stack.append(i)
    return covered + sum(h - low for low, h in zip(lo, hi, strict=True) if h >= 0)


_EVENT = st.fixed_dictionaries(
    {
        "t": st.integers(0, 12).map(lambda x: x / 4),  # a coarse grid: ties and shared ends
        "duration_s": st.one_of(st.none(), st.integers(0, 8).map(lambda x: x / 4)),
        "type": st.sampled_from(["message", "spawn", "tool_call", "aggregate"]),
        "agent": st.integers(0, 11),  # more names than a byte of bits
        "to": st.integers(0, 11),
    }
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_EVENT, min_size=1, max_size=40))
def test_own_work_is_the_sweep_to_the_last_bit(raw: list[dict[str, Any]]) -> None:
    events = []
    for i, r in enumerate(raw):
        ev: dict[str, Any] = {
            "id": f"e{i}",
            "t": r["t"],
            "type": r["type"],
            "agent": f"a{r['agent']}",
        }
        if r["type"] in ("message", "spawn"):
            ev["to"] = f"a{r['to']}"
        if r["type"] == "tool_call":
            ev["tool"] = "search"
        if r["duration_s"] is not None:
            ev["duration_s"] = r["duration_s"]
        events.append(ev)
    _, trace = check_value(
        {"schema_version": "1.0", "trace_id": "p", "events": events, "edges": []}
    )
    assert trace is not None
    tb = trace.table
    end = tb.t + np.nan_to_num(tb.dur, nan=0.0)
    k = np.flatnonzero(np.nan_to_num(tb.dur, nan=0.0) > 0)
    t, e = np.round(tb.t, 9), np.round(end, 9)  # to the nanosecond, as own_work reads them
    order = np.lexsort((k, -e[k], t[k]))
    total = float(np.sum(e[k] - t[k]))
    kinds = {EVENT_CODE["tool_call"]: 1, EVENT_CODE["spawn"]: 2, EVENT_CODE["message"]: 2}
    calls = [kinds.get(int(x), 0) for x in tb.etype[k][order]]
    covered = _swept(
        t[k][order].tolist(),
        e[k][order].tolist(),
        tb.agent[k][order].tolist(),
        _delegates(tb),
        calls,
    )
    assert own_work(tb, end) == (max(0.0, total - covered) if k.size else 0.0)


def test_an_agent_beyond_every_delegation_is_not_nested() -> None:
    # a0 spawned a1 only (bits 0-7 hold every delegation); b7 (code 9: the bit of a1 in the
    # next byte) works inside a0's spawn without being delegated to: its second counts.
    names = ["a0", "a1", *(f"b{i}" for i in range(9))]
    events: list[dict[str, Any]] = [
        {"id": "s", "t": 0, "type": "spawn", "agent": "a0", "to": "a1", "duration_s": 10},
        {"id": "w", "t": 1, "type": "aggregate", "agent": "b7", "duration_s": 1},
    ]
    events += [{"id": f"n{i}", "t": 20, "type": "message", "agent": n} for i, n in enumerate(names)]
    _, trace = check_value(
        {"schema_version": "1.0", "trace_id": "w", "events": events, "edges": []}
    )
    assert trace is not None and trace.table.names.names == names
    assert compute(trace)["total_work_s"] == 11
