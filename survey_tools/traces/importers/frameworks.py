"""What agent frameworks write in their spans, as data: the rows of rules.yaml.

The span conventions (GenAI ``gen_ai.operation.name``, OpenInference
``openinference.span.kind``) give each span a first kind (agent, tool, model call,
step...). Frameworks then say more, each in its own way: who the agent is, which spans
are their runtime's bookkeeping, which tool calls hand the conversation to another
agent. Each row of ``rules.yaml`` (beside this module; its shape is
``rules.schema.yaml``) recognises one such habit and says what the span is; the first
row that matches a span wins. docs/trace-formats.md ("Agent frameworks") lists the rows;
adding a framework is adding rows, not code, and a user adds their own with
``survey trace import --rules FILE`` (:func:`load_rules`, :func:`using`), tried first.

A row matches when its regular expression ``match`` matches (from the start) its
``subject`` (``Rule.on``): the span's name (``name``), its tool name after classification (``tool``), its
kind so far (``kind``), an attribute (``attr:KEY``) or a key of a JSON object held in
an attribute (``json:ATTR:KEY``). ``kinds`` limits it to spans of those first kinds.
What it says:

* ``kind``: the span's kind from now on (``runtime``: the framework's own bookkeeping,
  folded into the events of the agent it runs for; ``workflow``: a run of a workflow,
  the application agent when it is the root, a step otherwise; ``node``: an agent node
  of a graph, whose agent is the graph it runs in; ``scope``: a scope of the program's,
  a step named by ``agent`` when a source gives a name, else bookkeeping; ``group``: a
  group chat's manager, whose agents speak in turn; ``executor``: a group's tool runner,
  whose tools are the previous speaker's; or any span kind);
* ``agent``: where the agent's name is, the first that gives one;
* ``target``: where the agent a hand-off goes to is, the first that gives one (a tool
  span with a target is a hand-off: its agent delegates to the target);
* ``tool``: where a tool span's tool name is;
* ``tokens_in``, ``tokens_out``: where a model call's token counts are.

A source is ``attr:KEY`` (an attribute), ``group:NAME`` (a named group of ``match``),
``args:KEY`` (a key of the tool call's JSON arguments), ``json:ATTR:KEY`` (a key of
a JSON object held in an attribute), ``span:name`` (the span's name) or
``next:agent`` (a hand-off's target the span does not name: the agent that acts next). An agent
named on a span that is not an agent's names the application agent when the span is
the root (a step or workflow elsewhere acts for the agent holding it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
import orjson
import yaml

from survey_tools.errors import InvalidInput, Problem
from survey_tools.schema_words import Vocabulary, explain_all

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
# A scope of the program's: a step when a source names it, bookkeeping otherwise.
SCOPE = "scope"
# A group chat's manager: its agents speak in turn, each turn passed on by the one
# before (spans.py, _group_turns); an executor among them runs the tools the previous
# speaker asked for.
GROUP = "group"
EXECUTOR = "executor"
MAX_TOKENS = 1 << 53


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
    tool: tuple[str, ...] = ()
    tokens_in: tuple[str, ...] = ()
    tokens_out: tuple[str, ...] = ()
    where: str = ""  # file:line of the row (for --explain)


# The arguments of a tool call, wherever a convention keeps them (JSON text).
ARGUMENT_KEYS = (
    "gen_ai.tool.call.arguments",
    "tool_call.function.arguments",
    "gcp.vertex.agent.tool_call_args",
    "ai.toolCall.args",
    "tool.arguments",
    "input.value",
)
_KINDS = (
    "agent",
    "tool",
    "model",
    "guard",
    "handoff",
    "step",
    "generic",
    "runtime",
    "workflow",
    "node",
    "marker",
    "speaker",
    "scope",
)
_SOURCES = ("agent", "target", "tool", "tokens_in", "tokens_out")


# libyaml's safe loader when PyYAML has it (about six times faster: the table is read
# whenever a span importer is loaded), else PyYAML's own.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _validator() -> Any:
    text = resources.files(__package__).joinpath("rules.schema.yaml").read_text("utf-8")
    return jsonschema_rs.validator_for(yaml.load(text, Loader=_LOADER))  # noqa: S506


def _line_of(node: yaml.Node, path: list[str | int]) -> int:
    """The 1-based line of the value at ``path`` in a composed YAML document (the
    nearest enclosing value that exists)."""
    for step in path:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            child = node.value[step] if step < len(node.value) else None
        if child is None:
            break
        node = child
    return node.start_mark.line + 1


def _field(path: list[str | int]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _row_problems(row: Any) -> list[tuple[str, str]]:
    """What the schema cannot check in one row: (field, message)."""
    if not isinstance(row, dict) or not isinstance(row.get("match"), str):
        return []
    try:
        groups = set(re.compile(row["match"]).groupindex)
    except re.error as err:
        return [("match", f"not a regular expression: {err}")]
    out = []
    for key in _SOURCES:
        srcs = row.get(key)
        for k, src in enumerate(srcs if isinstance(srcs, list) else []):
            if isinstance(src, str) and src.startswith("group:") and src[6:] not in groups:
                known = ", ".join(sorted(groups)) or "none"
                out.append((f"{key}[{k}]", f"no group {src[6:]!r} in match (its groups: {known})"))
    return out


# A rules file's wording of schema errors, as data for the one explainer (schema_words): its
# patterns in words (a message names no regular expression), the nearest kind of a misspelt one,
# the validator's own sentence for the rest.
_PATTERN_WORDS = {
    "family": "lowercase letters, digits, '.', '_' and '-'",
    "subject": "name, tool, kind, attr:KEY or json:ATTR:KEY",
    "agent": "attr:KEY, group:NAME, args:KEY, json:ATTR:KEY, span:name or next:agent",
    "target": "attr:KEY, group:NAME, args:KEY, json:ATTR:KEY, span:name or next:agent",
    "tool": "attr:KEY, group:NAME, args:KEY, json:ATTR:KEY, span:name or next:agent",
    "tokens_in": "attr:KEY or json:ATTR:KEY",
    "tokens_out": "attr:KEY or json:ATTR:KEY",
}
RULES_WORDS = Vocabulary(
    templates={"enum": "{message}{hint}", "pattern": "{raw} is not of the allowed form"},
    worded=frozenset({"enum", "pattern"}),
    pattern_words={key: "{raw} is not " + words for key, words in _PATTERN_WORDS.items()},
)


def _schema_problems(where: str, node: yaml.Node, errors: Any) -> list[Problem]:
    """Each schema error at its line, with the nearest allowed value when one is near."""
    said, _ = explain_all(errors, RULES_WORDS)
    return [Problem(where, _line_of(node, list(s.path)), 0, _field(list(s.path)), s.message)
            for s in said]


def load_rules(text: str, where: str) -> tuple[Rule, ...]:
    """The rows of a rules file; every problem at once as ``file:line: field: message``
    (InvalidInput)."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
        doc = yaml.load(text, Loader=_LOADER)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        raise InvalidInput(
            [Problem(where, line, 0, "", f"not YAML: {err}")], "bad rules file"
        ) from None
    if node is None:
        raise InvalidInput([Problem(where, 1, 0, "", "empty: a rules file has a rules list")])
    problems = _schema_problems(where, node, _validator().iter_errors(doc))
    got = doc.get("rules") if isinstance(doc, dict) else None
    rows: list[Any] = got if isinstance(got, list) else []
    for n, row in enumerate(rows):
        for key, msg in _row_problems(row):
            path: list[str | int] = ["rules", n, *key.replace("]", "").split("[")]
            path = [int(p) if isinstance(p, str) and p.isdigit() else p for p in path]
            problems.append(Problem(where, _line_of(node, path), 0, f"rules[{n}].{key}", msg))
    if problems:
        raise InvalidInput(problems, f"{where}: {len(problems)} problem(s) in the rules")
    return tuple(
        _rule(row, f"{where}:{_line_of(node, ['rules', n])}") for n, row in enumerate(rows)
    )


def _rule(row: dict[str, Any], where: str) -> Rule:
    def many(key: str) -> tuple[str, ...]:
        return tuple(row.get(key, ()))

    return Rule(
        row["family"],
        row["why"],
        row["subject"],
        row["match"],
        kinds=many("kinds"),
        kind=row.get("kind", ""),
        agent=many("agent"),
        target=many("target"),
        tool=many("tool"),
        tokens_in=many("tokens_in"),
        tokens_out=many("tokens_out"),
        where=where,
    )


def _builtin() -> tuple[Rule, ...]:
    text = resources.files(__package__).joinpath("rules.yaml").read_text("utf-8")
    return load_rules(text, "rules.yaml")


RULES: tuple[Rule, ...] = _builtin()


def attributes(rules: tuple[Rule, ...]) -> set[str]:
    """Every attribute the rows read, so the importers keep them."""
    srcs = [s for r in rules for key in _SOURCES for s in getattr(r, key)]
    return (
        {r.on[5:] for r in rules if r.on.startswith("attr:")}
        | {s[5:] for s in srcs if s.startswith("attr:")}
        | {s.split(":")[1] for r in rules for s in (r.on, *srcs) if s.startswith("json:")}
    )


# Every attribute a row reads. A set the importers share (otel.WANTED is this set):
# :func:`using` adds a user's rows' attributes for the time they are used.
WANTED: set[str] = attributes(RULES) | set(ARGUMENT_KEYS) | {"output.value"}


@dataclass(frozen=True)
class Mapped:
    kind: str
    name: str
    agent: str
    target: str
    family: str
    tool: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    rule: str = ""  # "family: why (file:line)", for --explain


# How a row reads its subject: the span's name, its tool's name, its kind, an
# attribute, a key of a JSON attribute.
_NAME, _TOOL, _KIND, _ATTR, _JSON = range(5)
_Compiled = tuple[frozenset[str], int, str, str, Any, Rule]


def _compile(rule: Rule) -> _Compiled:
    """A row as (kinds, how, key, JSON key, pattern.match, rule) for :func:`apply`."""
    how, _, rest = rule.on.partition(":")
    code = {"name": _NAME, "tool": _TOOL, "kind": _KIND, "attr": _ATTR, "json": _JSON}[how]
    attr, _, inner = rest.partition(":")
    return frozenset(rule.kinds), code, attr, inner, re.compile(rule.match).match, rule


_FIRST_KINDS = ("agent", "tool", "model", "guard", "handoff", "step", "generic")
# A named group turned into a plain one, for the patterns joined into one pre-filter.
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


@dataclass(frozen=True)
class _Rows:
    """The rows that apply to one first kind, in order, indexed by what they read: a span
    is tried only against the rows on the attributes it has (a few of the table's), on its
    name when one of them can match it, and the others."""

    rows: tuple[_Compiled, ...]
    by_attr: dict[str, tuple[int, ...]]  # attribute (of attr: and json: rows) -> positions
    on_name: tuple[int, ...]
    others: tuple[int, ...]  # tool and kind rows

    @classmethod
    def of(cls, rows: tuple[_Compiled, ...]) -> _Rows:
        by_attr: dict[str, list[int]] = {}
        on_name, others = [], []
        for i, (_, how, key, _inner, _, _) in enumerate(rows):
            if how in (_ATTR, _JSON):
                by_attr.setdefault(key, []).append(i)
            elif how == _NAME:
                on_name.append(i)
            else:
                others.append(i)
        return cls(rows, {k: tuple(v) for k, v in by_attr.items()}, tuple(on_name), tuple(others))

    def candidates(self, a: dict[str, Any], named: bool) -> list[int]:
        out = [i for k in a if (at := self.by_attr.get(k)) for i in at]
        if named:
            out.extend(self.on_name)
        out.extend(self.others)
        out.sort()
        return out


@dataclass
class _Table:
    """The rows in use, compiled once (apply runs for every span, a million of them): per
    first kind, the rows that apply to it (:class:`_Rows`); and one pattern joining every
    row on the span's name, so a name no row names is refused by one match."""

    rows: tuple[_Compiled, ...]
    by_kind: dict[str, _Rows]
    any_name: Any  # re.Pattern.match, or None when no row reads the name

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> _Table:
        rows = tuple(_compile(r) for r in rules)
        by_kind = {
            k: _Rows.of(tuple(c for c in rows if not c[0] or k in c[0])) for k in _FIRST_KINDS
        }
        names = [r.match for r in rules if r.on == "name"]
        joined = "|".join(f"(?:{_NAMED_GROUP.sub('(?:', m)})" for m in names)
        return cls(rows, by_kind, re.compile(joined).match if names else None)


@dataclass
class _Active:
    """The table in use, and whether the import explains each span."""

    table: _Table
    explain: bool = False


_ACTIVE = _Active(_Table.of(RULES))


@contextmanager
def using(
    extra: tuple[Rule, ...] = (), *, explain: bool = False, drop: frozenset[str] = frozenset()
) -> Iterator[None]:
    """A user's rows tried before the toolkit's, and --explain, for an import; ``drop``
    leaves out the toolkit's rows of those families or at those places (``rules.yaml:LINE``;
    benchmarks/bench_frameworks.py: what the structural rule reads without them)."""
    before = (_ACTIVE.table, _ACTIVE.explain)
    added = attributes(extra) - WANTED
    kept = (
        tuple(r for r in RULES if r.family not in drop and r.where not in drop) if drop else RULES
    )
    _ACTIVE.table = _Table.of(extra + kept) if extra or drop else before[0]
    _ACTIVE.explain = explain
    WANTED.update(added)
    try:
        yield
    finally:
        _ACTIVE.table, _ACTIVE.explain = before
        WANTED.difference_update(added)


def explaining() -> bool:
    return _ACTIVE.explain


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
    return json_object(a, attr, memo).get(inner)


def json_object(a: dict[str, Any], attr: str, memo: dict[str, Any]) -> dict[str, Any]:
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


def token_count(value: Any) -> int | None:
    """``value`` as a token count (an int, or a float with no fraction, 0 to 2**53), else None:
    the one reading of a count found in an attribute or a JSON object (rows and selfsaid.py)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
        return value
    return None


def first_count(doc: dict[str, Any], keys: tuple[str, ...]) -> int:
    """The first of ``keys`` holding a token count in ``doc`` (:func:`token_count`), else 0:
    the one reading of a usage object's counts (selfsaid.py, encoded.py)."""
    return next((v for k in keys if (v := token_count(doc.get(k))) is not None), 0)


def _number(src: str, a: dict[str, Any], memo: dict[str, Any]) -> int | None:
    how, _, key = src.partition(":")
    return token_count(a.get(key) if how == "attr" else _json_key(a, key, memo))


def _first_number(srcs: tuple[str, ...], a: dict[str, Any], memo: dict[str, Any]) -> int | None:
    return next((v for s in srcs if (v := _number(s, a, memo)) is not None), None)


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
    table = _ACTIVE.table
    index = table.by_kind.get(kind)
    if index is None:
        index = _Rows.of(tuple(c for c in table.rows if not c[0] or kind in c[0]))
    # One match says whether any row on the name can match it (most names: none).
    named = table.any_name is not None and table.any_name(span_name) is not None
    rows = index.rows
    for i in index.candidates(a, named):
        _kinds, how, key, inner, match, rule = rows[i]
        if how == _ATTR:
            subject: Any = a.get(key)
        elif how == _NAME:
            subject = span_name
        elif how == _TOOL:
            subject = name if kind == "tool" else None
        elif how == _JSON:
            subject = json_object(a, key, memo).get(inner) if key in a else None
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
        return _mapped(rule, kind, name, agent, target, m, a, span_name, memo)
    return None


def _mapped(
    rule: Rule,
    kind: str,
    name: str,
    agent: str,
    target: str,
    m: re.Match[str],
    a: dict[str, Any],
    span_name: str,
    memo: dict[str, Any],
) -> Mapped:
    new = rule.kind or kind
    if new == SCOPE:
        # A scope of the program's is a step when something names it, else bookkeeping.
        new = "step" if agent else RUNTIME
    tool = next((v for s in rule.tool if (v := _source(s, m, a, span_name, memo))), "")
    return Mapped(
        new,
        name,
        agent,
        target,
        rule.family,
        tool,
        _first_number(rule.tokens_in, a, memo) if rule.tokens_in else None,
        _first_number(rule.tokens_out, a, memo) if rule.tokens_out else None,
        f"{rule.family}: {rule.why} ({rule.where})",
    )
