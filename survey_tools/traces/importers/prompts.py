"""The name a model call's system prompt gives its agent, where no span names it.

Some instrumentors name no agent at all: OpenInference's Haystack instrumentor calls every
agent's span ``Agent.run`` (a Haystack Agent has no name). The one place left that says
which agent a model call is for is its request's **system message** (its first message,
role ``system``), and only in one well-defined form: it starts ``You are <Name>`` followed
by punctuation, ``<Name>`` one word or capitalised words, an article before it allowed
(``You are researcher.``, ``You are the Writer.``, ``You are Crew Manager,``). Anything
else (``You are a helpful assistant.``: two words before the punctuation) names nobody. The
span builder uses it only to tell apart scopes of one generic name that are different
agents (spans.py, _distinct_scopes), and the import's summary says the names were read
from system prompts.

Where a system message is, by convention: OpenInference ``llm.input_messages.0.message.*``,
the GenAI conventions' ``gen_ai.system_instructions`` and ``gen_ai.input.messages`` (JSON),
OpenLLMetry's ``gen_ai.prompt.0.*``; else a request a framework writes whole in an
attribute of its own whose key ends in ``input`` (Haystack's tracer: its messages' repr),
read for the first quoted ``You are ...`` after the word ``system`` and before ``user``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

KEYS = (
    "llm.input_messages.0.message.role",
    "llm.input_messages.0.message.content",
    "gen_ai.prompt.0.role",
    "gen_ai.prompt.0.content",
    "gen_ai.system_instructions",
    "gen_ai.input.messages",
)
_NAMED = re.compile(
    r"\s*[Yy]ou are (?:[Tt]he |[Aa]n? )?(?P<name>[A-Za-z][\w-]*(?: [A-Z][\w-]*)*)[.,:;!]"
)
_ARTICLES = frozenset({"a", "an", "the", "A", "An", "The"})


def _text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        for key in ("content", "text"):
            if isinstance(part.get(key), str):
                return str(part[key])
        if isinstance(part.get("parts"), list) and part["parts"]:
            return _text(part["parts"][0])
    if isinstance(part, list) and part:
        return _text(part[0])
    return ""


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text.lstrip().startswith(("[", "{")):
        return text
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def system_prompt(a: dict[str, Any]) -> str:
    """The model call's system message, '' when it has none the attributes show."""
    text = _system_prompt(a)
    # A message's content written as the JSON of its content blocks (LangChain.js through
    # OpenLLMetry: '[{"type":"text","text":"You are ..."}]') is read for its text.
    inner = _json(text)
    return _text(inner) if inner is not text and inner else text


def _system_prompt(a: dict[str, Any]) -> str:
    if a.get("llm.input_messages.0.message.role") == "system":
        return str(a.get("llm.input_messages.0.message.content") or "")
    if a.get("gen_ai.prompt.0.role") == "system":
        return str(a.get("gen_ai.prompt.0.content") or "")
    instructions = _json(a.get("gen_ai.system_instructions"))
    if instructions:
        return _text(instructions)
    messages = _json(a.get("gen_ai.input.messages"))
    first = messages[0] if isinstance(messages, list) and messages else None
    if isinstance(first, dict) and first.get("role") == "system":
        return _text(first)
    return ""


# A framework's own attribute holding the request (Haystack's tracer:
# haystack.agent.step.llm.input, its messages as Python's repr): a key ending in "input".
_REQUEST_KEY = re.compile(r"(?:^|[._])input$")
_SYSTEM_FIRST = re.compile(r"(?i)\bsystem\b")
_USER = re.compile(r"(?i)\buser\b")
_NAMED_TEXT = re.compile(r"""['"](?=[Yy]ou are )""")


def _request_prompt(a: dict[str, Any]) -> str:
    """The system message of a request written whole in one attribute of the framework's
    own (no convention's key): the text of the first ``You are ...`` that is quoted in it,
    when the word ``system`` comes before it and ``user`` does not (the first message is
    the system's)."""
    for key, value in a.items():
        if not isinstance(value, str) or not _REQUEST_KEY.search(key):
            continue
        head = value[:2000]
        sys_at = _SYSTEM_FIRST.search(head)
        if sys_at is None:
            continue
        user_at = _USER.search(head)
        said = _NAMED_TEXT.search(head, sys_at.end())
        if said is not None and (user_at is None or user_at.start() > said.start()):
            return head[said.end() :]
    return ""


def prompt_name(a: dict[str, Any]) -> str:
    """The agent a model call's system message names (module docstring), or ''."""
    text = system_prompt(a) if not _KEY_SET.isdisjoint(a) else _request_prompt(a)
    if not text:
        return ""
    m = _NAMED.match(text[:400])
    if m is None or m["name"] in _ARTICLES:
        return ""
    return m["name"]


_KEY_SET = frozenset(KEYS)
