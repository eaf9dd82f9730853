"""OpenTelemetry spans in OTLP/JSON: GenAI semantic conventions and OpenInference.

Facts relied on (docs/trace-formats.md): ids are hex strings in OTLP/JSON (base64 is
accepted too, as the generic protobuf JSON mapping writes bytes); times are
nanoseconds since the epoch as integers or decimal strings; attributes are
``[{"key": ..., "value": {"stringValue"|"intValue"|"doubleValue"|"boolValue"|...}}]``.
A span says what it does with ``gen_ai.operation.name`` (GenAI conventions) or
``openinference.span.kind`` (OpenInference: Phoenix and its instrumentors).

Input is one OTLP document or JSON lines of them (what the SDK's file exporter and a
collector's file exporter write: one export batch per line); spans are grouped by
trace id and each trace id becomes one trace.

A million spans are handled without a dict per span: the file is scanned once into
raw span slices, which are decoded in batches into small typed records.
"""

from __future__ import annotations

import ast
import base64
import binascii
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec

from survey_tools.traces.importers import encoded, frameworks, selfsaid
from survey_tools.traces.importers.common import ImportFailed, ImportResult, content_hash
from survey_tools.traces.importers.prompts import KEYS as PROMPT_KEYS
from survey_tools.traces.importers.prompts import prompt_name, system_prompt
from survey_tools.traces.importers.runs import RUN_IDS, union_idle_by_ids, union_nested
from survey_tools.traces.importers.spans import (
    AGENT,
    GENERIC,
    GUARD,
    HANDOFF,
    MODEL,
    RUNTIME,
    STEP,
    TOOL,
    SpanRec,
    SpanSummary,
    bare,
    build,
)
from survey_tools.traces.limits import count_span, span_count_problem

AGENT_OPS = {"invoke_agent", "create_agent", "invoke_workflow"}
MODEL_OPS = {"chat", "generate_content", "text_completion", "embeddings"}
# Operations a span name may begin with (the conventions' and OpenLIT's ``execute_task``).
SPAN_OPS = AGENT_OPS | MODEL_OPS | {"execute_tool", "execute_task"}
# An agent span's role saying it is the framework choosing the next speaker: no agent.
_NO_AGENT_ROLES = frozenset({"selector"})
BATCH = 20_000
# Token counts above this are not counts (JSON numbers lose exactness past 2**53).
MAX_TOKENS = 1 << 53
# OpenInference span kinds -> our span kinds (docs/trace-formats.md).
OI_KINDS = {
    "AGENT": AGENT,
    "TOOL": TOOL,
    "RETRIEVER": TOOL,
    "LLM": MODEL,
    "EMBEDDING": MODEL,
    "RERANKER": MODEL,
    "CHAIN": STEP,
    "GUARDRAIL": GUARD,
}
# Usage is taken from one level of spans only (the first that reports any), so a
# rolled-up total on an agent span is not added to the model calls it sums.
RANK_MODEL, RANK_OTHER = 0, 3


class BadSpan(Exception):
    """A span whose content is out of range; becomes ImportFailed naming the span."""


class _AnyValue(msgspec.Struct, omit_defaults=True):
    stringValue: str | None = None
    intValue: int | str | None = None
    doubleValue: float | None = None
    boolValue: bool | None = None


class _KeyValue(msgspec.Struct):
    key: str = ""
    value: _AnyValue = msgspec.field(default_factory=_AnyValue)


class _Status(msgspec.Struct):
    code: int | str = 0
    message: str = ""


class _Link(msgspec.Struct):
    traceId: str = ""
    spanId: str = ""


class _Span(msgspec.Struct, gc=False):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    attributes: list[_KeyValue] = []
    status: _Status | None = None
    links: list[_Link] = []


class _ScopeSpans(msgspec.Struct):
    spans: list[msgspec.Raw] = []


class _ResourceSpans(msgspec.Struct):
    scopeSpans: list[_ScopeSpans] = []
    resource: msgspec.Raw = msgspec.Raw(b"null")  # absent: the process is not known


class _Otlp(msgspec.Struct):
    resourceSpans: list[_ResourceSpans] | None = None
    # What a collector's file exporter may write on other lines of the same file.
    resourceMetrics: msgspec.Raw | None = None
    resourceLogs: msgspec.Raw | None = None


_TOP = msgspec.json.Decoder(_Otlp)
_SPANS = msgspec.json.Decoder(list[_Span])


_HEX_DIGITS = "0123456789abcdef"
_RUN_ID_SET = frozenset(RUN_IDS)
# The attributes the importer reads; the others are skipped without being converted.
_IN_TOKENS = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",  # the GenAI conventions' name before 1.27
    "llm.token_count.prompt",  # OpenInference
)
_OUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
)
# A tool call's arguments (hashed into content_ref, never copied).
_ARGUMENTS = frameworks.ARGUMENT_KEYS
# The tools a model call's answer asked for (OpenInference flattens the answer's messages;
# the first two messages' first eight tool calls are read).
_ASKED_KEYS = tuple(
    f"llm.output_messages.{i}.message.tool_calls.{j}.tool_call.function.name"
    for i in range(2)
    for j in range(8)
)
# The ids of those tool calls, and the tool results a request's messages hold (each a
# role-tool message naming the call it answers): what a model call's next request shows
# was answered (spans.py, _prompted_conversations).
_ASKED_ID_KEYS = tuple(k.replace("function.name", "id") for k in _ASKED_KEYS)
_ANSWERED_KEYS = tuple(f"llm.input_messages.{n}.message.tool_call_id" for n in range(64))
_ROLE_KEYS = tuple(f"llm.input_messages.{n}.message.role" for n in range(64))
# The GenAI semantic conventions' answer of a model call: JSON messages whose parts of type
# tool_call name the tools it asked for (read up to this many characters).
_OUTPUT_MESSAGES = "gen_ai.output.messages"
# A model call's request: its ``tool_call_response`` parts answer calls asked before.
_INPUT_MESSAGES = "gen_ai.input.messages"
_MAX_OUTPUT_JSON = 200_000
# The tools a model call's request offered: a JSON list of definitions, each with its name.
_TOOL_DEFINITIONS = "gen_ai.tool.definitions"
_MAX_REPR = 20_000  # a message's Python repr read as a literal, up to this many characters
# The same set as frameworks.WANTED (a user's rules add to it while they are used).
WANTED = frameworks.WANTED
WANTED.update(
    {
        "gen_ai.operation.name",
        "gen_ai.agent.name",
        "gen_ai.agent.id",
        "gen_ai.agent.source",
        "gen_ai.agent.role",
        "gen_ai.transfer.target.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        *_IN_TOKENS,
        *_OUT_TOKENS,
        *_ARGUMENTS,
        "openinference.span.kind",
        "agent.name",
        "graph.node.name",
        "graph.node.id",
        "graph.node.parent_id",
        "tool.name",
        "tool.id",
        "tool_call.id",
        "tool_call.function.name",
        "tool.parameters",
        *RUN_IDS,
        *PROMPT_KEYS,
        *_ASKED_KEYS,
        *_ASKED_ID_KEYS,
        *_ANSWERED_KEYS,
        *_ROLE_KEYS,
        _OUTPUT_MESSAGES,
        _TOOL_DEFINITIONS,
        "gen_ai.agent.description",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "operation.name",
        *selfsaid.MESSAGE_KEYS,
    }
)


def hex_id(raw: str, size: int) -> str | None:
    """A span or trace id as lowercase hex, from hex or base64; None if neither."""
    if len(raw) == 2 * size and not raw.strip(_HEX_DIGITS):
        return raw  # the common case, checked first: it runs once per span
    if len(raw) == 2 * size:
        try:
            bytes.fromhex(raw)
            return raw.lower()
        except ValueError:
            pass
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data.hex() if len(data) == size else None


def _nanos(v: int | str) -> int | None:
    if isinstance(v, int):
        return v if v >= 0 else None
    v = v.strip()
    # isdigit alone would let through digits int() refuses ("²").
    return int(v) if v.isascii() and v.isdigit() else None


def _attrs(kvs: list[_KeyValue], named: tuple[str, ...] = ()) -> dict[str, Any]:
    """The attributes the importer reads: :data:`WANTED`, those a span may describe itself
    by (selfsaid.described) and those its name's template names (``named``)."""
    out: dict[str, Any] = {}
    for kv in kvs:
        key = kv.key
        if key not in WANTED and key not in named and not _described(key):
            continue
        v = kv.value
        if v.stringValue is not None:
            out[kv.key] = v.stringValue
        elif v.intValue is not None:
            iv = v.intValue
            # int() of a string is quadratic in its length: only plain short digits.
            if isinstance(iv, str):
                iv = iv.strip()
                iv = int(iv) if len(iv) <= 20 and iv.lstrip("-").isdigit() and iv.isascii() else iv
            out[kv.key] = iv
        elif v.doubleValue is not None:
            out[kv.key] = v.doubleValue
        elif v.boolValue is not None:
            out[kv.key] = v.boolValue
    return out


@functools.lru_cache(maxsize=4096)
def _described(key: str) -> bool:
    """A key a span may describe itself by: its own words (selfsaid.py) or a tracer's
    span-kind, name and usage attributes (encoded.py)."""
    return selfsaid.described(key) or encoded.described(key)


def _tokens(a: dict[str, Any], keys: tuple[str, ...]) -> int:
    for key in keys:
        v = a.get(key)
        if v is None:
            continue
        if type(v) is int and 0 <= v <= MAX_TOKENS:
            return v
        if type(v) is float and v.is_integer() and 0 <= v <= MAX_TOKENS:
            return int(v)
        shown = str(v)
        shown = shown if len(shown) <= 24 else f"{shown[:12]}… ({len(shown)} characters)"
        raise BadSpan(f"{key}: {shown} is not a token count (0 to 2**53)")
    return 0


def _failed(sp: _Span) -> str:
    """The span's error message when its status is ERROR (code 2), else ''."""
    st = sp.status
    if st is None or st.code not in (2, "STATUS_CODE_ERROR", "ERROR"):
        return ""
    return (st.message or "error")[:4096]


def _classify(span_name: str, a: dict[str, Any]) -> tuple[str, str, str]:
    """(kind, name, operation) of a span under either convention."""
    oi = a.get("openinference.span.kind")
    if isinstance(oi, str) and oi:
        return _classify_oi(span_name, a, oi.upper())
    op = _named_operation(span_name, str(a.get("gen_ai.operation.name", "")))
    agent_name = a.get("gen_ai.agent.name") or a.get("gen_ai.agent.id") or ""
    if op in AGENT_OPS:
        return _classify_agent(span_name, a, op, str(agent_name))
    if op == "execute_tool":
        tool = a.get("gen_ai.tool.name") or bare(span_name)
        if tool and tool in (a.get("gen_ai.request.model"), a.get("gen_ai.response.model")):
            # Named after the model it runs for, not a tool: it names no tool (a step
            # running what the answer before it asked for, spans.py, or nothing).
            return GENERIC, "", op
        return TOOL, str(tool or "tool"), op
    if op in MODEL_OPS:
        return MODEL, op, op
    if not op:
        return _classify_plain(span_name, a)
    return GENERIC, op, op


def _named_operation(span_name: str, op: str) -> str:
    """The span's operation: a span named ``<operation> <subject>`` by another operation
    of the conventions' than the model call its ``gen_ai.operation.name`` says (a task's
    span marked ``chat`` like the model call inside it) is that operation, not a model
    call."""
    word = span_name.split(" ", 1)[0]
    if op in MODEL_OPS and word != op and word in SPAN_OPS:
        return word
    return op


def _classify_agent(
    span_name: str, a: dict[str, Any], op: str, agent_name: str
) -> tuple[str, str, str]:
    """An agent operation's span. One whose name is only its operation and that names no
    agent (``invoke_agent`` alone, a turn or a run's wrapper) names no agent: a step of
    the agent that holds it; so is one whose ``gen_ai.agent.role`` is a selector's (the
    framework choosing the next speaker). One that says which agent it came from
    (``gen_ai.agent.source``) is a hand-off to the agent it names."""
    named = str(a.get("gen_ai.agent.name") or "") or (bare(span_name) if span_name != op else "")
    if not named and span_name.strip() == op:
        return GENERIC, "", ""
    if a.get("gen_ai.agent.role") in _NO_AGENT_ROLES:
        return GENERIC, "", op
    source = a.get("gen_ai.agent.source")
    if op == "invoke_agent" and named and isinstance(source, str) and source and source != named:
        return HANDOFF, named, "handoff"
    return AGENT, agent_name or bare(span_name) or op, op


def _classify_plain(span_name: str, a: dict[str, Any]) -> tuple[str, str, str]:
    """A span of no convention's operation that still says what it did, in the
    conventions' words: a request's model (``gen_ai.request.model``, ``gen_ai.response.model``)
    makes it a model call, a tool's name (``gen_ai.tool.name``, ``tool.name``) a tool call.
    A framework's own ``<namespace>.toolCall.name`` or ``.tool_call.name`` says the same.
    (The AI SDK's doGenerate and ai.toolCall spans, OpenLLMetry's LlamaIndex tool tasks.)"""
    if a.get("gen_ai.request.model") or a.get("gen_ai.response.model"):
        return MODEL, "chat", "chat"
    tool = a.get("gen_ai.tool.name") or a.get("tool.name") or selfsaid.tool_call_name(a)
    if isinstance(tool, str) and tool:
        return TOOL, tool, "execute_tool"
    return GENERIC, "", ""


def _classify_self(span_name: str, a: dict[str, Any]) -> tuple[str, str, str]:
    """A span that says its kind in words of its own (selfsaid.py): a kind attribute
    (``*.type: agent``) or a kind prefix (``subagent:<name>``), named by its span's name
    (the prefix stripped); or a templated span name (``Agent run:
    {name!r}``), named by its placeholder's value (a hand-off by its target's)."""
    kind, name, target = selfsaid.template(span_name, a)
    if kind:
        return kind, target if kind == HANDOFF else name, kind
    word, named = selfsaid.prefixed(span_name)
    kind = selfsaid.kind_of(a) or word
    if not kind:
        kind, named = selfsaid.method(span_name)
        word = kind
    if not kind:
        kind = selfsaid.dotted(span_name)
        named = selfsaid.tool_call_name(a) if kind == TOOL else ""
        word = kind if named else ""
    if kind == MODEL:
        return MODEL, "chat", "chat"
    if kind:
        return kind, (named if word else "") or bare(span_name) or kind, kind
    return GENERIC, "", ""


def _classify_oi(span_name: str, a: dict[str, Any], label: str) -> tuple[str, str, str]:
    kind = OI_KINDS.get(label, GENERIC)
    op = label.lower()
    # A GenAI span stored by an OpenInference tool (Phoenix adds the kind) keeps its
    # GenAI names.
    if kind == AGENT:
        name = (
            a.get("agent.name")
            or a.get("gen_ai.agent.name")
            or a.get("graph.node.name")
            or bare(span_name)
            or "agent"
        )
    elif kind == TOOL:
        name = a.get("tool.name") or a.get("tool_call.function.name") or a.get("gen_ai.tool.name")
        if not name and span_name.startswith("handoff to "):
            # The Agents SDK instrumentor writes a handoff as a nameless TOOL span.
            return HANDOFF, span_name[len("handoff to ") :].strip() or "agent", "handoff"
        name = name or bare(span_name) or op
    elif kind == GENERIC:
        op = f"openinference:{op}"
        name = op
    else:
        name = span_name or op
    return kind, str(name), op


def _fast_id(raw: str, size: int) -> str | None:
    # The common case inline (this runs a million times): lowercase hex.
    if len(raw) == 2 * size and not raw.strip(_HEX_DIGITS):
        return raw
    return hex_id(raw, size)


def _fast_nanos(v: int | str) -> int | None:
    if type(v) is str and v.isascii() and v.isdigit() and len(v) < 20:
        return int(v)
    return _nanos(v)


def _record(sp: _Span, names: dict[str, str]) -> tuple[str, SpanRec] | str:
    """(trace id, the span as a record), or why the span is skipped. Raises BadSpan
    for out-of-range content."""
    sid = _fast_id(sp.spanId, 8)
    if sid is None:
        return f"span {sp.name[:80]!r}: spanId {sp.spanId[:40]!r} is not an 8-byte id"
    raw = sp.parentSpanId
    # An unreadable parent is treated as missing (an orphan).
    pid = (_fast_id(raw, 8) or "x") if raw else ""
    start, end = _fast_nanos(sp.startTimeUnixNano), _fast_nanos(sp.endTimeUnixNano)
    if start is None or end is None:
        return f"span {sid}: start/end time is not a nanosecond count"
    tid = _fast_id(sp.traceId, 16) or ""
    links: tuple[tuple[str, str], ...] = ()
    if sp.links:
        links = tuple(
            (lt, ls)
            for ln in sp.links
            if (lt := _fast_id(ln.traceId, 16)) and (ls := _fast_id(ln.spanId, 8))
        )
    a = _attrs(sp.attributes, selfsaid.placeholders(sp.name))
    rec = span_record(sid, pid, start, end, sp.name, a, _failed(sp), names)
    rec.links = links
    return tid, rec


def _mapped(kind: str, name: str, span_name: str, a: dict[str, Any]) -> frameworks.Mapped | None:
    """What the rows say of a span; a span a row made a tool call is tried against the
    rows on tools too (a hand-off's target)."""
    mapped = frameworks.apply(kind, name, span_name, a)
    if mapped is not None and mapped.kind == TOOL and kind != TOOL and not mapped.target:
        again = frameworks.apply(TOOL, mapped.tool or name, span_name, a)
        if again is not None and again.target:
            mapped = replace(mapped, target=again.target, rule=f"{mapped.rule}; {again.rule}")
    return mapped


def _or_own_usage(in_tok: int, out_tok: int, a: dict[str, Any]) -> tuple[int, int]:
    """The token counts read so far, else those of a usage JSON object of the span's own
    (selfsaid.py)."""
    return (in_tok, out_tok) if in_tok or out_tok else selfsaid.usage(a)


def _said(
    kind: str, name: str, op: str, span_name: str, a: dict[str, Any]
) -> tuple[str, str, str, str, frameworks.Mapped | None, str]:
    """(kind, name, operation, hand-off target, the row's mapping, the rule for --explain):
    the rows first; with no convention and no row, what the span says of itself
    (selfsaid.py), then the rows on that kind (a hand-off tool's target, a framework's
    bookkeeping tool)."""
    mapped = _mapped(kind, name, span_name, a)
    if mapped is None and kind == GENERIC and not op:
        k, n, o = _classify_self(span_name, a)
        if k != GENERIC:
            target = n if k == HANDOFF else ""
            return k, n, o, target, _mapped(k, n, span_name, a), selfsaid.why(span_name)
    return kind, name, op, name if kind == HANDOFF else "", mapped, ""


def _by_row(
    mapped: frameworks.Mapped, name: str, op: str, agent: str, target: str, span_name: str
) -> tuple[str, str, str, str, str, str]:
    """(kind, name, operation, agent, hand-off target, rule) of a span a framework's row
    matched: the row's kind and names over what the span said of itself."""
    kind, target, rule = mapped.kind, mapped.target or target, mapped.rule
    agent = mapped.agent or agent
    if kind in (AGENT, frameworks.WORKFLOW) and mapped.agent:
        name = mapped.agent
    elif kind == frameworks.RUNTIME:
        name = span_name[:256]  # kept in the attributes of the events run inside it
        op = op if op else " ".join(span_name.split()[:2])
    elif kind == TOOL and mapped.tool:
        name = mapped.tool
    elif kind in (MODEL, STEP) and name == op and not op:
        name = span_name[:256]
    return kind, name, op, agent, target, rule


def span_record(
    sid: str,
    pid: str,
    start: int,
    end: int,
    span_name: str,
    a: dict[str, Any],
    error: str,
    names: dict[str, str],
) -> SpanRec:
    """A span as a record, from its ids, times, name and attributes (whatever file
    format they came in). ``names`` interns the repeated strings (agent, tool and
    operation names), so a million records do not hold a million copies of each."""
    a, read_as = _encoded(a)
    kind, name, op = _classify(span_name, a)
    instance = _instance(span_name, a)
    agent = str(
        a.get("gen_ai.agent.name") or a.get("gen_ai.agent.id") or a.get("agent.name") or instance
    )
    kind, name, op, target, mapped, rule = _said(kind, name, op, span_name, a)
    if mapped is None and kind == AGENT and rule and instance:
        name = instance  # an agent by its own words, named by its instance, not its span
    in_tok, out_tok = _tokens(a, _IN_TOKENS), _tokens(a, _OUT_TOKENS)
    if mapped is not None:
        kind, name, op, agent, target, rule = _by_row(mapped, name, op, agent, target, span_name)
        in_tok = in_tok or mapped.tokens_in or 0
        out_tok = out_tok or mapped.tokens_out or 0
    in_tok, out_tok = _or_own_usage(in_tok, out_tok, a)
    if kind == MODEL and not (in_tok or out_tok):
        in_tok, out_tok = selfsaid.answer_usage(a)
    ref = ""
    if kind == TOOL:
        name = _result_tool(a) or name
        args = next((a[k] for k in _ARGUMENTS if isinstance(a.get(k), str)), None)
        ref = content_hash(args) if args is not None else ""
    call_id = a.get("gen_ai.tool.call.id") or a.get("tool_call.id") or a.get("tool.id") or ""
    asked = _asked(kind, a)
    if read_as and kind == MODEL and not asked:
        asked = encoded.asked(a)  # a whole chat completion under the tracer's own key
    intern = names.setdefault
    op = op or "(none)"
    # Positional (field order of SpanRec): keyword arguments cost a dict per span.
    return SpanRec(
        sid,
        pid,
        start,
        end,
        kind,
        intern(name, name),
        intern(agent, agent),
        intern(target, target),
        str(call_id),
        False,
        in_tok,
        out_tok,
        intern(op, op),
        RANK_MODEL if kind == MODEL else RANK_OTHER,
        ref,
        error,
        (),
        False,
        intern(span_name, span_name)[:256],
        rule or read_as,
        "",
        _run_ids(a),
        _prompt_name(kind, a),
        asked,
        _offered(kind, a),
        *_exchange(kind, a),
        _instructions(kind, a),
        _sender(kind, a),
        _results(kind, a),
        _carried(kind, a),
        _node(kind, a),
    )


def _encoded(a: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The attributes with the OpenInference ones a span-kind attribute of the tracer's own
    stands for (encoded.py), and the rule for --explain ('' when it has none): only for a
    span of neither convention."""
    if "openinference.span.kind" in a or "gen_ai.operation.name" in a:
        return a, ""
    said = encoded.reading(a)
    return ({**a, **said}, encoded.WHY) if said else (a, "")


# Where a tool span keeps what it returned (OpenLLMetry, OpenInference).
_TOOL_OUTPUTS = ("traceloop.entity.output", "output.value")


def _result_tool(a: dict[str, Any]) -> str:
    """The tool a tool span's result message names: a tool message (the chat APIs' answer
    to a tool call: its ``tool_call_id`` beside the tool's ``name``, LangChain's ToolMessage
    under ``kwargs``), which names the tool where the span names only its class
    (OpenLLMetry JS: every tool ``DynamicStructuredTool``); '' when there is none."""
    for key in _TOOL_OUTPUTS:
        text = a.get(key)
        if not isinstance(text, str) or "tool_call_id" not in text[:4096]:
            continue
        try:
            doc = msgspec.json.decode(text)
        except msgspec.DecodeError:
            continue
        for msg in (doc, doc.get("kwargs") if isinstance(doc, dict) else None):
            if (
                isinstance(msg, dict)
                and msg.get("tool_call_id")
                and isinstance(msg.get("name"), str)
            ):
                return str(msg["name"])[:256]
    return ""


def _instance(span_name: str, a: dict[str, Any]) -> str:
    """The name a span gives its instance: its ``operation.name`` when that is the span's
    own name, a space, then one word (the AI SDK: ``ai.generateText coordinator`` for the
    span ``ai.generateText`` of function ``coordinator``); else, for a dotted span name
    ``<subject>.<verb>``, its attribute ``<subject>.name``; '' when it says neither."""
    op = a.get("operation.name")
    if isinstance(op, str) and op.startswith(span_name + " "):
        rest = op[len(span_name) + 1 :].strip()
        return rest if rest and len(rest) <= 128 and " " not in rest else ""
    # A dotted span name <subject>.<verb> whose attribute <subject>.name names the subject
    # (Haystack's tracer: haystack.component.run, haystack.component.name: coordinator).
    subject = span_name.rsplit(".", 1)[0] if span_name.count(".") >= 2 else ""
    named = a.get(f"{subject}.name") if subject else None
    return named if isinstance(named, str) and 0 < len(named) <= 128 else ""


def _asked(kind: str, a: dict[str, Any]) -> tuple[str, ...]:
    """The tools a model call's answer asked for, by name (OpenInference's
    ``llm.output_messages.N.message.tool_calls.M.tool_call.function.name``, :data:`_ASKED_KEYS`)."""
    if kind != MODEL:
        return ()
    if _ASKED_KEYS[0] not in a and _ASKED_KEYS[8] not in a:
        # Round 13: else an answer a framework writes whole in an attribute of its own.
        return _asked_genai(a.get(_OUTPUT_MESSAGES)) or selfsaid.asked_in_answer(a)
    return tuple(str(a[k]) for k in _ASKED_KEYS if a.get(k))


def _exchange(kind: str, a: dict[str, Any]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """:func:`_tool_call_ids` in OpenInference's flattened messages too: the (call id,
    tool) of ``llm.output_messages.N.message.tool_calls.M.tool_call.*`` and the
    ``tool_call_id`` of the request's role-``tool`` messages; the GenAI conventions' JSON
    messages where the span has no OpenInference input messages."""
    if kind != MODEL or _ROLE_KEYS[0] not in a:
        return _tool_call_ids(kind, a)  # not OpenInference's messages (checked first)
    asked: tuple[tuple[str, str], ...] = ()
    if _ASKED_KEYS[0] in a or _ASKED_KEYS[8] in a:
        pairs = zip(_ASKED_KEYS, _ASKED_ID_KEYS, strict=True)
        asked = tuple((str(a[i])[:128], str(a[k])[:128]) for k, i in pairs if a.get(k) and a.get(i))
    answered = []
    for role, answer in zip(_ROLE_KEYS, _ANSWERED_KEYS, strict=True):
        if role not in a:
            break  # the messages are numbered from 0 without a gap
        if a[role] == "tool" and a.get(answer):
            answered.append(str(a[answer])[:128])
    return asked, tuple(answered)


def _node(kind: str, a: dict[str, Any]) -> tuple[str, str]:
    """An agent span's node in OpenInference's graph attributes: its id and its parent's."""
    if kind != AGENT:
        return ("", "")
    return (str(a.get("graph.node.id") or ""), str(a.get("graph.node.parent_id") or ""))


def _carried(kind: str, a: dict[str, Any]) -> tuple[tuple[str, str, int, int, int], ...]:
    """The model calls whose answers a span other than a model call carries as messages
    (selfsaid.carried_calls); a model call's own messages are its request and answer."""
    return () if kind == MODEL else selfsaid.carried_calls(a)


def _results(kind: str, a: dict[str, Any]) -> int:
    """How many tool results a model call's request carries, with or without a call id:
    OpenInference's role-``tool`` input messages, the GenAI conventions'
    ``tool_call_response`` parts (spans.py reads calls answered where no id pairs them)."""
    if kind != MODEL:
        return 0
    if _ROLE_KEYS[0] in a:
        n = 0
        for role in _ROLE_KEYS:
            if role not in a:
                break  # numbered from 0 without a gap
            n += a[role] == "tool"
        return n
    got = _messages(a.get(_INPUT_MESSAGES), "tool_call_response")
    return sum(1 for _ in _parts(got, "tool_call_response", with_id=False))


def _offered(kind: str, a: dict[str, Any]) -> tuple[str, ...]:
    """The names of the tools a model call's request offered (the GenAI conventions'
    ``gen_ai.tool.definitions``); none when the file does not list them."""
    raw = a.get(_TOOL_DEFINITIONS) if kind == MODEL else None
    if not isinstance(raw, str) or len(raw) > _MAX_OUTPUT_JSON:
        return ()
    try:
        tools = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return ()
    names = [t.get("name") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    return tuple(n for n in names if isinstance(n, str) and 0 < len(n) <= 128)[:64]


def _messages(raw: Any, needle: str) -> list[Any]:
    """The GenAI conventions' JSON list of messages ``raw``, when it holds ``needle``
    (read up to :data:`_MAX_OUTPUT_JSON` characters); none otherwise."""
    if not isinstance(raw, str) or needle not in raw or len(raw) > _MAX_OUTPUT_JSON:
        return []
    try:
        messages = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return []
    return messages if isinstance(messages, list) else []


def _parts(messages: list[Any], kind: str, with_id: bool = True) -> Iterator[dict[str, Any]]:
    """The parts of type ``kind`` of GenAI messages that carry an ``id`` (any, ``with_id``
    False)."""
    for m in messages:
        parts = m.get("parts") if isinstance(m, dict) else None
        for p in parts if isinstance(parts, list) else ():
            named = not with_id or (isinstance(p, dict) and isinstance(p.get("id"), str))
            if isinstance(p, dict) and p.get("type") == kind and named:
                yield p


def _tool_call_ids(
    kind: str, a: dict[str, Any]
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """A model call's tool calls by id (round 10): the (call id, tool name) its answer's
    ``tool_call`` parts asked for, and the call ids of the ``tool_call_response`` parts its
    request carries (the results of calls asked before). Read from the GenAI conventions'
    messages only; an agent span's, from its answer written whole (:func:`_agent_asked`);
    none for other spans."""
    if kind == AGENT:
        return _agent_asked(a), ()
    if kind != MODEL:
        return (), ()
    asked = tuple(
        (str(p["id"])[:128], str(p["name"])[:128])
        for p in _parts(_messages(a.get(_OUTPUT_MESSAGES), "tool_call"), "tool_call")
        if isinstance(p.get("name"), str) and p["name"]
    )[:16]
    got = _messages(a.get(_INPUT_MESSAGES), "tool_call_response")
    answered = tuple(str(p["id"])[:128] for p in _parts(got, "tool_call_response"))[:64]
    return asked, answered


def _agent_asked(a: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The (call id, tool) an agent span's answer asked for, where its ``output.value`` is
    the chat message it answered with (OpenInference's AG2 instrumentor: ``{"role":
    "assistant", "tool_calls": [{"id": ..., "function": {"name": ...}}]}``; round 14): in a
    file with no model-call span, what tells a group chat's tool runner from a speaker."""
    raw = a.get("output.value")
    if not isinstance(raw, str) or len(raw) > _MAX_OUTPUT_JSON or '"tool_calls"' not in raw:
        return ()
    try:
        message = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return ()
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    out = []
    for c in calls[:16] if isinstance(calls, list) else ():
        fn = c.get("function") if isinstance(c, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str) and name and isinstance(c.get("id"), str):
            out.append((c["id"][:128], name[:128]))
    return tuple(out)


def _asked_genai(raw: Any) -> tuple[str, ...]:
    """The tools named by the ``tool_call`` parts of the GenAI conventions'
    ``gen_ai.output.messages`` (a JSON list of messages, each with its ``parts``)."""
    if not isinstance(raw, str) or "tool_call" not in raw or len(raw) > _MAX_OUTPUT_JSON:
        return ()
    try:
        messages = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return ()
    out: list[Any] = []
    for m in messages if isinstance(messages, list) else ():
        parts = m.get("parts") if isinstance(m, dict) else None
        for p in parts if isinstance(parts, list) else ():
            if not isinstance(p, dict):
                continue
            if p.get("type") == "tool_call":
                out.append(p.get("name"))
            elif p.get("type") == "text":
                out.extend(_repr_tool_calls(p.get("content")))
    return tuple(n for n in out if isinstance(n, str) and 0 < len(n) <= 128)[:16]


def _repr_tool_calls(text: Any) -> list[Any]:
    """The tool names of an answer message written as a text part holding the message
    object's Python repr (``{'role': 'assistant', 'tool_calls': [{'function': {'name':
    ...}}]}``: OpenTelemetry's own Agents SDK instrumentor), read as a literal (never
    run); nothing for any other text."""
    if not isinstance(text, str) or not text.startswith("{") or "'tool_calls'" not in text:
        return []
    if len(text) > _MAX_REPR:
        return []
    try:
        message = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return []
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return [
        c["function"].get("name")
        for c in (calls if isinstance(calls, list) else ())
        if isinstance(c, dict) and isinstance(c.get("function"), dict)
    ]


# What an agent was made with (the GenAI conventions' create_agent span): its description.
_AGENT_DESCRIPTION = "gen_ai.agent.description"


def _instructions(kind: str, a: dict[str, Any]) -> str:
    """Round 10: a model call's system prompt, or the description an agent was made with
    (a ``create_agent`` span naming its agent), up to 2,000 characters; '' for others."""
    if kind == MODEL:
        return system_prompt(a).strip()[:2000]
    if a.get("gen_ai.operation.name") == "create_agent" and a.get("gen_ai.agent.name"):
        text = a.get(_AGENT_DESCRIPTION)
        return text.strip()[:2000] if isinstance(text, str) else ""
    return ""


def _sender(kind: str, a: dict[str, Any]) -> str:
    """Round 10: who wrote a model call's request, by the ``name`` its first user message
    carries (the chat APIs' author of a message: AG2 signs each message with its sender);
    '' when it names nobody."""
    if kind != MODEL:
        return ""
    for m in _messages(a.get(_INPUT_MESSAGES), '"name"'):
        if isinstance(m, dict) and m.get("role") == "user":
            name = m.get("name")
            return name[:128] if isinstance(name, str) else ""
    return ""


def _prompt_name(kind: str, a: dict[str, Any]) -> str:
    """A model call's: the agent its system prompt names (prompts.py)."""
    return prompt_name(a) if kind == MODEL else ""


def _run_ids(a: dict[str, Any]) -> tuple[str, ...]:
    """The span's run, conversation and session ids as "key=value" (runs.RUN_IDS)."""
    if _RUN_ID_SET.isdisjoint(a):
        return ()
    return tuple(f"{k}={a[k]}" for k in RUN_IDS if isinstance(a.get(k), str | int) and a[k] != "")


# (line of the input, raw spans, their process: the resource's bytes, interned)
_Chunk = tuple[int, list[msgspec.Raw], str]


_SPAN_ID = re.compile(rb'"spanId"\s*:\s*"([0-9A-Za-z_-]{1,40})"')


def span_record_at(
    where: str,
    sid: str,
    pid: str,
    start: int,
    end: int,
    span_name: str,
    a: dict[str, Any],
    error: str,
    names: dict[str, str],
) -> SpanRec:
    """:func:`span_record`, a span it refuses reported as ``<where>: span <sid>: why`` (the
    importers of span files name a span by its line, row or trace)."""
    too_many = count_span()  # the console, MLflow and Phoenix formats: counted as they are built
    if too_many:
        raise ImportFailed(too_many)
    try:
        return span_record(sid, pid, start, end, span_name, a, error, names)
    except BadSpan as err:
        raise ImportFailed(f"{where}: span {sid!r}: {err}") from None


def _span_label(raw: msgspec.Raw) -> str:
    """How a span that failed to decode is named in the error: its id or name."""
    try:
        doc = msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):
        found = _SPAN_ID.search(
            bytes(raw)
        )  # a span that is not JSON, or not UTF-8: its id if it is plain
        return f"span {found.group(1).decode('ascii')!r}" if found else "a span"
    if isinstance(doc, dict):
        for key in ("spanId", "name"):
            if isinstance(doc.get(key), str) and doc[key]:
                return f"span {doc[key][:40]!r}"
    return "a span"


def _records(
    chunks: list[_Chunk], summary: SpanSummary, names: dict[str, str], lines: bool
) -> dict[str, list[SpanRec]]:
    by_trace: dict[str, list[SpanRec]] = {}
    for line, chunk, process in chunks:
        where = f"line {line}: " if lines else ""
        try:
            spans = _SPANS.decode(b"[" + b",".join(chunk) + b"]")
        except (msgspec.DecodeError, UnicodeDecodeError):
            # Name the first span that does not decode, and why. (ValidationError is a
            # DecodeError. Text that is not UTF-8 raised UnicodeDecodeError up to msgspec 0.22
            # and raises DecodeError from 0.23: both are read here.)
            for raw in chunk:
                try:
                    _SPANS.decode(b"[" + bytes(raw) + b"]")
                except msgspec.ValidationError as err:
                    msg = str(err).replace("$[0]", "$")
                    raise ImportFailed(
                        f"{where}{_span_label(raw)} is not an OTLP/JSON span: {msg}"
                    ) from None
                except (msgspec.DecodeError, UnicodeDecodeError) as err:
                    raise ImportFailed(
                        f"{where}{_span_label(raw)}: {_undecodable(bytes(raw), err)}"
                    ) from None
            raise  # (unreachable: the batch failed, so one span fails alone)
        for sp in spans:
            try:
                got = _record(sp, names)
            except BadSpan as err:
                label = sp.spanId[:40] or sp.name[:80]
                raise ImportFailed(f"{where}span {label!r}: {err}") from None
            if isinstance(got, str):
                summary.skipped.append(where + got)
                continue
            tid, rec = got
            rec.process = process
            by_trace.setdefault(tid, []).append(rec)
    return by_trace


def _process(resource: msgspec.Raw, names: dict[str, str]) -> str:
    """Which process wrote a batch of spans: its resource (all of it), as a short key; ''
    when the file gives no resource (nothing then says two batches share a process)."""
    raw = bytes(resource).decode("utf-8", "replace")
    if raw == "null":
        return ""
    key = "resource:" + content_hash(raw)[7:23]
    return names.setdefault(key, key)


def _undecodable(raw: bytes, err: Exception) -> str:
    """Why a span's bytes do not decode. For text that is not UTF-8, msgspec names a position
    inside that string only (or none, from 0.23): the span's bytes are read again to find it.
    (Only spans hold strings that are decoded: the levels above them are read without their
    text.)"""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"text that is not valid UTF-8 (byte 0x{raw[bad.start]:02x}, {bad.start} bytes into the span)"
    if isinstance(err, UnicodeDecodeError):
        return "text that is not valid UTF-8"
    return f"not JSON msgspec can read: {err}"


_AT_BYTE = re.compile(r"\s*\(byte (\d+)\)")


def _not_json(text: bytes, err: msgspec.DecodeError, line_of: int | None = None) -> str:
    """msgspec's refusal of ``text`` (a document, or line ``line_of`` of JSON lines) at its line
    and column, not its byte offset; NaN and Infinity named."""
    msg = str(err)
    m = _AT_BYTE.search(msg)
    if m is None:
        return f"line {line_of}: not JSON: {msg}" if line_of else f"not JSON: {msg}"
    first_line = line_of or 1
    pos = min(int(m.group(1)), len(text))
    line = first_line + text.count(b"\n", 0, pos)
    col = pos - (text.rfind(b"\n", 0, pos) + 1) + 1
    at = f"line {line}, column {col}"
    if text[pos : pos + 9].lstrip(b"-").startswith((b"NaN", b"Infinity")):
        return f"{at}: NaN and Infinity are not JSON numbers; every number must be finite"
    return f"{at}: not JSON: {_AT_BYTE.sub('', msg)}"


def _documents(data: bytes) -> tuple[list[tuple[int, _Otlp]], bool]:
    """The OTLP documents of the input with their line numbers, and whether the input
    is JSON lines."""
    try:
        return [(1, _TOP.decode(data))], False
    except msgspec.ValidationError as err:  # (a subclass of DecodeError: first)
        raise ImportFailed(f"not OTLP/JSON trace data: {err}") from None
    except msgspec.DecodeError as err:
        if "trailing characters" not in str(err):
            raise ImportFailed(_not_json(data, err)) from None
    docs: list[tuple[int, _Otlp]] = []
    for n, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            docs.append((n, _TOP.decode(line)))
        except msgspec.ValidationError as err:
            raise ImportFailed(f"line {n}: not OTLP/JSON trace data: {err}") from None
        except msgspec.DecodeError as err:
            raise ImportFailed(_not_json(line, err, n)) from None
    return docs, True


def import_otlp(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """One trace per run found in the input (a document or JSON lines): one per trace
    id, traces tied by span links joined."""
    del keep_content  # spans keep no content
    # Read here, not by the caller, so the only reference to the input is ours and
    # the buffer is freed as soon as the spans are decoded.
    data = read()
    # Counted before anything is decoded (a document a line costs more than its bytes): every
    # span has one "spanId" key, a span link another, so this bounds the spans from above.
    too_many = span_count_problem(data.count(b'"spanId"'), '"spanId" keys (spans and span links)')
    if too_many:
        raise ImportFailed(too_many)
    docs, lines = _documents(data)
    del data
    if not any(doc.resourceSpans is not None for _, doc in docs):
        raise ImportFailed("not OTLP/JSON trace data: no 'resourceSpans' list at the top level")
    other = sum(1 for _, d in docs if d.resourceSpans is None)
    summary = SpanSummary()
    names: dict[str, str] = {}
    chunks: list[_Chunk] = [
        (n, ss.spans[i : i + BATCH], _process(rs.resource, names))
        for n, doc in docs
        for rs in doc.resourceSpans or ()
        for ss in rs.scopeSpans
        for i in range(0, len(ss.spans), BATCH)
    ]
    # Every Raw slice keeps the whole input alive: only the chunks hold them now.
    del docs
    too_many = span_count_problem(sum(len(c) for _, c, _ in chunks))
    if too_many:
        raise ImportFailed(too_many)
    by_trace = _records(chunks, summary, names, lines)
    del chunks
    results = span_traces(
        by_trace,
        summary,
        source=source,
        source_format="otlp-json-lines" if lines else "otlp-json",
        system="OpenTelemetry spans (OTLP/JSON); t = span times, seconds from the root",
    )
    if other:
        results[0].notes.append(f"{other} line(s) without spans (metrics or logs) ignored")
    return results


def join_linked(by_trace: dict[str, list[SpanRec]]) -> dict[str, int]:
    """Join the traces of one run, in place: one run in, one trace out.

    A link says its span was caused by the linked span (OpenTelemetry's follows-from:
    AutoGen's runtime starts a trace per message it publishes and links it to the span
    that published it). Traces linked either way become one, named by the trace of the
    earliest span; a trace root that links to a span of another trace becomes that
    span's child, and the other roots of a joined trace hang under its first root; both
    follow their parent (they may start and end after it). A trace of bookkeeping only
    (runtime spans, such as AutoGen's create_agent, which nothing links) joins the run
    that starts next (else the one before). Returns, per joined trace, how many traces
    went into it besides its own."""
    up = {tid: tid for tid in by_trace}

    def find(x: str) -> str:
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x

    _union_links(by_trace, up, find)
    union_nested(by_trace, up, find)
    bookkeeping = union_idle_by_ids(by_trace, up, find)
    bookkeeping |= _union_bookkeeping(by_trace, up, find)
    groups: dict[str, list[str]] = {}
    for tid in by_trace:
        groups.setdefault(find(tid), []).append(tid)
    joined: dict[str, int] = {}
    for members in groups.values():
        if len(members) > 1:
            key = _merge(by_trace, members, bookkeeping)
            joined[key] = len(members) - 1
    return joined


def _union_links(
    by_trace: dict[str, list[SpanRec]], up: dict[str, str], find: Callable[[str], str]
) -> None:
    linking = [(tid, r) for tid, recs in by_trace.items() for r in recs if r.links]
    if not linking:
        return
    wanted = {ls for _, r in linking for _, ls in r.links}
    where = {r.span_id: tid for tid, recs in by_trace.items() for r in recs if r.span_id in wanted}
    for tid, r in linking:
        for _, ls in r.links:
            other = where.get(ls)
            if other is None or other == tid:
                continue  # a span outside the input, or of its own trace
            up[find(tid)] = find(other)
            if not r.parent_id and not r.follows:
                r.parent_id, r.follows = ls, True


def _union_bookkeeping(
    by_trace: dict[str, list[SpanRec]], up: dict[str, str], find: Callable[[str], str]
) -> set[str]:
    """Joins each trace of bookkeeping only to the run after it; returns those traces."""
    start: dict[str, int] = {}
    busy: set[str] = set()
    for tid, recs in by_trace.items():
        g = find(tid)
        first = min(r.start for r in recs)
        start[g] = min(start.get(g, first), first)
        if any(r.kind != RUNTIME for r in recs):
            busy.add(g)
    runs = sorted((start[g], g) for g in busy)
    if not runs or len(busy) == len(start):
        return set()
    idle = start.keys() - busy
    for g in idle:
        later = [h for t, h in runs if t >= start[g]]
        up[g] = later[0] if later else runs[-1][1]
    return {tid for tid in by_trace if tid in idle or up[tid] in idle}


def _merge(by_trace: dict[str, list[SpanRec]], members: list[str], bookkeeping: set[str]) -> str:
    """One trace of ``members``, rooted at the first span of the run (bookkeeping
    before it hangs under it too); returns its key."""
    order = attrgetter("start", "end", "span_id")

    def rank(m: str) -> tuple[bool, int, int, str]:
        return (m in bookkeeping, *order(min(by_trace[m], key=order)))

    key = min(members, key=rank)
    first = min(by_trace[key], key=order)
    recs: list[SpanRec] = []
    for m in members:
        recs.extend(by_trace.pop(m))
    for r in recs:
        if not r.parent_id and r is not first:
            r.parent_id, r.follows = first.span_id, True
    by_trace[key] = recs
    return key


def span_traces(
    by_trace: dict[str, list[SpanRec]],
    summary: SpanSummary,
    *,
    source: str,
    source_format: str,
    system: str,
) -> list[ImportResult]:
    """One trace per trace id (traces tied by span links joined first)."""
    if not by_trace:
        raise ImportFailed("no usable spans: " + "; ".join(summary.skipped[:3] or ["none"]))
    joined = join_linked(by_trace)
    results: list[ImportResult] = []
    for tid in sorted(by_trace):
        part = SpanSummary(skipped=summary.skipped if len(by_trace) == 1 else [])
        part.joined = joined.get(tid, 0)
        recs = by_trace.pop(tid)
        part.spans = len(recs)
        builder, costs = build(recs, part)
        del recs
        label = tid or Path(source).stem
        head = {
            "trace_id": f"otel:{label}"[:256],
            "task_id": Path(source).stem[:256] or "otel",
            "system": system,
            "topology": "unknown",
            "rewards": {},
            "costs": costs,
            "metadata": {
                "source_format": source_format,
                "source": source,
                "clock": "span start/end times (ns) relative to the root span's start",
                "otel_trace_id": tid,
            },
        }
        notes = part.notes()
        if len(by_trace) or results:
            notes = [f"trace {label}: {n}" for n in notes]
        results.append(ImportResult(builder=builder, head=head, notes=notes, key=label))
    if len(results) > 1 and summary.skipped:
        results[0].notes.append(
            f"{len(summary.skipped)} span(s) skipped: " + "; ".join(summary.skipped[:5])
        )
    return results
