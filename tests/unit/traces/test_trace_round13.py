"""Round 13's readings of what no span records (docs/trace-formats.md, "Measured on held-out
sets 10 and 11"), on small runs of spans of no framework's:

- tool calls asked for by name, in a file with no tool span and no call id, ran when the
  asking agent's next request carries as many more tool results (one per name); fewer
  results, or no next request, count none;
- in a file with no model-call span, a message a span carries with an id, an author and a
  usage object is one model call by that author, counted once however many spans carry it;
- an agent's turn holding nothing, while other spans of that agent hold its model calls, is
  bookkeeping (a message delivered and set aside), not a delegation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import otlp_spans

from survey_tools.traces.importers import selfsaid

_KEYS = {
    "op": "gen_ai.operation.name",
    "agent_name": "gen_ai.agent.name",
    "model": "gen_ai.request.model",
    "tool": "gen_ai.tool.name",
    "kind": "openinference.span.kind",
    "message": "message",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _import(tmp: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    return otlp_spans.imported(tmp, spans)


def _tools(ev: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["agent"], e["tool"]) for e in ev if e.get("type") == "tool_call"]


# --- tool calls by name, answered in the next request (OpenInference's flattened messages)


def _llm(span: int, parent: int, start: int, end: int, roles: list[str], asked: list[str]) -> dict:
    s = _span(span, parent, "Generator.run", start, end, kind="LLM")
    attrs = s["attributes"]
    for i, role in enumerate(roles):
        attrs.append(_kv(f"llm.input_messages.{i}.message.role", role))
    for j, tool in enumerate(asked):
        key = f"llm.output_messages.0.message.tool_calls.{j}.tool_call.function.name"
        attrs.append(_kv(key, tool))
    return s


def _agent_run(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        _span(0x10, 0, "run", 0, 100),
        _span(0x20, 0x10, "Agent.run", 1, 99, kind="AGENT", agent_name="a"),
        *calls,
    ]


def test_tools_asked_by_name_and_answered_next_are_calls_of_the_asker(tmp_path: Path) -> None:
    ev, err = _import(
        tmp_path,
        _agent_run(
            _llm(0x21, 0x20, 2, 20, ["system", "user"], ["search", "fetch"]),
            _llm(0x22, 0x20, 30, 50, ["system", "user", "assistant", "tool", "tool"], []),
        ),
    )
    assert _tools(ev) == [("a", "search"), ("a", "fetch")]
    assert "by name, whose results its agent's next request carries" in err


def test_fewer_new_results_or_no_next_request_count_no_call(tmp_path: Path) -> None:
    ev, _ = _import(
        tmp_path,
        _agent_run(
            _llm(0x21, 0x20, 2, 20, ["system", "user"], ["search", "fetch"]),
            _llm(0x22, 0x20, 30, 50, ["system", "user", "assistant", "tool"], ["write"]),
        ),
    )
    # two asked, one result: neither is counted; the last call's ask has no next request
    assert _tools(ev) == []


# --- model calls from the messages a runtime carries


def _message(mid: str, source: str, usage: dict[str, int] | None, at: str) -> str:
    return json.dumps(
        {"message": {"id": mid, "source": source, "models_usage": usage, "created_at": at}}
    )


T0 = "2026-01-01T00:00:00"


def test_carried_calls_read_id_author_usage_and_time() -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 2}
    a = {"message": _message("m1", "planner", usage, T0 + ".5Z")}
    assert selfsaid.carried_calls(a) == (("m1", "planner", 9, 2, 1_767_225_600_500_000_000),)
    # no usage (a tool's result) is no call; a local time says no instant; no author, no call
    assert selfsaid.carried_calls({"message": _message("m2", "user", None, T0 + "Z")}) == ()
    local = {"message": _message("m3", "w", {"prompt_tokens": 1}, T0)}
    assert selfsaid.carried_calls(local) == (("m3", "w", 1, 0, 0),)
    nameless = {"message": json.dumps({"id": "m4", "usage": {"input_tokens": 3}})}
    assert selfsaid.carried_calls(nameless) == ()


def test_a_message_carried_twice_is_one_model_call_of_its_author(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 90, "completion_tokens": 12}
    carried = _message("m1", "planner", usage, "1970-01-01T00:00:00.004Z")  # at 4 ms
    spans = [
        _span(0x10, 0, "run", 0, 10),
        _span(0x20, 0x10, "invoke_agent planner", 1, 5, op="invoke_agent", agent_name="planner"),
        _span(0x30, 0x10, "deliver", 6, 7, message=carried),
        _span(0x31, 0x10, "deliver", 8, 9, message=carried),
    ]
    ev, err = _import(tmp_path, spans)
    calls = [e for e in ev if e.get("role") == "llm_call"]
    assert [e["agent"] for e in calls] == ["planner"]
    assert "the model calls counted are the answers its messages carry" in err
    assert "model call of planner [structure (round 13): a message its runtime carried" in err


# --- an agent's turn holding nothing while it works elsewhere


def test_an_empty_turn_of_a_working_agent_is_no_delegation(tmp_path: Path) -> None:
    def agent(span: int, name: str, start: int, end: int) -> dict[str, Any]:
        return _span(span, 0x10, f"invoke_agent {name}", start, end, op="invoke_agent",
                     agent_name=name)  # fmt: skip

    def chat(span: int, parent: int, start: int, end: int) -> dict[str, Any]:
        return _span(span, parent, "chat m", start, end, op="chat", model="m")

    spans = [
        _span(0x10, 0, "run", 0, 100),
        agent(0x20, "a", 1, 30),
        chat(0x21, 0x20, 2, 29),
        agent(0x30, "b", 31, 31),  # a broadcast delivered to b, set aside
        agent(0x40, "b", 40, 90),
        chat(0x41, 0x40, 41, 89),
    ]
    ev, err = _import(tmp_path, spans)
    sent = [(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message")]
    assert sent.count(("root", "b")) == 1, sent  # the empty turn is no second delegation
    assert "a turn holding nothing of an agent working elsewhere" in err


# --- a hand-off target numbered by the framework


def test_a_hand_off_to_a_numbered_agent_goes_to_that_agent(tmp_path: Path) -> None:
    def agent(span: int, name: str, start: int, end: int) -> dict[str, Any]:
        return _span(span, 0x10, f"invoke_agent {name}", start, end, op="invoke_agent",
                     agent_name=name)  # fmt: skip

    def tool(span: int, parent: int, name: str, start: int) -> dict[str, Any]:
        return _span(span, parent, f"execute_tool {name}", start, start + 1,
                     op="execute_tool", tool=name)  # fmt: skip

    spans = [
        _span(0x10, 0, "run", 0, 100),
        agent(0x20, "planner", 1, 30),
        tool(0x21, 0x20, "transfer_to_writer_1", 20),
        agent(0x30, "writer", 31, 60),
        agent(0x40, "critic", 61, 90),
        tool(0x41, 0x40, "transfer_to_editor_2", 70),  # no agent editor: left as it is
    ]
    ev, _ = _import(tmp_path, spans)
    sent = {(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message")}
    assert ("planner", "writer") in sent and ("planner", "writer_1") not in sent, sent
    assert ("critic", "editor_2") in sent, sent


# --- the tools an answer written whole in a framework's own *output JSON asked for


def test_tools_asked_in_an_answer_written_whole() -> None:
    answer = {"role": "assistant", "tool_calls": [
        {"id": "c1", "function": {"name": "search_papers", "arguments": "{}"}},
        {"id": "c2", "name": "fetch"},
    ]}  # fmt: skip
    a = {"langfuse.observation.output": json.dumps(answer)}
    assert selfsaid.asked_in_answer(a) == ("search_papers", "fetch")
    nested = {"x.output": json.dumps({"choices": [{"message": answer}]})}
    assert selfsaid.asked_in_answer(nested) == ("search_papers", "fetch")
    assert selfsaid.asked_in_answer({"x.input": json.dumps(answer)}) == ()  # a request, no answer
    assert selfsaid.asked_in_answer({"x.output": "tool_calls: none"}) == ()
