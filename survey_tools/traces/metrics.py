"""Metrics computed from a valid trace (definitions in docs/traces.md).

Everything is computed from the events and the dependency edges (causal, spawn,
message, return, tool_dependency, aggregate); the ``metrics`` a trace carries are
the producing system's own claims and are not used.
"""

from __future__ import annotations

import math
from itertools import compress
from typing import Any

import numpy as np

from survey_tools.traces.graph import (
    SpawnInfo,
    dependency_edges,
    forward_order,
    longest_chain,
    spawn_info,
    topo_edge_order,
)
from survey_tools.traces.schema import EVENT_TYPES
from survey_tools.traces.table import EVENT_CODE, Table
from survey_tools.traces.validate import Trace

DEFAULT_MAX_TAINT_PATHS = 100

# Scalar metrics in output order; the CSV and table formats use exactly these.
SCALAR_FIELDS: tuple[str, ...] = (
    "trace_id",
    "task_id",
    "system",
    "topology",
    "events",
    "edges",
    *(f"events.{t}" for t in EVENT_TYPES),
    "agents",
    "spawned_agents",
    "spawn_tree_depth",
    "max_fan_out",
    "despawned_agents",
    "alive_at_end",
    "o1_spawns",
    "o2_delegations",
    "o3_messages",
    "o4_aggregates",
    "o4_fan_in_max",
    "o4_fan_in_mean",
    "o5_stop_t",
    "o5_last_useful_return",
    "o5_idle_tail_s",
    "makespan_s",
    "critical_path_s",
    "critical_path_events",
    "total_work_s",
    "work_basis",
    "parallelism_speedup",
    "tool_calls",
    "messages_per_tool_call",
    "messages_per_agent",
    "tokens",
    "wall_clock_s",
    "tokens_per_event",
    "reward_channel",
    "reward",
    "tokens_per_reward",
    "wall_clock_s_per_reward",
    "untrusted_events",
    "tainted_sources",
)


def _r(x: float | None) -> float | None:
    """Round for stable, readable output; None and non-finite become None."""
    if x is None or not math.isfinite(x):
        return None
    v = round(float(x), 6)
    return 0.0 if v == 0 else v


def _ratio(a: float, b: float) -> float | None:
    return _r(a / b) if b else None


def _taint(
    tb: Table,
    s: np.ndarray,
    d: np.ndarray,
    rank: np.ndarray,
    max_paths: int,
    cfwd: np.ndarray | None = None,
) -> dict[str, Any]:
    """Taint over dependency edges (s, d).

    The two walks are sequential (an event's taint depends on the edges before it) but
    most of each is left to C: flags are bytearrays (numpy views them without a copy),
    the edges a walk can never use are dropped first with numpy, and ``compress`` skips
    an edge whose source (forwards) or target (backwards) is not flagged, reading the
    flag when it reaches that edge, after the previous one was applied.
    """
    n = tb.n
    # Safety taint along dependency edges; a safety_event stops it.
    untrusted = np.flatnonzero(tb.trusted == 0)
    safety = tb.etype == EVENT_CODE["safety_event"]
    sink = (tb.etype == EVENT_CODE["aggregate"]) | (tb.etype == EVENT_CODE["stop"])
    paths: list[list[int]] = []
    n_sources = 0
    if untrusted.size and sink.any():
        start = np.zeros(n, dtype=bool)
        start[untrusted] = ~safety[untrusted]
        tainted = bytearray(start.tobytes())
        # Forwards in topological order; an edge into a safety event never carries taint.
        # The critical path's order of its edges (s, then the safety_flow ones) holds the
        # order of s: a stable sort keeps any subset of its items in their relative order.
        fwd = forward_order(rank, s) if cfwd is None else cfwd[cfwd < s.size]
        fwd = fwd[~safety[d[fwd]]]
        for v in compress(d[fwd].tolist(), map(tainted.__getitem__, s[fwd].tolist())):
            tainted[v] = 1
        # Backwards: which tainted events reach a sink through tainted events (only the
        # edges between two tainted events, in reverse topological order of their target).
        is_tainted = np.frombuffer(tainted, dtype=bool)
        reach = bytearray((sink & is_tainted).tobytes())
        nxt = [-1] * n
        both = np.flatnonzero(is_tainted[s] & is_tainted[d])
        bwd = both[np.argsort(-rank[d[both]], kind="stable")]
        targets = d[bwd].tolist()
        for u, v in compress(
            zip(s[bwd].tolist(), targets, strict=True), map(reach.__getitem__, targets)
        ):
            if not reach[u]:
                reach[u] = 1
                nxt[u] = v
        found = untrusted[np.frombuffer(reach, dtype=bool)[untrusted]]
        sources = found[np.lexsort((found, tb.t[found]))].tolist()
        n_sources = len(sources)
        for i in sources[:max_paths]:
            path = [i]
            while nxt[path[-1]] >= 0:
                path.append(nxt[path[-1]])
            paths.append(path)
    return {
        "untrusted": int(untrusted.size),
        "n_sources": n_sources,
        "paths": paths,
    }


def _spawn_tree(tb: Table, info: SpawnInfo) -> dict[str, Any]:
    """Agents, the spawn tree's depth and fan-out, and how many spawned agents ended."""
    et = tb.etype
    # Agents: everyone who acts or is spawned, but not a tool answering as itself.
    tool_voice = (et == EVENT_CODE["tool_result"]) & (tb.agent == tb.tool)
    actors = set(np.unique(tb.agent[~tool_voice & (tb.agent >= 0)]).tolist())
    actors |= set(info.child.tolist())

    spawner = {int(c): int(p) for c, p in zip(info.child, info.parent, strict=True)}
    depth_of: dict[int, int] = {}
    for a in spawner:
        chain: list[int] = []
        v = a
        while v in spawner and v not in depth_of and v not in chain:
            chain.append(v)
            v = spawner[v]
        base = depth_of.get(v, 0)
        for k, w in enumerate(reversed(chain), start=1):
            depth_of[w] = base + k
    fan = np.bincount(info.parent[info.parent >= 0], minlength=1) if info.parent.size else None

    n_names = len(tb.names.names)
    spawns = np.flatnonzero((et == EVENT_CODE["spawn"]) & (tb.to >= 0))
    last_spawn = np.full(n_names + 1, -np.inf)
    np.maximum.at(last_spawn, tb.to[spawns], tb.t[spawns])
    desp = np.flatnonzero(et == EVENT_CODE["despawn"])
    target = np.where(tb.to[desp] >= 0, tb.to[desp], tb.agent[desp])
    last_desp = np.full(n_names + 1, -np.inf)
    np.maximum.at(last_desp, target, tb.t[desp])
    children = info.child
    despawned = int(np.count_nonzero(last_desp[children] >= last_spawn[children]))
    return {
        "agents": len(actors),
        "spawned_agents": int(children.size),
        "spawn_tree_depth": max(depth_of.values(), default=0),
        "max_fan_out": int(fan.max()) if fan is not None and fan.size else 0,
        "despawned_agents": despawned,
        "alive_at_end": int(children.size) - despawned,
    }


def _delegations(tb: Table, info: SpawnInfo) -> dict[str, int]:
    """O2: decisions that name another agent, spawns whose agent then works, and
    messages from a parent to the agent it spawned."""
    et, t = tb.etype, tb.t
    n_names = len(tb.names.names)
    decision = int(
        np.count_nonzero(
            (et == EVENT_CODE["orchestrator_decision"]) & (tb.to >= 0) & (tb.to != tb.agent)
        )
    )
    spawns = np.flatnonzero((et == EVENT_CODE["spawn"]) & (tb.to >= 0))
    last_act = np.full(n_names + 1, -np.inf)
    acting = tb.agent >= 0
    np.maximum.at(last_act, tb.agent[acting], t[acting])
    spawn = int(np.count_nonzero(last_act[tb.to[spawns]] >= t[spawns])) if spawns.size else 0
    parent_of = np.full(n_names + 1, -2, dtype=np.int64)
    parent_of[info.child] = info.parent
    msgs = (et == EVENT_CODE["message"]) & (tb.to >= 0)
    parent_msg = int(
        np.count_nonzero(msgs & (parent_of[np.where(tb.to >= 0, tb.to, n_names)] == tb.agent))
    )
    return {"decision": decision, "spawn": spawn, "parent_message": parent_msg}


def _fan_in(tb: Table, s: np.ndarray, d: np.ndarray) -> tuple[int, float | None]:
    """Most and mean distinct events with a dependency edge into each aggregate."""
    n = tb.n
    aggs = np.flatnonzero(tb.etype == EVENT_CODE["aggregate"])
    if not aggs.size:
        return 0, None
    into = np.isin(d, aggs)
    # Distinct (aggregate, source) pairs: two edges from one event count once.
    pairs = np.unique(d[into] * np.int64(n) + s[into])
    fan_in = np.bincount(pairs // max(n, 1), minlength=n)[aggs]
    return int(fan_in.max()), _r(float(fan_in.mean()))


def _stop_tail(tb: Table, s: np.ndarray, end: np.ndarray) -> dict[str, Any]:
    """O5: the first stop, the last useful return before it and the idle tail between."""
    et, t = tb.etype, tb.t
    stops = np.flatnonzero(et == EVENT_CODE["stop"])
    stop_t = idle = None
    last_ret_id = None
    if stops.size:
        stop_t = float(t[stops].min())
        rets = np.flatnonzero((et == EVENT_CODE["return"]) & (t <= stop_t))
        has_out = np.zeros(tb.n, dtype=bool)
        has_out[s] = True
        useful = rets[has_out[rets]] if has_out[rets].any() else rets
        if useful.size:
            k = int(useful[np.lexsort((useful, end[useful]))[-1]])
            last_ret_id = tb.ids[k]
            idle = max(0.0, stop_t - float(end[k]))
    return {
        "o5_stop_t": _r(stop_t),
        "o5_last_useful_return": last_ret_id,
        "o5_idle_tail_s": _r(idle),
    }


def _delegates(tb: Table) -> dict[int, int]:
    """Per agent, every agent it handed work to (spawn or message naming it in ``to``),
    directly or through others, as a bit set (bit k: agent code k)."""
    et = tb.etype
    sel = (
        ((et == EVENT_CODE["spawn"]) | (et == EVENT_CODE["message"]))
        & (tb.to >= 0)
        & (tb.agent >= 0)
        & (tb.to != tb.agent)
    )
    # Distinct (agent, to) pairs, in that order, as one integer each (np.unique along an
    # axis is several times slower).
    width = np.int64(len(tb.names.names) + 1)
    pairs = np.unique(tb.agent[sel].astype(np.int64) * width + tb.to[sel])
    direct: dict[int, list[int]] = {}
    for a, b in zip((pairs // width).tolist(), (pairs % width).tolist(), strict=True):
        direct.setdefault(a, []).append(b)
    reach = {a: sum(1 << b for b in set(bs)) for a, bs in direct.items()}
    # Until nothing changes: what an agent reaches, it reaches through its delegates too.
    changed = True
    while changed:
        changed = False
        for a, bs in direct.items():
            bits = reach[a]
            for b in bs:
                bits |= reach.get(b, 0)
            if bits != reach[a]:
                reach[a] = bits
                changed = True
    return reach


def own_work(tb: Table, end: np.ndarray) -> float:
    """Work counted once on nested events (docs/traces.md, "Critical path and
    parallelism"): each event with a duration contributes its duration minus the time
    covered by the events nested in it. Event j is nested in event i when i's interval
    holds j's and j's agent is i's agent or one i's agent handed work to (a delegating
    tool call waits on its delegate; a step holds its own model calls); its parent is
    the innermost such i. Intervals are taken in start order (longest first), and the
    intervals holding the current one are those a stack of open intervals would hold
    (:func:`_holders`)."""
    k = np.flatnonzero(np.nan_to_num(tb.dur, nan=0.0) > 0)
    if not k.size:
        return 0.0
    # To the nanosecond, the format's precision: a start plus a duration is a float sum,
    # and a child clamped to end with its parent may otherwise end one ulp after it.
    starts, ends = np.round(tb.t[k], 9), np.round(end[k], 9)
    order = _start_then_longest(starts, ends)
    total = float(np.sum(ends - starts))
    # Nothing holds anything (each interval ends after every earlier one): no sweep.
    e_sorted = ends[order]
    if e_sorted.size < 2 or bool(np.all(e_sorted[1:] > np.maximum.accumulate(e_sorted)[:-1])):
        return total
    agents = tb.agent[k][order].astype(np.int64)
    holder = _holders(e_sorted)
    et = tb.etype[k][order]
    calls = np.where(et == EVENT_CODE["tool_call"], 1, 0).astype(np.int8)
    calls[(et == EVENT_CODE["spawn"]) | (et == EVENT_CODE["message"])] = 2
    parent = _parents(holder, agents, _delegates(tb), len(tb.names.names), calls)
    if tb.attributes:
        parent = _span_parents(tb.attributes, k[order], starts[order], e_sorted, parent)
    return max(0.0, total - _covered(starts[order], e_sorted, parent))


def _span_parents(
    attributes: list[Any], events: np.ndarray, S: np.ndarray, E: np.ndarray, parent: np.ndarray
) -> np.ndarray:
    """The parents of the intervals (events ``events`` in sweep order, from ``S`` to ``E``),
    corrected by the structure an importer wrote where it wrote one (each event's
    ``attributes.span_id`` and ``attributes.parent``, the span holding its span). The parent
    by time and agents (``parent``, :func:`_parents`) is the top of a stack of open
    intervals, and two spans running at once, side by side, push each other's intervals on
    that stack: a graph's fan-out nests one branch's work in the other's delegation, and a
    branch node's own span then holds nothing and counts whole. So an interval moves to the
    longest interval of its nearest ancestor span that has one (if that interval holds it)
    when its parent by time is either a farther ancestor's interval or the interval of a
    span outside its ancestry whose own work (an interval of a span it holds) runs at the same
    time (another branch). It stays where the structure says nothing (no ancestor with an
    interval, a span no event names, an event without a span), and where its parent by time
    is a span outside its ancestry with no work of its own beside it: a model call's span
    left open while the tools it asked for run, a framework's second wrapper of the same
    work written beside it."""
    spans = _span_tree(attributes)
    if spans is None:
        return parent
    code, span_up = spans
    n_spans = len(code)
    own = np.full(events.size, -1, dtype=np.int64)
    for i, ev in enumerate(events.tolist()):
        a = attributes[ev]
        if isinstance(a, dict) and isinstance(sid := a.get("span_id"), str):
            own[i] = code[sid]
    # The intervals to look at: by time inside an interval of another span.
    at = np.flatnonzero((own >= 0) & (parent >= 0))
    at = at[own[parent[at]] >= 0]
    at = at[own[parent[at]] != own[at]]
    if not at.size:
        return parent
    # Each span's longest interval (the first in sweep order: starts first, longest first).
    held = np.full(n_spans, -1, dtype=np.int64)
    mine = np.flatnonzero(own >= 0)
    held[own[mine][::-1]] = mine[::-1]
    # Up the chain of spans (at most as many steps as there are spans: a cycle of parents,
    # which no importer writes, ends): whether the parent by time is an ancestor's interval,
    # and the nearest ancestor's interval.
    target = own[parent[at]]
    cur = span_up[own[at]]
    is_ancestor = np.zeros(at.size, dtype=bool)
    nearest = np.full(at.size, -1, dtype=np.int64)
    for _ in range(n_spans):
        live = cur >= 0
        if not live.any():
            break
        c = np.maximum(cur, 0)
        is_ancestor |= live & (cur == target)
        found = live & (nearest < 0) & (held[c] >= 0)
        nearest[found] = held[c[found]]
        cur = np.where(live, span_up[c], -1)
    h = nearest
    ok = (h >= 0) & (h != at) & (h != parent[at])
    ok[ok] &= (S[h[ok]] <= S[at[ok]]) & (E[h[ok]] >= E[at[ok]])
    # A parent by time outside the ancestry: another branch only if work of its own (an
    # interval of a span it holds) runs at the same time.
    aside = np.flatnonzero(ok & ~is_ancestor)
    if aside.size:
        kids: dict[int, list[int]] = {}
        for j in mine.tolist():
            if span_up[own[j]] >= 0:
                kids.setdefault(int(span_up[own[j]]), []).append(j)
        for x in aside.tolist():
            i = int(at[x])
            s_i, e_i = S[i], E[i]
            ok[x] = any(
                j != i and S[j] < e_i and E[j] > s_i for j in kids.get(int(target[x]), ())
            )
    out = parent.copy()
    out[at[ok]] = h[ok]
    return out


def _span_tree(attributes: list[Any]) -> tuple[dict[str, int], np.ndarray] | None:
    """The spans the events name (``attributes.span_id``) as codes, and each one's parent
    span's code (``attributes.parent``; -1 for none or unknown), or None when no event says
    its span's parent (a trace not written by a span import, or written before round 12)."""
    code: dict[str, int] = {}
    ups: dict[int, int] = {}
    said = False
    for a in attributes:
        if not isinstance(a, dict):
            continue
        sid = a.get("span_id")
        if not isinstance(sid, str):
            continue
        c = code.setdefault(sid, len(code))
        up = a.get("parent")
        if isinstance(up, str) and up:
            said = True
            ups[c] = code.setdefault(up, len(code))
        else:
            ups.setdefault(c, -1)
    if not said:
        return None
    span_up = np.full(len(code), -1, dtype=np.int64)
    for c, u in ups.items():
        span_up[c] = u
    return code, span_up


def _pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The pairs (a, b) as complex numbers: numpy orders and takes maxima of those by the real
    part, then the imaginary one, so one pass over them orders by two keys (both exact: float
    values as they are, integer ones below 2**53)."""
    z = np.empty(a.size, dtype=np.complex128)
    z.real = a
    z.imag = b
    return z


def _start_then_longest(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The sweep order: by start, then the longest first, then in event order (``starts`` come
    in event order). One stable sort of (start, -end) pairs gives what
    ``np.lexsort((index, -ends, starts))`` gives; the starts come nearly sorted (a trace lists
    its events in time order), which a stable sort of one key runs through fast: 0.015 s
    against 0.09 s for the lexsort on the 1M-event trace (benchmarks/TRACES.md, round 10)."""
    return np.argsort(_pairs(starts, -ends), kind="stable")


def _holders(E: np.ndarray) -> np.ndarray:
    """For each interval (in sweep order), the nearest earlier one that ends no sooner, -1
    for none. Sweeping with a stack that drops the intervals ending before the current
    one, that is the stack's top, and the top's own holder the entry below it, and so on:
    the chain of holders is the stack. Found by pointer jumping: each pointer skips to its
    target's pointer while the target ends sooner (everything skipped does too)."""
    up = np.arange(-1, E.size - 1, dtype=np.int64)
    todo = np.flatnonzero(up >= 0)
    while todo.size:
        todo = todo[E[up[todo]] < E[todo]]
        up[todo] = up[up[todo]]
        todo = todo[up[todo] >= 0]
    return up


def _parents(
    holder: np.ndarray, agents: np.ndarray, reach: dict[int, int], n_names: int, calls: np.ndarray
) -> np.ndarray:
    """Each interval's parent: the first of its holders (innermost first) whose agent is
    its own or handed work to its own, -1 for none; a tool call is never the parent of its
    own agent's tool call (``calls`` marks them 1): those are calls made at once, side by
    side (several in one model answer), not one inside the other; nor is a delegation
    (a spawn or message lasting while its agent waits for the delegate, marked 2) ever the
    parent of its own agent's delegation: delegates run at once, side by side."""
    # Per agent that delegated, the agents it reaches as a row of bits (bit a of byte a >> 3),
    # as many rows and bytes as the bit sets hold (not one row per name: a trace may have a
    # million tool names); row_of[b] is agent b's row, the last (all clear) if it has none.
    width = max((mask.bit_length() for mask in reach.values()), default=0) // 8 + 1
    bits = np.zeros((len(reach) + 1, width), dtype=np.uint8)
    row_of = np.full(n_names + 1, len(reach), dtype=np.int64)
    for row, (b, mask) in enumerate(reach.items()):
        bits[row] = np.frombuffer(mask.to_bytes(width, "little"), dtype=np.uint8)
        row_of[b] = row
    parent = holder.copy()
    todo = np.flatnonzero(parent >= 0)
    while todo.size:
        a, b = agents[todo], agents[parent[todo]]
        byte = np.minimum(a >> 3, width - 1)  # an agent beyond every row's bits: a clear bit
        fits = (a == b) | ((bits[row_of[b], byte] >> (a & 7)) & 1 == 1) & (a >> 3 < width)
        kind = calls[todo]
        fits &= ~((a == b) & (kind > 0) & (kind == calls[parent[todo]]))
        todo = todo[~fits]
        parent[todo] = holder[parent[todo]]
        todo = todo[parent[todo] >= 0]
    return parent


def _covered(S: np.ndarray, E: np.ndarray, parent: np.ndarray) -> float:
    """The time the intervals (in sweep order) cover inside their parents, each parent's
    children merged where they overlap. The sums run in the order a sweep would close
    each merged run (the child that starts the next run of a parent), then the runs
    still open in the order of their parents, so the result is the same to the last bit."""
    kids = np.flatnonzero(parent >= 0)
    if not kids.size:
        return 0.0
    kids = kids[np.argsort(parent[kids], kind="stable")]  # by parent, then sweep order
    par, s, e = parent[kids], S[kids], E[kids]
    first = np.r_[True, par[1:] != par[:-1]]
    # The furthest end of the earlier children of the same parent, exactly: a running maximum
    # of (parent's number, end) pairs, each parent's pairs above all earlier ones (no sort of
    # the ends: 0.02 s against 0.08 s for ranking them with np.unique, round 10).
    reach_end = np.maximum.accumulate(_pairs(np.cumsum(first), e)).imag
    new_run = first.copy()
    new_run[1:] |= s[1:] > reach_end[:-1]
    run_start = np.flatnonzero(new_run)
    run_len = reach_end[np.r_[run_start[1:], kids.size] - 1] - s[run_start]
    last = np.r_[par[run_start[1:]] != par[run_start[:-1]], True]  # the parent's open run
    closed_by = kids[run_start[1:]][~last[:-1]]  # the child that starts the next run
    closed = run_len[:-1][~last[:-1]][np.argsort(closed_by, kind="stable")].tolist()
    covered = 0.0
    for x in closed:
        covered += x
    open_runs = run_len[last][np.argsort(par[run_start[last]], kind="stable")].tolist()
    return covered + sum(open_runs)


def _work(tb: Table, end: np.ndarray) -> tuple[float, str]:
    """Total work: the durations (nested ones counted once) when any event has one,
    else each agent's active time."""
    if tb.n and np.any(~np.isnan(tb.dur)):
        return own_work(tb, end), "durations"
    n_names = len(tb.names.names)
    acting = tb.agent >= 0
    lo = np.full(n_names + 1, np.inf)
    hi = np.full(n_names + 1, -np.inf)
    np.minimum.at(lo, tb.agent[acting], tb.t[acting])
    np.maximum.at(hi, tb.agent[acting], end[acting])
    seen = np.isfinite(lo)
    return float((hi[seen] - lo[seen]).sum()), "agent_active_time"


def _costs(head: dict[str, Any], n: int, n_agents: int, by_type: dict[str, int]) -> dict[str, Any]:
    """Protocol overhead, and cost per unit of reward."""
    costs = head.get("costs", {})
    tokens = costs.get("tokens", 0)
    wall = costs.get("wall_clock_s", 0)
    rewards = head.get("rewards", {})
    channel = "team" if "team" in rewards else (next(iter(rewards)) if len(rewards) == 1 else None)
    reward = rewards.get(channel) if channel else None
    tool_calls = by_type["tool_call"]
    n_msgs = by_type["message"]
    return {
        "tool_calls": tool_calls,
        "messages_per_tool_call": _ratio(n_msgs, tool_calls),
        "messages_per_agent": _ratio(n_msgs, n_agents),
        "tokens": tokens,
        "wall_clock_s": wall,
        "tokens_per_event": _ratio(tokens, n),
        "reward_channel": channel,
        "reward": reward,
        "tokens_per_reward": _ratio(tokens, reward) if reward and reward > 0 else None,
        "wall_clock_s_per_reward": _ratio(wall, reward) if reward and reward > 0 else None,
        "cost_per_reward": {
            ch: {"tokens": _ratio(tokens, v), "wall_clock_s": _ratio(wall, v)}
            for ch, v in sorted(rewards.items())
            if v > 0
        },
    }


def compute(trace: Trace, *, max_taint_paths: int = DEFAULT_MAX_TAINT_PATHS) -> dict[str, Any]:
    """All metrics of one valid trace, as an ordered, JSON-ready dict."""
    tb = trace.table
    head = trace.head
    ids = tb.ids
    n = tb.n
    t = tb.t
    end = t + np.nan_to_num(tb.dur, nan=0.0)

    counts = np.bincount(tb.etype[tb.etype >= 0], minlength=len(EVENT_TYPES))
    by_type = {name: int(counts[i]) for i, name in enumerate(EVENT_TYPES)}
    info = spawn_info(tb)
    tree = _spawn_tree(tb, info)
    o2 = _delegations(tb, info)
    s, d, cs, cd = dependency_edges(tb.t, tb.ekind, tb.esrc, tb.edst)
    fan_in_max, fan_in_mean = _fan_in(tb, s, d)
    rank = topo_edge_order(tb.t, s, d)
    cfwd = forward_order(rank, cs)  # one sort for both walks
    cp, cp_len = longest_chain(tb.t, tb.dur, cs, cd, rank, cfwd)
    graph = _taint(tb, s, d, rank, max_taint_paths, cfwd)
    work, basis = _work(tb, end)

    return {
        "trace_id": head.get("trace_id"),
        "task_id": head.get("task_id"),
        "system": head.get("system"),
        "topology": head.get("topology"),
        "events": n,
        "edges": tb.m,
        "events_by_type": by_type,
        **tree,
        "o1_spawns": by_type["spawn"],
        "o2_delegations": sum(o2.values()),
        "o2_by_kind": o2,
        "o3_messages": by_type["message"],
        "o4_aggregates": by_type["aggregate"],
        "o4_fan_in_max": fan_in_max,
        "o4_fan_in_mean": fan_in_mean,
        **_stop_tail(tb, s, end),
        "makespan_s": _r(float(end.max() - t.min())) if n else 0.0,
        "critical_path_s": _r(cp_len),
        "critical_path_events": len(cp),
        "critical_path": [ids[i] for i in cp],
        "total_work_s": _r(work),
        "work_basis": basis,
        # Without durations an agent's active time includes its waits (a strictly
        # turn-taking log would look parallel): the speedup is then unknown.
        "parallelism_speedup": _ratio(work, cp_len) if basis == "durations" else None,
        **_costs(head, n, tree["agents"], by_type),
        "untrusted_events": graph["untrusted"],
        "tainted_sources": graph["n_sources"],
        "taint_paths": [[ids[i] for i in p] for p in graph["paths"]],
    }


def flat_row(m: dict[str, Any]) -> dict[str, Any]:
    """The scalar metrics of one trace as a flat row (for CSV and tables)."""
    row: dict[str, Any] = {}
    for key in SCALAR_FIELDS:
        if key.startswith("events."):
            row[key] = m["events_by_type"][key[7:]]
        else:
            row[key] = m.get(key)
    return row
