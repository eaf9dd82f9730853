"""Structure and words any framework may use, read without a row of rules.yaml (round 7):
a span saying its kind in an attribute of its own (``<tool>.observation.type: agent``) or in
a templated span name (``Agent run: {name!r}``), a usage JSON object of its own, and the
turns of agents a composite runs one after another (selfsaid.py; spans.py,
_composite_turns). The spans are made up ("acme"), so no row of any framework can match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.support import run

MS = 1_000_000


def _span(
    span: int, parent: int, name: str, start: int, end: int, /, **attrs: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": "2" * 32,
        "spanId": f"{span:016x}",
        "name": name,
        "startTimeUnixNano": str(start * MS),
        "endTimeUnixNano": str(end * MS),
        "attributes": [
            {"key": k.replace("__", "."), "value": {"stringValue": v}} for k, v in attrs.items()
        ],
    }
    if parent:
        out["parentSpanId"] = f"{parent:016x}"
    return out


def _import(tmp: Path, spans: list[dict[str, Any]], *opts: str) -> tuple[dict[str, Any], str]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out), *opts)
    assert code == 0, err
    return json.loads(out.read_text(encoding="utf-8")), err


def _calls(doc: dict[str, Any]) -> tuple[set[str], list[tuple[str, str]], list[tuple[str, str]]]:
    ev = doc["events"]
    thinking = {e["agent"] for e in ev if e.get("role") == "llm_call"}
    tools = [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"]
    spawns = [(e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message") and "to" in e]
    return thinking, tools, spawns


def test_a_kind_attribute_and_a_usage_object_of_its_own(tmp_path: Path) -> None:
    t = "acme__observation__type"
    spans = [
        _span(0x10, 0, "lead", 0, 100, **{t: "agent"}),
        _span(
            0x11,
            0x10,
            "chat",
            1,
            5,
            **{t: "generation", "acme__usage_details": '{"input": 7, "output": 2}'},
        ),
        _span(0x12, 0x10, "ask_helper", 6, 50, **{t: "tool"}),
        _span(0x13, 0x12, "helper", 7, 49, **{t: "agent"}),
        _span(
            0x14,
            0x13,
            "chat",
            8,
            20,
            **{t: "generation", "acme__usage": '{"input_tokens": 5, "output_tokens": 1}'},
        ),
        # A type word that is not a kind word ("custom") says nothing.
        _span(0x15, 0x10, "note", 60, 61, **{t: "custom"}),
    ]
    doc, err = _import(tmp_path, spans)
    thinking, tools, spawns = _calls(doc)
    assert thinking == {"lead", "helper"}
    assert tools == [("lead", "ask_helper")]
    assert ("lead", "helper") in spawns
    assert doc["costs"]["input_tokens"] == 12 and doc["costs"]["output_tokens"] == 3
    assert "note (1)" in err  # kept generic, named in the summary
    assert "unknown operations kept as generic events: note (1)" in err


def test_a_templated_span_name_names_its_agent_tool_and_hand_off(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "Run: {name}", 0, 100, name="app"),
        _span(0x20, 0x10, "Agent run: {name!r}", 1, 50, name="triage"),
        _span(0x21, 0x20, "Function: {name}", 2, 10, name="lookup"),
        _span(
            0x22,
            0x20,
            "Handoff: {from_agent} → {to_agent}",
            11,
            12,
            from_agent="triage",
            to_agent="writer",
        ),
        _span(0x30, 0x10, "Agent run: {name!r}", 51, 99, name="writer"),
    ]
    doc, err = _import(tmp_path, spans, "--explain")
    _, tools, spawns = _calls(doc)
    assert tools == [("triage", "lookup")]
    assert ("triage", "writer") in spawns
    assert (
        "'Agent run: {name!r}': agent triage's span, delegated to by root [words: a templated"
        in err
    )


def test_a_row_still_wins_over_the_words(tmp_path: Path) -> None:
    """A user's row on the same attribute decides (rows first, then these words): here the
    framework's own "agent" spans are its bookkeeping, and the model call is the app's."""
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        'rules:\n  - family: acme\n    why: "acme: a span of type agent is bookkeeping here"\n'
        '    subject: "attr:acme.observation.type"\n    match: "agent$"\n    kind: runtime\n',
        encoding="utf-8",
    )
    t = "acme__observation__type"
    spans = [
        _span(0x10, 0, "app", 0, 100),
        _span(0x11, 0x10, "lead", 1, 99, **{t: "agent"}),
        _span(0x12, 0x11, "chat", 2, 5, **{t: "generation"}),
    ]
    doc, err = _import(tmp_path, spans, "--rules", str(rules), "--explain")
    assert "'lead': folded into" in err
    assert "acme: a span of type agent is bookkeeping here" in err
    assert _calls(doc)[0] == {"app"}


def _counts(sp: dict[str, Any], **counts: int) -> dict[str, Any]:
    """``sp`` with integer attributes (token counts) added."""
    for k, v in counts.items():
        sp["attributes"].append({"key": k.replace("__", "."), "value": {"intValue": str(v)}})
    return sp


def test_a_kind_prefix_names_its_agent_and_tool_and_flat_usage_counts_once(
    tmp_path: Path,
) -> None:
    """``<kind>:<name>`` span names (round 7, held-out set 3): the prefix's word says the
    kind, the rest the name; a model call's own kind attribute wins over the agent kind
    beside it (which says whose it is); flat ``usage.*`` are a span's own tokens, a
    namespaced ``llm.usage.*`` (one of several calls) is not read."""
    own = {"entity__type": "agent"}
    spans = [
        _counts(
            _span(0x10, 0, "lead", 0, 100, **own),
            usage__prompt_tokens=15,
            usage__completion_tokens=3,
        ),
        _counts(
            _span(0x11, 0x10, "llm:generate", 1, 99, span__type="llm", **own),
            llm__usage__prompt_tokens=12,
            llm__usage__completion_tokens=2,
        ),
        _span(0x12, 0x10, "tool.execution:ask", 6, 50, span__type="tool", tool__name="ask", **own),
        _counts(
            _span(0x13, 0x12, "subagent:helper", 7, 49, subagent__type="agent", **own),
            usage__prompt_tokens=20,
            usage__completion_tokens=4,
        ),
        _span(0x14, 0x13, "llm:generate", 8, 48, span__type="llm", **own),
    ]
    doc, err = _import(tmp_path, spans, "--explain")
    thinking, tools, spawns = _calls(doc)
    assert thinking == {"lead", "helper"}
    assert tools == [("lead", "ask")]
    assert ("lead", "helper") in spawns
    # The lead's own 15 + 3 (less than the helper's, so not a roll-up of it: spans.py).
    assert doc["costs"]["input_tokens"] == 35 and doc["costs"]["output_tokens"] == 7
    assert "[words: a kind prefix of its span name" in err


def test_a_composite_running_agents_in_turn_passes_each_turn_on(tmp_path: Path) -> None:
    """A group chat's manager (an agent span that only runs agents, one after another): each
    turn is passed on by the speaker before it, and a turn making no model call, only tool
    calls, is the group's tool runner, its tools the previous speaker's."""
    agent = {"gen_ai__operation__name": "invoke_agent"}
    chat = {"gen_ai__operation__name": "chat"}
    tool = {"gen_ai__operation__name": "execute_tool"}
    spans = [
        _span(0x10, 0, "conversation", 0, 100, gen_ai__agent__name="user", **agent),
        _span(0x11, 0x10, "invoke_agent manager", 1, 99, gen_ai__agent__name="manager", **agent),
        _span(0x20, 0x11, "invoke_agent planner", 2, 10, gen_ai__agent__name="planner", **agent),
        _span(0x21, 0x20, "chat", 3, 9, **chat),
        _span(0x30, 0x11, "invoke_agent finder", 11, 20, gen_ai__agent__name="finder", **agent),
        _span(0x31, 0x30, "chat", 12, 19, **chat),
        _span(0x40, 0x11, "invoke_agent runner", 21, 30, gen_ai__agent__name="runner", **agent),
        _span(0x41, 0x40, "execute_tool search", 22, 29, gen_ai__tool__name="search", **tool),
        _span(0x50, 0x11, "invoke_agent finder", 31, 40, gen_ai__agent__name="finder", **agent),
        _span(0x51, 0x50, "chat", 32, 39, **chat),
        _span(0x60, 0x11, "invoke_agent writer", 41, 50, gen_ai__agent__name="writer", **agent),
        _span(0x61, 0x60, "chat", 42, 49, **chat),
    ]
    doc, _ = _import(tmp_path, spans)
    thinking, tools, spawns = _calls(doc)
    assert thinking == {"planner", "finder", "writer"}
    assert tools == [("finder", "search")]
    assert ("planner", "finder") in spawns and ("finder", "writer") in spawns
    assert not {a for a, _ in spawns} & {"manager", "runner"}
    assert {e["agent"] for e in doc["events"]} == {"user", "planner", "finder", "writer"}
