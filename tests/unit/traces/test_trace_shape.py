"""Who owns a model call when no span says "agent": the program's scopes, not the
framework's (spans.py, _machinery and _distinct_scopes).

A framework's own scope (DSPy's Predict, an adapter inside it) occurs under scopes of two
or more names, or only inside the framework's; a program's module occurs in one place.
Model calls pass over the framework's scopes to the program's. A scope of one generic name
nested in itself is an agent calling one of its kind: the scopes are told apart, named by
their system prompts' "You are <Name>." or, without one, numbered with the summary saying
the file does not name them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import otlp_spans
from helpers.support import run

# Keyword names for the attributes (a keyword cannot hold a dot).
_KEYS = {
    "openinference_span_kind": "openinference.span.kind",
    "role": "llm.input_messages.0.message.role",
    "content": "llm.input_messages.0.message.content",
    "kind": "traceloop.span.kind",
    "entity": "traceloop.entity.name",
    "model": "gen_ai.request.model",
    "op": "gen_ai.operation.name",
    "agent_name": "gen_ai.agent.name",
    "answer": "gen_ai.output.messages",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _call(base: int, parent: int, start: int, prompt: str = "") -> list[dict[str, Any]]:
    """The framework's wrapper (Predict > Adapter) around one model call."""
    llm: dict[str, str] = {"openinference_span_kind": "LLM"}
    if prompt:
        llm |= {"role": "system", "content": prompt}
    return [
        _span(base, parent, "Predict.forward", start, start + 8, openinference_span_kind="CHAIN"),
        _span(
            base + 1,
            base,
            "Adapter.__call__",
            start + 1,
            start + 7,
            openinference_span_kind="CHAIN",
        ),
        _span(base + 2, base + 1, "Model.__call__", start + 2, start + 6, **llm),
    ]


def _agents(tmp: Path, spans: list[dict[str, Any]]) -> tuple[set[str], str]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    ev = json.loads(out.read_text(encoding="utf-8"))["events"]
    return {e["agent"] for e in ev if e.get("role") == "llm_call"}, err


CHAIN = {"openinference_span_kind": "CHAIN"}


def test_model_calls_pass_over_the_framework_scopes_to_the_program_modules(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "Coordinator.forward", 0, 100, **CHAIN),
        *_call(0x20, 0x10, 1),
        _span(0x30, 0x10, "Researcher.forward", 20, 50, **CHAIN),
        *_call(0x40, 0x30, 21),
        *_call(0x50, 0x30, 31),
        _span(0x60, 0x10, "Writer.forward", 60, 90, **CHAIN),
        *_call(0x70, 0x60, 61),
    ]
    agents, _ = _agents(tmp_path, spans)
    assert agents == {"Coordinator", "Researcher", "Writer"}  # not Predict, not Adapter


def test_one_generic_scope_nested_in_itself_is_told_apart_by_prompts(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "Pipeline.run", 0, 100, **CHAIN),
        _span(0x20, 0x10, "Agent.run", 1, 99, **CHAIN),
        *_call(0x30, 0x20, 2, "You are lead."),
        _span(0x40, 0x20, "Agent.run", 20, 50, **CHAIN),
        *_call(0x50, 0x40, 21, "You are helper. Be brief."),
    ]
    agents, err = _agents(tmp_path, spans)
    assert agents == {"lead", "helper"}
    assert "named by their system prompts" in err


def test_without_a_prompt_naming_them_the_summary_says_the_file_does_not(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "Pipeline.run", 0, 100, **CHAIN),
        _span(0x20, 0x10, "Agent.run", 1, 99, **CHAIN),
        *_call(0x30, 0x20, 2, "You are a helpful assistant."),
        _span(0x40, 0x20, "Agent.run", 20, 50, **CHAIN),
        *_call(0x50, 0x40, 21),
    ]
    agents, err = _agents(tmp_path, spans)
    assert agents == {"Agent", "Agent#2"}
    assert "the file does not name them" in err


AGENT = {"openinference_span_kind": "AGENT"}


def test_an_agent_node_reused_by_every_graph_acts_for_its_graph(tmp_path: Path) -> None:
    """LangGraph's create_react_agent writes an AGENT span 'agent' inside each graph: a node
    of each, not an agent called 'agent'."""
    spans = [_span(0x10, 0, "supervisor", 0, 100, **CHAIN)]
    for k, graph in enumerate(("researcher", "writer")):
        base = 0x100 * (k + 1)
        spans += [
            _span(base, 0x10, graph, 10 + 40 * k, 40 + 40 * k, **CHAIN),
            _span(base + 1, base, "agent", 11 + 40 * k, 39 + 40 * k, **AGENT),
            _span(
                base + 2, base + 1, "Model", 12 + 40 * k, 20 + 40 * k, openinference_span_kind="LLM"
            ),
        ]
    agents, _ = _agents(tmp_path, spans)
    assert agents == {"researcher", "writer"}


def test_traceloop_decorators_name_agents_and_tools(tmp_path: Path) -> None:
    """OpenLLMetry's @workflow, @agent and @tool (traceloop.span.kind, traceloop.entity.name),
    and a model call that names only its request model."""
    spans = [
        _span(0x10, 0, "app.workflow", 0, 100, kind="workflow", entity="app"),
        _span(0x20, 0x10, "researcher.agent", 1, 99, kind="agent", entity="researcher"),
        _span(0x30, 0x20, "openai.chat", 2, 10, model="gpt-x"),
        _span(0x40, 0x20, "search.tool", 11, 20, kind="tool", entity="search"),
    ]
    src = tmp_path / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp_path / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    ev = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert {e["agent"] for e in ev if e.get("role") == "llm_call"} == {"researcher"}
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("researcher", "search")
    ]


def test_an_agent_two_agents_call_stays_an_agent(tmp_path: Path) -> None:
    """A sub-agent held by two agents' spans, with model calls of its own, is an agent (not
    a reused node), unlike a node inside each graph."""
    spans = [_span(0x10, 0, "app", 0, 200, **CHAIN)]
    for k, caller in enumerate(("lead", "reviewer")):
        base = 0x100 * (k + 1)
        t = 10 + 90 * k
        spans += [
            _span(base, 0x10, caller, t, t + 80, **AGENT),
            _span(base + 1, base, "Model", t + 1, t + 5, openinference_span_kind="LLM"),
            _span(base + 2, base, "helper", t + 10, t + 40, **AGENT),
            _span(base + 3, base + 2, "Model", t + 11, t + 20, openinference_span_kind="LLM"),
        ]
    agents, _ = _agents(tmp_path, spans)
    assert agents == {"lead", "reviewer", "helper"}


def test_a_default_agent_name_on_every_span_names_no_agent(tmp_path: Path) -> None:
    """An instrumentor's default gen_ai.agent.name ("Default") on every span but the
    agents' own, held by two agents of other names: no agent (OpenTelemetry's Agents SDK
    instrumentor's "OpenAI Agent"), not a conversation holding the agents' runs."""
    dflt = {"agent_name": "Default"}
    spans = [
        _span(0x10, 0, "workflow", 0, 100, op="invoke_agent"),
        _span(0x11, 0x10, "unknown", 1, 99, op="unknown", **dflt),
        _span(0x20, 0x11, "invoke_agent lead", 2, 98, op="invoke_agent", agent_name="lead"),
        _span(0x21, 0x20, "unknown", 3, 60, op="unknown", **dflt),
        _span(0x22, 0x21, "chat", 4, 10, op="chat", **dflt),
        _span(0x23, 0x21, "execute_tool ask_helper", 11, 59, op="execute_tool", **dflt),
        _span(0x24, 0x23, "unknown", 12, 58, op="unknown", **dflt),
        _span(0x30, 0x24, "invoke_agent helper", 13, 57, op="invoke_agent", agent_name="helper"),
        _span(0x31, 0x30, "unknown", 14, 56, op="unknown", **dflt),
        _span(0x32, 0x31, "chat", 15, 25, op="chat", **dflt),
        _span(0x25, 0x20, "unknown", 61, 97, op="unknown", **dflt),
        _span(0x26, 0x25, "chat", 62, 70, op="chat", **dflt),
    ]
    agents, _ = _agents(tmp_path, spans)
    assert agents == {"lead", "helper"}
    ev = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["events"]
    assert {e.get("agent") for e in ev} == {"workflow", "lead", "helper"}
    assert [(e["agent"], e["to"]) for e in ev if e["type"] == "spawn"] == [
        ("workflow", "lead"),
        ("lead", "helper"),
    ]


def test_a_span_named_as_the_tool_the_model_asked_for_is_its_call(tmp_path: Path) -> None:
    """A span of no attribute, holding none, named as the tool the model call before it
    asked for (the GenAI conventions' gen_ai.output.messages) is that tool's call (Burr);
    one the model did not ask for stays generic."""
    asked = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "name": "search"}]}])
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _span(0x20, 0x10, "researcher", 1, 99),
        _span(0x30, 0x20, "openai.chat", 2, 10, model="m", answer=asked),
        _span(0x40, 0x20, "search", 11, 20),
        _span(0x50, 0x20, "notes", 21, 25),
        _span(0x60, 0x20, "openai.chat", 30, 40, model="m"),
    ]
    src = tmp_path / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp_path / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    ev = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("researcher", "search")
    ]


def test_an_answer_written_as_a_python_repr_is_read_as_a_literal_only() -> None:
    """The tools of an answer message written as its Python repr in a text part, read as a
    literal: a call, a name or an over-deep or over-long text gives nothing."""
    from survey_tools.traces.importers.otel import _asked_genai  # noqa: PLC0415

    def parts(text: str) -> str:
        return json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])

    said = "{'content': None, 'tool_calls': [{'id': 'c1', 'function': {'name': 'transfer_to_b'}}]}"
    assert _asked_genai(parts(said)) == ("transfer_to_b",)
    assert _asked_genai(parts("{'tool_calls': [__import__('os').getcwd()]}")) == ()
    assert _asked_genai(parts("{'tool_calls': " + "[" * 5000 + "]" * 5000 + "}")) == ()
    assert _asked_genai(parts("{'tool_calls': [" + "1," * 20_000 + "]}")) == ()
    assert _asked_genai(parts("no tool_call here")) == ()


def test_an_agent_span_named_only_by_its_operation_and_a_sourced_hand_off(tmp_path: Path) -> None:
    """A span named only ``invoke_agent``, naming no agent, is a step of the agent holding
    it (OpenLIT's turns), never an agent ``invoke_agent``; an ``invoke_agent b`` span saying
    it came from ``a`` (gen_ai.agent.source) is a hand-off to b, not a call that returns."""
    asked = json.dumps(
        [{"role": "assistant", "parts": [{"type": "tool_call", "name": "transfer_to_b"}]}]
    )
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _span(0x11, 0x10, "invoke_agent", 1, 99, op="invoke_agent"),
        _span(0x20, 0x11, "invoke_agent a", 2, 40, op="invoke_agent", agent_name="a"),
        _span(0x21, 0x20, "invoke_agent", 3, 39, op="invoke_agent"),
        _span(0x22, 0x21, "chat m", 4, 30, op="chat", answer=asked),
        _span(
            0x23,
            0x21,
            "invoke_agent b",
            31,
            32,
            op="invoke_agent",
            agent_name="b",
            **{"gen_ai.agent.source": "a"},
        ),
        _span(0x30, 0x11, "invoke_agent b", 41, 98, op="invoke_agent", agent_name="b"),
        _span(0x31, 0x30, "invoke_agent", 42, 97, op="invoke_agent"),
        _span(0x32, 0x31, "chat m", 43, 90, op="chat"),
    ]
    agents, _ = _agents(tmp_path, spans)
    assert agents == {"a", "b"}
    ev = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["events"]
    assert "invoke_agent" not in {e.get("agent") for e in ev} | {e.get("to") for e in ev}
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("a", "transfer_to_b")
    ]
    assert not [e for e in ev if e["type"] == "return" and e["agent"] == "b" and e["to"] == "a"]


def test_a_tool_step_named_after_its_model_runs_what_the_answer_asked_for(tmp_path: Path) -> None:
    """An execute_tool span named after its own model names no tool: holding no span, it
    is one call per tool the answer before it asked for (pydantic-ai's node under OpenLIT);
    after an answer asking for nothing it is no tool call."""
    two = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "name": "search"},
                    {"type": "tool_call", "name": "fetch"},
                ],
            }
        ]
    )
    m = {"model": "scripted-a"}
    spans = [
        _span(0x10, 0, "run", 0, 100),
        _span(0x20, 0x10, "execute_task a", 1, 99, op="execute_task", agent_name="a"),
        _span(0x21, 0x20, "chat scripted-a", 2, 30, op="chat", answer=two, **m),
        _span(0x22, 0x20, "execute_tool scripted-a", 31, 31, op="execute_tool", **m),
        _span(0x23, 0x20, "chat scripted-a", 40, 60, op="chat", **m),
        _span(0x24, 0x20, "execute_tool scripted-a", 61, 61, op="execute_tool", **m),
    ]
    _agents(tmp_path, spans)
    ev = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["events"]
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("a", "search"),
        ("a", "fetch"),
    ]
