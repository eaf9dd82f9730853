"""Span trees (OpenTelemetry, OpenAI Agents SDK) to traces: the shared part.

Both formats give spans with an id, a parent id, start and end times and a kind.
Each importer turns its spans into :class:`SpanRec` records; :func:`build` then
re-parents orphans, clamps clock skew, and emits events and edges:

* the root span's agent decides at its start (orchestrator_decision) and, at its end,
  aggregates what its children returned, then stops;
* an agent span under another agent's span: the parent agent spawns it (the first
  time that agent appears; later invocations are delegation messages), the child
  works, and returns to the parent agent at its end;
* a tool span: tool_call at its start and tool_result at its end (tool output is
  untrusted); a transfer or handoff adds a delegation message to the target;
* a model call (chat, generation): an orchestrator_decision of its agent;
* a guardrail: a safety_event when it triggered (else nothing but its record);
* anything else: a generic orchestrator_decision that keeps the operation name in
  ``attributes.operation``, counted in the summary.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from survey_tools.traces.importers.common import Builder, ImportFailed

AGENT, TOOL, MODEL, GUARD, HANDOFF, GENERIC = (
    "agent",
    "tool",
    "model",
    "guard",
    "handoff",
    "generic",
)


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


@dataclass
class SpanSummary:
    spans: int = 0
    orphans: int = 0
    extra_roots: int = 0
    clamped_start: int = 0
    clamped_end: int = 0
    generic: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        out = [f"{self.spans} span(s) imported"]
        if self.orphans:
            out.append(
                f"{self.orphans} orphan span(s) (parent not in the file) re-parented "
                "under the trace root"
            )
        if self.extra_roots:
            out.append(f"{self.extra_roots} further root span(s) placed under the first root")
        if self.clamped_start:
            out.append(
                f"clock skew: {self.clamped_start} span(s) started before their parent; "
                "start clamped to the parent's"
            )
        if self.clamped_end:
            out.append(
                f"clock skew: {self.clamped_end} span(s) ended after their parent; "
                "end clamped to the parent's"
            )
        if self.generic:
            ops = ", ".join(f"{k} ({v})" for k, v in sorted(self.generic.items()))
            out.append(f"unknown operations kept as generic events: {ops}")
        if self.skipped:
            shown = "; ".join(self.skipped[:5])
            more = f" (and {len(self.skipped) - 5} more)" if len(self.skipped) > 5 else ""
            out.append(f"{len(self.skipped)} span(s) skipped: {shown}{more}")
        return out


def build(
    recs: list[SpanRec], summary: SpanSummary, root_agent: str = "root"
) -> tuple[Builder, dict[str, Any]]:
    """Events and edges for span records; returns the builder and cost totals."""
    if not recs:
        raise ImportFailed("no usable spans in the input")
    by_id: dict[str, SpanRec] = {}
    for r in recs:
        by_id.setdefault(r.span_id, r)
    recs.sort(key=lambda r: (r.start, r.end, r.span_id))
    root = next((r for r in recs if not r.parent_id), None)
    if root is None:
        root = recs[0]
        summary.orphans += 1
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
        path: list[str] = []
        cur = r
        while cur.span_id not in depth_ok and cur.span_id not in path:
            path.append(cur.span_id)
            cur = by_id.get(cur.parent_id, root)
        ok = depth_ok.get(cur.span_id, False)
        for sid in path:
            depth_ok[sid] = ok
        if not ok:
            summary.orphans += 1
            r.parent_id = root.span_id
            depth_ok[r.span_id] = True

    # Clamp children into their parents, parents first (records are sorted by start,
    # and a parent starts no later than its child once clamped).
    if root.end < root.start:
        root.end = root.start
    for r in recs:
        if r is root:
            continue
        p = by_id[r.parent_id]
        if r.start < p.start:
            r.start = p.start
            summary.clamped_start += 1
        if r.end > p.end:
            r.end = p.end
            summary.clamped_end += 1
        if r.end < r.start:
            r.end = r.start
    recs.sort(key=lambda r: (r.start, r.end, r.span_id))

    t0 = root.start
    b = Builder()
    owner: dict[str, str] = {}  # span id -> agent acting in it

    def sec(ns: int) -> float:
        return round((ns - t0) / 1e9, 9)

    def agent_of(r: SpanRec) -> str:
        if r.kind == AGENT:
            return r.name or r.agent or "agent"
        if r is root:
            return r.agent or root_agent
        # Other spans act for the agent whose span holds them (structure, not the
        # span's own claim, so no agent can act before it is spawned).
        return owner.get(r.parent_id, root_agent)

    active: set[str] = set()
    spawner: dict[str, str] = {}
    returns_to: dict[str, list[int]] = {}  # parent span id -> return events into it
    tokens_in = tokens_out = 0
    model_usage = any(r.kind == MODEL and (r.input_tokens or r.output_tokens) for r in recs)
    root_name = agent_of(root)
    first_event: dict[str, int] = {}
    for r in recs:
        me = agent_of(r)
        owner[r.span_id] = me
        if not model_usage or r.kind == MODEL:
            tokens_in += r.input_tokens
            tokens_out += r.output_tokens
        attrs = {"span_id": r.span_id, "operation": r.operation or r.kind}
        ts, te = sec(r.start), sec(r.end)
        dur = max(0.0, round(te - ts, 9))
        if r is root:
            first_event[r.span_id] = b.add(
                ts, "orchestrator_decision", me, role="root", attributes=attrs, duration_s=0.0
            )
            active.add(me)
            continue
        parent_agent = owner.get(r.parent_id, root_name)
        if r.kind == AGENT:
            if me == parent_agent:
                ev = b.add(ts, "orchestrator_decision", me, attributes=attrs)
            elif me not in active:
                ev = b.add(ts, "spawn", parent_agent, to=me, attributes=attrs)
                spawner[me] = parent_agent
                active.add(me)
            else:
                ev = b.add(
                    ts, "message", parent_agent, to=me, attributes=attrs, **{"from": parent_agent}
                )
            first_event[r.span_id] = ev
        elif r.kind == TOOL:
            call = b.add(
                ts,
                "tool_call",
                me,
                tool=r.name or "tool",
                call_id=r.span_id,
                attributes=attrs,
                duration_s=dur,
            )
            if r.target:
                b.add(
                    ts,
                    "message",
                    me,
                    to=r.target,
                    role="transfer",
                    **{"from": me},
                    attributes=attrs,
                )
            res = b.add(
                te,
                "tool_result",
                me,
                tool=r.name or "tool",
                call_id=r.span_id,
                trusted=False,
                attributes=attrs,
            )
            b.edge(call, res, "tool_dependency")
            first_event[r.span_id] = call
            active.add(me)
        elif r.kind == HANDOFF:
            ev = b.add(
                ts,
                "message",
                me,
                to=r.target or "agent",
                role="handoff",
                **{"from": me},
                attributes=attrs,
            )
            first_event[r.span_id] = ev
            active.add(me)
        elif r.kind == GUARD:
            if r.triggered:
                first_event[r.span_id] = b.add(
                    ts, "safety_event", me, role="guardrail", attributes=attrs, duration_s=dur
                )
        else:
            if r.kind == GENERIC:
                summary.generic[r.operation or "(none)"] += 1
            first_event[r.span_id] = b.add(
                ts,
                "orchestrator_decision",
                me,
                role="llm_call" if r.kind == MODEL else "span",
                attributes=attrs,
                duration_s=dur,
            )
            active.add(me)
        if r.kind == AGENT and me != parent_agent:
            reason = None
            if spawner.get(me) not in (None, parent_agent):
                reason = f"invoked by {parent_agent} (spawned by {spawner[me]})"
            ret = b.add(
                te, "return", me, to=parent_agent, **{"from": me}, attributes=attrs, reason=reason
            )
            returns_to.setdefault(r.parent_id, []).append(ret)

    # Root end: aggregate what came back, then stop.
    t_end = sec(root.end)
    agg = b.add(t_end, "aggregate", root_name, role="root")
    stop = b.add(t_end, "stop", root_name, role="root")
    b.edge(agg, stop, "causal")
    for ret in returns_to.get(root.span_id, []):
        b.edge(ret, agg, "aggregate")
    b.chain_agents()
    # Spawn/delegation edges into the child's first work; returns into the parent's
    # next step.
    for k, (t, type_, _agent, extra) in enumerate(b.events):
        if type_ in ("spawn", "message") and extra and "to" in extra:
            nxt = b.next_of(extra["to"], t, k)
            if nxt is not None:
                b.edge(k, nxt, "spawn" if type_ == "spawn" else "message")
        elif type_ == "return" and extra:
            nxt = b.next_of(extra["to"], t, k)
            if nxt is not None:
                b.edge(k, nxt, "return")
    b.dedupe_edges()
    costs = {
        "tokens": tokens_in + tokens_out,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "wall_clock_s": max(0.0, round((root.end - t0) / 1e9, 9)),
        "tool_calls": sum(1 for r in recs if r.kind == TOOL),
        "messages": sum(1 for e in b.events if e[1] == "message"),
    }
    return b, costs
