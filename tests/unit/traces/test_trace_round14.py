"""Round 14's readings (docs/trace-formats.md, "Who is an agent"), on small runs of spans of no
framework's:

- a conversation (a span of no agent operation naming an agent and holding another's turns)
  inside the named agent's own turn is still its conversation: the agents it holds are
  delegated to by it, and its own tools-only turns run the other's tools (a chat an agent
  holds as its reply, as AG2's nested chats are); inside another agent's turn it is that
  agent's work (a manager's inner chat choosing who speaks), as before.
"""

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
    "tool": "gen_ai.tool.name",
    "call_id": "gen_ai.tool.call.id",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _import(tmp: Path, spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out), "--explain")
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events


def _turn(span: int, parent: int, agent: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"invoke_agent {agent}", start, end, op="invoke_agent", agent_name=agent
    )


def _chat(span: int, parent: int, agent: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"chat m-{agent}", start, end, op="chat", agent_name=agent, model=f"m-{agent}"
    )


def _conversation(span: int, parent: int, agent: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"conversation {agent}", start, end, op="conversation", agent_name=agent
    )


def _delegations(ev: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message")]


def _nested_chats(outer_agent: str) -> list[dict[str, Any]]:
    """A user's chat with ``outer_agent``, whose turn holds a chat of the lead's with a
    helper: the helper's model asks for a tool, the lead runs it, the helper answers."""
    # A manager thinks for itself before the chat; the lead replies by the chat alone.
    own = [_chat(0x4, 0x3, outer_agent, 3, 10)] if outer_agent != "lead" else []
    return [
        _span(0x1, 0, "run", 0, 100),
        _conversation(0x2, 0x1, "user", 1, 99),
        _turn(0x3, 0x2, outer_agent, 2, 98),
        *own,
        _conversation(0x10, 0x3, "lead", 11, 90),
        _turn(0x11, 0x10, "helper", 12, 30),
        _chat(0x12, 0x11, "helper", 13, 29),
        _turn(0x13, 0x10, "lead", 31, 50),
        _span(0x14, 0x13, "execute_tool search", 32, 49, op="execute_tool", tool="search"),
        _turn(0x15, 0x10, "helper", 51, 89),
        _chat(0x16, 0x15, "helper", 52, 88),
    ]


def test_a_chat_inside_its_own_agents_turn_is_that_agents_conversation(tmp_path: Path) -> None:
    ev = _import(tmp_path, _nested_chats("lead"))
    assert ("lead", "helper") in _delegations(ev)
    assert ("root", "helper") not in _delegations(ev)
    # The lead runs the tool its helper's model asked for: the helper's call.
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("helper", "search")
    ]
    returns = [(e["agent"], e["to"]) for e in ev if e["type"] == "return"]
    assert ("helper", "lead") in returns


def test_a_chat_named_for_one_agent_inside_anothers_turn_stays_that_others_work(
    tmp_path: Path,
) -> None:
    # The same chat inside a manager's turn: the chat's named agent did not start it, the
    # manager's work holds it.
    ev = _import(tmp_path, _nested_chats("manager"))
    assert ("lead", "helper") not in _delegations(ev)
    assert ("manager", "helper") in _delegations(ev)
