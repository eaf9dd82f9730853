"""Round 10's reading of tool calls no span records (docs/trace-formats.md, "Who is an
agent"), on small runs of spans of no framework's: in a file with no tool span, a tool call a
model call asked for, whose result a later model call's request carries under the same call
id, ran once, by the asking call's agent; one asked for and never answered is not counted,
and where the file has tool spans they are the record. Model calls under the root whose
system prompt is the description an agent was made with (create_agent) are that agent's; the
author every such agent's first request names is the root's agent."""

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
    "request": "gen_ai.input.messages",
    "tool": "gen_ai.tool.name",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _agent(span: int, parent: int, name: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"invoke_agent {name}", start, end, op="invoke_agent", agent_name=name
    )


def _chat(span: int, parent: int, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return _span(span, parent, "chat m", start, end, op="chat", model="m", **attrs)


def _asking(*calls: tuple[str, str]) -> str:
    """A GenAI answer asking for tools, each (call id, tool name)."""
    parts = [{"type": "tool_call", "id": i, "name": n} for i, n in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _answering(*ids: str) -> str:
    """A GenAI request carrying the results of the calls ``ids``."""
    parts = [{"type": "tool_call_response", "id": i, "response": "ok"} for i in ids]
    return json.dumps(
        [
            {"role": "user", "parts": [{"type": "text", "content": "go"}]},
            {"role": "tool", "parts": parts},
        ]
    )


def _import(tmp: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out), "--explain")
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events, err


def _tools(ev: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["agent"], e["tool"]) for e in ev if e.get("type") == "tool_call"]


def _two_agents(second_request: str, *extra: dict[str, Any]) -> list[dict[str, Any]]:
    """a asks for two tools; b's call and a's second call carry results."""
    return [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 60),
        _chat(0x21, 0x20, 2, 20, answer=_asking(("c1", "search"), ("c2", "fetch"))),
        _chat(0x22, 0x20, 30, 50, request=second_request),
        _agent(0x30, 0x10, "b", 61, 99),
        # a group chat's shared history: b's request carries a's result again
        _chat(0x31, 0x30, 62, 90, request=_answering("c1")),
        *extra,
    ]


def test_a_call_asked_for_and_answered_later_is_one_tool_call_of_the_asker(
    tmp_path: Path,
) -> None:
    ev, err = _import(tmp_path, _two_agents(_answering("c1")))
    # c1 answered (twice: counted once, a's); c2 never answered: not counted
    assert _tools(ev) == [("a", "search")]
    assert "the file has no tool spans (the tool calls counted are those a model call" in err
    assert "tool call search of a [structure (round 10): asked for by the model call" in err


def test_a_result_in_the_asking_calls_own_request_is_no_call(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "a", 1, 99),
        _chat(0x21, 0x20, 2, 20, answer=_asking(("c1", "search")), request=_answering("c1")),
    ]
    ev, err = _import(tmp_path, spans)
    assert _tools(ev) == []
    assert "the file has no tool spans: nothing is invented" in err


def test_where_the_file_has_tool_spans_they_are_the_record(tmp_path: Path) -> None:
    tool = _span(0x23, 0x20, "execute_tool search", 21, 25, op="execute_tool", tool="search")
    ev, _ = _import(tmp_path, _two_agents(_answering("c1", "c2"), tool))
    assert _tools(ev) == [("a", "search")]


# Round 10: agents made with their instructions (create_agent), their calls under the root.
_MADE = {**_KEYS, "description": "gen_ai.agent.description"}


def _made(span: int, name: str, description: str) -> dict[str, Any]:
    return otlp_spans.span(
        _MADE, span, 0x10, f"create_agent {name}", 1, 2,
        op="create_agent", agent_name=name, description=description,
    )  # fmt: skip


def _request(system: str, sender: str) -> str:
    return json.dumps(
        [
            {"role": "system", "parts": [{"type": "text", "content": system}]},
            {"role": "user", "parts": [{"type": "text", "content": "go"}], "name": sender},
        ]
    )


def _graph(ev: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    sent = [(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message")]
    back = [(e["agent"], e["to"]) for e in ev if e["type"] == "return"]
    return sent, back


def _made_run(sender_b: str = "boss") -> list[dict[str, Any]]:
    return [
        _span(0x10, 0, "program", 0, 100),
        _made(0x11, "a", "You search."),
        _made(0x12, "b", "You write."),
        _chat(0x21, 0x10, 10, 30, request=_request("You search.", "boss")),
        _chat(0x22, 0x10, 12, 32, request=_request("You write.", sender_b)),
        _chat(0x23, 0x10, 40, 60, request=_request("You search.", "boss")),
        _chat(0x24, 0x10, 62, 80, request=_request("Nobody's words.", "boss")),
    ]


def test_calls_under_the_root_are_the_agents_made_with_their_system_prompts(
    tmp_path: Path,
) -> None:
    ev, err = _import(tmp_path, _made_run())
    calls = [e["agent"] for e in ev if e.get("role") == "llm_call"]
    # a's two calls, b's one; the call of no agent's words stays the root's (boss's)
    assert calls == ["a", "b", "a", "boss"]
    # the one who signed every agent's first request is the root's agent, calling them
    assert _graph(ev) == ([("boss", "a"), ("boss", "b")], [("b", "boss"), ("a", "boss")])
    assert "the description 'a' was made with (create_agent)" in err
    assert "the author of every first request of the agents under it ('boss'" in err


def test_requests_signed_by_two_authors_name_no_root_agent(tmp_path: Path) -> None:
    ev, _ = _import(tmp_path, _made_run(sender_b="other"))
    assert [e["agent"] for e in ev if e.get("role") == "llm_call"][:3] == ["a", "b", "a"]
    # the root, holding the call of no agent's words, is named as its span, as before
    assert _graph(ev)[0] == [("program", "a"), ("program", "b")]


def test_one_agent_made_with_words_others_share_is_not_read(tmp_path: Path) -> None:
    spans = _made_run()
    spans[2] = _made(0x12, "b", "You search.")  # a and b made with the same words
    ev, _ = _import(tmp_path, spans)
    assert {e["agent"] for e in ev if e.get("role") == "llm_call"} == {"program"}


def test_a_run_of_model_calls_alone_says_it_has_no_tool_spans(tmp_path: Path) -> None:
    """CAMEL under OpenInference's OpenAI instrumentor (held-out set 8) writes model calls only:
    its tool calls are read from the next requests of the agent that asked (ANSWERED_TOOL), and
    the summary says the file had no tool span, as it does for calls read by call id."""
    src = (
        Path(__file__).resolve().parents[2]
        / "fixtures/traces-heldout8/camel-openinference/agents-as-tools.otlp.jsonl"
    )
    out = tmp_path / "out.json"
    code, _, err = run(None, "trace", "import", "auto", str(src), "-o", str(out))
    assert code == 0, err
    assert (
        "the file has no tool spans (the tool calls counted are those a model call asked for"
        " whose result the same agent's next request carries): nothing is invented in their"
        " place"
    ) in err
    events = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert sum(e["type"] == "tool_call" for e in events) == 3
