"""Properties: the fast path never accepts what the schema rejects; tool pairing is
first-in first-out; synthetic traces of any seed are valid and measured the same twice."""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import jsonschema
import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.synthetic_traces import SynthParams, generate, iter_json_chunks
from survey_tools.traces.decode import _FAST_DECODER, _if_then_breaches
from survey_tools.traces.metrics import compute
from survey_tools.traces.schema import EVENT_TYPES, schema
from survey_tools.traces.table import from_structs
from survey_tools.traces.validate import check_bytes, check_value, pair_tools

SCHEMA = jsonschema.Draft202012Validator(schema())
FIELDS = [
    "id",
    "t",
    "type",
    "agent",
    "role",
    "from",
    "to",
    "tool",
    "call_id",
    "content_ref",
    "trusted",
    "duration_s",
    "reason",
    "attributes",
    "x-extra",
    "colour",
]
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 1e6, allow_nan=False),
    st.sampled_from(["", "a", "e1", "o", "x" * 257, *EVENT_TYPES, "launch"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["k", "j"]), st.integers(), max_size=2),
)
events = st.dictionaries(st.sampled_from(FIELDS), values, max_size=9)
base_event = {"id": "e1", "t": 0, "type": "stop", "agent": "o"}


def trace_with(ev: dict[str, Any]) -> dict[str, Any]:
    return {
        "trace_id": "t",
        "task_id": "t",
        "events": [ev],
        "edges": [],
        "rewards": {},
        "costs": {"tokens": 0, "wall_clock_s": 0},
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(events, events.map(lambda e: {**base_event, **e})))
def test_fast_path_is_never_laxer_than_the_schema(ev: dict[str, Any]) -> None:
    doc = trace_with(ev)
    data = json.dumps(doc).encode()
    schema_ok = SCHEMA.is_valid(doc)
    try:
        fast = _FAST_DECODER.decode(data)
        table, _ = from_structs(fast.events, fast.edges)
        fast_ok = _if_then_breaches(table).size == 0
    except msgspec.ValidationError:
        fast_ok = False
    if fast_ok:
        assert schema_ok
    # And the verdict the validator gives is exactly the schema's.
    report, _ = check_bytes(data, limit=0)
    schema_problems = [p for p in report.problems if p.check == "schema"]
    assert (not schema_problems) == schema_ok


def reference_pairs(seq: list[tuple[str, str, float]]) -> dict[int, int]:
    """Each result takes the oldest unanswered earlier call of its tool (Python loop)."""
    order = sorted(range(len(seq)), key=lambda i: (seq[i][2], seq[i][0] == "tool_result", i))
    waiting: dict[str, deque[int]] = {}
    out: dict[int, int] = {}
    for i in order:
        kind, tool, _ = seq[i]
        if kind == "tool_call":
            waiting.setdefault(tool, deque()).append(i)
        elif waiting.get(tool):
            out[i] = waiting[tool].popleft()
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["tool_call", "tool_result"]),
            st.sampled_from(["a", "b", "c"]),
            st.integers(0, 6),
        ),
        max_size=30,
    )
)
def test_tool_pairing_matches_a_simple_queue(seq: list[tuple[str, str, int]]) -> None:
    evs = [
        {"id": f"e{i}", "t": t, "type": k, "agent": "w", "tool": tool}
        for i, (k, tool, t) in enumerate(seq)
    ]
    _, trace = check_value(trace_with(base_event) | {"events": evs}, limit=0)
    assert trace is not None
    got = pair_tools(trace.table).call_of
    assert got == reference_pairs([(k, tool, float(t)) for k, tool, t in seq])


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 60), st.integers(50, 800))
def test_synthetic_traces_are_valid_and_deterministic(seed: int, agents: int, n: int) -> None:
    params = SynthParams(n_events=n, n_agents=agents, seed=seed)
    data = b"".join(iter_json_chunks(generate(params)))
    assert data == b"".join(iter_json_chunks(generate(params)))
    report, trace = check_bytes(data, limit=0)
    assert report.ok, [p.format() for p in report.sorted()][:5]
    assert trace is not None
    m = compute(trace)
    assert m["o4_aggregates"] == 1 and m["events_by_type"]["stop"] == 1
    assert m["alive_at_end"] == 0 and m["spawn_tree_depth"] == 2
    _, again = check_bytes(data, limit=0)
    assert again is not None and compute(again) == m
