"""Span trees (OpenTelemetry, OpenAI Agents SDK) to traces: the shared part.

Both formats give spans with an id, a parent id, start and end times and a kind.
Each importer turns its spans into :class:`SpanRec` records; :func:`build` then
re-parents orphans, clamps clock skew, and emits events and edges:

* the root span's agent decides when its first span starts (orchestrator_decision: the
  time before, a program building its agents in no span, is nobody's work) and, at its
  end, aggregates what its children returned, then stops;
* an agent span under another agent's span: the parent agent spawns it (the first
  time that agent appears; later invocations are delegation messages), the child
  works, and returns to the parent agent at its end;
* a tool span: tool_call at its start and tool_result at its end (tool output is
  untrusted); a transfer or handoff adds a delegation message to the target;
* a model call (chat, generation): an orchestrator_decision of its agent (role
  ``llm_call``); a step of a run (an OpenInference chain, an Agents SDK task or turn):
  an orchestrator_decision with that step as its role;
* a guardrail: a safety_event when it triggered (else nothing but its record);
* anything else: a generic orchestrator_decision that keeps the operation name in
  ``attributes.operation``, counted in the summary.

A failed span keeps its error in its events' ``attributes.error``. Token costs come
from one level of spans only, the lowest ``usage_rank`` that reports any usage (model
calls before turns before whole runs), so rolled-up totals are not counted twice.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

from survey_tools.traces.importers import encoded, frameworks, selfsaid
from survey_tools.traces.importers.common import ImportFailed

AGENT, TOOL, MODEL, GUARD, HANDOFF, STEP, GENERIC = (
    "agent",
    "tool",
    "model",
    "guard",
    "handoff",
    "step",
    "generic",
)
# Kinds the framework tables assign (frameworks.py): a runtime's messaging span leaves
# no event of its own; a workflow names the application agent at the root, and is a
# step of its agent elsewhere.
RUNTIME, WORKFLOW = "runtime", "workflow"
# A hand-off's target when the span does not name it: the agent that acts next.
UNNAMED = "?"
NODE = "node"  # an agent node of a graph (frameworks.NODE)
MARKER = "marker"  # an invocation marker beside its run's span (frameworks.MARKER)
SPEAKER = "speaker"  # a step saying whose turn starts (frameworks.SPEAKER)
GROUP, EXECUTOR = "group", "executor"  # a group chat's manager, its tool runner


@dataclass(slots=True)
class SpanRec:
    span_id: str
    parent_id: str
    start: int  # nanoseconds
    end: int
    kind: str  # AGENT, TOOL, MODEL, GUARD, HANDOFF, GENERIC
    name: str  # agent name (AGENT), tool name (TOOL), operation (GENERIC)
    agent: str = ""  # the agent the span belongs to, when the span says so
    target: str = ""  # transfer / handoff target agent
    call_id: str = ""
    triggered: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    operation: str = ""
    usage_rank: int = 0  # the level of spans its usage belongs to (module docstring)
    content_ref: str = ""  # a hash of a tool call's arguments
    error: str = ""  # why the span failed, when it did
    links: tuple[tuple[str, str], ...] = ()  # (trace id, span id) of its span links
    follows: bool = False  # its parent is a linked span: it may start and end after it
    span: str = ""  # the span's own name (the summary names generic spans by it)
    rule: str = ""  # the framework row that mapped it (--explain)
    process: str = ""  # the process that wrote it (its resource), when the file says
    run_ids: tuple[str, ...] = ()  # "key=value" of its run, conversation, session ids
    prompt_name: str = ""  # a model call's: the agent its system prompt names (prompts.py)
    asked: tuple[str, ...] = ()  # a model call's: the tools its answer asked for, by name
    offered: tuple[str, ...] = ()  # a model call's: the tools its request offered, by name
    # A model call's (round 10): (call id, tool) its answer asked for, and the call ids of
    # the tool results its request carries.
    asked_ids: tuple[tuple[str, str], ...] = ()
    answered: tuple[str, ...] = ()
    # Round 10: a model call's system prompt; a create_agent span's agent's description.
    instructions: str = ""
    sender: str = ""  # round 10: a model call's: who its request's first user message names
    results: int = 0  # a model call's: the tool results its request carries, ids or not
    # Round 13: the model calls whose answers it carries as messages (selfsaid.carried_calls):
    # (message id, author, input tokens, output tokens, made at in ns or 0).
    carried: tuple[tuple[str, str, int, int, int], ...] = ()
    # Round 14: OpenInference's graph.node.id and graph.node.parent_id, when the span has them.
    node: tuple[str, str] = ("", "")


@dataclass
class SpanSummary:
    spans: int = 0
    orphans: int = 0
    cycles: int = 0  # spans whose parents lead round in a cycle, never to the root
    rootless: str = ""  # the span made the root when every span had a parent
    extra_roots: int = 0
    clamped_start: int = 0
    clamped_end: int = 0
    clamped_late: int = 0
    outlived: int = 0  # spans of one process that ran on after their parent ended
    nested_flat: int = 0  # spans of a flat trace put under the span whose time holds them
    model_loops: int = 0  # model-call spans holding their agent's tool rounds: split per call
    generic: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    failed: int = 0
    runtime: Counter[str] = field(default_factory=Counter)
    joined: int = 0  # traces joined into this one by span links
    lacks: list[str] = field(default_factory=list)  # what the file has none of
    told_apart: list[str] = field(default_factory=list)  # scopes of one name, told apart
    explained: list[str] = field(default_factory=list)  # --explain: one line per span

    def notes(self) -> list[str]:
        out = [f"{self.spans} span(s) imported"]
        if self.orphans:
            out.append(
                f"{self.orphans} orphan span(s) (parent not in the file) re-parented "
                "under the trace root"
            )
        if self.rootless:
            out.append(
                f"no root span (every span names a parent): the earliest, {self.rootless[:80]!r}, "
                "made the root"
            )
        if self.cycles:
            out.append(
                f"{self.cycles} span(s) whose parents form a cycle re-parented under the trace root"
            )
        if self.extra_roots:
            out.append(f"{self.extra_roots} further root span(s) placed under the first root")
        if self.clamped_start:
            out.append(
                f"clock skew: {self.clamped_start} span(s) started before their parent; "
                "start clamped to the parent's"
            )
        if self.clamped_late:
            out.append(
                f"clock skew: {self.clamped_late} span(s) started after their parent ended; "
                "start clamped to the parent's end"
            )
        if self.clamped_end:
            out.append(
                f"clock skew: {self.clamped_end} span(s) ended after their parent; "
                "end clamped to the parent's"
            )
        if self.outlived:
            out.append(
                f"{self.outlived} span(s) ran on after their parent ended (one process, one "
                "clock: work it left running); the parent's end moved to theirs"
            )
        if self.nested_flat:
            out.append(
                f"every span was a child of the root while their times nest (a tracer that "
                f"lost its context): {self.nested_flat} span(s) put under the span whose "
                "time holds them"
            )
        if self.model_loops:
            out.append(
                f"{self.model_loops} model-call span(s) last through their agent's tool calls "
                "(one span for the agent's loop): read as one model call before the tools and "
                "one after each round of them"
            )
        if self.joined:
            out.append(f"{self.joined + 1} traces joined into one by span links or by their times")
        if self.runtime:
            ops = ", ".join(f"{k} ({v})" for k, v in sorted(self.runtime.items()))
            out.append(f"runtime spans folded into their agent's events: {ops}")
        if self.failed:
            out.append(f"{self.failed} failed span(s): their errors kept in attributes.error")
        if self.generic:
            ops = ", ".join(f"{k} ({v})" for k, v in sorted(self.generic.items()))
            out.append(f"unknown operations kept as generic events: {ops}")
        out.extend(
            f"the file has no {what}: nothing is invented in their place" for what in self.lacks
        )
        out.extend(self.told_apart)
        out.extend(f"explain: {line}" for line in self.explained)
        if self.skipped:
            shown = "; ".join(self.skipped[:5])
            more = f" (and {len(self.skipped) - 5} more)" if len(self.skipped) > 5 else ""
            out.append(f"{len(self.skipped)} span(s) skipped: {shown}{more}")
        return out


# One span of an export -> (its trace id, its record), or a line saying why it was skipped.
SpanReader = Callable[[int, Any, dict[str, str]], "tuple[str, SpanRec] | str"]


def collect_spans(
    items: Iterable[tuple[int, Any]], record: SpanReader
) -> tuple[dict[str, list[SpanRec]], SpanSummary]:
    """The spans of an export that lists them one by one (console output, a trace store's
    table), read by ``record`` and grouped by trace id; what it skips goes into the summary."""
    summary = SpanSummary()
    names: dict[str, str] = {}
    by_trace: dict[str, list[SpanRec]] = {}
    for n, item in items:
        got = record(n, item, names)
        if isinstance(got, str):
            summary.skipped.append(got)
            continue
        by_trace.setdefault(got[0], []).append(got[1])
    return by_trace, summary


_SORT_KEY = attrgetter("start", "end", "span_id")


def build(
    recs: list[SpanRec], summary: SpanSummary, root_agent: str = "root"
) -> tuple[SpanBuilder, dict[str, Any]]:
    """Events and edges for span records; returns the builder and cost totals."""
    if not recs:
        raise ImportFailed("no usable spans in the input")
    root, by_id = _repair_tree(recs, summary)
    _prompted_conversations(recs, root, by_id, summary)
    _default_agent_names(recs, root, by_id)
    _nest_flat(recs, root, by_id, summary)
    _own_methods(recs, root, by_id)
    _prepared_calls(recs)
    _nested_calls(recs, root, by_id)
    _model_loops(recs, root, by_id, summary)
    _agents_beside_their_tools(recs, root, by_id)
    _handoff_tools(recs)
    _asked_tool_spans(recs, root)
    _nameless_tool_steps(recs, by_id)
    _tools_as_asked(recs)
    _closing_tools(recs)
    _unoffered_tools(recs)
    _made_with_their_instructions(recs, root, by_id)
    _carried_model_calls(recs, by_id)
    _answered_tool_calls(recs, by_id)
    _routers(recs, root, by_id)
    _confined_agents(recs, root, by_id)
    _reused_agent_nodes(recs, root, by_id)
    _graph_agents(recs, root, by_id)
    _markers(recs, root)
    _empty_agent_spans(recs, root, by_id)
    _tool_steps(recs, root, by_id)
    _speakers(recs, by_id)
    _steps_with_model_calls(recs, by_id)
    _group_turns(recs)
    _agents_run_by_tools(recs, root, by_id, summary)
    _owners_of_model_calls(recs, root, by_id)
    _prompted_apart(recs, root, by_id, summary)
    _distinct_scopes(recs, root, by_id, summary)
    _conversations(recs, root, by_id)
    _composite_agents(recs, root, by_id)
    _senders_of_one_agent(recs, root, by_id)
    _wrappers(recs, root, by_id)
    _graph_data_flow(recs, root, by_id)
    _node_parents(recs)
    _numbered_targets(recs)
    # Parents first before clamping too: with a coarse clock (the AI SDK's span starts
    # are whole milliseconds) a child starting with its parent but ending first would
    # be clamped against its parent's end before that end is clamped itself.
    _parents_first(recs, root, by_id)
    _clamp(recs, root, by_id, summary)
    _parents_first(recs, root, by_id)

    events = _Events(recs, root, root_agent, summary, by_id)
    for r in recs:
        events.emit(r)
    b = events.finish()
    usage_rank = min((r.usage_rank for r in recs if r.input_tokens or r.output_tokens), default=-1)
    tokens_in, tokens_out = _usage(recs, usage_rank, root, by_id)
    summary.failed += sum(1 for r in recs if r.error)
    summary.lacks.extend(_lacks(recs, usage_rank))
    costs = {
        "tokens": tokens_in + tokens_out,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "wall_clock_s": max(0.0, round((root.end - root.start) / 1e9, 9)),
        "tool_calls": sum(1 for r in recs if r.kind == TOOL),
        "messages": b.type.count("message"),
    }
    return b, costs


def _usage(
    recs: list[SpanRec], rank: int, root: SpanRec, by_id: dict[str, SpanRec]
) -> tuple[int, int]:
    """Input and output tokens of one level of spans. A span of the level nested in
    another of it (an agent run as a tool inside a turn) is counted once: when the outer
    span's usage holds at least the sum of the nested ones' (the framework rolled them up,
    as the Agents SDK's turns do) the outer one counts for them, else each counts its own."""
    level = [r for r in recs if r.usage_rank == rank and (r.input_tokens or r.output_tokens)]
    if len(level) < 2:
        return sum(r.input_tokens for r in level), sum(r.output_tokens for r in level)
    ids = {r.span_id for r in level}
    nested: dict[str, list[SpanRec]] = {}
    tops: list[SpanRec] = []
    for r in level:
        cur = by_id.get(r.parent_id) if r is not root else None
        while cur is not None and cur.span_id not in ids:
            cur = by_id.get(cur.parent_id) if cur is not root else None
        if cur is None:
            tops.append(r)
        else:
            nested.setdefault(cur.span_id, []).append(r)
    if not nested:
        return sum(r.input_tokens for r in level), sum(r.output_tokens for r in level)
    total_in = total_out = 0
    todo = list(tops)
    while todo:
        r = todo.pop()
        inner = nested.get(r.span_id, [])
        total_in, total_out = total_in + r.input_tokens, total_out + r.output_tokens
        if r.input_tokens < sum(c.input_tokens for c in inner) or r.output_tokens < sum(
            c.output_tokens for c in inner
        ):
            todo.extend(inner)  # not rolled up: the nested spans count their own
    return total_in, total_out


def _lacks(recs: list[SpanRec], usage_rank: int) -> list[str]:
    """What an instrumentor did not write at all, for the summary (it is not invented)."""
    out = []
    if usage_rank < 0:
        out.append("token counts (no span reports usage; the trace's tokens are 0)")
    if not any(r.kind == MODEL and r.rule != CARRIED for r in recs):
        out.append(
            "model-call spans"
            + (
                " (the model calls counted are the answers its messages carry with their"
                " author and usage, each once; a call that wrote no message, such as a"
                " speaker selector's, is not counted, nor are its tokens)"
                if any(r.rule == CARRIED for r in recs)
                else " (the tokens are those its other spans report, such as an agent's run;"
                " model calls those do not cover are not counted)"
                if usage_rank >= 0
                else ""
            )
        )
    # Tool calls read from the model calls' messages (by call id, or a model-calls-only run's
    # next request) are not tool spans the file holds: say the file lacks them either way.
    read = (ANSWERED, ANSWERED_TOOL, ANSWERED_NEXT)
    if not any(r.kind in (TOOL, HANDOFF) and r.rule not in read for r in recs):
        out.append(
            "tool spans"
            + (
                " (the tool calls counted are those a model call asked for whose result a"
                " later model call's request carries, by call id)"
                if any(r.rule == ANSWERED for r in recs)
                else " (the tool calls counted are those a model call asked for, by name,"
                " whose results its agent's next request carries: the file gives no call ids)"
                if any(r.rule == ANSWERED_NEXT for r in recs)
                else " (the tool calls counted are those a model call asked for whose result"
                " the same agent's next request carries)"
                if any(r.rule == ANSWERED_TOOL for r in recs)
                else ""
            )
        )
    return out


@functools.lru_cache(maxsize=4096)
def _word_list(name: str) -> tuple[str, ...]:
    """The words of a name, lower-cased, in order (``ask_researcher``: ask, researcher)."""
    return tuple(w for w in re.split(r"[^0-9A-Za-z]+", name.lower()) if w)


def _word_parts(name: str) -> frozenset[str]:
    """The words of a name, lower-cased, as a set (``ask_researcher``: ask, researcher)."""
    return frozenset(_word_list(name))


def _handoff_tools(recs: list[SpanRec]) -> None:
    """A hand-off span that names its target but not the tool the model called to hand off
    (OpenInference over the OpenAI Agents SDK: a nameless TOOL span ``handoff to
    researcher``) is that tool's call when the model call just before it, in the same
    parent, asked for a tool whose name holds the target's (``transfer_to_researcher``):
    a tool call of that name, handing off to the target. Otherwise it stays a hand-off
    with no tool call (nothing invented)."""
    last_model: dict[str, SpanRec] = {}
    for r in recs:  # sorted by start
        if r.kind == MODEL and r.asked:
            last_model[r.parent_id] = r
        elif r.kind == HANDOFF and r.target not in ("", UNNAMED):
            m = last_model.get(r.parent_id)
            want = _word_parts(r.target)
            if m is None or m.end > r.start or not want:
                continue
            tool = next((t for t in m.asked if want <= _word_parts(t)), "")
            if tool:
                r.kind, r.name = TOOL, tool


def _asked_tool_spans(recs: list[SpanRec], root: SpanRec) -> None:
    """A span of no convention and no row, holding no span, named as a tool the model call
    just before it in the same parent asked for, is that tool's call (Burr's
    ``__tracer(search_papers)`` span, written with no attribute after the model asked for
    search_papers)."""
    parents = {r.parent_id for r in recs if r is not root}
    last_model: dict[str, SpanRec] = {}
    for r in recs:  # sorted by start
        if r.kind == MODEL and r.asked:
            last_model[r.parent_id] = r
        elif r.kind == GENERIC and r is not root and r.span_id not in parents and not r.rule:
            m = last_model.get(r.parent_id)
            if m is not None and m.end <= r.start and r.span in m.asked:
                r.kind, r.name, r.operation = TOOL, r.span, "execute_tool"
                r.rule = "structure: named as a tool the model call before it asked for"


def _nameless_tool_steps(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """An ``execute_tool`` span that names no tool (named after its model, otel.py) and
    holds no span runs what the model call just before it, in the same parent, asked for:
    one tool call per tool asked (a copy of the span for each after the first). After a
    model call that asked for nothing it stays a generic step; no tool is invented."""
    parents = {r.parent_id for r in recs}
    last_model: dict[str, SpanRec] = {}
    out: list[SpanRec] = []
    for r in recs:  # sorted by start
        out.append(r)
        if r.kind == MODEL:
            last_model[r.parent_id] = r
            continue
        if r.kind != GENERIC or r.operation != "execute_tool" or r.span_id in parents:
            continue
        m = last_model.pop(r.parent_id, None)
        if m is None or m.end > r.start or not m.asked:
            continue
        for i, tool in enumerate(m.asked):
            t = r if i == 0 else replace(r, span_id=f"{r.span_id}#{i}")
            t.kind, t.name = TOOL, tool
            t.rule = "structure: a nameless tool step runs what the answer before it asked for"
            if i:
                by_id[t.span_id] = t
                out.append(t)
    if len(out) != len(recs):
        recs[:] = out


CLASS_AS_ASKED = "structure: a tool class named as the tool the model call before it asked for"


@functools.lru_cache(maxsize=4096)
def _class_words(name: str) -> tuple[str, ...]:
    """The words of a tool class's name, lower-cased, a last ``Tool`` dropped
    (``SearchPapersTool``: search, papers); () for a name that is no class name."""
    if not name[:1].isupper() or not name.isidentifier():
        return ()
    words = [w.lower() for w in encoded.WORDS.findall(name)]
    if len(words) > 1 and words[-1] == "tool":
        words.pop()
    return tuple(words)


def _tools_as_asked(recs: list[SpanRec]) -> None:
    """A tool span whose name is the asked tool's in other words is the call of the tool the
    model call just before it, in the same parent, asked for, and is named so (the
    program's tool is the one its model calls). Two spellings are read:

    - words of the framework's own (``Delegate work to coworker``) for a tool asked for in
      another spelling of the same words (``delegate_work_to_coworker``: the same words,
      lower-cased, with other separators);
    - the tool's class (``SearchPapersTool``: a tracer naming the span
      ``SearchPapersTool.__call__``) for a tool of the class's words (``search_papers``):
      the tool the model called is the one the class implements."""
    last_model: dict[str, SpanRec] = {}
    for r in recs:  # sorted by start
        if r.kind == MODEL and r.asked:
            last_model[r.parent_id] = r
            continue
        m = last_model.get(r.parent_id)
        if r.kind != TOOL or m is None or m.end > r.start or r.name in m.asked:
            continue
        words = _word_parts(r.name)
        tool = next((t for t in m.asked if _word_parts(t) == words), "") if words else ""
        if tool:
            r.name = tool
            r.rule = r.rule or "structure: named as the tool the model call before it asked for"
            continue
        classed = _class_words(r.name)
        tool = next((t for t in m.asked if _word_list(t) == classed), "") if classed else ""
        if tool:
            r.name = tool
            r.rule = f"{r.rule}; {CLASS_AS_ASKED}" if r.rule else CLASS_AS_ASKED


def _closing_tools(recs: list[SpanRec]) -> None:
    """A tool that ends every loop it is in is the framework's, not the program's (DSPy
    ReAct's ``finish``, BeeAI's ``final_answer``): a tool name whose calls lie in two or
    more scopes (their parent spans), once in each and last of its tool calls there, in
    every scope holding a tool call at all, and after another tool in at least one of them.
    Such calls are bookkeeping and leave no tool call (not in a file without model-call
    spans, where no loop shows, nor among hand-off tools, which pass control on). A tool of the program's that several
    agents end with is kept: a scope that calls other tools and never it (a coordinator's
    ``ask_*``), or one that calls it only (each researcher's single search), says so."""
    by_parent: dict[str, list[SpanRec]] = {}
    for r in recs:  # sorted by start
        if r.kind == TOOL and r.parent_id:
            by_parent.setdefault(r.parent_id, []).append(r)
    # A loop is seen only where the file has its model's answers, and a hand-off tool
    # (its target known) passes control on rather than ending a loop.
    if len(by_parent) < 2 or not any(r.kind == MODEL for r in recs):
        return
    if any(t.target for ts in by_parent.values() for t in ts) or _agents_asked_as_tools(recs):
        return
    lasts = {tools[-1].name for tools in by_parent.values()}
    if len(lasts) != 1:
        return
    (name,) = lasts
    if not name or any(sum(t.name == name for t in ts) != 1 for ts in by_parent.values()):
        return
    if all(len(ts) == 1 for ts in by_parent.values()):
        return
    for tools in by_parent.values():
        last = tools[-1]
        last.kind, last.rule = RUNTIME, "structure: the tool that ends every loop (the framework's)"


def _agents_asked_as_tools(recs: list[SpanRec]) -> bool:
    """Whether a model call asked for a tool named as an agent whose span then ran in the
    same parent, with no tool span between (a managed agent called as a tool, its run
    nested directly in its caller's): control passes on by tools there, as by hand-off
    tools, and the tool ending each loop is the agents' answer, not the framework's."""
    last_model: dict[str, SpanRec] = {}
    for r in recs:  # sorted by start
        if r.kind == MODEL and r.asked:
            last_model[r.parent_id] = r
        elif r.kind == AGENT:
            m = last_model.get(r.parent_id)
            if m is not None and m.end <= r.start and r.name in m.asked:
                return True
    return False


def _made_with_their_instructions(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]
) -> None:
    """Model calls directly under the run's root (no scope holds them) whose system prompt is, word for word, the
    description an agent was made with (a ``create_agent`` span naming the agent, no other
    agent made with the same words) are that agent's, when the calls so read name two or
    more agents: each agent's calls of one parent get a scope of their own there, from its
    first call's start to its last call's end, its span (OpenLIT over AG2's parallel chats:
    five ``chat`` spans under the program's root, each with its agent's system message).
    Calls whose prompt matches no description, or one shared by two agents, stay where
    they are."""
    made: dict[str, str] = {}
    for r in recs:
        if r.operation == "create_agent" and r.instructions and r.agent:
            made[r.instructions] = r.agent if made.get(r.instructions, r.agent) == r.agent else ""
    if len(made) < 2:
        return
    calls: dict[tuple[str, str], list[SpanRec]] = {}
    for r in recs:
        who = made.get(r.instructions, "") if r.kind == MODEL and r.instructions else ""
        if who and r.parent_id == root.span_id:
            calls.setdefault((r.parent_id, who), []).append(r)
    if len({who for _, who in calls}) < 2:
        return
    for (parent, who), mine in calls.items():
        scope = SpanRec(f"{mine[0].span_id}~agent", parent, mine[0].start, 0, AGENT, who, who)
        scope.end = max(m.end for m in mine)
        scope.operation, scope.span = "invoke_agent", who
        scope.rule = (
            f"{INFERRED} (round 10): its model calls' system prompt is the description "
            f"{who!r} was made with (create_agent)"
        )
        by_id[scope.span_id] = scope
        recs.append(scope)
        for m in mine:
            m.parent_id = scope.span_id
    recs.sort(key=_SORT_KEY)
    # The one who wrote every such agent's first request (its first user message's author),
    # an agent of no model call here, is who ran them: the root, naming no agent, acts as it.
    senders = {mine[0].sender for mine in calls.values()}
    (sender,) = senders if len(senders) == 1 else ("",)
    if sender and not root.agent and sender not in {who for _, who in calls}:
        root.agent = sender
        root.rule = f"{AUTHOR} ({sender!r}, its first user message's name)"


# The rule of a root read as the agent that wrote its agents' first requests.
AUTHOR = "structure (round 10): the author of every first request of the agents under it"


# The rule of a tool call read from the model calls' messages (no span of it).
ANSWERED = "structure (round 10): asked for by the model call, its result in a later one's request"
ANSWERED_NEXT = (
    "structure (round 13): asked for by name by the model call, its result among the tool "
    "results the next model call of its agent carries (the file gives no call ids)"
)


def _answered_tool_calls(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """In a file with no tool span at all, a tool call a model call's answer asked for
    (its call id) whose result a later model call's request carries (the same id) ran:
    one tool call of that name, by the asking call's agent (beside it, in its parent), at
    the asking call's end and of no length (the file bounds its time, it does not give it).
    A call asked for and never answered, or answered only in the same call, is not counted;
    a result carried again by later requests (a group chat's shared history) counts once.
    Where the file has tool spans they are the record, and this adds nothing. Where it
    gives no call ids (OpenInference over Haystack: the tool calls' names only, the tool
    messages without ``tool_call_id``), :func:`_answered_next` counts them instead."""
    if any(r.kind in (TOOL, HANDOFF) for r in recs):
        return
    first_answer: dict[str, int] = {}
    for r in recs:
        if r.kind == MODEL:
            for cid in r.answered:
                first_answer[cid] = min(first_answer.get(cid, r.start), r.start)
    if not first_answer:
        _answered_next(recs, by_id)
        return
    added: list[SpanRec] = []
    seen: set[str] = set()
    for r in recs:  # sorted by start
        if r.kind != MODEL:
            continue
        for k, (cid, tool) in enumerate(r.asked_ids):
            if cid in seen or first_answer.get(cid, -1) < r.end:
                continue
            seen.add(cid)
            t = _tool_at_end(r, k, tool, ANSWERED)
            t.call_id = cid
            by_id[t.span_id] = t
            added.append(t)
    if added:
        recs.extend(added)
        recs.sort(key=_SORT_KEY)


# The rule of a model call read from a message the runtime carried (no span of it).
CARRIED = (
    "structure (round 13): a message its runtime carried, with its author and a model's "
    "usage: that author's model call, at the time the message was made (no model-call span)"
)


def _carried_model_calls(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """In a file with no model-call span, the messages its spans carry (AutoGen's runtime
    delivering each agent's answers: selfsaid.carried_calls) say the model calls: one per
    message id, by the message's author, with the message's usage, inside the author's
    agent span that holds the time the message was made (else the last that started
    before it, else its first), of no length. An author that no agent span names gets
    none (a user's message has no usage; nothing is invented)."""
    if any(r.kind == MODEL for r in recs):
        return
    calls: dict[str, tuple[str, int, int, int]] = {}
    for r in recs:  # sorted by start: the first span carrying a message is where it began
        for mid, author, tokens_in, tokens_out, made in r.carried:
            calls.setdefault(mid, (author, tokens_in, tokens_out, made or r.start))
    if not calls:
        return
    agents: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.kind == AGENT and r.name:
            agents.setdefault(r.name, []).append(r)
    added: list[SpanRec] = []
    for author, tokens_in, tokens_out, made in calls.values():
        spans = agents.get(author)
        if not spans:
            continue
        started = [a for a in spans if a.start <= made]
        holder = ([a for a in started if made <= a.end] or started or spans[:1])[-1]
        at = min(max(made, holder.start), holder.end)
        m = SpanRec(f"{holder.span_id}~call{len(added)}", holder.span_id, at, at, MODEL, author)
        m.agent, m.input_tokens, m.output_tokens = author, tokens_in, tokens_out
        m.operation, m.span, m.rule = "chat", holder.span, CARRIED
        by_id[m.span_id] = m
        added.append(m)
    if added:
        recs.extend(added)
        recs.sort(key=_SORT_KEY)


_NUMBERED = re.compile(r"^(.+?)_\d+$")


def _numbered_targets(recs: list[SpanRec]) -> None:
    """A hand-off whose target is no agent of the run but is one with a number appended
    (AG2 names its hand-off tools ``transfer_to_researcher_1``, one number per hand-off
    condition) hands off to that agent. A target that is an agent's name as written, or
    that stripping the number does not make one, stays as it is (nothing invented)."""
    agents = {r.name for r in recs if r.kind == AGENT and r.name}
    for r in recs:
        if r.kind not in (TOOL, HANDOFF) or not r.target or r.target in agents:
            continue
        m = _NUMBERED.match(r.target)
        if m and m.group(1) in agents:
            r.target = m.group(1)
            r.rule = f"{r.rule}; its target {m.group(0)!r} is agent {m.group(1)!r} numbered"


def _tool_at_end(call: SpanRec, k: int, tool: str, rule: str) -> SpanRec:
    """The ``k``-th tool call a model call asked for and no span records: beside the call,
    in its parent, at its end and of no length (the file bounds its time, it does not give
    it)."""
    t = SpanRec(f"{call.span_id}~tool{k}", call.parent_id, call.end, call.end, TOOL, tool)
    t.agent, t.operation, t.span, t.rule = call.agent, "execute_tool", call.span, rule
    return t


def _answered_next(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """In a file with no tool span and no call id, a model call whose answer asked for
    tools by name ran them when the next model call of its agent (the next in its parent,
    of the same system prompt's agent, starting after it ended) carries as many more tool
    results in its request as were asked: one tool call per name, by the asking call's
    agent, at its end and of no length, as :func:`_answered_tool_calls` places them. A
    call whose next request carries fewer new results, or that has no next call (the
    run's last answer), counts none: nothing is invented."""
    by_parent: dict[str, list[SpanRec]] = {}
    for r in recs:  # sorted by start
        if r.kind == MODEL:
            by_parent.setdefault(r.parent_id, []).append(r)
    added: list[SpanRec] = []
    for calls in by_parent.values():
        for c, n in zip(calls, calls[1:], strict=False):
            if not c.asked or c.asked_ids or n.start < c.end or n.prompt_name != c.prompt_name:
                continue
            if n.results - c.results < len(c.asked):
                continue
            for k, tool in enumerate(c.asked):
                t = _tool_at_end(c, k, tool, ANSWERED_NEXT)
                by_id[t.span_id] = t
                added.append(t)
    if added:
        recs.extend(added)
        recs.sort(key=_SORT_KEY)


def _unoffered_tools(recs: list[SpanRec]) -> None:
    """A tool span holding no span that is the framework's own record around calls it ran,
    not a call: named as no tool the model call before it, in the same parent, was offered
    (its request's tool definitions, when the file lists them), or, where the file lists
    none, starting after a round of two or more tool calls of its parent that ran at once
    had all ended, with no model call between (ADK's ``(merged tools)`` after running an
    answer's calls at once). It is bookkeeping, no tool call; hand-off tools never."""
    parents = {r.parent_id for r in recs}
    last_model: dict[str, SpanRec] = {}
    rounds: dict[str, list[SpanRec]] = {}  # a parent's tool calls since its last model call
    for r in recs:  # sorted by start
        if r.kind == MODEL:
            last_model[r.parent_id] = r
            rounds.pop(r.parent_id, None)
            continue
        if r.kind != TOOL or r.target or r.span_id in parents:
            if r.kind == TOOL:
                rounds.setdefault(r.parent_id, []).append(r)
            continue
        m = last_model.get(r.parent_id)
        before = rounds.setdefault(r.parent_id, [])
        if m is not None and m.offered:
            unoffered = r.name not in m.offered
        else:
            unoffered = _after_a_round(before, r)
        if unoffered:
            r.kind, r.rule = RUNTIME, "structure: the framework's record of the calls it ran"
        else:
            before.append(r)


def _after_a_round(before: list[SpanRec], r: SpanRec) -> bool:
    """``r`` starts once two or more tool calls before it that ran at once have ended, and
    its name is none of theirs."""
    if len(before) < 2 or any(t.name == r.name for t in before):
        return False
    last = before[-2:]
    at_once = last[1].start < last[0].end
    return at_once and all(t.end <= r.start for t in before)


def _routers(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent span holding no span, directly inside a graph's built-in node (a name in
    double underscores: LangGraph's ``__start__``), is the graph choosing where to go
    (a swarm's ``route_to_active_agent``): the graph's bookkeeping, no agent."""
    parents = {r.parent_id for r in recs}
    for r in recs:
        if r.kind != AGENT or r is root or r.span_id in parents:
            continue
        up = by_id.get(r.parent_id)
        name = up.span if up is not None else ""
        if len(name) > 4 and name.startswith("__") and name.endswith("__"):
            r.kind, r.rule = RUNTIME, "structure: an agent span in a graph's built-in node routes"


# The operations the GenAI conventions (and OpenLIT's execute_task) name: any other
# operation name is a framework's own.
_CONVENTION_OPS = frozenset(
    {"invoke_agent", "create_agent", "invoke_workflow", "execute_tool", "execute_task"}
    | {"chat", "generate_content", "text_completion", "embeddings", "handoff"}
)


def _confined_agents(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A span of a framework's own operation (a ``gen_ai.operation.name`` no convention
    names), naming no agent, inside an agent's span, whose agents act nowhere else in the
    run (AG2's ``speaker_selection``, a chat between its ``checking_agent`` and
    ``speaker_selection_agent`` inside the group manager's work) is the framework's
    bookkeeping: its agents are the framework's, their model calls folded with it."""
    holder: dict[str, SpanRec | None] = {}  # agent span -> its framework-operation span
    for r in recs:
        if r.kind != AGENT or r is root:
            continue
        cur = by_id.get(r.parent_id)
        found = None
        while cur is not None and cur is not root:
            if cur.kind == TOOL and found is None:
                # Round 13: an agent run by a tool call is delegated to by the tool's caller,
                # whichever operation holds the call (the AI SDK's agent_step around each
                # step's model call and tools): no framework's own agent.
                break
            if _framework_operation(cur):
                found = cur
            cur = by_id.get(cur.parent_id)
        holder[r.span_id] = found
    outside = {by_id[s].name for s, h in holder.items() if h is None}
    spans = {h.span_id: h for h in holder.values() if h is not None}
    inside: dict[str, set[str]] = {h: set() for h in spans}
    for s, x in holder.items():
        if x is not None:
            inside[x.span_id].add(by_id[s].name)
    why = "structure: a framework's operation running its own agents"
    for h, names in inside.items():
        span = spans[h]
        if outside and not names & outside and _agent_above(span, root, by_id) is not None:
            span.kind, span.rule = RUNTIME, why
            for s, x in holder.items():
                if x is span:
                    by_id[s].kind, by_id[s].rule = RUNTIME, why
    for r in recs:  # their model calls are the framework's too (their tokens still count)
        up = by_id.get(r.parent_id)
        if r.kind == MODEL and up is not None and up.rule == why:
            r.kind, r.rule = RUNTIME, BOOKKEEPING_CALL


def _framework_operation(r: SpanRec) -> bool:
    """A span of an operation no convention names, naming no agent."""
    op = r.operation
    return (
        r.kind == GENERIC and not r.agent and op not in ("", "(none)") and op not in _CONVENTION_OPS
    )


def _agents_beside_their_tools(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]
) -> None:
    """An agent run as a tool whose span the tracing made a sibling of the tool span that ran
    it (OpenLLMetry over the OpenAI Agents SDK: the agent's span under the workflow, beside
    the caller's ``ask_researcher.tool``) goes under that tool span: the innermost tool span
    of another branch that lasts the whole of the agent's span and whose tool's name holds
    the agent's name (``ask_researcher`` for ``researcher``). Never when the agent's span is
    already under a tool span, or the tool span under the agent's."""
    by_word: dict[str, list[tuple[SpanRec, frozenset[str]]]] = {}
    for t in recs:
        if t.kind == TOOL:
            words = _word_parts(t.name)
            for w in words:
                by_word.setdefault(w, []).append((t, words))
    if not by_word:
        return
    for r in recs:
        if r.kind != AGENT or r is root or by_id[r.parent_id].kind == TOOL:
            continue
        agent = _word_parts(r.name)
        if not agent:
            continue
        best: SpanRec | None = None
        # The tools whose names hold the agent's rarest word, then the rest of its words.
        rarest = min(agent, key=lambda w: len(by_word.get(w, ())))
        for t, words in by_word.get(rarest, ()):
            if t.start > r.start or t.end < r.end or not agent <= words:
                continue
            if _holds(r, t, by_id) or _holds(t, r, by_id):
                continue
            if best is None or t.end - t.start < best.end - best.start:
                best = t
        if best is not None:
            r.parent_id = best.span_id


def _holds(outer: SpanRec, inner: SpanRec, by_id: dict[str, SpanRec]) -> bool:
    """``outer`` is ``inner`` or one of its ancestors."""
    cur: SpanRec | None = inner
    while cur is not None:
        if cur is outer:
            return True
        cur = by_id.get(cur.parent_id) if cur.parent_id else None
    return False


def _reused_agent_nodes(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent span named only by its span's name (no attribute names its agent) whose name
    occurs under scopes of two or more names is a framework's node reused by every agent
    (LangGraph's ``agent`` node of create_react_agent inside each graph, a supervisor's
    ``call_agent``), not an agent: it becomes a graph node (:func:`_graph_agents`), acting
    for the graph it runs in. Not when an agent's span holds it directly and it makes model
    calls of its own: an agent several agents call is an agent (BeeAI's nameless
    ``final_answer``, which makes none, is bookkeeping)."""
    parents: dict[str, set[str]] = {}
    called: set[str] = set()  # names of agent spans an agent's span holds directly
    thinking = _agents_with_model_calls(recs, root, by_id)
    spans: list[SpanRec] = []
    for r in recs:
        if r.kind == AGENT and r is not root and r.name == bare(r.span):
            up = by_id[r.parent_id]
            if up.kind == AGENT and r.span_id in thinking:
                called.add(r.name)  # an agent several agents call, with model calls of its own
            parents.setdefault(r.name, set()).update({up.name or up.span} - {r.name})
            spans.append(r)
    for r in spans:
        if len(parents[r.name]) > 1 and r.name not in called:
            r.kind = NODE


def _agents_with_model_calls(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]
) -> set[str]:
    """The agent spans holding a model call with no other agent span between."""
    out: set[str] = set()
    for r in recs:
        if r.kind != MODEL:
            continue
        cur = r
        while cur is not root:
            cur = by_id[cur.parent_id]
            if cur.kind == AGENT:
                out.add(cur.span_id)
                break
    return out


def _graph_agents(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent node of a graph (LangGraph's ``agent`` node of create_react_agent, a
    supervisor's ``call_agent``) is not the agent's name: the agent is the graph the node
    runs in, the nearest enclosing chain (step span) named neither after the node nor as a
    built-in node (``__start__``). That chain becomes the agent's span, named by the graph;
    the node acts for it. With no such chain, the node is an agent of its own name."""
    for r in recs:
        if r.kind != NODE:
            continue
        cur = by_id.get(r.parent_id) if r is not root else None
        graph = None
        while cur is not None:
            if cur.kind in (STEP, AGENT) and cur.name != r.name and not cur.name.startswith("__"):
                graph = cur
                break
            cur = by_id.get(cur.parent_id) if cur is not root else None
        if graph is None:
            r.kind = AGENT
            continue
        if graph.kind == STEP:
            graph.kind = AGENT
            if graph is root:
                graph.agent = graph.name
        r.kind, r.name = AGENT, graph.name


def _agents_run_by_tools(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """Turn spans of one name that no attribute of theirs names (a prebuilt graph's node,
    the same for every agent) found both inside tool spans and outside them: a tool span
    holding such turns with model calls runs another agent (a delegation to it), one agent
    per tool span, which the file does not name (numbered ``agent#2``...: a span of its
    own, id ``<tool span>~run``, holding what the tool span held); the turns outside any
    tool (the workflow's own, and the copies a second instrumentation wrote of every turn
    beside the tool spans) are the enclosing workflow's, which becomes their agent. The
    turn spans then leave no event of their own."""
    turns: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.kind == AGENT and r is not root and r.name == bare(r.span):
            turns.setdefault(r.name, []).append(r)
    thinking = _agents_with_model_calls(recs, root, by_id)
    for name, spans in turns.items():
        holder: dict[str, SpanRec] = {}
        for r in spans:
            cur = by_id[r.parent_id]
            while cur is not root and cur.kind not in (TOOL, AGENT, WORKFLOW):
                cur = by_id[cur.parent_id]
            holder[r.span_id] = cur
        tools = {
            h.span_id: h
            for r in spans
            if r.span_id in thinking and (h := holder[r.span_id]).kind == TOOL
        }
        outside = {h.span_id: h for h in holder.values() if h.kind != TOOL}
        if not tools or len(outside) != 1:
            continue
        (top,) = outside.values()
        if top is root or top.kind != WORKFLOW:
            continue
        number = {t: k for k, t in enumerate(sorted(tools, key=lambda i: _SORT_KEY(tools[i])), 2)}
        called = _called_by_tools([tools[t].name for t in number])
        for r in spans:
            if holder[r.span_id] is top or holder[r.span_id].span_id in number:
                r.kind = RUNTIME
        for t, k in number.items():
            tool = tools[t]
            who = called.get(tool.name) or f"{name}#{k}"
            run = SpanRec(f"{t}~run", t, tool.start, tool.end, AGENT, who)
            run.agent, run.operation, run.process = run.name, "run", tool.process
            run.rule = f"{INFERRED}; the turns a tool span runs are another agent's"
            for r in recs:
                if r.parent_id == t:
                    r.parent_id = run.span_id
            by_id[run.span_id] = run
            recs.append(run)
        top.kind, top.agent = AGENT, top.name
        summary.told_apart.append(
            f"{len(spans)} turn spans named {name!r} are {len(tools) + 1} agents: the "
            f"{top.name!r} workflow's and one per tool span running turns, "
            + (
                f"named by their tools: {', '.join(sorted(set(called.values())))}"
                if called
                else "which the file does not name"
            )
        )


def _called_by_tools(tools: list[str]) -> dict[str, str]:
    """The agents tools that run unnamed agents name: two or more tools of distinct names
    that begin with one word (the verb, ``ask_researcher`` and ``ask_writer``) name the
    agent each runs by the rest of its name (``researcher``, ``writer``); {} otherwise."""
    names = set(tools)
    heads = {t.partition("_")[0] for t in names}
    rests = {t: t.partition("_")[2] for t in names}
    if len(names) < 2 or len(heads) != 1 or not all(rests.values()):
        return {}
    return rests


def _steps_with_model_calls(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """A generic step that names an agent and holds a model call directly (OpenLIT's
    ``execute_task <agent>`` of a speaking turn) is that agent's turn; the steps naming an
    agent that hold none (a message passed on, broadcast) stay steps. A workflow holding
    the turns of two agents or more is a group chat (:func:`_group_turns`)."""
    turns: dict[str, set[str]] = {}
    for r in recs:
        up = by_id.get(r.parent_id) if r.kind == MODEL else None
        if up is not None and up.kind == GENERIC and up.agent and up.operation == "execute_task":
            up.kind, up.name = AGENT, up.agent
            turns.setdefault(up.parent_id, set()).add(up.agent)
    for parent, agents in turns.items():
        if len(agents) > 1 and (chat := by_id.get(parent)) is not None and chat.kind == WORKFLOW:
            chat.kind = GROUP


def _markers(recs: list[SpanRec], root: SpanRec) -> None:
    """An agent's invocation written as a marker span beside the span of its run
    (OpenLLMetry's ``invoke_agent <graph>`` next to ``execute_task <graph>``): the run's
    span (a step of the same parent naming the same agent) becomes the agent's span, and
    the marker is bookkeeping. A marker with no such sibling is the agent's span itself.
    Without a row saying so, an agent span holding no span, beside a step of its time that
    names its agent and holds spans, is such a marker (OpenLLMetry over LangGraph)."""
    holding = {r.parent_id for r in recs}
    # Without a row saying so, an agent span holding no span is a marker too when a step
    # beside it names its agent and holds the work (round 9).
    leaves = [r for r in recs if r.kind == AGENT and r is not root and r.span_id not in holding]
    marks = [r for r in recs if r.kind == MARKER]
    if not marks and not leaves:
        return
    parents = {m.parent_id for m in (*marks, *leaves)}
    beside: dict[tuple[str, str], SpanRec] = {}
    for r in recs:
        if r.kind == STEP and r.parent_id in parents and r.agent and r.span_id in holding:
            beside.setdefault((r.parent_id, r.agent), r)
    for m in leaves:
        run = beside.get((m.parent_id, m.name))
        if run is not None and run.start <= m.end and m.start <= run.end:
            run.kind, run.name = AGENT, m.name
            m.kind, m.rule = RUNTIME, "structure: an agent's marker beside the step of its run"
    for m in marks:
        run = beside.get((m.parent_id, m.name)) if m is not root else None
        if run is None:
            m.kind = AGENT
            continue
        run.kind, run.name = AGENT, m.name
        m.kind = RUNTIME


def _empty_agent_spans(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent span holding no span that no attribute names (its name only its span's:
    ``invoke_agent <method>``), in a file that writes model calls, owns no model call and
    runs nothing: it is no agent but a step of the agent holding it (OpenLIT over CrewAI
    writes one zero-length ``invoke_agent generate_plan``, ``check_max_iterations``,
    ``finalize``... per method of the agent executor's flow, with no ``gen_ai.agent.name``)."""
    if not any(r.kind == MODEL for r in recs):
        return  # no model call written: an empty agent span may be all there is of an agent
    parents = {r.parent_id for r in recs if r is not root}
    # Round 13: agents whose model calls the file writes, by the agent span holding them.
    working = {a.agent for r in recs if r.kind == MODEL and (a := _agent_above(r, root, by_id))}
    for r in recs:
        if r is root or r.kind != AGENT or r.span_id in parents:
            continue
        if not r.agent:
            r.kind = STEP
            r.rule = r.rule or "structure: an agent span naming no agent, holding nothing"
            r.operation = r.operation or r.span
        elif r.agent in working:
            # A turn of an agent whose model calls other spans of it hold, holding nothing: a
            # message delivered to it and set aside (MAF's hand-off workflow broadcasts each
            # answer to every participant), no turn of work: the run's bookkeeping.
            r.kind = RUNTIME
            r.rule = "structure (round 13): a turn holding nothing of an agent working elsewhere"


def _tool_steps(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A step holding no span whose name's last word says tool (``invoke_agent
    execute_native_tool``), the only such step after a model call that asked for tools,
    where no tool span follows that call in its parent before the next model call, is the
    run of what the call asked for: one tool call per tool asked (OpenLIT over CrewAI
    writes no span for the leaf tools, only the executor's ``execute_native_tool`` step).
    Where a tool span follows the call (the delegating tool's own span), the step stays a
    step; after a call that asked for nothing no tool is invented."""
    parents = {r.parent_id for r in recs if r is not root}
    segments: list[tuple[SpanRec, list[SpanRec]]] = []
    open_: dict[str, tuple[SpanRec, list[SpanRec]]] = {}  # parent -> its last model call's
    for r in recs:  # sorted by start
        if r is root:
            continue
        if r.kind == MODEL:
            seg: tuple[SpanRec, list[SpanRec]] = (r, [])
            open_[r.parent_id] = seg
            segments.append(seg)
        elif r.parent_id in open_:
            open_[r.parent_id][1].append(r)
    copies: dict[str, list[SpanRec]] = {}
    for m, after in segments:
        if not m.asked or any(x.kind in (TOOL, HANDOFF) for x in after):
            continue
        steps = [x for x in after if x.kind in (STEP, GENERIC) and x.span_id not in parents]
        steps = [x for x in steps if _last_word(x.span) == "tool" and x.start >= m.end]
        if len(steps) != 1:
            continue
        (step,) = steps
        for i, tool in enumerate(m.asked):
            t = step if i == 0 else replace(step, span_id=f"{step.span_id}#{i}")
            t.kind, t.name, t.operation = TOOL, tool, "execute_tool"
            t.rule = "structure: a tool step runs what the answer before it asked for"
            if i:
                by_id[t.span_id] = t
                copies.setdefault(step.span_id, []).append(t)
    if copies:
        recs[:] = [x for r in recs for x in (r, *copies.get(r.span_id, ()))]


def _last_word(name: str) -> str:
    """The last word of a name, lower-cased (``invoke_agent execute_native_tool``: tool)."""
    words = [w for w in re.split(r"[^a-z]+", name.lower()) if w]
    return words[-1] if words else ""


def _speakers(recs: list[SpanRec], by_id: dict[str, SpanRec]) -> None:
    """Turns written as flat steps (LlamaIndex's AgentWorkflow: ``setup_agent`` names the
    agent whose turn starts, the steps after it, siblings, are that agent's): each turn
    becomes an agent span of its own (id ``<speaker span>~turn``) holding the speaker
    and its later siblings until another agent's turn starts."""
    speakers = [r for r in recs if r.kind == SPEAKER]
    for r in speakers:
        if r.parent_id not in by_id:
            r.kind = STEP  # the root saying whose turn it is has no siblings to hold
    speakers = [r for r in speakers if r.kind == SPEAKER]
    if not speakers:
        return
    parents = {r.parent_id for r in speakers}
    turns: list[SpanRec] = []
    for parent in parents:
        kids = sorted((r for r in recs if r.parent_id == parent), key=_SORT_KEY)
        turn: SpanRec | None = None
        for r in kids:
            if r.kind == SPEAKER:
                r.kind = STEP
                if turn is None or turn.name != r.agent:
                    turn = SpanRec(f"{r.span_id}~turn", parent, r.start, r.end, AGENT, r.agent)
                    turn.operation, turn.process = "turn", r.process
                    turns.append(turn)
                    by_id[turn.span_id] = turn
            if turn is not None:
                r.parent_id = turn.span_id
                turn.end = max(turn.end, r.end)
    recs.extend(turns)


# What a framework appends to the name of a scope's span (DSPy's Module.forward and
# __call__, acall, a run's .run): not part of the agent's name.
_SUFFIXES = (
    *(".forward", ".aforward", ".__call__", ".acall", ".arun", ".run", ".invoke", ".ainvoke"),
    ".execute",
)
# The scopes that can name an agent: a step (a chain, a workflow) or a span of no convention.
_SCOPES = (STEP, WORKFLOW, GENERIC)
INFERRED = "structure: the nearest named scope holding model calls owns them (an agent)"
BOOKKEEPING_CALL = (
    "structure: a model call inside the framework's bookkeeping (a runtime span holds its "
    "scope) is the framework's own, folded with it"
)


def bare(name: str) -> str:
    """A span's name as the name of what it runs: a framework's method suffix (``.run``,
    ``.forward``, ``.__call__``...) stripped, and a convention's operation prefix
    (``invoke_agent researcher``, ``execute_tool search``)."""
    for prefix in _OPERATION_PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            name = name[len(prefix) :]
            break
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return _doing(name[: -len(suffix)])
    private = _PRIVATE_METHOD.search(name)
    if private and private.start() > 0:
        return name[: private.start()]
    return name


# A private method's name after the object's (``Crew Manager._execute_core``).
_PRIVATE_METHOD = re.compile(r"\._[A-Za-z]\w*$")


def _doing(name: str) -> str:
    """``<name>.<a sentence>`` (a span of a method named by the object and the task it
    runs, ``Researcher.Find how routers are trained.``) names the object: the part before
    the first dot, when what follows it holds a space (no identifier does)."""
    head, dot, rest = name.partition(".")
    return head if dot and head and " " in rest else name


_OPERATION_PREFIXES = ("invoke_agent ", "execute_tool ", "create_agent ")


def scope_name(r: SpanRec) -> str:
    """The agent a scope names: a name a rule or an attribute gave it, else its span's
    name, framework suffixes stripped ('' when it names nothing)."""
    name = r.agent or r.span or (r.name if r.kind != GENERIC else "")
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return "" if name.startswith("__") or name == "(none)" else name


def _holders_of(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], stop: tuple[str, ...]
) -> dict[str, SpanRec]:
    """Each span's nearest ancestor that is the root or of a kind in ``stop`` (one walk
    up per span at most: what a walk passes is remembered)."""
    out: dict[str, SpanRec] = {}
    for r in recs:
        if r is root or r.span_id in out:
            continue
        path: list[SpanRec] = []
        cur = r
        while True:
            path.append(cur)
            up = by_id[cur.parent_id]
            if up is root or up.kind in stop:
                found = up
                break
            if up.span_id in out:
                found = out[up.span_id]
                break
            cur = up
        for x in path:
            out[x.span_id] = found
    return out


def _graph_data_flow(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A graph's or a workflow's data flow, where no span link says it: the agent spans
    the run's root (a graph or workflow, making no model or tool call of its own: else it
    is an agent calling its agents) runs, directly or through workflow spans, none of
    them handing off, none linked, fall into stages by time (spans that overlap are one
    stage); when some stage runs two or more at once (a fan-out, so a graph, not a
    conversation passed on), each agent of a stage gets its input from every agent of the
    stage before it: links to their spans, read as delegations as a workflow's own links
    are (``maf/workflow``). The scope itself is the application, not an agent."""
    # Through workflow spans (a workflow's own stages) to the nearest agent, tool or root.
    holder = _holders_of(recs, root, by_id, (AGENT, TOOL))
    if any(holder[r.span_id] is root for r in recs if r.kind in (MODEL, TOOL) and r is not root):
        return  # the root's own work: an agent calling its agents, not a graph
    if root.rule.startswith(AUTHOR):
        return  # the root wrote its agents' requests: an agent calling them (round 10)
    spans = [r for r in recs if r.kind == AGENT and r is not root and holder[r.span_id] is root]
    if len(spans) < 2 or any(r.links for r in spans):
        return
    handing = {
        holder[r.span_id].name for r in recs if (r.kind == HANDOFF or r.target) and r is not root
    }
    if not handing.isdisjoint(r.name for r in spans):
        return
    # A root whose operation says it runs a graph (Strands' invoke_graph) is one, its
    # stages passing on even when they run one agent each (a chain); so is the one scope
    # all of them run in when its name says a graph or a pipeline (round 14, held-out set
    # 15: Haystack's Pipeline.run running two Agent components, connected).
    parents = {r.parent_id for r in spans}
    held = by_id.get(next(iter(parents))) if len(parents) == 1 else None
    graph = _says_graph(root.operation) or (
        held is not None and held is not root and _says_graph(held.operation, held.span)
    )
    _stages_pass_on(spans, graph)


def _says_graph(*names: str) -> bool:
    """Whether a span's operation or name says it runs a graph of stages (a graph, a
    pipeline: each stage's output the next one's input)."""
    return any({"graph", "pipeline"} & _word_parts(n) for n in names)


def _stages_pass_on(spans: list[SpanRec], graph: bool = False) -> None:
    """Spans (by start) in stages of overlapping spans: when a stage holds two agents or
    more (or ``graph``: the root says it is a graph), each span of a stage links to every
    span of the stage before."""
    stages: list[list[SpanRec]] = []
    end = -1
    for r in spans:  # sorted by start
        if stages and r.start < end:
            stages[-1].append(r)
            end = max(end, r.end)
        else:
            stages.append([r])
            end = r.end
    wide = any(len({x.name for x in st}) > 1 for st in stages)
    if len(stages) < 2 or not (wide or graph or _hub_stages(stages)):
        return
    for before, after in zip(stages, stages[1:], strict=False):
        links = tuple(("", b.span_id) for b in before)
        for r in after:
            r.links = links


def _hub_stages(stages: list[list[SpanRec]]) -> bool:
    """Stages that come back to one agent after every other one (A, B, A, C, A: a graph's
    supervisor node routing to its workers, each handing back): a graph's flow, though each
    stage runs one agent. An application calling its agents in turn never comes back to one."""
    if len(stages) < 3 or len(stages) % 2 == 0:
        return False
    hub = {x.name for x in stages[0]}
    if len(hub) != 1:
        return False
    return all({x.name for x in st} == hub for st in stages[::2]) and all(
        hub.isdisjoint(x.name for x in st) for st in stages[1::2]
    )


def _conversations(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A span of no agent operation that names an agent (``gen_ai.agent.name``) and holds
    the turns of another agent is the named agent's conversation with it (AG2's
    ``conversation coordinator`` of a chat the coordinator started): the named agent's
    span, when no agent holds it (a chat inside an agent's turn, as AG2's speaker selection
    runs, is that agent's work). Its own turns inside that make no model call and only run
    tools are it running the other's tools (AG2's executor): those tool calls are the
    speaker's before, and that speaker's turns around them are one turn of it."""
    kids: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r is not root:
            kids.setdefault(r.parent_id, []).append(r)
    thinking = _agents_with_model_calls(recs, root, by_id)
    for conv in recs:
        if conv.kind != GENERIC or not conv.agent or conv is root:
            continue
        turns = sorted((k for k in kids.get(conv.span_id, ()) if k.kind == AGENT), key=_SORT_KEY)
        others = [t for t in turns if t.name != conv.agent]
        if not others or any(k.kind in (MODEL, TOOL) for k in kids.get(conv.span_id, ())):
            continue
        if any(b.start < a.end for a, b in zip(turns, turns[1:], strict=False)):
            continue  # turns at once: not one conversation's
        above = _agent_above(conv, root, by_id)
        if above is not None and above.name != conv.agent:
            # Inside another agent's work (AG2's speaker selection's inner chat); a chat
            # inside its own agent's turn (AG2's nested chats, its reply) is still its.
            continue
        conv.kind, conv.name = AGENT, conv.agent
        conv.rule = "structure: a span naming an agent that holds another's turns: its conversation"
        _conversation_turns(conv.agent, turns, kids, thinking)


def _conversation_turns(
    me: str, turns: list[SpanRec], kids: dict[str, list[SpanRec]], thinking: set[str]
) -> None:
    """The turns (by start) of ``me``'s conversation with another agent: ``me``'s own
    turns that make no model call (not in ``thinking``) run the previous speaker's tools,
    which are that speaker's calls, and a speaker's turns around them are one turn."""
    prev: SpanRec | None = None
    for t in turns:
        mine = t.name == me
        if mine and prev is not None and t.span_id not in thinking:
            # Running the previous speaker's tools: they are its calls.
            for k in kids.get(t.span_id, ()):
                k.parent_id = prev.span_id
                kids.setdefault(prev.span_id, []).append(k)
            prev.end = max(prev.end, t.end)
            t.kind, t.rule = RUNTIME, "structure: the conversation's tool runner"
            t.operation = t.operation or "tool runner"
            continue
        if prev is not None and not mine and t.name == prev.name:
            for k in kids.get(t.span_id, ()):
                k.parent_id = prev.span_id
                kids.setdefault(prev.span_id, []).append(k)
            prev.end = max(prev.end, t.end)
            t.kind, t.rule = RUNTIME, "structure: the same speaker's turn, continued"
            continue
        prev = None if mine else t


def _node_parents(recs: list[SpanRec]) -> None:
    """OpenInference's graph attributes, where nothing else in the file says how work
    flowed (no span link, none read from a graph's stages, no hand-off): an agent span
    whose ``graph.node.parent_id`` is the ``graph.node.id`` of an agent span beside it (the
    same parent) that ended before it started was passed its work by that agent (a crew's
    task after the one before it, round 14's held-out set 14): a link to the latest such
    span, read as a workflow's own links are. Trusted only when the times agree with every
    parent id the file writes: where one names a node still running when its child started
    (tasks run at once, their parent ids only their list's order), or one in another
    span's (a manager's delegate, called by it as the nesting says), the ids say nothing
    of the flow. Where the file says more (a swarm's hand-offs, a graph's fan-in), the
    parent id, one a node, says less: it is not read."""
    if any(r.links or r.kind == HANDOFF or r.target for r in recs):
        return
    nodes: dict[str, list[SpanRec]] = {}
    for r in recs:  # sorted by start
        if r.kind == AGENT and r.node[0]:
            nodes.setdefault(r.node[0], []).append(r)
    links: list[tuple[SpanRec, SpanRec]] = []
    for r in recs:
        parent = r.node[1]
        if r.kind != AGENT or not parent or parent == r.node[0] or parent not in nodes:
            continue
        before = [p for p in nodes[parent] if p.end <= r.start and p.parent_id == r.parent_id]
        if not before:
            return  # a parent still running, yet to run, or holding it: the ids are no flow
        links.append((r, before[-1]))
    for r, p in links:
        r.links = (("", p.span_id),)


def _senders_of_one_agent(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A span of the framework's runtime holding, directly, one agent's span and beside it
    only runtime spans that other spans link to (the messages that turn sent) is that
    agent's turn: what it sent, the agent sent (round 14, held-out set 14: MAF's group chat
    orchestrator, whose ``executor.process`` holds the coordinator's ``invoke_agent`` and
    the ``message.send`` spans the other agents' turns link to). Read as the runtime's, the
    messages are the application's, and each agent's answer a delegation of its own."""
    linked = {sid for r in recs for _, sid in r.links}
    if not linked:
        return
    kids: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r is not root:
            kids.setdefault(r.parent_id, []).append(r)

    def holds_agent(r: SpanRec) -> bool:
        return any(k.kind == AGENT or holds_agent(k) for k in kids.get(r.span_id, ()))

    for r in recs:
        if r.kind != RUNTIME or r is root:
            continue
        held = kids.get(r.span_id, ())
        agents = [k for k in held if k.kind == AGENT]
        if len(agents) != 1:
            continue
        beside = [k for k in held if k is not agents[0]]
        if not beside or any(k.kind != RUNTIME or holds_agent(k) for k in beside):
            continue
        if not any(k.span_id in linked for k in beside):
            continue
        r.kind, r.name, r.agent = AGENT, agents[0].name, agents[0].name
        r.rule = "structure (round 14): a runtime turn holding one agent's span and the messages it sent"


def _composite_agents(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent span that only runs two or more agents (ADK's SequentialAgent and
    ParallelAgent: no model call, tool call or hand-off of its own, every span it holds
    directly that is not bookkeeping an agent's) is a workflow, not an agent: a step of
    the agent holding it, its agents run by that agent (the application at the root)."""
    kids: dict[str, int] = {}
    busy: set[str] = set()
    holder = _holders_of(recs, root, by_id, (AGENT, TOOL, WORKFLOW))
    for r in recs:
        if r is root or r.kind not in (AGENT, MODEL, TOOL, HANDOFF, GUARD):
            continue
        cur = holder[r.span_id]
        if r.kind == AGENT:
            kids[cur.span_id] = kids.get(cur.span_id, 0) + 1
        elif r.kind in (MODEL, TOOL, HANDOFF, GUARD):
            busy.add(cur.span_id)
    made: list[SpanRec] = []
    direct: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r is not root:
            direct.setdefault(r.parent_id, []).append(r)
    thinking: set[str] | None = None
    for r in recs:
        alone = r.span_id not in busy and kids.get(r.span_id, 0) >= 2
        if alone and r.kind == AGENT and r is not root and by_id[r.parent_id].kind != TOOL:
            turns = sorted((k for k in direct.get(r.span_id, ()) if k.kind == AGENT), key=_SORT_KEY)
            own = {t.name for t in turns}
            if r.name in own and len(own) > 1 and _one_at_a_time(turns):
                # One of the agents taking turns in it: its conversation with the others
                # (AG2's <agent>.initiate_chat), not a workflow.
                if thinking is None:
                    thinking = _agents_with_model_calls(recs, root, by_id)
                r.rule = r.rule or "structure: an agent's span holding its turns with another's"
                _conversation_turns(r.name, turns, direct, thinking)
                continue
            r.kind = WORKFLOW
            made.append(r)
    if made:
        _composite_turns(recs, root, by_id, {r.span_id for r in made})


def _wrappers(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent span whose agents all run inside a workflow span it holds, of other names,
    and that makes no model call, tool call or hand-off of its own, in a file that writes
    model calls, owns no model call: it is no agent but the application's run around the
    workflow (OpenLIT's ``invoke_agent <app>`` around ADK's ``Runner``, named after the app,
    holding ADK's ``invoke_workflow <root agent>``), a step of the agent holding it. One
    directly inside a tool span is left alone (an agent run as a tool: the tool's agent);
    an agent holding other agents' spans directly (a conversation it started, a manager) is
    not read so."""
    if not any(r.kind == MODEL for r in recs):
        return  # no model call written: owning none says nothing
    holder = _holders_of(recs, root, by_id, (AGENT, TOOL))
    busy: set[str] = set()
    runs: dict[str, set[str]] = {}
    for r in recs:
        if r is root:
            continue
        up = holder[r.span_id]
        if r.kind == AGENT:
            # Its holder runs it through a workflow, or directly (then never a wrapper),
            # unless the holder is named by no attribute, only by its span (round 14: the
            # OpenAI Agents SDK's "Agent workflow" an AGENT span under Langfuse).
            through = _through_workflow(r, up, by_id) or _named_by_span_only(up, root)
            runs.setdefault(up.span_id, set()).add(r.name if through else "")
        elif r.kind in (MODEL, TOOL, HANDOFF, GUARD):
            busy.add(up.span_id)
    for r in recs:
        if r is root or r.kind != AGENT or r.span_id in busy:
            continue
        names = runs.get(r.span_id)
        if names and "" not in names and r.name not in names and by_id[r.parent_id].kind != TOOL:
            r.kind = WORKFLOW
            r.rule = r.rule or "structure: an agent span running other agents only (the app's run)"


def _named_by_span_only(r: SpanRec, root: SpanRec) -> bool:
    """Whether agent span ``r`` (not the root) is named by its span's name alone, no
    attribute naming an agent."""
    return r is not root and r.kind == AGENT and not r.agent and r.name == r.span


def _through_workflow(r: SpanRec, up: SpanRec, by_id: dict[str, SpanRec]) -> bool:
    """Whether a workflow span lies between span ``r`` and its ancestor ``up``."""
    cur = by_id[r.parent_id]
    while cur is not up:
        if cur.kind == WORKFLOW:
            return True
        cur = by_id[cur.parent_id]
    return False


def _one_at_a_time(turns: list[SpanRec]) -> bool:
    """No two of the spans (by start) overlap."""
    return not any(b.start < a.end for a, b in zip(turns, turns[1:], strict=False))


def _composite_turns(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], composites: set[str]
) -> None:
    """The agents a composite runs one after another (none overlapping: a round-robin
    group chat, a sequential pipeline) take turns, each passed on by the one before: read as
    a group chat's turns (:func:`_group_turns`). A turn that makes no model call while the
    file has model calls, only tool calls, is not an agent but the group's tool runner
    (AG2's ``_Group_Tool_Executor``): its tools are the calls of the speaker before it. A
    composite whose agents overlap (a parallel one) stays a workflow (its stages:
    :func:`_graph_data_flow`)."""
    kids: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.parent_id in composites and r.kind == AGENT:
            kids.setdefault(r.parent_id, []).append(r)
    thinking = _agents_with_model_calls(recs, root, by_id)
    tooling: dict[str, list[str]] = {}  # agent span -> the call ids of the tools it runs
    for r in recs:
        if r.kind == TOOL and (h := _agent_above(r, root, by_id)) is not None:
            tooling.setdefault(h.span_id, []).append(r.call_id)
    for parent, turns in kids.items():
        turns.sort(key=_SORT_KEY)
        if any(b.start < a.end for a, b in zip(turns, turns[1:], strict=False)):
            continue
        if len({t.name for t in turns}) < 2:
            continue
        if thinking:
            runners = [t for t in turns if t.span_id not in thinking and t.span_id in tooling]
        else:
            runners = _runners_by_ids(turns, tooling)
            if not runners:
                continue  # no model call written, no call id: nothing tells a runner apart
        for t in runners:
            t.kind = EXECUTOR
        by_id[parent].kind = GROUP
        _group_starter(by_id[parent], recs, root, by_id, thinking)
    _group_turns(recs)


def _group_starter(
    group: SpanRec,
    recs: list[SpanRec],
    root: SpanRec,
    by_id: dict[str, SpanRec],
    thinking: set[str],
) -> None:
    """The agent span holding a group chat, when the chat is all it holds, it is not run by
    a tool and its agent makes no model call anywhere, is the chat's starter, a stand-in for
    the user (AG2's user proxy starting ``a_initiate_chat`` with the group's manager; round
    14, held-out set 15): the application's run, not an agent."""
    up = by_id.get(group.parent_id)
    if up is None or up is root or up.kind != AGENT or by_id[up.parent_id].kind == TOOL:
        return
    if any(r.parent_id == up.span_id and r is not group for r in recs):
        return
    if any(by_id[s].name == up.name for s in thinking):
        return
    up.kind = WORKFLOW
    up.rule = "structure (round 14): an agent starting a group chat, thinking nowhere"


def _runners_by_ids(turns: list[SpanRec], tooling: dict[str, list[str]]) -> list[SpanRec]:
    """In a file with no model call, the turns (by start) that run only tools whose call
    ids the answer of the speaker just before them asked for (round 14, held-out set 15:
    AG2's tool executor under OpenInference's AG2 instrumentor alone): the group's tool
    runners."""
    out = []
    for prev, t in zip(turns, turns[1:], strict=False):
        ids = tooling.get(t.span_id)
        asked = {cid for cid, _ in prev.asked_ids}
        if ids and prev.name != t.name and all(cid and cid in asked for cid in ids):
            out.append(t)
    return out


def _default_agent_names(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """An agent name that no agent span has, written on spans inside the runs of two or
    more agents of other names (and not the root's) is an instrumentor's default, not an
    agent's (OpenTelemetry's own OpenAI Agents instrumentor writes ``gen_ai.agent.name``
    "OpenAI Agent" on every span but the agents' own): those spans name no agent."""
    agents = {r.name for r in recs if r.kind == AGENT}
    inside: dict[str, set[str]] = {}
    for r in recs:
        if r.agent and r.agent not in agents and r is not root:
            holder = _agent_above(r, root, by_id)
            if holder is not None:
                inside.setdefault(r.agent, set()).add(holder.name)
    defaults = {name for name, holders in inside.items() if len(holders) >= 2}
    for r in recs:
        if r.agent in defaults:
            r.agent = ""


def _agent_above(r: SpanRec, root: SpanRec, by_id: dict[str, SpanRec]) -> SpanRec | None:
    """The nearest agent span holding ``r`` (None when only the root does)."""
    cur = r
    while cur is not root:
        cur = by_id[cur.parent_id]
        if cur.kind == AGENT and cur is not root:
            return cur
    return None


def _owners_of_model_calls(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """Agents from the shape of the run, where no span says it is an agent's: a model
    call outside every agent span is owned by the nearest enclosing named scope (a step,
    a workflow, a span of no convention; the framework's own scopes, runtime, are passed
    over), which becomes that agent's span. A model call inside a tool span, with no
    scope between, is the tool's: its agent is the one holding the tool."""
    parent = by_id.get
    in_agent: dict[str, bool] = {root.span_id: root.kind == AGENT}

    def under_agent(r: SpanRec) -> bool:
        path: list[str] = []
        cur: SpanRec | None = r
        found = False
        while cur is not None and cur.span_id not in in_agent:
            if cur.kind == AGENT:
                found = True
                break
            path.append(cur.span_id)
            cur = parent(cur.parent_id) if cur is not root else None
        found = found or (cur is not None and in_agent.get(cur.span_id, False))
        for sid in path:
            in_agent[sid] = found
        return found

    models = [r for r in recs if r.kind == MODEL and not under_agent(r)]
    machinery = _machinery(recs, root, by_id) if models else set()
    for m in models:
        cur = parent(m.parent_id) if m is not root else None
        first: SpanRec | None = None  # the nearest named scope, machinery or not
        while cur is not None and cur.kind not in (AGENT, TOOL):
            name = scope_name(cur) if cur.kind in _SCOPES else ""
            if name and first is None:
                first = cur
            # Round 13: a span of no convention and no row naming its own instance (its
            # operation.name: the AI SDK's ai.generateText of function researcher) is the
            # program's scope, even where its span's name recurs under others (every agent's
            # ai.generateText).
            if name and (_names_itself(cur) or cur.span not in machinery):
                first = cur
                break
            cur = parent(cur.parent_id) if cur is not root else None
        else:
            if (
                cur is not None
                and first is not None
                and first.span in machinery
                and not _names_itself(first)
            ):
                continue  # only the framework's scopes below an agent or a tool: theirs
        if first is not None and _in_bookkeeping(first, root, by_id):
            # A scope of the framework's bookkeeping (AG2's speaker selection): its model
            # calls are the framework's, folded like it (their tokens still count).
            m.kind, m.rule = RUNTIME, BOOKKEEPING_CALL
            continue
        if first is not None:
            name = scope_name(first)
            first.kind, first.name, first.agent = AGENT, name, name
            if not first.rule.startswith(AUTHOR):  # named by whom it wrote for (round 10)
                first.rule = INFERRED


def _names_itself(r: SpanRec) -> bool:
    """A span of no convention and no row that names its own instance (its agent read from
    its ``operation.name``: the AI SDK's ai.generateText of function researcher)."""
    return r.kind == GENERIC and bool(r.agent)


def _in_bookkeeping(r: SpanRec, root: SpanRec, by_id: dict[str, SpanRec]) -> bool:
    """Whether a span of the framework's bookkeeping (kind runtime) holds ``r`` below the
    nearest agent: what runs inside bookkeeping acts for its owner, so no scope in it is an
    agent of its own (AG2's speaker selection runs a ``conversation checking_agent``)."""
    cur = r
    while cur is not root:
        cur = by_id[cur.parent_id]
        if cur.kind == RUNTIME:
            return True
        if cur.kind in (AGENT, TOOL):
            return False
    return False


def _prompted_apart(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """One agent span (or the root) owning model calls whose system prompts name two or
    more agents is not one agent: every span of its own is the framework's (LangChain.js's
    ``CompiledStateGraph`` for every agent, the delegates' inside tools). Its model calls
    fall to the agents their prompts name (prompts.py): each agent's span is the outermost
    scope below the owner whose model calls, those inside a tool span within it left out
    (another agent run as a tool), all name that agent. Nothing is renamed when some of the
    owner's model calls name nobody."""
    owned: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.kind == MODEL:
            owner = _agent_above(r, root, by_id) or root
            owned.setdefault(owner.span_id, []).append(r)
    for owner_id, calls in owned.items():
        names = {m.prompt_name for m in calls}
        if len(names) < 2 or "" in names:
            continue
        owner = by_id[owner_id]
        # Each call's scopes up to the owner, and whether a tool span lies between.
        named: dict[str, set[str]] = {}  # scope -> the prompt names of calls outside its tools
        holds: dict[str, set[str]] = {}  # tool -> the prompt names of the calls it holds
        chains: list[tuple[SpanRec, list[SpanRec]]] = []
        for m in calls:
            chain: list[SpanRec] = []
            cur = by_id[m.parent_id]
            tool_between = False
            while cur is not owner:
                if cur.kind == TOOL:
                    tool_between = True
                    holds.setdefault(cur.span_id, set()).add(m.prompt_name)
                elif cur.kind in (*_SCOPES, RUNTIME) and not tool_between:
                    named.setdefault(cur.span_id, set()).add(m.prompt_name)
                    chain.append(cur)
                if cur is root:
                    break
                cur = by_id[cur.parent_id]
            chains.append((m, chain))
        # A scope that also holds, inside one of its tools, calls of its own agent's name
        # is still one agent's (a tool of the agent's own); the outermost pure one wins.
        done: set[str] = set()
        for m, chain in chains:
            pure = [c for c in chain if named.get(c.span_id) == {m.prompt_name}]
            if not pure or m.prompt_name == owner.name:
                continue  # the owner's own calls stay its
            top = pure[-1]
            if top.span_id in done:
                continue
            done.add(top.span_id)
            top.kind, top.name, top.agent = AGENT, m.prompt_name, m.prompt_name
            top.rule = (
                f"{INFERRED}; its model calls' system prompts name {m.prompt_name!r} "
                "('You are <name>'), its owner's name others"
            )
        if done:
            summary.told_apart.append(
                f"the model calls of {owner.name or owner.span!r} name {len(names)} agents in "
                f"their system prompts ('You are <name>'): {', '.join(sorted(names))}, each "
                "the agent of the scope holding its calls"
            )


PROMPTED_AGENT = (
    "structure: a run of model calls alone, their agents named by their system prompts "
    "('You are <name>'): an agent's span from its first call to its last"
)
ANSWERED_TOOL = (
    "structure: a tool call the model asked for, its result in the same agent's next request "
    "(from the asking call to the answering one)"
)


# Past this many agents named by prompts, a run of model calls alone is left as it is (each
# agent is tried against every tool call: the file is no conversation of a few agents).
_MAX_PROMPTED = 256


def _prompted_conversations(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """A run written as model calls alone, every one a child of the root (an instrumentor
    of the model's client only: OpenInference's OpenAI instrumentor under CAMEL; what a
    call holds, an HTTP client's spans, is the call's), whose
    system prompts name two or more agents and every call one: each agent's calls are
    its span, from its first call to its last (prompts.py). A tool call is what a call's
    answer asked for (by id) and the same agent's next request shows answered (a tool
    message of that id): a tool span from the asking call to the answering one (from the
    asking call's end when it ended first; a streamed answer ends after it). An agent
    whose calls all ran inside such a tool call of another agent's was run by it (a
    delegation): of several, the tightest, and of tools asked at once the one whose name
    holds the agent's words (``ask_web_researcher``, web_researcher). A call asked for
    and never shown answered is no tool call (nothing invented)."""
    # What a model call holds is its own (round 14: OpenLIT's HTTP client spans, POST,
    # under every call): the run is its calls, under the root or under the one scope the
    # root holds (a pipeline's run).
    host = _only_scope(recs, root)
    calls = [r for r in recs if r not in (root, host) and not _in_model_call(r, root, by_id)]
    if len(calls) < 2 or any(r.kind != MODEL or r.parent_id != host.span_id for r in calls):
        return
    _wrapped_calls(calls, recs)
    by_agent: dict[str, list[SpanRec]] = {}
    for r in calls:  # sorted by start
        by_agent.setdefault(r.prompt_name, []).append(r)
    if not 2 <= len(by_agent) <= _MAX_PROMPTED or "" in by_agent:
        return
    tools = [t for name, own in by_agent.items() for t in _answered_calls(name, own)]
    tools += _passed_on(calls, {t.call_id for t in tools})
    spans = {name: _prompted_span(name, own) for name, own in by_agent.items()}
    for name, own in by_agent.items():
        for c in own:
            c.parent_id = spans[name].span_id
    for t in tools:
        t.parent_id = spans[t.agent].span_id
    for name, span in spans.items():
        holder = _running_tool(name, span, tools)
        span.parent_id = holder.span_id if holder is not None else host.span_id
    for r in (*spans.values(), *tools):
        by_id[r.span_id] = r
        recs.append(r)
    recs.sort(key=_SORT_KEY)
    _parents_first(recs, root, by_id)
    summary.told_apart.append(
        f"the file has model calls only: their system prompts name {len(spans)} agents "
        f"('You are <name>'): {', '.join(sorted(spans))}; {len(tools)} tool call(s) read "
        "from what the models asked and their next requests answered"
    )


def _only_scope(recs: list[SpanRec], root: SpanRec) -> SpanRec:
    """The one span the root holds when it is a scope (a workflow, a step, a span of no
    convention) holding everything else; else the root."""
    kids = [r for r in recs if r.parent_id == root.span_id and r is not root]
    if len(kids) == 1 and kids[0].kind in (*_SCOPES, RUNTIME):
        return kids[0]
    return root


def _wrapped_calls(calls: list[SpanRec], recs: list[SpanRec]) -> None:
    """A model call whose request names no agent but which holds exactly one model call (a
    framework component's span around its client's call: OpenLIT's Haystack generator,
    round 14) speaks with that call's words: its system prompt's agent, the tools its
    answer asked for and the results its request carries."""
    unnamed = {c.span_id: c for c in calls if not c.prompt_name}
    if not unnamed:
        return
    inner: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.kind == MODEL and r.parent_id in unnamed:
            inner.setdefault(r.parent_id, []).append(r)
    for sid, held in inner.items():
        if len(held) == 1:
            c, (m,) = unnamed[sid], held
            c.prompt_name = m.prompt_name
            c.asked_ids, c.answered = c.asked_ids or m.asked_ids, c.answered or m.answered


def _in_model_call(r: SpanRec, root: SpanRec, by_id: dict[str, SpanRec]) -> bool:
    """Whether a model call's span holds span ``r``."""
    cur = by_id.get(r.parent_id)
    while cur is not None and cur is not root:
        if cur.kind == MODEL:
            return True
        cur = by_id.get(cur.parent_id)
    return False


def _prompted_span(name: str, own: list[SpanRec]) -> SpanRec:
    """The span of an agent told by its calls' system prompts: its calls' time."""
    first = own[0]
    return SpanRec(
        f"{first.span_id}~agent",
        first.parent_id,
        first.start,
        max(c.end for c in own),
        AGENT,
        name,
        name,
        span=name,
        rule=PROMPTED_AGENT,
        process=first.process,
    )


def _first_answers(
    calls: list[SpanRec], skip: frozenset[str] | set[str] = frozenset()
) -> Iterator[tuple[SpanRec, str, str, SpanRec]]:
    """(asking call, tool, call id, answering call) for each id a call asked for (not in
    ``skip``) and the first later call of ``calls`` (by start) whose request carries it."""
    pending: dict[str, tuple[SpanRec, str]] = {}  # asked id -> (the asking call, its tool)
    for c in calls:  # sorted by start
        for cid in c.answered:
            asked = pending.pop(cid, None)
            if asked is not None:
                yield asked[0], asked[1], cid, c
        for cid, tool in c.asked_ids:
            if cid and cid not in skip:
                pending.setdefault(cid, (c, tool))


def _answered_calls(name: str, own: list[SpanRec]) -> list[SpanRec]:
    """The tool calls of an agent's model calls that its next requests show answered
    (each asked id, the first later call answering it; one pass over the calls)."""
    return [_answered_tool(name, c, tool, cid, nxt) for c, tool, cid, nxt in _first_answers(own)]


def _passed_on(calls: list[SpanRec], done: set[str]) -> list[SpanRec]:
    """The tool calls (by start) one agent's model asked for whose result is carried first
    by another agent's request and never by the asker's own (a hand-off tool, its answer
    given to the agent taking the conversation over: LlamaIndex's ``handoff`` under OpenLIT,
    round 14): a hand-off to that agent. ``done``: the ids the asker's own calls answered."""
    out = []
    for c, tool, cid, nxt in _first_answers(calls, done):
        if c.prompt_name != nxt.prompt_name:
            t = _answered_tool(c.prompt_name, c, tool, cid, nxt)
            t.target = nxt.prompt_name
            out.append(t)
    return out


def _answered_tool(name: str, c: SpanRec, tool: str, cid: str, nxt: SpanRec) -> SpanRec:
    """The tool call ``c`` asked for and ``nxt`` answered: from ``c``'s end (its start when
    it ended after ``nxt`` began: a streamed answer) to ``nxt``'s start."""
    return SpanRec(
        f"{c.span_id}~{cid}",
        c.parent_id,
        c.end if c.end <= nxt.start else c.start,
        nxt.start,
        TOOL,
        tool,
        name,
        call_id=cid,
        operation="execute_tool",
        span=tool,
        rule=ANSWERED_TOOL,
        process=c.process,
    )


def _running_tool(name: str, span: SpanRec, tools: list[SpanRec]) -> SpanRec | None:
    """The tool call of another agent's that ran agent ``name`` (module: all its calls
    inside it): the tightest, of several asked at once the one named with its words; None
    when none holds it or the file cannot single one out."""
    held = [t for t in tools if t.agent != name and t.start <= span.start and span.end <= t.end]
    words = _word_parts(name)
    pick = [t for t in held if words <= _word_parts(t.name)] or held
    if not pick:
        return None
    width = min(t.end - t.start for t in pick)
    tightest = [t for t in pick if t.end - t.start == width]
    return tightest[0] if len({t.name for t in tightest}) == 1 else None


def _machinery(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> set[str]:
    """Span names of a framework's own scopes, told by where they occur: a scope whose name
    occurs under scopes of two or more names (DSPy's Predict under every module, ReAct under
    each agent, LangGraph's agent node under each graph) is the framework's, reused by
    everyone (one inside another of its own name does not count: an agent calling one of
    its kind); and so is a scope found only inside the framework's (the adapter inside
    Predict). A program's own scopes occur in one place each. Model calls pass over these
    to the nearest scope of the program's (else the nearest named one)."""
    scopes = [r for r in recs if r is not root and r.kind in _SCOPES and scope_name(r)]
    parents: dict[str, set[str]] = {}
    for r in scopes:
        up = by_id[r.parent_id].span
        # One inside another of its own name is an agent calling one of its kind (Haystack's
        # Agent.run as a tool of an Agent.run), not a reuse by someone else.
        parents.setdefault(r.span, set()).update({up} - {r.span})
    machinery = {name for name, ps in parents.items() if len(ps) > 1}
    grew = bool(machinery)
    while grew:
        more = {n for n, ps in parents.items() if n not in machinery and ps <= machinery}
        machinery |= more
        grew = bool(more)
    return machinery


def _distinct_scopes(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """Scopes promoted to agents under one name (a generic method name: Haystack's
    ``Agent.run`` for every agent) are different agents when one holds another or their
    model calls' system prompts differ: each is then named by what its own model calls'
    system prompts name (prompts.py), else numbered (``Agent``, ``Agent#2``), and the
    summary says the file does not name them. Scopes of one name that are neither are one
    agent (a module called twice)."""
    inferred = [
        r
        for r in recs
        if r.kind == AGENT and (r.rule == INFERRED or r.rule.startswith(selfsaid.METHOD_WHY))
    ]
    by_name: dict[str, list[SpanRec]] = {}
    for r in inferred:
        by_name.setdefault(r.name, []).append(r)
    shared = {n: spans for n, spans in by_name.items() if len(spans) > 1}
    if not shared:
        return
    agent_spans = {r.span_id for r in inferred}
    prompts: dict[str, set[str]] = {}
    for r in recs:
        if r.kind == MODEL and r.prompt_name:
            owner = _nearest(r, root, by_id, agent_spans)
            if owner:
                prompts.setdefault(owner, set()).add(r.prompt_name)
    for name, spans in shared.items():
        named = {
            s.span_id: next(iter(p)) for s in spans if len(p := prompts.get(s.span_id, ())) == 1
        }
        nested = any(_nearest(s, root, by_id, {t.span_id for t in spans}) for s in spans)
        ordered = sorted(spans, key=_SORT_KEY)
        at_once = any(b.start < a.end for a, b in zip(ordered, ordered[1:], strict=False))
        if not nested and not at_once and len(set(named.values())) < 2:
            continue  # one agent, called more than once
        _name_apart(name, spans, named, summary)


def _nearest(r: SpanRec, root: SpanRec, by_id: dict[str, SpanRec], among: set[str]) -> str:
    """The nearest ancestor of ``r`` (itself excepted) that is in ``among``, or ''."""
    cur = r
    while cur is not root:
        cur = by_id[cur.parent_id]
        if cur.span_id in among:
            return cur.span_id
    return ""


def _name_apart(
    name: str, spans: list[SpanRec], named: dict[str, str], summary: SpanSummary
) -> None:
    taken = set(named.values())  # scopes whose prompts name one agent are that agent
    k = 1
    for s in sorted(spans, key=_SORT_KEY):
        got = named.get(s.span_id)
        if got is None:
            got = name if k == 1 and name not in taken else f"{name}#{k}"
            k += 1
        s.name = s.agent = got
        s.rule = f"{INFERRED}; told apart from the other {name!r} scopes"
    if named:
        summary.told_apart.append(
            f"{len(spans)} scopes named {name!r} are different agents; named by their system "
            f"prompts ('You are <name>'): {', '.join(sorted(s.name for s in spans))}"
        )
    else:
        summary.told_apart.append(
            f"{len(spans)} scopes named {name!r} are different agents, and the file does not "
            f"name them: called {', '.join(s.name for s in sorted(spans, key=_SORT_KEY))}"
        )


def _group_turns(recs: list[SpanRec]) -> None:
    """A group chat (AG2's GroupChatManager) runs its agents in turn, each agent span a
    child of the manager's: the manager is bookkeeping, and each turn is passed on by the
    speaker before it, so each agent span becomes a child of the previous speaker's span
    that follows it (a delegation from that speaker, which does not wait for it). A tool
    runner among them (kind executor) is bookkeeping of the speaker before it: the tools it
    runs are that speaker's calls."""
    groups = {r.span_id for r in recs if r.kind == GROUP}
    if not groups:
        return
    turns: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.span_id in groups:
            r.kind = RUNTIME
        elif r.parent_id in groups and r.kind in (AGENT, EXECUTOR):
            turns.setdefault(r.parent_id, []).append(r)
    for kids in turns.values():
        prev: SpanRec | None = None
        for r in sorted(kids, key=_SORT_KEY):
            if r.kind == EXECUTOR:
                r.kind = RUNTIME
            if prev is not None:
                r.parent_id, r.follows = prev.span_id, True
            if r.kind == AGENT:
                prev = r


def _parents_first(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """Sort by start time, a parent before its children: a child starting with its
    parent (a coarse clock, a clamped start) would otherwise sort first when it ends
    first, and act before the agent whose span holds it is known."""
    recs.sort(key=_SORT_KEY)
    if not any(r.start == by_id[r.parent_id].start for r in recs if r is not root):
        return
    depth = {root.span_id: 0}
    for r in recs:
        chain: list[SpanRec] = []
        cur = r
        while cur.span_id not in depth:
            chain.append(cur)
            cur = by_id[cur.parent_id]
        d = depth[cur.span_id]
        for c in reversed(chain):
            d += 1
            depth[c.span_id] = d
    recs.sort(key=lambda r: (r.start, depth[r.span_id], r.end, r.span_id))


def _repair_tree(recs: list[SpanRec], summary: SpanSummary) -> tuple[SpanRec, dict[str, SpanRec]]:
    """One root; every other span under a span that reaches it. Sorts ``recs`` by start."""
    # The first record of each span id wins (built from the end, so it is the last write).
    by_id = dict(zip(map(attrgetter("span_id"), reversed(recs)), reversed(recs), strict=True))
    recs.sort(key=_SORT_KEY)
    root = next((r for r in recs if not r.parent_id), None)
    if root is None:
        root = recs[0]
        summary.rootless = root.span_id
        root.parent_id = ""
    for r in recs:
        if r is root:
            continue
        if not r.parent_id:
            summary.extra_roots += 1
            r.parent_id = root.span_id
        elif r.parent_id not in by_id or r.parent_id == r.span_id:
            summary.orphans += 1
            r.parent_id = root.span_id
    # Break parent cycles (a malformed file): anything not reaching the root goes under it.
    depth_ok: dict[str, bool] = {root.span_id: True}
    for r in recs:
        sid = r.span_id
        # The common case, decided without a walk: the parent is known to reach the root.
        if depth_ok.get(r.parent_id) is True and sid not in depth_ok:
            depth_ok[sid] = True
            continue
        path: list[str] = []
        cur = r
        while cur.span_id not in depth_ok and cur.span_id not in path:
            path.append(cur.span_id)
            cur = by_id.get(cur.parent_id, root)
        ok = depth_ok.get(cur.span_id, False)
        for sid in path:
            depth_ok[sid] = ok
        if not ok:
            summary.cycles += 1
            r.parent_id = root.span_id
            depth_ok[r.span_id] = True
    return root, by_id


def _nest_flat(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """A tracer that lost its context writes every span as a child of the root, while
    their times still nest (OpenLLMetry JS over LangChain.js: each graph, its steps and
    its model calls all children of the program's root). When every span but the root is
    the root's child, one process wrote them all, and some span's time holds a span
    holding another (three levels no flat run has), each span goes under a span whose
    time holds it: of several (two delegates at once), one whose last child has ended (a
    scope's steps run one after another), the tightest fit first. ``recs`` are sorted by
    start (``_repair_tree``)."""
    rest = [r for r in recs if r is not root]
    if len(rest) < 3 or any(r.parent_id != root.span_id or r.links for r in rest):
        return
    if len({r.process for r in rest}) > 1:
        return
    order = sorted(rest, key=lambda r: (r.start, -r.end, r.span_id))
    running: list[SpanRec] = []  # spans still running at the current start
    parent: dict[str, str] = {}
    depth: dict[str, int] = {}
    last_child: dict[str, SpanRec] = {}
    deep = False
    for r in order:
        running = [o for o in running if o.end >= r.start]
        holding = [o for o in running if o.end >= r.end]
        if holding:
            # Of spans running at once (two delegates), a scope whose last child still runs
            # is busy (its work is one after another): a free one holds the span, the
            # tightest fit first.
            free = [
                o for o in holding if (c := last_child.get(o.span_id)) is None or c.end <= r.start
            ]
            up = min(free or holding, key=lambda o: (o.end - o.start, -o.start))
            parent[r.span_id] = up.span_id
            last_child[up.span_id] = r
            depth[r.span_id] = depth.get(up.span_id, 0) + 1
            deep = deep or depth[r.span_id] >= 2
        running.append(r)
    if not deep:
        return
    for r in rest:
        r.parent_id = parent.get(r.span_id, root.span_id)
    summary.nested_flat = len(parent)
    _parents_first(recs, root, by_id)


def _own_methods(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A method span ``<Class>.<method>()`` directly inside one of its own class (Griptape:
    ``Agent.try_run()`` and ``Agent.before_run()`` inside ``Agent.run()``, a driver's
    ``try_run()`` inside its ``run()``) is part of that call: the object's own bookkeeping,
    folded (else one model call would count twice, and an agent's run be three agents)."""
    for r in recs:
        if r is root or r.kind == RUNTIME:
            continue
        cls = selfsaid.method_class(r.span)
        if cls and selfsaid.method_class(by_id[r.parent_id].span) == cls:
            r.kind, r.rule = RUNTIME, "structure: a method of its own class's call, part of it"
            r.operation = r.operation or r.span


def _prepared_calls(recs: list[SpanRec]) -> None:
    """Two model-call spans of one object back to back in one parent, one method then
    another (``<LLM>._prepare_chat_with_tools`` then ``<LLM>.astream_chat``: LlamaIndex), the
    first ending by the time the second starts with no span between and no usage or asked
    tool of its own, are one call: the first built the request, a step (else every call
    would count twice)."""
    prev: dict[str, SpanRec] = {}  # each parent's latest child
    for r in recs:  # sorted by start
        p = prev.get(r.parent_id)
        prev[r.parent_id] = r
        if p is None or p.kind != MODEL or r.kind != MODEL or p.end > r.start:
            continue
        if p.input_tokens or p.output_tokens or p.asked:
            continue
        mine, theirs = p.span.rpartition("."), r.span.rpartition(".")
        if mine[0] and mine[0] == theirs[0] and mine[2] != theirs[2]:
            p.kind, p.rule = STEP, "structure: a model call's request being built (a step)"


def _nested_calls(recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec]) -> None:
    """A model-call span directly inside another (a framework's own ``chat`` or
    ``generate_content`` holding its client library's ``chat``: two tracings of one call)
    is part of that call, folded (else every call would count twice). What only the inner
    one says (the tools asked for and offered, the system prompt's name) goes to the outer;
    the usage of both stays, counted once (:func:`_usage`)."""
    for r in recs:
        if r is root or r.kind != MODEL:
            continue
        outer = by_id.get(r.parent_id)
        if outer is None or outer.kind != MODEL:
            continue
        r.kind, r.rule = RUNTIME, "structure: a model call inside a model call, one call"
        r.operation = r.operation or r.span
        outer.asked = outer.asked or r.asked
        outer.offered = outer.offered or r.offered
        outer.prompt_name = outer.prompt_name or r.prompt_name


def _model_loops(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """A model-call span whose time holds tool calls of its own agent (its siblings: the
    tools its answers asked for ran while it lasted) is the agent's loop of model calls,
    one span for several (VoltAgent's ``llm:streamText``): a call before the first round of
    tools, one after each round (tools overlapping in time are one round). Only when it
    lasts after its last round at least a quarter of the time it took before its first: a
    span that ends with its tools is one call that ran its answer's tools (ADK's). It becomes one
    model-call record per call, each between two rounds (ids ``<span>~<n>``); its usage
    stays with the first. A span with children of its own is left whole."""
    models = [r for r in recs if r.kind == MODEL and r is not root]
    if not models:
        return
    parents = {r.parent_id for r in recs if r is not root}
    kids: dict[str, list[SpanRec]] = {}
    for r in recs:
        if r.kind in (TOOL, HANDOFF) and r is not root:
            kids.setdefault(r.parent_id, []).append(r)
    # Each parent's tool spans in start order, with their starts apart, so that a model call
    # looks only at the tools that start within it (a scan of all its siblings' tools made an
    # agent of many calls and tools quadratic: 1M OTLP spans imported in 105 s, not 17).
    # ``bound``: a tool that ends before it starts (not clamped yet) could end inside a call
    # it starts after, so such a parent's tools are all looked at, as before.
    starts: dict[str, tuple[list[int], bool]] = {}
    for parent, ts in kids.items():
        ts.sort(key=_SORT_KEY)
        starts[parent] = ([t.start for t in ts], all(t.start <= t.end for t in ts))
    added: list[SpanRec] = []
    for m in models:
        if m.span_id in parents:
            continue
        siblings = kids.get(m.parent_id)
        if not siblings:
            continue
        at, bound = starts[m.parent_id]
        lo = bisect.bisect_right(at, m.start)
        hi = bisect.bisect_right(at, m.end) if bound else len(siblings)
        inside = [t for t in siblings[lo:hi] if t.end <= m.end]
        rounds: list[list[int]] = []
        for t in inside:
            if rounds and t.start <= rounds[-1][1]:
                rounds[-1][1] = max(rounds[-1][1], t.end)
            else:
                rounds.append([t.start, t.end])
        if not rounds or (m.end - rounds[-1][1]) * 4 < rounds[0][0] - m.start:
            # Ending with its tools (ADK's call_llm, which runs the answer's tools before
            # it ends): one call. A loop's last call lasts after them as its first did.
            continue
        end = m.end
        m.end = rounds[0][0]
        for i, (_s, e) in enumerate(rounds, 1):
            nxt = rounds[i][0] if i < len(rounds) else end
            call = replace(m, span_id=f"{m.span_id}~{i}", start=e, end=max(e, nxt))
            call.input_tokens = call.output_tokens = 0
            by_id[call.span_id] = call
            added.append(call)
        summary.model_loops += 1
    if added:
        recs.extend(added)
        recs.sort(key=_SORT_KEY)


def _clamp(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """Clamp children into their parents, parents first (records are sorted by start,
    and a parent starts no later than its child once clamped)."""
    if root.end < root.start:
        root.end = root.start
    _outlived(recs, root, by_id, summary)
    if any(r.follows for r in recs):
        # Linked work may outlast the span that caused it: the run ends with its last span.
        root.end = max(root.end, max(map(attrgetter("end"), recs)))
    for r in recs:
        if r is root:
            continue
        p = by_id[r.parent_id]
        if r.follows:
            # A linked span follows from its parent: it starts no earlier (a joined
            # trace's bookkeeping may have started before the run: not a clock skew),
            # and may start and end after the parent ended (the root is its bound).
            r.start = max(r.start, p.start)
            r.end = max(r.start, min(r.end, root.end))
            continue
        if r.start < p.start:
            r.start = p.start
            summary.clamped_start += 1
        elif r.start > p.end:
            # A child that starts after its parent ended would return into a finished span.
            r.start = p.end
            summary.clamped_late += 1
        if r.end > p.end:
            r.end = p.end
            summary.clamped_end += 1
        if r.end < r.start:
            r.end = r.start


def _outlived(
    recs: list[SpanRec], root: SpanRec, by_id: dict[str, SpanRec], summary: SpanSummary
) -> None:
    """A span that ends after its parent, written by the same process (one clock), is not
    clock skew: the parent left it running (an async workflow returning its handler before
    its steps run). Its ancestors' ends move to its end, children first (``recs`` are in
    parents-first order), so nothing is clamped and the run keeps its order."""
    for r in reversed(recs):
        if r is root or r.follows or not r.process:
            continue
        p = by_id[r.parent_id]
        if p.process == r.process and r.end > p.end and r.start >= p.start:
            if r.start > p.end:
                summary.outlived += 1
            p.end = r.end


class _Events:
    """The events of span records taken in time order (the body of :func:`build`)."""

    def __init__(
        self,
        recs: list[SpanRec],
        root: SpanRec,
        root_agent: str,
        summary: SpanSummary,
        by_id: dict[str, SpanRec] | None = None,
    ) -> None:
        self.b = SpanBuilder()
        self.by_id = by_id or {}
        self.push = self.b.push
        self.root = root
        self.root_agent = root_agent
        self.summary = summary
        self.owner: dict[str, str] = {}  # span id -> agent acting in it
        # span id -> the span of the agent acting in it (an agent span, or the root)
        self.owner_span: dict[str, str] = {}
        self.active: set[str] = set()
        self.spawner: dict[str, str] = {}
        # agent span (or root) id -> the returns of the agents it invoked, directly or
        # through tool and step spans: what its agent's aggregate depends on
        self.returns_to: dict[str, list[int]] = {}
        # agent -> the agent that handed the conversation to it, until it next acts
        self.handed: dict[str, str] = {}
        # agent -> the agent that handed it its current turn (a hand-back is a return)
        self.handed_by: dict[str, str] = {}
        # An agent reached through a span link, and the agent whose span sent it there: when a
        # later span of that sender links back to it, the work came back (a return).
        self.linked_from: dict[str, str] = {}
        # span id -> whether it was reached through a span link since its agent's span
        self.passed: dict[str, bool] = {}
        # agent handed the conversation -> (who handed it, its span's end, attributes,
        # the span its return would feed), until the next agent acts
        self.pending_ret: dict[str, tuple[str, float, SpanAttrs, str]] = {}
        self.agent_spans: set[str] = set()  # the spans of agents (an agent waits in them)
        # a hand-off that named no target: (who, when, attributes)
        self.open_handoff: tuple[str, float, SpanAttrs] | None = None
        # span id -> the runtime span it runs in (kept in its events' attributes)
        self.via: dict[str, str] = {}
        self.t0 = t0 = root.start
        # Seconds from the root's start, rounded to the nanosecond. Below 2**23 s the
        # float quotient of an integer nanosecond count is already what round(., 9)
        # gives (its error, half an ulp, is under half a nanosecond), so the round is
        # skipped.
        self.exact = (
            max(map(attrgetter("end"), recs)) - t0 < _EXACT_NS
            and min(map(attrgetter("start"), recs)) - t0 > -_EXACT_NS
        )
        self.root_name = self.agent_of(root)
        # Whether the file writes model calls: where it writes none, an agent's span reached
        # through a link is the only sign of the work it was passed (round 14).
        self.models = any(x.kind == MODEL for x in recs)
        # The run's decision comes when its first span starts: the time before it (a
        # program building its agents, written as no span) is no step of the run. Nor
        # is the framework's bookkeeping before it, which leaves no event (round 10: the
        # `create_agent` spans of a program building its agents, OpenLIT's).
        first = min(
            (x.start for x in recs if x is not root and x.kind != RUNTIME),
            default=root.start,
        )
        self.first_work = max(0.0, round((first - t0) / 1e9, 9))
        self.explain = frameworks.explaining()

    def _explained(self, r: SpanRec, me: str) -> str:
        """--explain: what span ``r`` became, and which row or convention said so."""
        holder = self.owner.get(r.parent_id, self.root_name)
        kind = r.kind
        if r is self.root:
            what = f"the run's root: agent {me}"
        elif kind == AGENT:
            what = f"agent {me}'s span" + ("" if holder == me else f", delegated to by {holder}")
        elif kind == TOOL:
            what = f"tool call {r.name} of {me}" + (
                f", a hand-off to {r.target}" if r.target else ""
            )
        elif kind == HANDOFF:
            what = f"a hand-off from {me} to {r.target or 'agent'}"
        elif kind == RUNTIME:
            what = f"folded into {me}'s events (the framework's bookkeeping)"
        elif kind == GENERIC:
            what = f"generic event of {me} (no row, no convention)"
        else:
            what = {MODEL: "model call", GUARD: "guardrail"}.get(kind, "step") + f" of {me}"
        why = r.rule or ("the span's convention" if kind != GENERIC else "nothing matched")
        return f"span {r.span_id} {r.span or r.name!r}: {what} [{why}]"

    def agent_of(self, r: SpanRec) -> str:
        if r.kind == AGENT:
            return r.name or r.agent or "agent"
        if r is self.root:
            return r.agent or self.root_agent
        # Other spans act for the agent whose span holds them (structure, not the
        # span's own claim, so no agent can act before it is spawned).
        return self.owner.get(r.parent_id, self.root_agent)

    def _attrs(self, r: SpanRec) -> SpanAttrs:
        via = self.via.get(r.parent_id, "") if self.via else ""
        if r.kind == RUNTIME:
            self.via[r.span_id] = r.name
            return SpanAttrs(r.span_id, r.operation or r.kind)
        if via:
            self.via[r.span_id] = via
        return SpanAttrs(r.span_id, r.operation or r.kind, r.error, via, self._parent_span(r))

    def _parent_span(self, r: SpanRec) -> str:
        """The span whose events hold ``r``'s: its parent, past the framework's messaging
        spans (which make no event). Written so that ``trace metrics`` nests an event in
        the events of its span's ancestors rather than in whatever interval holds it in
        time: sibling spans running at once (a graph's fan-out) hold each other's work in
        time but not in structure (docs/traces.md, "Critical path and parallelism")."""
        if r is self.root:
            return ""
        up = self.by_id.get(r.parent_id)
        while up is not None and up.kind == RUNTIME and up is not self.root:
            up = self.by_id.get(up.parent_id)
        return up.span_id if up is not None else r.parent_id

    def emit(self, r: SpanRec) -> None:
        me = self.agent_of(r)
        self.owner[r.span_id] = me
        parent_span = self.owner_span.get(r.parent_id, self.root.span_id)
        self.owner_span[r.span_id] = r.span_id if r.kind == AGENT or r is self.root else parent_span
        if r.kind == AGENT:
            self.agent_spans.add(r.span_id)
        if r.kind != AGENT and (r.follows or self.passed.get(r.parent_id, False)):
            self.passed[r.span_id] = True
        attrs = self._attrs(r)
        if self.explain:
            self.summary.explained.append(self._explained(r, me))
        t0 = self.t0
        if self.exact:
            ts = (r.start - t0) / 1e9
            te = (r.end - t0) / 1e9
        else:
            ts = round((r.start - t0) / 1e9, 9)
            te = round((r.end - t0) / 1e9, 9)
        if r is self.root:
            ts = self.first_work
            self.push(_ROOT("", ts, "orchestrator_decision", me, "root", attrs, 0.0))
            self.active.add(me)
        elif r.kind == RUNTIME:
            # The framework's own messaging: no event; what runs in it acts for the
            # agent holding it, and names it in attributes.via.
            self.summary.runtime[r.operation if r.operation != "(none)" else r.name] += 1
        elif r.kind == AGENT:
            self._agent(r, me, attrs, ts, te, parent_span)
        else:
            self._work(r, me, attrs, ts, te)

    def _agent(
        self, r: SpanRec, me: str, attrs: SpanAttrs, ts: float, te: float, parent_span: str
    ) -> None:
        push = self.push
        holder = self.owner.get(r.parent_id, self.root_name)
        self._settle(me, ts)
        if me == holder:
            self.handed.pop(me, None)
            push(_ATTRS("", ts, "orchestrator_decision", me, attrs))
            return
        # Reached through a span link (a runtime delivering a message): its holder
        # caused it and went on, nobody waits for its end.
        passed = r.follows or self.passed.get(r.parent_id, False)
        source = self.handed.pop(me, "")
        senders = self._linked_senders(r, holder, me, through=not source)
        for sender in senders:
            if self.linked_from.get(sender) == me:
                # The work an agent was sent comes back to the agent that sent it (a graph's
                # supervisor node runs again after the node it routed to): a return.
                del self.linked_from[sender]
                self._return(sender, me, ts, attrs)
                continue
            # Control passed by a message the span links to (a workflow's executors are
            # siblings; only their links say who sent work to whom).
            self._pass(sender, me, "message", ts, attrs, None if self.models else te - ts)
            self.linked_from[me] = sender
        if senders:
            pass
        elif source:
            self.handed_by[me] = source  # the hand-off was the delegation
        elif passed:
            self._delegate(holder, me, ts, attrs)
        else:
            # Its holder waits for it until it returns (round 10): the delegation lasts
            # the agent's span, as a tool call running an agent does, so the time the
            # agent's span holds and no event of it covers (its tools' untraced runs, the
            # framework's work between its calls) is work, once where nothing overlaps.
            self._delegate(holder, me, ts, attrs, te - ts)
        if passed:
            return
        if source and not (source == holder and parent_span in self.agent_spans):
            # Handed the conversation, not inside the span of the agent that handed it
            # over (which would wait for it): it returns only if the conversation goes
            # back to that agent (settled when the next agent acts).
            self.pending_ret[me] = (source, te, attrs, parent_span)
            return
        # Its holder waits for it (a call, a tool, a node): it returns there at its end.
        ret = self._return(me, holder, te, attrs)
        self.returns_to.setdefault(parent_span, []).append(ret)

    def _delegate(
        self, holder: str, me: str, ts: float, attrs: SpanAttrs, dur: float | None = None
    ) -> None:
        """``holder`` hands work to ``me``: a spawn the first time, a message after; with
        ``dur``, the delegation lasts that long (the holder waits for its end)."""
        if me not in self.active:
            if dur is None:
                self.push(_SPAWN("", ts, "spawn", holder, me, attrs))
            else:
                self.push(_SPAWN_DUR("", ts, "spawn", holder, me, attrs, max(dur, 0.0)))
            self.spawner[me] = holder
            self.active.add(me)
        elif dur is None:
            self.push(_MSG("", ts, "message", holder, me, attrs, holder))
        else:
            self.push(_MSG_DUR("", ts, "message", holder, me, attrs, holder, max(dur, 0.0)))

    def _linked_senders(
        self, r: SpanRec, holder: str, me: str, through: bool = True
    ) -> list[str]:
        """The agents whose spans sent what an agent span links to, on it or on the
        bookkeeping spans between it and its holder's span (the agent's holder and the
        application excluded: those are the ordinary start); ``through``: a message the
        application's runtime sent counts for the agents whose messages reached it there."""
        out: list[str] = []
        seen: set[str] = set()
        todo = list(self._links_up(r))
        while todo:
            linked = todo.pop(0)
            if linked in seen:
                continue
            seen.add(linked)
            who = self.owner.get(linked)
            if who == self.root_name and through and (sent := self.by_id.get(linked)):
                # Sent by no agent but by a step of the runtime that was itself sent work
                # (a workflow's function executor gathering two agents' answers for a
                # third, round 14): the work comes from those who sent it there. Not for
                # an agent handed the conversation (a hand-off said who passed it on; the
                # group chat's runtime relaying it says it again).
                todo.extend(self._links_up(sent))
            elif who and who not in (holder, me, self.root_name) and who not in out:
                out.append(who)
        return out

    def _links_up(self, r: SpanRec) -> list[str]:
        """The spans ``r`` links to, on it and on the runtime spans holding it."""
        out: list[str] = []
        cur: SpanRec | None = r
        while cur is not None:
            out.extend(linked for _, linked in cur.links)
            up = self.by_id.get(cur.parent_id) if cur is not self.root else None
            cur = up if up is not None and up.kind == RUNTIME else None
        return out

    def _return(self, me: str, to: str, t: float, attrs: SpanAttrs) -> int:
        spawner = self.spawner.get(me)
        if spawner in (None, to):
            return self.push(_RET("", t, "return", me, to, me, attrs))
        why = f"returns to {to} (spawned by {spawner})"
        return self.push(_RET_WHY("", t, "return", me, to, me, attrs, why))

    def _settle(self, me: str, ts: float) -> None:
        """Before ``me``'s agent span: a hand-off that named no target goes to ``me``;
        an agent handed the conversation whose turn is over returns to the agent that
        handed it over if that is ``me`` (the conversation came back), else never."""
        if self.open_handoff is not None and self.open_handoff[0] != me:
            src, t_h, a_h = self.open_handoff
            self.open_handoff = None
            self._handoff(src, me, "transfer", t_h, a_h)
        for agent, (hander, t_end, a, pspan) in list(self.pending_ret.items()):
            if t_end <= ts:
                del self.pending_ret[agent]
                if hander == me:
                    self.returns_to.setdefault(pspan, []).append(
                        self._return(agent, hander, t_end, a)
                    )

    def _pass(
        self,
        me: str,
        target: str,
        role: str,
        ts: float,
        attrs: SpanAttrs,
        dur: float | None = None,
    ) -> None:
        """``me`` passes the conversation to ``target``: a spawn the first time, a
        delegation message after; with ``dur``, the work passed lasts that long (the
        span of the agent it reached, in a file that writes no model call: a crew's task,
        whose time is work where no event of it covers it, as a delegation's is)."""
        if target not in self.active:
            if dur is None:
                self.push(_SPAWN_ROLE("", ts, "spawn", me, target, role, attrs))
            else:
                self.push(_SPAWN_ROLE_DUR("", ts, "spawn", me, target, role, attrs, max(dur, 0.0)))
            self.spawner[target] = me
            self.active.add(target)
        elif dur is None:
            self.push(_XFER("", ts, "message", me, target, role, me, attrs))
        else:
            self.push(_XFER_DUR("", ts, "message", me, target, role, me, attrs, max(dur, 0.0)))

    def _handoff(self, me: str, target: str, role: str, ts: float, attrs: SpanAttrs) -> None:
        """``me`` hands the conversation to ``target``; the target's next agent span
        answers to ``me``. Handing it back to the agent that handed it over is also
        ``me``'s return to that agent."""
        if target == me:
            return
        self.pending_ret.pop(me, None)  # it says itself where the conversation goes
        self._pass(me, target, role, ts, attrs)
        if self.handed_by.get(me) == target:
            del self.handed_by[me]
            self._return(me, target, ts, attrs)
        self.handed[target] = me

    def _work(self, r: SpanRec, me: str, attrs: SpanAttrs, ts: float, te: float) -> None:
        """A span that is not an agent's: a tool, a handoff, a guardrail, a model call..."""
        push = self.push
        kind = r.kind
        dur = max(0.0, round(te - ts, 9))
        if kind == TOOL:
            tool = r.name or "tool"
            call_id = r.span_id  # unique per span; a source's own call ids may repeat
            if r.content_ref:
                call = push(
                    _CALL_REF("", ts, "tool_call", me, tool, call_id, r.content_ref, attrs, dur)
                )
            else:
                call = push(_CALL("", ts, "tool_call", me, tool, call_id, attrs, dur))
            if r.target == UNNAMED:
                self.open_handoff = (me, ts, attrs)  # to whichever agent acts next
            elif r.target:
                self._handoff(me, r.target, "transfer", ts, attrs)
            res = push(_RESULT("", te, "tool_result", me, tool, call_id, False, attrs))
            self.b.edge(call, res, "tool_dependency")
        elif kind == HANDOFF and r.target == UNNAMED:
            self.open_handoff = (me, ts, attrs)  # to whichever agent acts next
        elif kind == HANDOFF:
            self._handoff(me, r.target or "agent", "handoff", ts, attrs)
        elif kind == GUARD:
            if r.triggered:
                push(_ROOT("", ts, "safety_event", me, "guardrail", attrs, dur))
            elif r.error:  # no event otherwise; the failure is kept on one
                push(_ROOT("", ts, "orchestrator_decision", me, "guardrail", attrs, dur))
            return  # a guardrail makes no agent active
        else:
            if kind == GENERIC:
                # Named by its operation, else by the span's own name.
                op = r.operation if r.operation not in ("", "(none)") else ""
                self.summary.generic[op or r.span or "(none)"] += 1
            if kind == STEP:
                role = r.operation or "step"
            elif kind == WORKFLOW:
                role = "workflow"
            else:
                role = "llm_call" if kind == MODEL else "span"
            push(_ROOT("", ts, "orchestrator_decision", me, role, attrs, dur))
        self.active.add(me)

    def finish(self) -> SpanBuilder:
        """Root end: aggregate what came back, then stop."""
        push, b, root_name = self.push, self.b, self.root_name
        t_end = round((self.root.end - self.t0) / 1e9, 9)
        agg = push(_ROLE("", t_end, "aggregate", root_name, "root"))
        stop = push(_ROLE("", t_end, "stop", root_name, "root"))
        b.edge(agg, stop, "causal")
        # What came back to the root agent, in the root span or any span of its own.
        for span in (self.root.span_id, *sorted(self.agent_spans)):
            if span == self.root.span_id or self.owner.get(span) == root_name:
                for ret in self.returns_to.get(span, []):
                    b.edge(ret, agg, "aggregate")
        b.finish()
        return b


_EXACT_NS = (1 << 23) * 10**9


class SpanAttrs(msgspec.Struct, gc=False, omit_defaults=True):
    """An event's ``attributes`` (one object per span, shared by its events)."""

    span_id: str
    operation: str
    error: str = ""
    via: str = ""  # the runtime span (a framework's messaging) the span ran in
    parent: str = ""  # the span holding this one (:meth:`_Events._parent_span`)


class _Event(msgspec.Struct, gc=False):
    """The fields every event has; each combination of optional fields (in output
    order) is a subclass made by :func:`_shape`, so an event is one small struct that
    msgspec writes as JSON in C, with the keys in that order."""

    id: str
    t: float
    type: str
    agent: str


_SHAPES: dict[tuple[str, ...], Any] = {}


def _shape(keys: tuple[str, ...]) -> Any:
    cls = _SHAPES.get(keys)
    if cls is None:
        fields = [("from_" if k == "from" else k, Any) for k in keys]
        cls = msgspec.defstruct(
            "Event_" + "_".join(keys),
            fields,
            bases=(_Event,),
            gc=False,
            rename={"from_": "from"},
        )
        _SHAPES[keys] = cls
    return cls


# The events a span import makes, by their optional fields (in output order).
_ROOT = _shape(("role", "attributes", "duration_s"))
_ATTRS = _shape(("attributes",))
_SPAWN = _shape(("to", "attributes"))
_SPAWN_ROLE = _shape(("to", "role", "attributes"))
_SPAWN_DUR = _shape(("to", "attributes", "duration_s"))
_MSG = _shape(("to", "attributes", "from"))
_MSG_DUR = _shape(("to", "attributes", "from", "duration_s"))
_CALL = _shape(("tool", "call_id", "attributes", "duration_s"))
_CALL_REF = _shape(("tool", "call_id", "content_ref", "attributes", "duration_s"))
_XFER = _shape(("to", "role", "from", "attributes"))
_SPAWN_ROLE_DUR = _shape(("to", "role", "attributes", "duration_s"))
_XFER_DUR = _shape(("to", "role", "from", "attributes", "duration_s"))
_RESULT = _shape(("tool", "call_id", "trusted", "attributes"))
_RET = _shape(("to", "from", "attributes"))
_RET_WHY = _shape(("to", "from", "attributes", "reason"))
_ROLE = _shape(("role",))


_EDGE_KINDS = ("causal", "spawn", "message", "return", "tool_dependency", "aggregate")
_EDGE_CODE = {k: i for i, k in enumerate(_EDGE_KINDS)}
# Events that link to the next event of the agent they name in ``to``.
_LINK = {k: _EDGE_CODE[k] for k in ("spawn", "message", "return")}


class SpanBuilder:
    """Events and edges of a span import, as columns (a million spans, no dict each).

    Events are ``e1``, ``e2``, … in time order when written. An event's optional
    fields are one flat tuple ``(key, value, key, value, …)`` in output order.
    :meth:`finish` adds what :class:`~.common.Builder` does with a per-agent
    timeline: causal edges between each agent's consecutive events, an edge from each
    spawn, message and return to the next event of the agent it names, and one edge per (source, target), the most specific kind winning over
    causal (the first one added among specific kinds).
    """

    def __init__(self) -> None:
        self.events: list[Any] = []
        # Columns of the events, filled by finish().
        self.t: list[float] = []
        self.type: list[str] = []
        self.agent: list[str] = []
        self.es: list[int] = []
        self.ed: list[int] = []
        self.ek: list[int] = []
        self.src: np.ndarray = np.zeros(0, dtype=np.int64)
        self.dst: np.ndarray = np.zeros(0, dtype=np.int64)
        self.kind: np.ndarray = np.zeros(0, dtype=np.int8)

    @property
    def n_events(self) -> int:
        return len(self.events)

    def push(self, event: Any) -> int:
        """Add an event (an instance of a :func:`_shape` class); returns its index."""
        self.events.append(event)
        return len(self.events) - 1

    def add(self, t: float, type_: str, agent: str, extra: tuple[Any, ...] = ()) -> int:
        """Add an event; ``extra`` is its optional fields, ``(key, value, …)`` in order."""
        return self.push(_shape(extra[0::2])("", t, type_, agent, *extra[1::2]))

    def edge(self, src: int, dst: int, kind: str) -> None:
        if src != dst:
            self.es.append(src)
            self.ed.append(dst)
            self.ek.append(_EDGE_CODE[kind])

    def finish(self) -> None:
        events = self.events
        self.t = list(map(attrgetter("t"), events))
        self.type = list(map(attrgetter("type"), events))
        self.agent = list(map(attrgetter("agent"), events))
        self.src, self.dst, self.kind = self._edges()
        self.es, self.ed, self.ek = [], [], []

    def _edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges, from a sorted timeline per agent and a dict for one edge per pair.
        (A numpy version was removed: 8-12% less CPU time at 100,000 spans, below the
        25% that would pay for a second implementation; benchmarks/TRACES.md.)"""
        timeline: dict[str, list[tuple[float, int]]] = {}
        for k, (t, who) in enumerate(zip(self.t, self.agent, strict=True)):
            timeline.setdefault(who, []).append((t, k))
        for tl in timeline.values():
            tl.sort()
        causal = _EDGE_CODE["causal"]
        best: dict[tuple[int, int], int] = {}

        def put(s: int, d: int, kind: int) -> None:
            if best.get((s, d), causal) == causal:
                best[(s, d)] = kind

        for s, d, kind in zip(self.es, self.ed, self.ek, strict=True):
            put(s, d, kind)
        for tl in timeline.values():
            for (_, a), (_, b) in zip(tl, tl[1:], strict=False):
                put(a, b, causal)
        for k, type_ in enumerate(self.type):
            link = _LINK.get(type_)
            line = timeline.get(self.events[k].to) if link is not None else None
            if link is not None and line:
                j = bisect.bisect_right(line, (self.t[k], k))
                if j < len(line):
                    put(k, line[j][1], link)
        items = sorted(best.items())
        return (
            np.array([s for (s, _), _ in items], np.int64),
            np.array([d for (_, d), _ in items], np.int64),
            np.array([k for _, k in items], np.int8),
        )

    def time_order(self) -> tuple[list[int], list[int]]:
        """Events in time order (creation breaks ties), and each one's 1-based position."""
        n = len(self.t)
        order = np.lexsort((np.arange(n), np.array(self.t, dtype=np.float64)))
        pos = np.empty(n, dtype=np.int64)
        pos[order] = np.arange(1, n + 1)
        return order.tolist(), pos.tolist()

    def iter_events(self, order: list[int]) -> Iterator[bytes]:
        """Event lines ``{...},``; ids ``e1``, ``e2``, … follow ``order``. msgspec writes
        each batch as JSON lines, whose only raw newlines are the line ends (JSON
        strings escape theirs), so a comma goes before each."""
        events = self.events
        encode_lines = msgspec.json.Encoder().encode_lines
        n = len(order)
        step = 8192
        for lo in range(0, n, step):
            batch = [events[k] for k in order[lo : lo + step]]
            for i, ev in enumerate(batch, start=lo + 1):
                ev.id = f"e{i}"
            data = encode_lines(batch).replace(b"\n", b",\n")
            for ev in batch:
                ev.id = ""
            yield data if lo + step < n else data[:-2] + b"\n"

    def iter_edges(self, pos: list[int]) -> Iterator[bytes]:
        p = np.asarray(pos, dtype=np.int64)
        s, d = p[self.src], p[self.dst]
        o = np.lexsort((d, s))
        kinds = [k.encode() for k in _EDGE_KINDS]
        last = o.size - 1
        rows = zip(s[o].tolist(), d[o].tolist(), self.kind[o].tolist(), strict=True)
        batch: list[bytes] = []
        for i, (a, b, k) in enumerate(rows):
            batch.append(
                b'{"src":"e%d","dst":"e%d","type":"%b"}%b'
                % (a, b, kinds[k], b",\n" if i < last else b"\n")
            )
            if len(batch) >= 4096:
                yield b"".join(batch)
                batch = []
        if batch:
            yield b"".join(batch)
