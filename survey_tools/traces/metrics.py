"""Metrics computed from a valid trace (definitions in docs/traces.md).

Everything is computed from the events and the dependency edges (causal, spawn,
message, return, tool_dependency, aggregate); the ``metrics`` a trace carries are
the producing system's own claims and are not used.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from survey_tools.traces.graph import dependency_edges, longest_chain, spawn_info, topo_edge_order
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
    tb: Table, s: np.ndarray, d: np.ndarray, rank: np.ndarray, max_paths: int
) -> dict[str, Any]:
    """Taint over dependency edges (s, d)."""
    n = tb.n
    t = tb.t
    # Safety taint along dependency edges; a safety_event stops it.
    untrusted = np.flatnonzero(tb.trusted == 0)
    safety = (tb.etype == EVENT_CODE["safety_event"]).tolist()
    sink = (tb.etype == EVENT_CODE["aggregate"]) | (tb.etype == EVENT_CODE["stop"])
    paths: list[list[int]] = []
    n_sources = 0
    if untrusted.size and sink.any():
        fwd = np.argsort(rank[s], kind="stable")
        S, D = s[fwd].tolist(), d[fwd].tolist()
        tainted = [False] * n
        for i in untrusted.tolist():
            tainted[i] = not safety[i]
        for u, v in zip(S, D, strict=True):
            if tainted[u] and not tainted[v] and not safety[v]:
                tainted[v] = True
        # Backwards: which tainted events reach a sink through tainted events.
        reach = (sink & np.asarray(tainted, dtype=bool)).tolist()
        nxt = [-1] * n
        bwd = np.argsort(-rank[d], kind="stable")
        for u, v in zip(s[bwd].tolist(), d[bwd].tolist(), strict=True):
            if reach[v] and tainted[u] and not reach[u]:
                reach[u] = True
                nxt[u] = v
        sources = [i for i in untrusted.tolist() if reach[i]]
        sources.sort(key=lambda i: (t[i], i))
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


def compute(trace: Trace, *, max_taint_paths: int = DEFAULT_MAX_TAINT_PATHS) -> dict[str, Any]:
    """All metrics of one valid trace, as an ordered, JSON-ready dict."""
    tb = trace.table
    head = trace.head
    ids = tb.ids
    names = tb.names.names
    n = tb.n
    code = EVENT_CODE
    et = tb.etype
    t = tb.t
    end = t + np.nan_to_num(tb.dur, nan=0.0)
    n_names = len(names)

    counts = np.bincount(et[et >= 0], minlength=len(EVENT_TYPES))
    by_type = {name: int(counts[i]) for i, name in enumerate(EVENT_TYPES)}

    # Agents: everyone who acts or is spawned, but not a tool answering as itself.
    tool_voice = (et == code["tool_result"]) & (tb.agent == tb.tool)
    actors = set(np.unique(tb.agent[~tool_voice & (tb.agent >= 0)]).tolist())
    info = spawn_info(tb)
    actors |= set(info.child.tolist())
    n_agents = len(actors)

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
    spawn_depth = max(depth_of.values(), default=0)
    fan = np.bincount(info.parent[info.parent >= 0], minlength=1) if info.parent.size else None
    max_fan_out = int(fan.max()) if fan is not None and fan.size else 0

    spawns = np.flatnonzero((et == code["spawn"]) & (tb.to >= 0))
    last_spawn = np.full(n_names + 1, -np.inf)
    np.maximum.at(last_spawn, tb.to[spawns], t[spawns])
    desp = np.flatnonzero(et == code["despawn"])
    target = np.where(tb.to[desp] >= 0, tb.to[desp], tb.agent[desp])
    last_desp = np.full(n_names + 1, -np.inf)
    np.maximum.at(last_desp, target, t[desp])
    children = info.child
    despawned = int(np.count_nonzero(last_desp[children] >= last_spawn[children]))

    # O2: decisions that name another agent, spawns whose agent then works, and
    # messages from a parent to the agent it spawned.
    o2_decision = int(
        np.count_nonzero((et == code["orchestrator_decision"]) & (tb.to >= 0) & (tb.to != tb.agent))
    )
    last_act = np.full(n_names + 1, -np.inf)
    acting = tb.agent >= 0
    np.maximum.at(last_act, tb.agent[acting], t[acting])
    o2_spawn = int(np.count_nonzero(last_act[tb.to[spawns]] >= t[spawns])) if spawns.size else 0
    parent_of = np.full(n_names + 1, -2, dtype=np.int64)
    parent_of[info.child] = info.parent
    msgs = (et == code["message"]) & (tb.to >= 0)
    o2_parent_msg = int(
        np.count_nonzero(msgs & (parent_of[np.where(tb.to >= 0, tb.to, n_names)] == tb.agent))
    )

    s, d, cs, cd = dependency_edges(tb.t, tb.ekind, tb.esrc, tb.edst)

    aggs = np.flatnonzero(et == code["aggregate"])
    if aggs.size:
        into = np.isin(d, aggs)
        # Distinct (aggregate, source) pairs: two edges from one event count once.
        pairs = np.unique(d[into] * np.int64(n) + s[into])
        fan_in = np.bincount(pairs // max(n, 1), minlength=n)[aggs]
        fan_in_max, fan_in_mean = int(fan_in.max()), _r(float(fan_in.mean()))
    else:
        fan_in_max, fan_in_mean = 0, None

    stops = np.flatnonzero(et == code["stop"])
    stop_t = idle = None
    last_ret_id = None
    if stops.size:
        stop_t = float(t[stops].min())
        rets = np.flatnonzero((et == code["return"]) & (t <= stop_t))
        has_out = np.zeros(n, dtype=bool)
        has_out[s] = True
        useful = rets[has_out[rets]] if has_out[rets].any() else rets
        if useful.size:
            k = int(useful[np.lexsort((useful, end[useful]))[-1]])
            last_ret_id = ids[k]
            idle = max(0.0, stop_t - float(end[k]))

    rank = topo_edge_order(tb.t, s, d)
    cp, cp_len = longest_chain(tb.t, tb.dur, cs, cd, rank)
    graph = _taint(tb, s, d, rank, max_taint_paths)

    if n and np.any(~np.isnan(tb.dur)):
        work = float(np.nansum(tb.dur))
        basis = "durations"
    else:
        lo = np.full(n_names + 1, np.inf)
        hi = np.full(n_names + 1, -np.inf)
        np.minimum.at(lo, tb.agent[acting], t[acting])
        np.maximum.at(hi, tb.agent[acting], end[acting])
        seen = np.isfinite(lo)
        work = float((hi[seen] - lo[seen]).sum())
        basis = "agent_active_time"

    costs = head.get("costs", {})
    tokens = costs.get("tokens", 0)
    wall = costs.get("wall_clock_s", 0)
    rewards = head.get("rewards", {})
    channel = "team" if "team" in rewards else (next(iter(rewards)) if len(rewards) == 1 else None)
    reward = rewards.get(channel) if channel else None
    tool_calls = by_type["tool_call"]
    n_msgs = by_type["message"]

    out: dict[str, Any] = {
        "trace_id": head.get("trace_id"),
        "task_id": head.get("task_id"),
        "system": head.get("system"),
        "topology": head.get("topology"),
        "events": n,
        "edges": tb.m,
        "events_by_type": by_type,
        "agents": n_agents,
        "spawned_agents": int(children.size),
        "spawn_tree_depth": spawn_depth,
        "max_fan_out": max_fan_out,
        "despawned_agents": despawned,
        "alive_at_end": int(children.size) - despawned,
        "o1_spawns": by_type["spawn"],
        "o2_delegations": o2_decision + o2_spawn + o2_parent_msg,
        "o2_by_kind": {"decision": o2_decision, "spawn": o2_spawn, "parent_message": o2_parent_msg},
        "o3_messages": n_msgs,
        "o4_aggregates": by_type["aggregate"],
        "o4_fan_in_max": fan_in_max,
        "o4_fan_in_mean": fan_in_mean,
        "o5_stop_t": _r(stop_t),
        "o5_last_useful_return": last_ret_id,
        "o5_idle_tail_s": _r(idle),
        "makespan_s": _r(float(end.max() - t.min())) if n else 0.0,
        "critical_path_s": _r(cp_len),
        "critical_path_events": len(cp),
        "critical_path": [ids[i] for i in cp],
        "total_work_s": _r(work),
        "work_basis": basis,
        # Without durations an agent's active time includes its waits (a strictly
        # turn-taking log would look parallel): the speedup is then unknown.
        "parallelism_speedup": _ratio(work, cp_len) if basis == "durations" else None,
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
        "untrusted_events": graph["untrusted"],
        "tainted_sources": graph["n_sources"],
        "taint_paths": [[ids[i] for i in p] for p in graph["paths"]],
    }
    return out


def flat_row(m: dict[str, Any]) -> dict[str, Any]:
    """The scalar metrics of one trace as a flat row (for CSV and tables)."""
    row: dict[str, Any] = {}
    for key in SCALAR_FIELDS:
        if key.startswith("events."):
            row[key] = m["events_by_type"][key[7:]]
        else:
            row[key] = m.get(key)
    return row
