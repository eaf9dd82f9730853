"""What a span of no convention says of itself, in words any framework may use.

A span with neither a GenAI operation nor an OpenInference kind can still say what it is,
and frameworks that write their own attributes mostly say it one of two ways:

* **an attribute naming its kind**: a key whose last word is ``type`` or ``kind``
  (``<tool>.observation.type``, ``<tool>.span.kind``, ``span_type``) whose whole value is
  one of the kind words of :data:`KIND_WORDS` (``agent``, ``tool``, ``generation``...). The
  span is that kind, named by its span's name (its framework suffix stripped). Its token
  counts are in a JSON object held in an attribute whose last word is ``usage`` or
  ``usage_details`` (``{"input": 90, "output": 15}``, ``input_tokens``/``output_tokens``,
  ``prompt_tokens``/``completion_tokens``), or in flat attributes ``usage.<count>``
  (``usage.prompt_tokens``, ``usage.input_tokens``: the span's own, not a namespaced
  ``llm.usage.*``, which a framework may write as the last of several calls only). Of
  several kind attributes a model call's or a tool's wins over an agent's: an agent kind
  beside it (``entity.type: agent``) names the agent the span belongs to, not the span.
* **a span name that is a message template** (a logging library naming a span by its
  message: ``Agent run: {name!r}``, ``Function: {name}``, ``Handoff: {from_agent} →
  {to_agent}``): the placeholders name attributes, and the words before the first one say
  the kind (:data:`KIND_WORDS` again: ``Agent run`` an agent, ``Function`` a tool,
  ``Handoff`` a hand-off). The agent or tool is the value of the first placeholder; a
  hand-off's target the one after an arrow or ``to`` (else the last).
* **a span name with a kind prefix** ``<kind>:<name>`` (``subagent:researcher``,
  ``tool.execution:search``, ``llm:generateText``): a prefix whose words end in a kind
  word names the kind, and the rest is the agent's or tool's name (:func:`prefixed`).
* **a method span** ``<Class>.<method>()`` (a tracer timing methods: ``SearchTool.try_run()``,
  ``Agent.run()``): the class name's last word that is a kind word says the kind, and the
  class names it (:func:`method`); a method span directly inside one of its own class is
  part of that call (spans.py).

* **messages it carries** (a runtime delivering agents' messages, AutoGen's ``message``
  attribute): a message object with an ``id``, an author (``source``, ``sender``) and a
  usage object (``models_usage``, ``usage``, ``usage_metadata``) holding token counts is the
  answer of a model call by its author (:func:`carried_calls`); spans.py counts each id
  once, and only where the file has no model-call span.

Nothing here names a framework: these are the words, and the rows of rules.yaml still come
first (a framework's own attribute wins over this reading).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec

from survey_tools.traces.importers.frameworks import first_count, json_object

# A kind word (the whole value of a kind attribute, lower-cased; or a word before a
# template's first placeholder) -> the span builder's kind (spans.py).
KIND_WORDS = {
    "agent": "agent",
    "tool": "tool",
    "function": "tool",
    "retriever": "tool",
    "generation": "model",
    "llm": "model",
    "chat": "model",
    "completion": "model",
    "embedding": "model",
    "guardrail": "guard",
    "handoff": "handoff",
    # Round 14: a chain (Langfuse's observation type, as OpenInference's CHAIN kind) is a
    # step of whoever runs it; a LangGraph graph written so is the agent its nodes act for.
    "chain": "step",
}
_KIND_KEY = re.compile(r"(?:^|[._])(?:type|kind)$")
_USAGE_KEY = re.compile(r"(?:^|[._])usage(?:_details)?$")
_FLAT_IN = ("usage.input_tokens", "usage.prompt_tokens")
_FLAT_OUT = ("usage.output_tokens", "usage.completion_tokens")
_FLAT = frozenset(_FLAT_IN + _FLAT_OUT)
# A framework's own attribute holding a model call's whole request or answer (Haystack's
# tracer: haystack.agent.step.llm.input, .output): prompts.py reads the request's system
# message, answer_usage the answer's usage.
_WHOLE_KEY = re.compile(r"(?:^|[._])(?:input|output)$")
_ANSWER_KEY = re.compile(r"(?:^|[._])output$")
_TOOL_CALL_NAME = re.compile(r"(?:^|\.)(?:toolCall|tool_call|tool)\.name$")
_PREFIX = re.compile(r"^([A-Za-z][\w.]*):(\S.*)$")
_PLACEHOLDER = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")
_ARROW = re.compile(r"\}\s*(?:→|->|=>|\bto\b)\s*\{(\w+)")
IN_KEYS = ("input", "input_tokens", "prompt_tokens")
OUT_KEYS = ("output", "output_tokens", "completion_tokens")


@functools.lru_cache(maxsize=4096)
def described(key: str) -> bool:
    """Whether an attribute key is one this module reads (a kind or a usage key)."""
    return bool(
        _KIND_KEY.search(key)
        or _USAGE_KEY.search(key)
        or key in _FLAT
        or _WHOLE_KEY.search(key)
        or _TOOL_CALL_NAME.search(key)
        or (key.endswith(".name") and key.count(".") >= 2)
    )


def tool_call_name(a: dict[str, Any]) -> str:
    """The tool a framework's own ``<namespace>.toolCall.name`` (or ``.tool_call.name``)
    names: the span is that tool's call ('' when no such attribute)."""
    for key, value in a.items():
        if isinstance(value, str) and value and _TOOL_CALL_NAME.search(key):
            return value
    return ""


@functools.lru_cache(maxsize=4096)
def placeholders(span_name: str) -> tuple[str, ...]:
    """The attributes a span name's template placeholders name (none when it is no template)."""
    if "{" not in span_name:
        return ()
    return tuple(m.group(1) for m in _PLACEHOLDER.finditer(span_name))


def kind_of(a: dict[str, Any]) -> str:
    """The kind a kind attribute gives the span ('' when none does); of several, any
    other kind wins over an agent's (that one names whose the span is)."""
    found = ""
    for key, value in a.items():
        if isinstance(value, str) and _KIND_KEY.search(key):
            kind = KIND_WORDS.get(value.strip().lower(), "")
            if kind and kind != "agent":
                return kind
            found = found or kind
    return found


@functools.lru_cache(maxsize=4096)
def prefixed(span_name: str) -> tuple[str, str]:
    """(kind, name) of a span name ``<kind>:<name>`` whose prefix has a word ending in a
    kind word (the first such word says the kind) (``subagent:researcher`` an agent, ``tool.execution:search`` a tool);
    ('', '') for any other name."""
    m = _PREFIX.match(span_name)
    if not m:
        return "", ""
    words = [w for w in re.split(r"[^a-z]+", m.group(1).lower()) if w]
    for w in words:
        kind = next((KIND_WORDS[k] for k in KIND_WORDS if w.endswith(k)), "")
        if kind:
            return kind, m.group(2).strip()
    return "", ""


_METHOD = re.compile(r"^([A-Z][A-Za-z0-9]*)\.(_*[a-z]\w*)\(\)$")
_CAMEL = re.compile(r"[A-Z][a-z0-9]*|[a-z0-9]+")
METHOD_WHY = "words: a method span <Class>.<method>(), its kind the class name's last kind word"


@functools.lru_cache(maxsize=4096)
def method(span_name: str) -> tuple[str, str]:
    """(kind, class) of a span named by the method it times, ``<Class>.<method>()`` (a
    tracer decorating methods: ``SearchTool.try_run()``, ``Agent.run()``), whose class
    name's last word that is a kind word says the kind (``SearchTool`` a tool,
    ``OpenAiChatPromptDriver`` a model call by ``Chat``); ('', '') for any other name.
    The class names the agent or tool: the file names no instance."""
    m = _METHOD.match(span_name)
    if not m:
        return "", ""
    words = [w.lower() for w in _CAMEL.findall(m.group(1))]
    for w in reversed(words):
        if w in KIND_WORDS:
            return KIND_WORDS[w], m.group(1)
    return "", ""


_DOTTED = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$")
DOTTED_WHY = "words: a dotted span name whose last part is a kind word"


@functools.lru_cache(maxsize=4096)
def dotted(span_name: str) -> str:
    """The kind a dotted lower-case span name says by its last part (a tracer naming spans
    by what they are: ``haystack.agent.step.llm`` a model call, ``haystack.agent.step.tool``
    a tool call); '' for any other name."""
    if not _DOTTED.match(span_name):
        return ""
    return KIND_WORDS.get(span_name.rsplit(".", 1)[1], "")


def method_class(span_name: str) -> str:
    """The class of a method span ``<Class>.<method>()`` ('' for any other name)."""
    m = _METHOD.match(span_name)
    return m.group(1) if m else ""


def usage(a: dict[str, Any]) -> tuple[int, int]:
    """Input and output tokens of a usage JSON object in an attribute, else of flat
    ``usage.<count>`` attributes (0, 0 when none)."""
    flat = first_count(a, _FLAT_IN), first_count(a, _FLAT_OUT)
    if flat != (0, 0):
        return flat
    memo: dict[str, Any] = {}
    for key in a:
        if _USAGE_KEY.search(key):
            doc = json_object(a, key, memo)  # {} unless the value is a JSON object
            got = first_count(doc, IN_KEYS), first_count(doc, OUT_KEYS)
            if got != (0, 0):
                return got
    return 0, 0


def answer_usage(a: dict[str, Any]) -> tuple[int, int]:
    """A model call's tokens from its answer written whole as JSON in an attribute of the
    framework's own whose key ends in ``output`` (Haystack's tracer: ``{"replies": [{"meta":
    {"usage": {"prompt_tokens": 90, ...}}}]}``): the first ``usage`` object in it holding a
    count, searched breadth-first a few levels deep; (0, 0) when none."""
    memo: dict[str, Any] = {}
    for key in a:
        if not _ANSWER_KEY.search(key) or "usage" not in str(a[key])[:8192]:
            continue
        for node in _objects(json_object(a, key, memo), depth=6, width=64):
            if isinstance(node.get("usage"), dict):
                got = first_count(node["usage"], IN_KEYS), first_count(node["usage"], OUT_KEYS)
                if got != (0, 0):
                    return got
    return 0, 0


def _objects(doc: Any, depth: int, width: int) -> Iterator[dict[str, Any]]:
    """The JSON objects in ``doc``, breadth-first, ``depth`` levels deep, at most ``width``
    containers a level (a file's size is the user's: the walk is bounded)."""
    level: list[Any] = [doc]
    for _depth in range(depth):
        nxt: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                yield node
                nxt.extend(v for v in node.values() if isinstance(v, dict | list))
            elif isinstance(node, list):
                nxt.extend(v for v in node if isinstance(v, dict | list))
        level = nxt[:width]


def asked_in_answer(a: dict[str, Any]) -> tuple[str, ...]:
    """The tools a model call's answer asked for, from the answer written whole as JSON in an
    attribute of the framework's own whose key ends in ``output`` (Langfuse's OpenAI
    integration: ``{"role": "assistant", "tool_calls": [{"function": {"name": ...}}]}``): the
    names in the first ``tool_calls`` list found a few levels deep; () when none."""
    memo: dict[str, Any] = {}
    for key in a:
        if not _ANSWER_KEY.search(key) or "tool_calls" not in str(a[key])[:8192]:
            continue
        for node in _objects(json_object(a, key, memo), depth=4, width=64):
            calls = node.get("tool_calls")
            if isinstance(calls, list):
                return tuple(n for c in calls[:16] if (n := _called(c)))
    return ()


def _called(call: Any) -> str:
    """The tool a chat API's tool call names (``function.name``, else ``name``)."""
    if not isinstance(call, dict):
        return ""
    fn = call.get("function")
    name = fn.get("name") if isinstance(fn, dict) else call.get("name")
    return name[:128] if isinstance(name, str) else ""


@functools.lru_cache(maxsize=4096)
def _template(span_name: str) -> tuple[str, str, str]:
    """(kind, the placeholder naming the agent or tool, the one naming a hand-off's
    target) of a templated span name; kind '' when its words name none."""
    keys = placeholders(span_name)
    if not keys:
        return "", "", ""
    head = span_name[: span_name.index("{")]
    kind = next((KIND_WORDS[w] for w in re.split(r"[^a-z]+", head.lower()) if w in KIND_WORDS), "")
    arrow = _ARROW.search(span_name)
    return kind, keys[0], arrow.group(1) if arrow else keys[-1]


def template(span_name: str, a: dict[str, Any]) -> tuple[str, str, str]:
    """(kind, name, target) a templated span name says, its placeholders filled from the
    span's attributes ('' kind when it says none, or its placeholder has no value)."""
    kind, first, last = _template(span_name)
    if not kind:
        return "", "", ""
    name = a.get(first)
    if not isinstance(name, str) or not name:
        return "", "", ""
    target = a.get(last) if kind == "handoff" else ""
    if kind == "handoff" and not (isinstance(target, str) and target):
        return "", "", ""
    return kind, name, str(target or "")


def why(span_name: str) -> str:
    """The --explain line of a span read by these words."""
    if _template(span_name)[0]:
        return "words: a templated span name, its placeholders from the attributes (selfsaid.py)"
    if prefixed(span_name)[0]:
        return "words: a kind prefix of its span name, <kind>:<name> (selfsaid.py)"
    if method(span_name)[0]:
        return f"{METHOD_WHY} (selfsaid.py)"
    if dotted(span_name):
        return f"{DOTTED_WHY} (selfsaid.py)"
    return "words: an attribute of its own naming its kind (selfsaid.py)"


# Attributes in which a span carries the messages it delivers, whole, as JSON.
MESSAGE_KEYS = ("message", "messages")
_AUTHOR_KEYS = ("source", "sender")
_MESSAGE_USAGE_KEYS = ("models_usage", "usage", "usage_metadata")
_MAX_MESSAGE_JSON = 262_144  # a longer value is not read (a file's size is the user's)


def carried_calls(a: dict[str, Any]) -> tuple[tuple[str, str, int, int, int], ...]:
    """The model calls whose answers a span carries as messages: (message id, author,
    input tokens, output tokens, when it was made in Unix nanoseconds or 0) for each message
    object, a few levels deep in a JSON attribute of :data:`MESSAGE_KEYS`, that has an id,
    an author and a usage object with a count. A message without usage (a tool's result, a
    user's question) is no model call."""
    out: list[tuple[str, str, int, int, int]] = []
    for key in MESSAGE_KEYS:
        raw = a.get(key)
        if not isinstance(raw, str) or len(raw) > _MAX_MESSAGE_JSON or "usage" not in raw:
            continue
        try:
            doc = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            continue
        for node in _objects(doc, depth=5, width=256):
            call = _carried_call(node)
            if call is not None:
                out.append(call)
    return tuple(out[:256])


def _carried_call(m: dict[str, Any]) -> tuple[str, str, int, int, int] | None:
    """One message's model call (:func:`carried_calls`), or None."""
    mid = m.get("id")
    author = next((v for k in _AUTHOR_KEYS if isinstance(v := m.get(k), str) and v), "")
    usage = next((v for k in _MESSAGE_USAGE_KEYS if isinstance(v := m.get(k), dict)), None)
    if not isinstance(mid, str) or not mid or not author or usage is None:
        return None
    tokens_in, tokens_out = first_count(usage, IN_KEYS), first_count(usage, OUT_KEYS)
    if not (tokens_in or tokens_out):
        return None
    return mid[:128], author[:128], tokens_in, tokens_out, _nanos(m.get("created_at"))


def _nanos(value: Any) -> int:
    """An ISO 8601 time with its zone (``2026-12-04T18:34:21.274439Z``) in Unix
    nanoseconds; 0 when it is none."""
    if not isinstance(value, str) or not 19 <= len(value) <= 40:
        return 0
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if when.tzinfo is None:
        return 0  # a local time says no instant
    whole = int(when.timestamp())
    return whole * 1_000_000_000 + when.microsecond * 1000
