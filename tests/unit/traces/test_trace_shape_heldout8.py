"""Round 10's readings from held-out set 8 (docs/trace-formats.md, "Who is an agent"), each on
small attribute sets or runs of spans of no framework's: a span-kind attribute of a tracer's
own with JSON-encoded values (its kind, the agent's instance name, usage, the tools asked
for); a tool class named as the tool the model asked for; the loop-ending tool kept where
agents are called as asked tools; a run of model calls alone, its agents told by their
system prompts and its tool calls by what each answer asked and the next request answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import otlp_spans
from helpers.support import run

from survey_tools.traces.importers import encoded


def _q(value: str) -> str:
    """A value as a tracer keeping JSON text writes it."""
    return json.dumps(value)


@pytest.mark.parametrize(
    ("attrs", "kind"),
    [
        ({"mlflow.spanType": _q("CHAT_MODEL")}, "LLM"),
        ({"mlflow.spanType": _q("AGENT")}, "AGENT"),
        ({"x.spanKind": "TOOL"}, "TOOL"),  # a camel-case key: any value
        ({"span_type": _q("chain")}, "CHAIN"),  # a snake key: an encoded value only
        ({"span_type": "agent"}, ""),  # a plain value there is selfsaid.py's
        ({"x.spanType": _q("UNKNOWN")}, ""),  # no OpenInference kind
        ({"x.typeName": _q("AGENT")}, ""),  # not a kind key
        ({"x.spanType": "{not json"}, ""),
    ],
)
def test_a_span_kind_attribute_by_the_shape_of_its_key_and_value(
    attrs: dict[str, Any], kind: str
) -> None:
    assert encoded.kind(attrs) == kind


@pytest.mark.parametrize(
    ("attrs", "tokens"),
    [
        ({"x.chat.tokenUsage": '{"input_tokens": 9, "output_tokens": 2}'}, (9, 2)),
        ({"usage": {"prompt_tokens": 5, "completion_tokens": 1}}, (5, 1)),
        ({"x.tokenUsage": '{"total_tokens": 9}'}, (0, 0)),
        ({"x.tokenUsed": '{"input_tokens": 9}'}, (0, 0)),
    ],
)
def test_usage_from_any_json_usage_object(attrs: dict[str, Any], tokens: tuple[int, int]) -> None:
    assert encoded.usage(attrs) == tokens


def _completion(*tools: str) -> str:
    calls = [
        {"id": f"c{i}", "function": {"name": t, "arguments": "{}"}} for i, t in enumerate(tools)
    ]
    return json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": calls}}]})


@pytest.mark.parametrize(
    ("attrs", "asked"),
    [
        ({"x.spanOutputs": _completion("search", "final_answer")}, ("search", "final_answer")),
        ({"output": _completion("search")}, ("search",)),
        ({"x.spanInputs": _completion("search")}, ()),  # a request, not the answer
        ({"x.spanOutputs": json.dumps({"choices": []})}, ()),
    ],
)
def test_the_tools_asked_for_from_a_chat_completion(
    attrs: dict[str, Any], asked: tuple[str, ...]
) -> None:
    assert encoded.asked(attrs) == asked


def test_an_agent_kind_span_is_named_by_its_name_attribute() -> None:
    said = encoded.reading({"t.spanType": _q("AGENT"), "name": _q("researcher")})
    assert said == {"openinference.span.kind": "AGENT", "agent.name": "researcher"}
    assert encoded.reading({"t.spanType": _q("TOOL"), "name": _q("x")}) == {
        "openinference.span.kind": "TOOL"
    }
    assert encoded.reading({"name": _q("researcher")}) == {}


_KEYS = {
    "kind": "t.spanType",
    "usage": "t.chat.tokenUsage",
    "outputs": "t.spanOutputs",
    "instance": "name",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _import(tmp: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out), "--explain")
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events, err


def _calls(ev: list[dict[str, Any]]) -> list[str]:
    return [e["agent"] for e in ev if e.get("role") == "llm_call"]


def _tools(ev: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"]


def _delegations(ev: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message") and e.get("to")]


def _agent(span: int, parent: int, name: str, start: int, end: int) -> dict[str, Any]:
    return _span(span, parent, "Agent.run", start, end, kind=_q("AGENT"), instance=_q(name))


def _model(span: int, parent: int, start: int, end: int, *asked: str) -> dict[str, Any]:
    usage = json.dumps({"input_tokens": 10, "output_tokens": 2})
    return _span(
        span, parent, "Completions", start, end,
        kind=_q("CHAT_MODEL"), usage=usage, outputs=_completion(*asked),
    )  # fmt: skip


def _tool(span: int, parent: int, cls: str, start: int, end: int) -> dict[str, Any]:
    return _span(span, parent, f"{cls}.__call__", start, end, kind=_q("TOOL"))


def test_a_tracer_of_json_encoded_kinds_reads_as_its_agents_ran(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _agent(0x20, 0x10, "boss", 1, 99),
        _model(0x21, 0x20, 2, 10, "helper"),
        _agent(0x30, 0x20, "helper", 11, 60),  # a managed agent: its run inside its caller's
        _model(0x31, 0x30, 12, 20, "search_papers"),
        _tool(0x32, 0x30, "SearchPapersTool", 21, 25),
        _model(0x33, 0x30, 26, 30, "final_answer"),
        _tool(0x34, 0x30, "FinalAnswerTool", 31, 35),
        _model(0x22, 0x20, 61, 70, "final_answer"),
        _tool(0x23, 0x20, "FinalAnswerTool", 71, 75),
    ]
    ev, err = _import(tmp_path, spans)
    assert _calls(ev) == ["boss", "helper", "helper", "boss"]
    # The tool classes are the tools asked for; final_answer, asked by every agent called
    # as an asked tool, stays each one's tool call.
    assert _tools(ev) == [
        ("helper", "search_papers"),
        ("helper", "final_answer"),
        ("boss", "final_answer"),
    ]
    assert ("boss", "helper") in _delegations(ev)
    assert "encoded.py" in err
    assert "a tool class named as the tool the model call before it asked for" in err


def _oi_call(
    span: int, start: int, end: int, agent: str, asked: list[tuple[str, str]], answered: list[str]
) -> dict[str, Any]:
    """An OpenInference model call of agent ``agent`` (its system prompt names it), its
    answer asking for ``asked`` (name, id), its request answering ``answered`` (ids)."""
    attrs: dict[str, str] = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": f"You are {agent}.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "go",
    }
    for n, cid in enumerate(answered, start=2):
        attrs[f"llm.input_messages.{n}.message.role"] = "tool"
        attrs[f"llm.input_messages.{n}.message.tool_call_id"] = cid
    for m, (tool, cid) in enumerate(asked):
        head = f"llm.output_messages.0.message.tool_calls.{m}.tool_call"
        attrs[f"{head}.function.name"] = tool
        attrs[f"{head}.id"] = cid
    return otlp_spans.span({}, span, 0x10, "ChatCompletion", start, end, **attrs)


def test_a_run_of_model_calls_alone_reads_its_agents_and_tools(tmp_path: Path) -> None:
    spans = [
        otlp_spans.span({}, 0x10, 0, "run", 0, 100),
        _oi_call(0x21, 1, 10, "boss", [("ask_alpha", "b0"), ("ask_beta", "b1")], []),
        _oi_call(0x31, 11, 20, "alpha", [("search", "a0")], []),
        _oi_call(0x41, 12, 21, "beta", [], []),
        _oi_call(0x32, 25, 30, "alpha", [], ["a0"]),
        _oi_call(0x22, 40, 50, "boss", [("never_answered", "b2")], ["b0", "b1"]),
    ]
    ev, err = _import(tmp_path, spans)
    assert sorted(_calls(ev)) == ["alpha", "alpha", "beta", "boss", "boss"]
    # What was asked and answered; never_answered was asked but no request shows its
    # result: no tool call. Of the two asked at once, each ran the agent its name holds.
    assert sorted(_tools(ev)) == [("alpha", "search"), ("boss", "ask_alpha"), ("boss", "ask_beta")]
    assert {d for d in _delegations(ev) if d[0] != "root"} == {("boss", "alpha"), ("boss", "beta")}
    assert "their system prompts name 3 agents" in err


def test_model_calls_of_one_agent_are_not_told_apart(tmp_path: Path) -> None:
    spans = [
        otlp_spans.span({}, 0x10, 0, "run", 0, 100),
        _oi_call(0x21, 1, 10, "boss", [("search", "b0")], []),
        _oi_call(0x22, 20, 30, "boss", [], ["b0"]),
    ]
    ev, err = _import(tmp_path, spans)
    # One agent: no agents told apart by prompts; its tool call is read by id alone (the
    # tool call answered by id, docs/trace-formats.md), by the run's agent, of no length.
    assert _tools(ev) == [("run", "search")]
    assert "system prompts name" not in err


def _genai_call(
    span: int, start: int, end: int, agent: str, asked: list[tuple[str, str]], answered: list[str]
) -> dict[str, Any]:
    """:func:`_oi_call` in the GenAI conventions' JSON messages."""
    inputs: list[dict[str, Any]] = [
        {"role": "system", "parts": [{"type": "text", "content": f"You are {agent}."}]},
        {"role": "user", "parts": [{"type": "text", "content": "go"}]},
    ]
    inputs += [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": "ok"}]}
        for cid in answered
    ]
    parts = [{"type": "tool_call", "id": cid, "name": tool} for tool, cid in asked]
    outputs = [{"role": "assistant", "parts": parts or [{"type": "text", "content": "done"}]}]
    keys = {
        "op": "gen_ai.operation.name",
        "model": "gen_ai.request.model",
        "inputs": "gen_ai.input.messages",
        "outputs": "gen_ai.output.messages",
    }
    return otlp_spans.span(
        keys, span, 0x10, "chat m", start, end,
        op="chat", model="m", inputs=json.dumps(inputs), outputs=json.dumps(outputs),
    )  # fmt: skip


def test_a_run_of_model_calls_alone_in_the_genai_conventions(tmp_path: Path) -> None:
    spans = [
        otlp_spans.span({}, 0x10, 0, "run", 0, 100),
        _genai_call(0x21, 1, 10, "boss", [("ask_alpha", "b0")], []),
        _genai_call(0x31, 11, 20, "alpha", [], []),
        _genai_call(0x22, 40, 50, "boss", [], ["b0"]),
    ]
    ev, _ = _import(tmp_path, spans)
    assert sorted(_calls(ev)) == ["alpha", "boss", "boss"]
    assert _tools(ev) == [("boss", "ask_alpha")]
    assert ("boss", "alpha") in _delegations(ev)
