"""A span kind written in an attribute of a tracer's own, its values JSON-encoded.

Some tracers keep every attribute value as JSON text (MLflow: ``"mlflow.spanType":
"\\"CHAT_MODEL\\""``, ``"name": "\\"researcher\\""``) and export them so over OTLP. Read
by the shape of the key and the value, not by the tracer's name:

* **the kind**: an attribute whose key's last word (dotted, snake or camel case:
  ``spanType``, ``span_kind``) is ``type`` or ``kind``, whose value, once a JSON-encoded
  string is decoded, is one of OpenInference's span kinds (``AGENT``, ``TOOL``, ``LLM``,
  ``CHAIN``...) or a synonym of one (:data:`SYNONYMS`: ``CHAT_MODEL`` is ``LLM``). The
  span is then read as an OpenInference span of that kind. A plain value under a dotted or
  snake key is left to selfsaid.py (its own words), which reads it already.
* **the agent's instance**: on an agent-kind span so read, a plain ``name`` attribute
  (decoded) names the agent (the span's own name is its class's method).
* **usage**: a JSON object (or JSON text of one) in an attribute whose key's last word is
  ``usage`` (``tokenUsage``), with the known count keys (``input_tokens``,
  ``prompt_tokens``, ``input``...).
* **the tools a model call asked for**: an attribute whose key's last word is ``output``
  or ``outputs`` holding a chat completion (``choices[].message.tool_calls[].function.name``).

Nothing here names a tracer; MLflow's own trace export (mlflow.py) uses the same reading.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import orjson

from survey_tools.traces.importers.frameworks import first_count

# The span kinds of OpenInference's (a decoded value, upper-cased) and the synonyms a
# tracer of its own may use for them (MLflow's span types).
OI_LABELS = frozenset(
    {"AGENT", "TOOL", "RETRIEVER", "LLM", "EMBEDDING", "RERANKER", "CHAIN", "GUARDRAIL"}
)
SYNONYMS = {"CHAT_MODEL": "LLM", "PARSER": "CHAIN", "MEMORY": "RETRIEVER"}
WHY = "words: a span-kind attribute of its own (JSON-encoded value), read as OpenInference's (encoded.py)"
# A name's words in dotted, snake or camel case (spans.py reads tool classes' names by it).
WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_DOTTED_KIND = re.compile(r"(?:^|[._])(?:type|kind)$")  # what selfsaid.py reads itself
_IN = ("input_tokens", "prompt_tokens", "input")
_OUT = ("output_tokens", "completion_tokens", "output")
_MAX_JSON = 200_000


@functools.lru_cache(maxsize=4096)
def last_word(key: str) -> str:
    """The last word of an attribute key, lower-cased (``mlflow.chat.tokenUsage``: usage)."""
    words = WORDS.findall(key)
    return words[-1].lower() if words else ""


@functools.lru_cache(maxsize=4096)
def described(key: str) -> bool:
    """Whether an attribute key is one this module reads."""
    return key == "name" or last_word(key) in ("type", "kind", "usage", "output", "outputs")


def decoded(v: Any) -> Any:
    """An attribute's value, JSON text decoded (a value that is not JSON as it is)."""
    if not isinstance(v, str) or not v or v[0] not in '"{[' or len(v) > _MAX_JSON:
        return v
    try:
        return orjson.loads(v)
    except orjson.JSONDecodeError:
        return v


def oi_label(value: Any) -> str:
    """The OpenInference span kind a kind value says ('' when none)."""
    if not isinstance(value, str):
        return ""
    label = value.strip().upper()
    label = SYNONYMS.get(label, label)
    return label if label in OI_LABELS else ""


def kind(a: dict[str, Any]) -> str:
    """The OpenInference kind a kind attribute of the tracer's own says: a JSON-encoded
    value under any kind key, or any value under a camel-case one (``spanType``); ''
    when there is none."""
    for key, value in a.items():
        if last_word(key) not in ("type", "kind"):
            continue
        plain = isinstance(value, str) and not value.startswith('"')
        if plain and _DOTTED_KIND.search(key):
            continue  # selfsaid.py's own words
        label = oi_label(decoded(value))
        if label:
            return label
    return ""


def usage(a: dict[str, Any]) -> tuple[int, int]:
    """(input, output) tokens of a JSON usage object under a key whose last word is
    ``usage``; (0, 0) when none holds a count."""
    for key, value in a.items():
        if last_word(key) != "usage":
            continue
        doc = decoded(value)
        if isinstance(doc, dict):
            got = first_count(doc, _IN), first_count(doc, _OUT)
            if got != (0, 0):
                return got
    return 0, 0


def reading(a: dict[str, Any]) -> dict[str, Any]:
    """The OpenInference attributes the span's own kind, name and usage attributes stand
    for ({} when it has no kind attribute of this shape)."""
    label = kind(a)
    if not label:
        return {}
    out: dict[str, Any] = {"openinference.span.kind": label}
    name = decoded(a.get("name"))
    if label == "AGENT" and isinstance(name, str) and 0 < len(name) <= 128:
        out["agent.name"] = name
    in_tok, out_tok = usage(a)
    if in_tok or out_tok:
        out["llm.token_count.prompt"] = in_tok
        out["llm.token_count.completion"] = out_tok
    return out


def asked(a: dict[str, Any]) -> tuple[str, ...]:
    """The tools a model call's answer, held whole as a chat completion in an attribute
    whose key's last word is ``output``/``outputs``, asked for (its choices' messages'
    ``tool_calls``); () when none."""
    for key, value in a.items():
        if last_word(key) not in ("output", "outputs"):
            continue
        if not isinstance(value, str) or "tool_calls" not in value:
            continue
        doc = decoded(value)
        choices = doc.get("choices") if isinstance(doc, dict) else None
        names = [
            c.get("function", {}).get("name")
            for ch in (choices if isinstance(choices, list) else ())
            if isinstance(ch, dict) and isinstance(ch.get("message"), dict)
            for c in (ch["message"].get("tool_calls") or ())
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
        got = tuple(n for n in names if isinstance(n, str) and 0 < len(n) <= 128)[:16]
        if got:
            return got
    return ()
