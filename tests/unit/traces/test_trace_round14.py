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
    return otlp_spans.imported(tmp, spans)[0]


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


# --- messages sent from a runtime's turn that runs one agent (MAF's group chat orchestrator)


def _linked(span: dict[str, Any], *to: int) -> dict[str, Any]:
    span["links"] = [{"traceId": "1" * 32, "spanId": f"{t:016x}"} for t in to]
    return span


def _runtime(span: int, parent: int, name: str, start: int, end: int, op: str) -> dict[str, Any]:
    # A message bus's span (the shared messaging row: the runtime's bookkeeping).
    return _span(span, parent, name, start, end, **{"messaging.operation": op})


def _workflow(end: int = 200) -> list[dict[str, Any]]:
    return [
        _span(0x1, 0, "run", 0, end),
        _span(
            0x2,
            0x1,
            "invoke_workflow w",
            0,
            end - 1,
            op="invoke_workflow",
            **{"gen_ai.workflow.name": "w"},
        ),
    ]


def test_a_runtime_turn_running_one_agent_sends_as_that_agent(tmp_path: Path) -> None:
    # The lead's turns are the runtime's spans holding its agent span and what it sent; the
    # worker's turn is an agent span linking to the message it was sent.
    ev = _import(
        tmp_path,
        [
            *_workflow(),
            _runtime(0x10, 0x2, "process lead", 1, 20, "process"),
            _turn(0x11, 0x10, "lead", 2, 15),
            _chat(0x12, 0x11, "lead", 3, 14),
            _runtime(0x13, 0x10, "send", 16, 17, "send"),
            _linked(_turn(0x20, 0x2, "worker", 21, 50), 0x13),
            _chat(0x22, 0x20, "worker", 23, 44),
            _runtime(0x23, 0x20, "send", 46, 47, "send"),
            _linked(_runtime(0x30, 0x2, "process lead", 51, 80, "process"), 0x23),
            _turn(0x31, 0x30, "lead", 52, 79),
            _chat(0x32, 0x31, "lead", 53, 78),
        ],
    )
    assert ("lead", "worker") in _delegations(ev)
    assert ("worker", "lead") not in _delegations(ev)  # its answer, not a delegation
    assert ("worker", "lead") in [(e["agent"], e["to"]) for e in ev if e["type"] == "return"]


def test_work_gathered_by_a_step_of_no_agent_comes_from_those_who_sent_it(
    tmp_path: Path,
) -> None:
    # Two agents' answers go to a gathering step (a function, no agent), whose message goes
    # on to a third agent: each of the two passed work to the third.
    def agent_turn(base: int, agent: str, start: int, *links: int) -> list[dict[str, Any]]:
        turn = _turn(base, 0x2, agent, start, start + 20)
        return [
            _linked(turn, *links) if links else turn,
            _chat(base + 2, base, agent, start + 2, start + 14),
            _runtime(base + 3, base, "send", start + 16, start + 17, "send"),
        ]

    ev = _import(
        tmp_path,
        [
            *_workflow(),
            *agent_turn(0x10, "a", 1),
            *agent_turn(0x20, "b", 2),
            _linked(_runtime(0x30, 0x2, "process gather", 30, 40, "process"), 0x13, 0x23),
            _runtime(0x31, 0x30, "send", 38, 39, "send"),
            *agent_turn(0x40, "c", 50, 0x31),
        ],
    )
    assert ("a", "c") in _delegations(ev)
    assert ("b", "c") in _delegations(ev)


def _speedup(tmp: Path, spans: list[dict[str, Any]]) -> float:
    from survey_tools.traces.metrics import compute
    from survey_tools.traces.validate import check_file

    _import(tmp, spans)
    _, trace = check_file(tmp / "out.json")
    assert trace is not None
    speedup: float = compute(trace)["parallelism_speedup"]
    return speedup


def _sent_to(base: int, agent: str, start: int, end: int, *links: int) -> list[dict[str, Any]]:
    # An agent's turn reached through a link, with one short tool call and no model call:
    # its span's time is the only sign of its work.
    turn = _turn(base, 0x2, agent, start, end)
    return [
        _linked(turn, *links) if links else turn,
        _span(base + 1, base, "execute_tool t", start + 1, start + 3, op="execute_tool", tool="t"),
        _runtime(base + 2, base, "send", end - 2, end - 1, "send"),
    ]


def test_agents_sent_work_at_once_read_as_concurrent_from_their_spans(tmp_path: Path) -> None:
    lead = _sent_to(0x10, "lead", 1, 20)
    both = [*_sent_to(0x20, "a", 21, 60, 0x12), *_sent_to(0x30, "b", 22, 60, 0x12)]
    # Work 19 + 39 + 38 ms on a path of about 60: the two overlap.
    assert _speedup(tmp_path, [*_workflow(62), *lead, *both]) > 1.4


def test_agents_sent_work_in_turn_stay_sequential(tmp_path: Path) -> None:
    chain = [
        *_sent_to(0x10, "lead", 1, 20),
        *_sent_to(0x20, "a", 21, 60, 0x12),
        *_sent_to(0x30, "b", 61, 100, 0x22),
    ]
    assert _speedup(tmp_path, [*_workflow(102), *chain]) <= 1.05


# --- OpenInference's graph.node.parent_id, where the spans' times agree with it


def _node(span: int, name: str, start: int, end: int, parent: str = "") -> dict[str, Any]:
    attrs = {"openinference.span.kind": "AGENT", "graph.node.id": name}
    if parent:
        attrs["graph.node.parent_id"] = parent
    return _span(span, 0x1, f"{name}.run", start, end, **attrs)


def _tool(span: int, parent: int, start: int) -> dict[str, Any]:
    return _span(
        span, parent, "search.run", start, start + 5, **{"openinference.span.kind": "TOOL"}
    )


def test_a_node_after_its_parent_node_was_passed_its_work_by_it(tmp_path: Path) -> None:
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            _node(0x10, "planner", 1, 20),
            _node(0x20, "researcher", 21, 50, parent="planner"),
            _tool(0x21, 0x20, 22),
            _node(0x30, "writer", 51, 80, parent="researcher"),
        ],
    )
    assert ("planner", "researcher") in _delegations(ev)
    assert ("researcher", "writer") in _delegations(ev)


def test_parent_ids_the_times_contradict_say_nothing_of_the_flow(tmp_path: Path) -> None:
    # The second researcher's parent id names the first, which was still running when it
    # started: the ids follow a list's order, not the flow.
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            _node(0x10, "planner", 1, 20),
            _node(0x20, "web", 21, 50, parent="planner"),
            _node(0x30, "paper", 22, 50, parent="web"),
            _node(0x40, "writer", 51, 80, parent="paper"),
        ],
    )
    assert ("web", "paper") not in _delegations(ev)


# --- DSPy's finish tool, where one ReAct alone runs


def test_dspy_react_finish_is_no_tool_call_of_the_program(tmp_path: Path) -> None:
    def kind(k: str) -> dict[str, str]:
        return {"openinference.span.kind": k}

    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            _span(0x10, 0x1, "Researcher.forward", 1, 99, **kind("CHAIN")),
            _span(0x11, 0x10, "ReAct.forward", 2, 98, **kind("CHAIN")),
            _span(0x12, 0x11, "LM.__call__", 3, 10, **kind("LLM")),
            _span(0x13, 0x11, "search.__call__", 11, 20, **kind("TOOL")),
            _span(0x14, 0x11, "LM.__call__", 21, 30, **kind("LLM")),
            _span(0x15, 0x11, "finish.__call__", 31, 32, **kind("TOOL")),
            _span(0x16, 0x11, "LM.__call__", 33, 40, **kind("LLM")),
        ],
    )
    assert [e["tool"] for e in ev if e["type"] == "tool_call"] == ["search"]


# --- read on held-out sets 15-17 after their first run (round 14)


def _says(key: str, value: str) -> dict[str, str]:
    return {key: value}


def _lf(kind: str) -> dict[str, str]:
    return _says("langfuse.observation.type", kind)


def test_a_chain_scope_is_the_graph_its_reused_agent_node_acts_for(tmp_path: Path) -> None:
    # Langfuse's LangChain handler: each graph a chain observation, its prebuilt node an
    # agent observation named "agent" in every graph; a tool runs the second graph.
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            _span(0x10, 0x1, "lead", 1, 99, **_lf("chain")),
            _span(0x11, 0x10, "agent", 2, 10, **_lf("agent")),
            _span(0x12, 0x11, "ChatOpenAI", 3, 9, **_lf("generation")),
            _span(0x13, 0x10, "tools", 11, 60, **_lf("chain")),
            _span(0x14, 0x13, "ask_helper", 12, 59, **_lf("tool")),
            _span(0x15, 0x14, "helper", 13, 58, **_lf("chain")),
            _span(0x16, 0x15, "agent", 14, 57, **_lf("agent")),
            _span(0x17, 0x16, "ChatOpenAI", 15, 56, **_lf("generation")),
            _span(0x18, 0x10, "agent", 61, 98, **_lf("agent")),
            _span(0x19, 0x18, "ChatOpenAI", 62, 97, **_lf("generation")),
        ],
    )
    assert ("lead", "helper") in _delegations(ev)
    calls = [e["agent"] for e in ev if e.get("role") == "llm_call"]
    assert sorted(calls) == ["helper", "lead", "lead"]


def test_an_agent_span_named_by_its_span_alone_around_the_agents_is_the_run(
    tmp_path: Path,
) -> None:
    oi = "openinference.span.kind"
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            _span(0x10, 0x1, "Agent workflow", 1, 99, **{oi: "AGENT"}),
            _span(0x11, 0x10, "Agent workflow", 2, 98, **{oi: "CHAIN"}),
            _span(0x12, 0x11, "lead", 3, 97, **{oi: "AGENT", "agent.name": "lead"}),
            _span(0x13, 0x12, "generation", 4, 10, **{oi: "LLM"}),
            _span(0x14, 0x12, "ask_helper", 11, 60, **{oi: "TOOL", "tool.name": "ask_helper"}),
            _span(0x15, 0x14, "helper", 12, 59, **{oi: "AGENT", "agent.name": "helper"}),
            _span(0x16, 0x15, "generation", 13, 58, **{oi: "LLM"}),
        ],
    )
    assert "Agent workflow" not in {e["agent"] for e in ev}
    assert ("lead", "helper") in _delegations(ev)


def _oi_turn(span: int, parent: int, name: str, agent: str, start: int, end: int) -> list[Any]:
    oi = "openinference.span.kind"
    llm = {oi: "LLM", "llm.input_messages.0.message.role": "system"}
    llm["llm.input_messages.0.message.content"] = f"You are {agent}."
    return [
        _span(span, parent, name, start, end, **{oi: "CHAIN"}),
        _span(span + 1, span, "Generator.run", start + 1, end - 1, **llm),
    ]


def test_agents_in_turn_inside_a_pipeline_pass_their_work_on(tmp_path: Path) -> None:
    def run_in(scope: str) -> list[dict[str, Any]]:
        return _import(
            tmp_path,
            [
                _span(0x1, 0, "run", 0, 100),
                _span(0x10, 0x1, scope, 1, 99, **{"openinference.span.kind": "CHAIN"}),
                *_oi_turn(0x20, 0x10, "Agent.run", "lead", 2, 40),
                *_oi_turn(0x30, 0x10, "Agent.run", "helper", 41, 90),
            ],
        )

    assert ("lead", "helper") in _delegations(run_in("Pipeline.run"))
    # A scope of no such name runs its agents in turn, as an application calls them.
    assert ("lead", "helper") not in _delegations(run_in("Team.run"))


def _system(agent: str, *results: str) -> str:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "parts": [{"type": "text", "content": f"You are {agent}."}]},
        {"role": "user", "parts": [{"type": "text", "content": "go"}]},
    ]
    if results:
        parts = [{"type": "tool_call_response", "id": i, "response": "ok"} for i in results]
        msgs.append({"role": "tool", "parts": parts})
    return json.dumps(msgs)


def _asks(*calls: tuple[str, str]) -> str:
    parts = [{"type": "tool_call", "id": i, "name": n} for i, n in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _call(span: int, agent: str, start: int, end: int, **attrs: str) -> list[dict[str, Any]]:
    # A model call under the root, and its HTTP client's request under it.
    call = _span(span, 0x1, f"chat m-{agent}", start, end, op="chat", model=f"m-{agent}")
    call["attributes"] += [
        {"key": k, "value": {"stringValue": v}}
        for k, v in {"gen_ai.input.messages": attrs.pop("request"), **attrs}.items()
    ]
    return [call, _span(span + 1, span, "POST", start + 1, end - 1, **{"http.method": "POST"})]


def test_model_calls_alone_hand_the_conversation_on_where_another_agent_is_given_the_result(
    tmp_path: Path,
) -> None:
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            *_call(
                0x10,
                "lead",
                1,
                20,
                request=_system("lead"),
                **{"gen_ai.output.messages": _asks(("h1", "handoff"))},
            ),
            *_call(
                0x20,
                "helper",
                21,
                40,
                request=_system("helper", "h1"),
                **{"gen_ai.output.messages": _asks(("s1", "search"))},
            ),
            *_call(0x30, "helper", 41, 60, request=_system("helper", "h1", "s1")),
        ],
    )
    assert {e["agent"] for e in ev} >= {"lead", "helper"}
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("lead", "handoff"),
        ("helper", "search"),
    ]
    assert ("lead", "helper") in _delegations(ev)


def test_model_calls_alone_under_one_scope_each_wrapped_by_a_component(tmp_path: Path) -> None:
    # A pipeline's run holding, per model call, a component's span around its client's call
    # (which alone carries the messages): the lead asks for ask_helper, the helper's calls
    # run meanwhile, the lead's next request carries the result.
    def wrapped(span: int, agent: str, start: int, end: int, **attrs: str) -> list[Any]:
        outer = _span(span + 8, 0x2, "chat generator", start, end, op="chat")
        return [outer, *_call(span, agent, start + 1, end - 1, **attrs)]

    spans = [
        _span(0x1, 0, "run", 0, 100),
        _span(0x2, 0x1, "invoke_workflow pipeline", 0, 99, op="invoke_workflow"),
        *wrapped(
            0x10,
            "lead",
            1,
            20,
            request=_system("lead"),
            **{"gen_ai.output.messages": _asks(("q1", "ask_helper"))},
        ),
        *wrapped(0x20, "helper", 21, 50, request=_system("helper")),
        *wrapped(0x30, "lead", 51, 70, request=_system("lead", "q1")),
    ]
    for s in spans:  # each client call sits in its component's span
        if s["name"].startswith("chat m-"):
            s["parentSpanId"] = f"{int(s['spanId'], 16) + 8:016x}"
    ev = _import(tmp_path, spans)
    assert ("lead", "helper") in _delegations(ev)
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("lead", "ask_helper")
    ]
    assert sorted(e["agent"] for e in ev if e.get("role") == "llm_call") == [
        "helper",
        "lead",
        "lead",
    ]


def test_a_group_chat_with_no_model_call_tells_its_tool_runner_by_call_ids(
    tmp_path: Path,
) -> None:
    # A stand-in user starts a chat with a manager whose speakers take turns; the helper's
    # answer asks for a tool by id, the runner's turn runs that call, the helper speaks again.
    oi = "openinference.span.kind"

    def turn(span: int, parent: int, agent: str, start: int, end: int, **more: str) -> Any:
        return _span(
            span, parent, f"{agent}.reply", start, end, **{oi: "AGENT", "agent.name": agent, **more}
        )

    asked = json.dumps(
        {"role": "assistant", "tool_calls": [{"id": "k1", "function": {"name": "search"}}]}
    )
    ev = _import(
        tmp_path,
        [
            _span(0x1, 0, "run", 0, 100),
            turn(0x10, 0x1, "user", 1, 99),
            turn(0x11, 0x10, "manager", 2, 98),
            turn(0x12, 0x11, "lead", 3, 10),
            turn(0x13, 0x11, "helper", 11, 20, **{"output.value": asked}),
            turn(0x14, 0x11, "runner", 21, 30),
            _span(
                0x15,
                0x14,
                "search",
                22,
                29,
                **{oi: "TOOL", "tool.name": "search", "tool_call.id": "k1"},
            ),
            turn(0x16, 0x11, "helper", 31, 40),
            turn(0x17, 0x11, "writer", 41, 50),
        ],
    )
    named = {e["agent"] for e in ev} | {e["to"] for e in ev if e["type"] == "spawn"}
    assert named == {"root", "lead", "helper", "writer"}  # no user, manager or runner
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("helper", "search")
    ]
    assert sorted(set(_delegations(ev)) - {("root", "lead")}) == [
        ("helper", "writer"),
        ("lead", "helper"),
    ]
