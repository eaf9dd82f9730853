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

import bisect
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from survey_tools.traces.importers.common import ImportFailed

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
) -> tuple[SpanBuilder, dict[str, Any]]:
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
    b = SpanBuilder()
    owner: dict[str, str] = {}  # span id -> agent acting in it

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
    add = b.add
    for r in recs:
        me = agent_of(r)
        owner[r.span_id] = me
        if not model_usage or r.kind == MODEL:
            tokens_in += r.input_tokens
            tokens_out += r.output_tokens
        attrs = SpanAttrs(r.span_id, r.operation or r.kind)
        ts = round((r.start - t0) / 1e9, 9)
        te = round((r.end - t0) / 1e9, 9)
        dur = max(0.0, round(te - ts, 9))
        kind = r.kind
        if r is root:
            add(
                ts,
                "orchestrator_decision",
                me,
                ("role", "root", "attributes", attrs, "duration_s", 0.0),
            )
            active.add(me)
            continue
        parent_agent = owner.get(r.parent_id, root_name)
        if kind == AGENT:
            if me == parent_agent:
                add(ts, "orchestrator_decision", me, ("attributes", attrs))
            elif me not in active:
                add(ts, "spawn", parent_agent, ("to", me, "attributes", attrs))
                spawner[me] = parent_agent
                active.add(me)
            else:
                add(
                    ts,
                    "message",
                    parent_agent,
                    ("to", me, "attributes", attrs, "from", parent_agent),
                )
        elif kind == TOOL:
            tool = r.name or "tool"
            call = add(
                ts,
                "tool_call",
                me,
                ("tool", tool, "call_id", r.span_id, "attributes", attrs, "duration_s", dur),
            )
            if r.target:
                add(
                    ts,
                    "message",
                    me,
                    ("to", r.target, "role", "transfer", "from", me, "attributes", attrs),
                )
            res = add(
                te,
                "tool_result",
                me,
                ("tool", tool, "call_id", r.span_id, "trusted", False, "attributes", attrs),
            )
            b.edge(call, res, "tool_dependency")
            active.add(me)
        elif kind == HANDOFF:
            add(
                ts,
                "message",
                me,
                ("to", r.target or "agent", "role", "handoff", "from", me, "attributes", attrs),
            )
            active.add(me)
        elif kind == GUARD:
            if r.triggered:
                add(
                    ts,
                    "safety_event",
                    me,
                    ("role", "guardrail", "attributes", attrs, "duration_s", dur),
                )
        else:
            if kind == GENERIC:
                summary.generic[r.operation or "(none)"] += 1
            add(
                ts,
                "orchestrator_decision",
                me,
                (
                    "role",
                    "llm_call" if kind == MODEL else "span",
                    "attributes",
                    attrs,
                    "duration_s",
                    dur,
                ),
            )
            active.add(me)
        if kind == AGENT and me != parent_agent:
            extra: tuple[Any, ...] = ("to", parent_agent, "from", me, "attributes", attrs)
            if spawner.get(me) not in (None, parent_agent):
                extra += ("reason", f"invoked by {parent_agent} (spawned by {spawner[me]})")
            ret = add(te, "return", me, extra)
            returns_to.setdefault(r.parent_id, []).append(ret)

    # Root end: aggregate what came back, then stop.
    t_end = round((root.end - t0) / 1e9, 9)
    agg = add(t_end, "aggregate", root_name, ("role", "root"))
    stop = add(t_end, "stop", root_name, ("role", "root"))
    b.edge(agg, stop, "causal")
    for ret in returns_to.get(root.span_id, []):
        b.edge(ret, agg, "aggregate")
    b.finish()
    costs = {
        "tokens": tokens_in + tokens_out,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "wall_clock_s": max(0.0, round((root.end - t0) / 1e9, 9)),
        "tool_calls": sum(1 for r in recs if r.kind == TOOL),
        "messages": b.type.count("message"),
    }
    return b, costs


@dataclass(slots=True)
class SpanAttrs:
    """An event's ``attributes`` (one object per span, shared by its events); orjson
    writes it as ``{"span_id": ..., "operation": ...}``, like the dict it replaces."""

    span_id: str
    operation: str


_EDGE_KINDS = ("causal", "spawn", "message", "return", "tool_dependency", "aggregate")
_EDGE_CODE = {k: i for i, k in enumerate(_EDGE_KINDS)}


class SpanBuilder:
    """Events and edges of a span import, as columns (a million spans, no dict each).

    Events are ``e1``, ``e2``, … in time order when written. An event's optional
    fields are one flat tuple ``(key, value, key, value, …)`` in output order.
    :meth:`finish` adds, with numpy, what :class:`~.common.Builder` does with a
    per-agent timeline: causal edges between each agent's consecutive events, an
    edge from each spawn, message and return to the next event of the agent it
    names, and one edge per (source, target), the most specific kind winning over
    causal (the first one added among specific kinds).
    """

    def __init__(self) -> None:
        self.t: list[float] = []
        self.type: list[str] = []
        self.agent: list[str] = []
        self.extra: list[tuple[Any, ...]] = []
        self.es: list[int] = []
        self.ed: list[int] = []
        self.ek: list[int] = []
        self.src: np.ndarray = np.zeros(0, dtype=np.int64)
        self.dst: np.ndarray = np.zeros(0, dtype=np.int64)
        self.kind: np.ndarray = np.zeros(0, dtype=np.int8)

    @property
    def n_events(self) -> int:
        return len(self.t)

    def add(self, t: float, type_: str, agent: str, extra: tuple[Any, ...] = ()) -> int:
        k = len(self.t)
        self.t.append(t)
        self.type.append(type_)
        self.agent.append(agent)
        self.extra.append(extra)
        return k

    def edge(self, src: int, dst: int, kind: str) -> None:
        if src != dst:
            self.es.append(src)
            self.ed.append(dst)
            self.ek.append(_EDGE_CODE[kind])

    def finish(self) -> None:
        n = len(self.t)
        t = np.array(self.t, dtype=np.float64)
        index: dict[str, int] = {}
        agent = np.fromiter(
            (index.setdefault(a, len(index)) for a in self.agent), dtype=np.int64, count=n
        )
        idx = np.arange(n, dtype=np.int64)
        # Each agent's events in (t, creation) order: the old per-agent timeline.
        order = np.lexsort((idx, t, agent))
        a, b = order[:-1], order[1:]
        same = agent[a] == agent[b]
        chain_s, chain_d = a[same], b[same]

        # Spawns, messages and returns link to the next event, after (t, k), of the
        # agent they name ("to" is the first optional field of each).
        ks_list = [
            k
            for k, type_ in enumerate(self.type)
            if type_ == "spawn" or type_ == "message" or type_ == "return"
        ]
        ks = np.array(ks_list, dtype=np.int64)
        extras = self.extra
        code = np.fromiter(
            (index.get(extras[k][1], -1) for k in ks_list), dtype=np.int64, count=len(ks_list)
        )
        t_values, t_rank = np.unique(t, return_inverse=True)
        n_t = max(1, t_values.size)
        if (len(index) + 1) * n_t * max(n, 1) < 1 << 62:
            # A search over keys (agent, rank of t, k), sorted like the timelines.
            key_sorted = ((agent * n_t + t_rank) * n + idx)[order]
            p = np.searchsorted(key_sorted, (code * n_t + t_rank[ks]) * n + ks, side="right")
            nxt = order[np.minimum(p, max(n - 1, 0))] if n else p
            ok = (code >= 0) & (p < n) & (agent[nxt] == code)
        else:  # keys would overflow int64: per query, over each agent's timeline
            timeline: dict[int, list[tuple[float, int]]] = {}
            for k in order.tolist():
                timeline.setdefault(int(agent[k]), []).append((self.t[k], k))
            nxt = np.full(ks.size, -1, dtype=np.int64)
            for j, (k, c) in enumerate(zip(ks_list, code.tolist(), strict=True)):
                tl = timeline.get(c, [])
                at = bisect.bisect_right(tl, (self.t[k], k))
                if at < len(tl):
                    nxt[j] = tl[at][1]
            ok = nxt >= 0
        kind_of = {"spawn": _EDGE_CODE["spawn"], "message": _EDGE_CODE["message"]}
        ret = _EDGE_CODE["return"]
        next_k = np.fromiter(
            (kind_of.get(self.type[k], ret) for k in ks_list), dtype=np.int8, count=len(ks_list)
        )
        next_s, next_d, next_k = ks[ok], nxt[ok], next_k[ok]

        src = np.concatenate([np.array(self.es, np.int64), chain_s, next_s])
        dst = np.concatenate([np.array(self.ed, np.int64), chain_d, next_d])
        kind = np.concatenate([np.array(self.ek, np.int8), np.zeros(chain_s.size, np.int8), next_k])
        # One edge per (src, dst): the first specific (non-causal) one added, else causal.
        ins = np.arange(src.size)
        o = np.lexsort((ins, kind == _EDGE_CODE["causal"], dst, src))
        src, dst, kind = src[o], dst[o], kind[o]
        first = np.ones(src.size, dtype=bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        self.src, self.dst, self.kind = src[first], dst[first], kind[first]
        self.es, self.ed, self.ek = [], [], []

    def time_order(self) -> tuple[list[int], list[int]]:
        """Events in time order (creation breaks ties), and each one's 1-based position."""
        n = len(self.t)
        order = np.lexsort((np.arange(n), np.array(self.t, dtype=np.float64)))
        pos = np.empty(n, dtype=np.int64)
        pos[order] = np.arange(1, n + 1)
        return order.tolist(), pos.tolist()

    def iter_events(self, order: list[int]) -> Iterator[bytes]:
        ts, types, agents, extras = self.t, self.type, self.agent, self.extra
        last = len(order) - 1
        dumps = orjson.dumps
        for i, k in enumerate(order):
            ev: dict[str, Any] = {
                "id": f"e{i + 1}",
                "t": ts[k],
                "type": types[k],
                "agent": agents[k],
            }
            extra = extras[k]
            for j in range(0, len(extra), 2):
                ev[extra[j]] = extra[j + 1]
            yield dumps(ev) + (b",\n" if i < last else b"\n")

    def iter_edges(self, pos: list[int]) -> Iterator[bytes]:
        p = np.asarray(pos, dtype=np.int64)
        s, d = p[self.src], p[self.dst]
        o = np.lexsort((d, s))
        kinds = [k.encode() for k in _EDGE_KINDS]
        last = o.size - 1
        rows = zip(s[o].tolist(), d[o].tolist(), self.kind[o].tolist(), strict=True)
        for i, (a, b, k) in enumerate(rows):
            yield b'{"src":"e%d","dst":"e%d","type":"%b"}%b' % (
                a,
                b,
                kinds[k],
                b",\n" if i < last else b"\n",
            )
