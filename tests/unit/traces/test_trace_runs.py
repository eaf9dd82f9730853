"""Traces of one run that no span link ties: joined by their shape (runs.py), and never two
runs of one file joined.

DSPy's ``Parallel`` runs each module on a thread without the caller's OpenTelemetry context,
so the delegates are traces of their own whose roots lie, in time, inside the caller's root
(tests/fixtures/traces-frameworks/dspy/parallel.otlp.jsonl: one trace). Each case below is
one file written as a process would write it; the number of traces it must import as is the
case's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.support import run

MS = 1_000_000


def _span(
    trace: int,
    span: int,
    name: str,
    start: int,
    end: int,
    parent: int = 0,
    attrs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": f"{trace:032x}",
        "spanId": f"{span:016x}",
        "name": name,
        "startTimeUnixNano": str(start * MS),
        "endTimeUnixNano": str(end * MS),
        "attributes": [
            {"key": k, "value": {"intValue": v} if isinstance(v, int) else {"stringValue": v}}
            for k, v in (attrs or {}).items()
        ],
    }
    if parent:
        out["parentSpanId"] = f"{parent:016x}"
    return out


def _agent(
    trace: int,
    base: int,
    name: str,
    start: int,
    end: int,
    parent: int = 0,
    attrs: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """An agent's span holding one model call."""
    a = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **(attrs or {})}
    llm = {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10}
    return [
        _span(trace, base, f"invoke_agent {name}", start, end, parent, a),
        _span(trace, base + 1, "chat", start + 1, end - 1, base, llm),
    ]


def _file(tmp: Path, *batches: tuple[str, list[dict[str, Any]]]) -> Path:
    lines = []
    for service, spans in batches:
        res = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
        lines.append(
            json.dumps({"resourceSpans": [{"resource": res, "scopeSpans": [{"spans": spans}]}]})
        )
    p = tmp / "run.otlp.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _imported(tmp: Path, path: Path) -> list[dict[str, Any]]:
    out = tmp / "out"
    out.mkdir()
    code, _, err = run(None, "trace", "import", "auto", str(path), "-o", str(out))
    assert code == 0, err
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(out.iterdir())]


def _delegations(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(e["agent"], e["to"]) for e in doc["events"] if e["type"] == "spawn"}


def test_a_delegate_on_a_thread_of_its_own_joins_the_run(tmp_path: Path) -> None:
    spans = (
        _agent(1, 0x10, "coordinator", 0, 100)
        + _agent(2, 0x20, "web", 10, 50)
        + _agent(3, 0x30, "paper", 12, 55)
    )
    docs = _imported(tmp_path, _file(tmp_path, ("app", spans)))
    assert len(docs) == 1
    assert _delegations(docs[0]) == {("coordinator", "web"), ("coordinator", "paper")}


def test_the_delegate_hangs_under_the_innermost_span_open_over_it(tmp_path: Path) -> None:
    spans = (
        _agent(1, 0x10, "coordinator", 0, 100)
        + _agent(1, 0x40, "lead", 5, 90, parent=0x10)
        + _agent(2, 0x20, "web", 10, 50)
    )
    docs = _imported(tmp_path, _file(tmp_path, ("app", spans)))
    assert len(docs) == 1
    assert ("lead", "web") in _delegations(docs[0])


CASES = {
    # one after the other: two runs
    "sequential runs": [("app", _agent(1, 0x10, "a", 0, 100) + _agent(2, 0x20, "b", 120, 200))],
    # the same entry point twice at once (a server's two requests): two runs
    "same entry point": [("app", _agent(1, 0x10, "a", 0, 100) + _agent(2, 0x20, "a", 10, 50))],
    # two processes writing into one file
    "other process": [
        ("app", _agent(1, 0x10, "a", 0, 100)),
        ("worker", _agent(2, 0x20, "b", 10, 50)),
    ],
    # session ids that disagree
    "other session": [
        (
            "app",
            _agent(1, 0x10, "a", 0, 100, attrs={"session.id": "s1"})
            + _agent(2, 0x20, "b", 10, 50, attrs={"session.id": "s2"}),
        )
    ],
    # it starts inside one run and ends after it, nothing shared
    "outlives it": [("app", _agent(1, 0x10, "a", 0, 100) + _agent(2, 0x20, "b", 10, 150))],
    # inside two runs that overlap without nesting: it could be either's
    "ambiguous": [
        (
            "app",
            _agent(1, 0x10, "a", 0, 100)
            + _agent(2, 0x20, "c", 50, 200)
            + _agent(3, 0x30, "b", 60, 90),
        )
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_separate_runs_in_one_file_stay_apart(tmp_path: Path, case: str) -> None:
    batches = CASES[case]
    want = len({s["traceId"] for _, spans in batches for s in spans})
    assert len(_imported(tmp_path, _file(tmp_path, *batches))) == want


def test_a_shared_session_id_lets_a_late_delegate_join(tmp_path: Path) -> None:
    spans = _agent(1, 0x10, "a", 0, 100, attrs={"session.id": "s1"}) + _agent(
        2, 0x20, "b", 10, 150, attrs={"session.id": "s1"}
    )
    docs = _imported(tmp_path, _file(tmp_path, ("app", spans)))
    assert len(docs) == 1
    assert _delegations(docs[0]) == {("a", "b")}


def test_a_shared_session_id_alone_joins_nothing(tmp_path: Path) -> None:
    spans = _agent(1, 0x10, "a", 0, 100, attrs={"session.id": "s1"}) + _agent(
        2, 0x20, "b", 120, 200, attrs={"session.id": "s1"}
    )
    assert len(_imported(tmp_path, _file(tmp_path, ("app", spans)))) == 2


def _build(trace: int, base: int, start: int, end: int, wid: str) -> list[dict[str, Any]]:
    """A span of no work (a workflow being built) carrying a workflow id."""
    return [_span(trace, base, "prepare", start, end, attrs={"workflow.id": wid})]


def test_a_trace_of_no_work_joins_the_next_run_sharing_its_id(tmp_path: Path) -> None:
    spans = (
        _build(1, 0x10, 0, 5, "w1")
        + _agent(2, 0x20, "a", 10, 100, attrs={"workflow.id": "w1"})
        + _agent(3, 0x30, "a", 120, 200, attrs={"workflow.id": "w1"})
    )
    docs = _imported(tmp_path, _file(tmp_path, ("app", spans)))
    assert len(docs) == 2  # the build joined the first run; the second run stays one
    assert sorted(len(d["events"]) for d in docs)[0] < sorted(len(d["events"]) for d in docs)[1]


def test_a_trace_of_no_work_with_another_id_stays_apart(tmp_path: Path) -> None:
    spans = _build(1, 0x10, 0, 5, "w2") + _agent(2, 0x20, "a", 10, 100, attrs={"workflow.id": "w1"})
    assert len(_imported(tmp_path, _file(tmp_path, ("app", spans)))) == 2
