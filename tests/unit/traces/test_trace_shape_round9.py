"""Round 9's readings from held-out set 7 (docs/trace-formats.md, "Who is an agent"), each on
a small run of spans of no framework's: a model call inside a model call is one call; the
application's run around a workflow is no agent; an empty agent span naming no agent is a
step; a tool named in the framework's words is the tool the model asked for; a tool step
after a model call runs what it asked for; the run's decision comes with its first span."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import otlp_spans
from helpers.support import run

_KEYS = {
    "op": "gen_ai.operation.name",
    "agent_name": "gen_ai.agent.name",
    "model": "gen_ai.request.model",
    "answer": "gen_ai.output.messages",
    "tool": "gen_ai.tool.name",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _events(tmp: Path, spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events


def _asking(*tools: str) -> str:
    """A GenAI answer asking for ``tools``."""
    parts = [{"type": "tool_call", "name": t} for t in tools]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _calls(ev: list[dict[str, Any]]) -> list[str]:
    return [e["agent"] for e in ev if e.get("role") == "llm_call"]


def _chat(span: int, parent: int, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return _span(span, parent, "chat m", start, end, op="chat", model="m", **attrs)


def _agent(span: int, parent: int, name: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"invoke_agent {name}", start, end, op="invoke_agent", agent_name=name
    )


def test_a_model_call_inside_a_model_call_is_one_call(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 99),
        _chat(0x21, 0x20, 2, 30),
        _chat(0x22, 0x21, 3, 29),  # a second tracing of the same call
        _chat(0x23, 0x20, 40, 60),
    ]
    assert _calls(_events(tmp_path, spans)) == ["a", "a"]


def test_the_applications_run_around_a_workflow_is_no_agent(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "app", 1, 99),
        _span(0x30, 0x20, "invoke_workflow a", 2, 98, op="invoke_workflow"),
        _agent(0x40, 0x30, "a", 3, 40),
        _chat(0x41, 0x40, 4, 39),
        _agent(0x50, 0x30, "b", 41, 90),
        _chat(0x51, 0x50, 42, 89),
    ]
    ev = _events(tmp_path, spans)
    assert "app" not in {e["agent"] for e in ev} | {e.get("to") for e in ev}
    assert _calls(ev) == ["a", "b"]


def test_an_agent_holding_another_agent_directly_stays_an_agent(tmp_path: Path) -> None:
    """Not the app's run: an agent running its delegate itself (no workflow between)."""
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "boss", 1, 99),
        _agent(0x40, 0x20, "a", 3, 90),
        _chat(0x41, 0x40, 4, 89),
    ]
    ev = _events(tmp_path, spans)
    assert ("boss", "a") in {(e["agent"], e.get("to")) for e in ev if e["type"] == "spawn"}


def test_an_empty_agent_span_naming_no_agent_is_a_step(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 99),
        _span(0x21, 0x20, "invoke_agent check_limits", 2, 2, op="invoke_agent"),
        _chat(0x22, 0x20, 3, 30),
        _span(0x23, 0x20, "invoke_agent finalize", 31, 31, op="invoke_agent"),
    ]
    ev = _events(tmp_path, spans)
    assert {e["agent"] for e in ev} - {"run", "root"} == {"a"}


def test_a_tool_named_in_the_frameworks_words_is_the_tool_the_model_asked_for(
    tmp_path: Path,
) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 99),
        _chat(0x21, 0x20, 2, 30, answer=_asking("ask_coworker")),
        _span(0x22, 0x20, "execute_tool Ask coworker", 31, 60, op="execute_tool"),
        _agent(0x30, 0x22, "b", 32, 59),
        _chat(0x31, 0x30, 33, 58),
    ]
    ev = _events(tmp_path, spans)
    assert [e["tool"] for e in ev if e["type"] == "tool_call"] == ["ask_coworker"]


def test_a_tool_step_after_a_model_call_runs_what_it_asked_for(tmp_path: Path) -> None:
    """The only step named for a tool after an answer asking for tools, with no tool span:
    one call per tool asked; after an answer asking for nothing, no tool is invented."""
    step = {"op": "invoke_agent"}
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 99),
        _chat(0x21, 0x20, 2, 30, answer=_asking("search", "fetch")),
        _span(0x22, 0x20, "invoke_agent execute_native_tool", 31, 31, **step),
        _chat(0x23, 0x20, 40, 60),
        _span(0x24, 0x20, "invoke_agent execute_native_tool", 61, 61, **step),
    ]
    ev = _events(tmp_path, spans)
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("a", "search"),
        ("a", "fetch"),
    ]


def test_the_runs_decision_comes_with_its_first_span(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 20, 99),
        _chat(0x21, 0x20, 21, 98),
    ]
    ev = _events(tmp_path, spans)
    first = ev[0]
    assert first["type"] == "orchestrator_decision"
    assert first["t"] == 0.02
