"""What agent frameworks write in their spans, as data: one table per framework family.

The span conventions (GenAI ``gen_ai.operation.name``, OpenInference
``openinference.span.kind``) give each span a first kind (agent, tool, model call,
step...). Frameworks then say more, each in its own way: who the agent is, which spans
are their runtime's bookkeeping, which tool calls hand the conversation to another
agent. Each row of :data:`RULES` recognises one such habit and says what the span is;
the first row that matches a span wins. docs/trace-formats.md ("Agent frameworks")
lists the rows; adding a framework is adding rows, not code.

A row matches when its regular expression ``match`` matches (from the start) its
``on``: the span's name (``name``), its tool name after classification (``tool``), its
kind so far (``kind``), an attribute (``attr:KEY``) or a key of a JSON object held in
an attribute (``json:ATTR:KEY``). ``kinds`` limits it to spans of those first kinds.
What it says:

* ``kind``: the span's kind from now on (``runtime``: the framework's own messaging,
  folded into the events of the agent it runs for; ``workflow``: a run of a workflow,
  the application agent when it is the root, a step otherwise; ``node``: an agent node
  of a graph, whose agent is the graph it runs in; or any span kind);
* ``agent``: where the agent's name is, the first that gives one;
* ``target``: where the agent a hand-off goes to is, the first that gives one (a tool
  span with a target is a hand-off: its agent delegates to the target).

A source is ``attr:KEY`` (an attribute), ``group:NAME`` (a named group of ``match``),
``args:KEY`` (a key of the tool call's JSON arguments), ``json:ATTR:KEY`` (a key of
a JSON object held in an attribute), ``span:name`` (the span's name) or
``next:agent`` (a hand-off's target the span does not name: the agent that acts next). An agent
named on a span that is not an agent's names the application agent when the span is
the root (a step or workflow elsewhere acts for the agent holding it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

# Span kinds of the span builder (spans.py) that only this layer assigns.
RUNTIME = "runtime"
WORKFLOW = "workflow"
# An agent node of a graph: the agent is the graph it runs in, the nearest enclosing
# chain not named after the node (spans.py, _graph_agents), named by the graph.
NODE = "node"
# A span that only marks an agent's invocation beside the span of its run (spans.py).
MARKER = "marker"
# A step that says whose turn starts: its later siblings are that agent's (spans.py).
SPEAKER = "speaker"


@dataclass(frozen=True)
class Rule:
    family: str
    why: str  # one line for the docs: the habit this row recognises
    on: str
    match: str
    kinds: tuple[str, ...] = ()
    kind: str = ""
    agent: tuple[str, ...] = ()
    target: tuple[str, ...] = ()


# The arguments of a tool call, wherever a convention keeps them (JSON text).
ARGUMENT_KEYS = (
    "gen_ai.tool.call.arguments",
    "tool_call.function.arguments",
    "gcp.vertex.agent.tool_call_args",
    "input.value",
)

RULES: tuple[Rule, ...] = (
    # --- GenAI semantic conventions (any framework writing them) ---
    Rule(
        "genai",
        "create_agent: an agent object was made (bookkeeping, not an invocation)",
        on="attr:gen_ai.operation.name",
        match=r"create_agent$",
        kind=RUNTIME,
    ),
    Rule(
        "genai",
        "invoke_workflow: a workflow run, named by gen_ai.workflow.name",
        on="attr:gen_ai.operation.name",
        match=r"invoke_workflow$",
        kind=WORKFLOW,
        agent=("attr:gen_ai.workflow.name", "attr:gen_ai.agent.name"),
    ),
    Rule(
        "genai",
        "a transfer: gen_ai.transfer.target.name names the agent",
        on="attr:gen_ai.transfer.target.name",
        match=r".",
        kinds=("tool",),
        target=("attr:gen_ai.transfer.target.name",),
    ),
    # --- Google ADK ---
    Rule(
        "adk",
        "the transfer tool by its type: TransferToAgentTool, target in its arguments",
        on="attr:gen_ai.tool.type",
        match=r"TransferToAgentTool$",
        kinds=("tool",),
        target=("args:agent_name", "args:agent", "next:agent"),
    ),
    Rule(
        "adk",
        "the transfer tool by its name: transfer_to_agent(agent_name=...)",
        on="tool",
        match=r"transfer_to_agent$",
        kinds=("tool",),
        target=("args:agent_name", "args:agent", "next:agent"),
    ),
    Rule(
        "adk",
        "(merged tools): the span ADK adds after running several function calls at once",
        on="tool",
        match=r"\(merged tools\)$",
        kinds=("tool",),
        kind=RUNTIME,
    ),
    # --- Strands Agents (its own OpenTelemetry spans) ---
    Rule(
        "strands",
        "handoff_to_agent(agent_name=...): a Swarm hand-off (the span keeps no arguments)",
        on="tool",
        match=r"handoff_to_agent$",
        kinds=("tool",),
        target=("args:agent_name", "next:agent"),
    ),
    Rule(
        "strands",
        "execute_event_loop_cycle: a cycle of an agent's loop (a step)",
        on="attr:gen_ai.operation.name",
        match=r"execute_event_loop_cycle$",
        kind="step",
    ),
    Rule(
        "strands",
        "invoke_swarm, invoke_graph: a multi-agent run (the application at the root)",
        on="attr:gen_ai.operation.name",
        match=r"invoke_(swarm|graph)$",
        kind=WORKFLOW,
    ),
    # --- hand-off tools named after their target (AutoGen Swarm, langgraph-supervisor) ---
    Rule(
        "handoff-tools",
        "transfer_back_to_<agent> (langgraph-supervisor: back to the supervisor)",
        on="tool",
        match=r"(?:\w+-)?transfer_back_to_(?P<target>\w+)$",
        kinds=("tool",),
        target=("group:target",),
    ),
    Rule(
        "handoff-tools",
        "transfer_to_<agent> (AutoGen Swarm, langgraph-supervisor; Semantic Kernel's "
        "Handoff-transfer_to_<agent>, a plugin's name first)",
        on="tool",
        match=r"(?:\w+-)?transfer_to_(?P<target>\w+)$",
        kinds=("tool",),
        target=("group:target",),
    ),
    # --- a runtime's messaging (OpenTelemetry messaging conventions) ---
    Rule(
        "messaging",
        "a message bus span (messaging.operation): the runtime delivering messages "
        "between agents (AutoGen's and Semantic Kernel's agent runtimes)",
        on="attr:messaging.operation",
        match=r"(create|publish|process|receive|send|settle|ack)$",
        kind=RUNTIME,
    ),
    # --- Semantic Kernel ---
    Rule(
        "semantic-kernel",
        "AutoFunctionInvocationLoop: an agent's loop of model and function calls (a step)",
        on="name",
        match=r"AutoFunctionInvocationLoop$",
        kind="step",
    ),
    # --- LangGraph (OpenInference's LangChain instrumentor; metadata is JSON) ---
    Rule(
        "langgraph",
        "an agent node of a graph (metadata.langgraph_node): create_react_agent's 'agent', "
        "a supervisor's 'call_agent'; the agent is the graph it runs in",
        on="json:metadata:langgraph_node",
        match=r".",
        kinds=("agent",),
        kind=NODE,
    ),
    # --- LangGraph through OpenLLMetry (Traceloop's LangChain instrumentation) ---
    Rule(
        "langgraph-openllmetry",
        "invoke_agent <graph> beside the graph's run (provider langgraph): a marker; the "
        "execute_task span of the same name beside it is the agent's span",
        on="attr:gen_ai.provider.name",
        match=r"langgraph$",
        kinds=("agent",),
        kind=MARKER,
    ),
    Rule(
        "langgraph-openllmetry",
        "a task (traceloop.span.kind task): a step, keeping traceloop.entity.name",
        on="attr:traceloop.span.kind",
        match=r"(task|workflow)$",
        kind="step",
        agent=("attr:traceloop.entity.name",),
    ),
    Rule(
        "langgraph-openllmetry",
        "goto <node>: LangGraph's Command after a hand-off tool (bookkeeping)",
        on="attr:gen_ai.operation.name",
        match=r"goto$",
        kind=RUNTIME,
    ),
    # --- LlamaIndex (OpenInference's LlamaIndex instrumentor), AgentWorkflow ---
    Rule(
        "llamaindex",
        "AgentWorkflow.setup_agent: the agent whose turn starts (current_agent_name in its "
        "output); the workflow's steps after it are that agent's, until another's turn",
        on="attr:output.value",
        match=r"(?s).*?current_agent_name='(?P<agent>[^']+)'",
        kinds=("step",),
        kind=SPEAKER,
        agent=("group:agent",),
    ),
    Rule(
        "llamaindex",
        "the same in its input (an output cut short by the instrumentor keeps no name)",
        on="attr:input.value",
        match=r"(?s).*?current_agent_name='(?P<agent>[^']+)'",
        kinds=("step",),
        kind=SPEAKER,
        agent=("group:agent",),
    ),
    Rule(
        "llamaindex",
        "<LLM>._prepare_chat_with_tools: the request being built (a step, not a model call)",
        on="name",
        match=r".*\._prepare_chat_with_tools$",
        kinds=("model",),
        kind="step",
    ),
    Rule(
        "llamaindex",
        "handoff(to_agent=...): an AgentWorkflow hand-off",
        on="tool",
        match=r"handoff$",
        kinds=("tool",),
        target=("args:to_agent", "next:agent"),
    ),
    # --- smolagents (OpenInference's smolagents instrumentor) ---
    Rule(
        "smolagents",
        "an agent's run: the AGENT span <name>.run (agent.name first: MLflow's autologging "
        "names the span after the agent's class)",
        on="name",
        match=r"(?P<agent>.+)\.run$",
        kinds=("agent",),
        agent=("attr:agent.name", "group:agent"),
    ),
    # --- CrewAI (OpenInference's CrewAI instrumentor) ---
    Rule(
        "crewai",
        "an agent's task run is named by its task; graph.node.id is the agent's role "
        "(agent.name first: Agno writes an id there)",
        on="attr:graph.node.id",
        match=r".",
        kinds=("agent",),
        agent=("attr:agent.name", "attr:graph.node.id"),
    ),
    # --- OpenInference, any framework ---
    Rule(
        "openinference",
        "a chain at the root is the application: named by the span (a graph's name)",
        on="attr:openinference.span.kind",
        match=r"CHAIN$",
        kinds=("step",),
        agent=("span:name",),
    ),
    # --- AutoGen (autogen-core's runtime tracing) ---
    Rule(
        "autogen",
        "the runtime's messaging spans: autogen create/publish/process/ack/send/receive",
        on="name",
        match=r"autogen (create|publish|process|ack|send|receive|intermediate)\b",
        kind=RUNTIME,
    ),
    Rule(
        "autogen",
        "the runtime's messaging spans, by messaging.system",
        on="attr:messaging.system",
        match=r"autogen$",
        kind=RUNTIME,
    ),
)

# Every attribute a row reads, so the importers keep them.
ATTRIBUTES: frozenset[str] = frozenset(
    {r.on[5:] for r in RULES if r.on.startswith("attr:")}
    | {s[5:] for r in RULES for s in (*r.agent, *r.target) if s.startswith("attr:")}
    | {s.split(":")[1] for r in RULES for s in (r.on, *r.agent, *r.target) if s.startswith("json:")}
    | set(ARGUMENT_KEYS)
    | {"output.value"}
)


@dataclass(frozen=True)
class Mapped:
    kind: str
    name: str
    agent: str
    target: str
    family: str


# How a row reads its subject: the span's name, its tool's name, its kind, an
# attribute, a key of a JSON attribute.
_NAME, _TOOL, _KIND, _ATTR, _JSON = range(5)


def _compile(rule: Rule) -> tuple[frozenset[str], int, str, str, Any, Rule]:
    """A row as (kinds, how, key, JSON key, pattern.match, rule) for :func:`apply`."""
    how, _, rest = rule.on.partition(":")
    code = {"name": _NAME, "tool": _TOOL, "kind": _KIND, "attr": _ATTR, "json": _JSON}[how]
    attr, _, inner = rest.partition(":")
    return frozenset(rule.kinds), code, attr, inner, re.compile(rule.match).match, rule


# Rows in order, compiled once; apply runs for every span (a million of them).
_COMPILED = tuple(_compile(r) for r in RULES)


def _arguments(a: dict[str, Any]) -> dict[str, Any]:
    for key in ARGUMENT_KEYS:
        text = a.get(key)
        if isinstance(text, str) and text.lstrip().startswith("{"):
            try:
                doc = orjson.loads(text)
            except orjson.JSONDecodeError:
                continue
            if isinstance(doc, dict):
                # Some frameworks wrap the call: {"args": {...}} (ADK), {"arguments": ...}.
                for inner in ("args", "arguments", "kwargs"):
                    if isinstance(doc.get(inner), dict):
                        return {**doc, **doc[inner]}
                return doc
    return {}


def _json_key(a: dict[str, Any], key: str, memo: dict[str, Any]) -> Any:
    """``key`` is ``ATTR:KEY``: that key of the JSON object in attribute ATTR."""
    attr, _, inner = key.partition(":")
    return _json_doc(a, attr, memo).get(inner)


def _json_doc(a: dict[str, Any], attr: str, memo: dict[str, Any]) -> dict[str, Any]:
    """The JSON object attribute ``attr`` holds, parsed once per span ({} if none)."""
    doc = memo.get(attr)
    if doc is None:
        text = a.get(attr)
        doc = None
        if isinstance(text, str) and text.startswith("{"):
            try:
                doc = orjson.loads(text)
            except orjson.JSONDecodeError:
                doc = None
        memo[attr] = doc = doc if isinstance(doc, dict) else {}
    return doc


def _source(
    src: str, m: re.Match[str], a: dict[str, Any], span_name: str, memo: dict[str, Any]
) -> str:
    how, _, key = src.partition(":")
    value: Any = None
    if how == "attr":
        value = a.get(key)
    elif how == "group":
        value = m.groupdict().get(key)
    elif how == "args":
        value = _arguments(a).get(key)
    elif how == "json":
        value = _json_key(a, key, memo)
    elif how == "span":
        value = span_name
    elif how == "next":
        value = "?"  # spans.UNNAMED: the agent whose span comes next
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""


def apply(kind: str, name: str, span_name: str, a: dict[str, Any]) -> Mapped | None:
    """What the first matching row says about a span of first ``kind`` and ``name``
    (None when no row matches)."""
    memo: dict[str, Any] = {}
    for kinds, how, key, inner, match, rule in _COMPILED:
        if kinds and kind not in kinds:
            continue
        # The cheap refusals first: most spans match no row.
        if how == _ATTR:
            subject: Any = a.get(key)
        elif how == _NAME:
            subject = span_name
        elif how == _TOOL:
            subject = name if kind == "tool" else None
        elif how == _JSON:
            subject = _json_doc(a, key, memo).get(inner) if key in a else None
        else:
            subject = kind
        if subject.__class__ is not str:
            continue
        m = match(subject)
        if m is None:
            continue
        agent = next((v for s in rule.agent if (v := _source(s, m, a, span_name, memo))), "")
        target = next((v for s in rule.target if (v := _source(s, m, a, span_name, memo))), "")
        if rule.target and not target:
            continue  # a hand-off row that finds no target says nothing
        return Mapped(rule.kind or kind, name, agent, target, rule.family)
    return None
