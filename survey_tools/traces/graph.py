"""Graph computations that validation, metrics and decoding share: the dependency
edges, same-instant cycles, first spawns, a topological order and the critical path.

Everything here works on a :class:`~survey_tools.traces.table.Table`'s columns and
imports only the schema and the table, so the modules import one way:
schema -> table -> graph -> decode -> validate -> metrics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey_tools.traces.schema import DEPENDENCY_EDGE_TYPES
from survey_tools.traces.table import EDGE_CODE, EVENT_CODE, Table

DEP_CODES = np.array(sorted(EDGE_CODE[k] for k in DEPENDENCY_EDGE_TYPES), dtype=np.int8)


def dependency_edge_indices(ekind: np.ndarray, esrc: np.ndarray, edst: np.ndarray) -> np.ndarray:
    """Indices of the dependency edges whose both ends are events."""
    return np.flatnonzero(np.isin(ekind, DEP_CODES) & (esrc >= 0) & (edst >= 0))


@dataclass(frozen=True)
class SpawnInfo:
    """The first spawn of each spawned agent: child code, parent code, spawn event."""

    child: np.ndarray
    parent: np.ndarray
    event: np.ndarray


def spawn_info(tb: Table) -> SpawnInfo:
    sp = np.flatnonzero((tb.etype == EVENT_CODE["spawn"]) & (tb.to >= 0) & np.isfinite(tb.t))
    if sp.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return SpawnInfo(empty, empty, empty)
    order = sp[np.lexsort((sp, tb.t[sp]))]
    children, first = np.unique(tb.to[order], return_index=True)
    ev = order[first]
    return SpawnInfo(children.astype(np.int64), tb.agent[ev].astype(np.int64), ev)


def find_cycles(
    src: np.ndarray, dst: np.ndarray, edge_ids: np.ndarray
) -> list[tuple[list[int], int]]:
    """Cycles in a (small) directed graph: [(event cycle, one edge index on it)].

    Kahn's algorithm removes every node not on or downstream of a cycle; walking
    backwards along in-edges from what remains must then close a cycle.
    """
    if src.size == 0:
        return []
    s_list, d_list, e_list = src.tolist(), dst.tolist(), edge_ids.tolist()
    indeg: dict[int, int] = {}
    out: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(zip(s_list, d_list, strict=True)):
        indeg[b] = indeg.get(b, 0) + 1
        indeg.setdefault(a, 0)
        out.setdefault(a, []).append(k)
    queue = [v for v, deg in indeg.items() if deg == 0]
    while queue:
        v = queue.pop()
        for k in out.get(v, ()):
            w = d_list[k]
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    left = {v for v, deg in indeg.items() if deg > 0}
    if not left:
        return []
    into: dict[int, int] = {}  # one in-edge from a remaining node, per remaining node
    for k, (a, b) in enumerate(zip(s_list, d_list, strict=True)):
        if a in left and b in left and b not in into:
            into[b] = k
    seen: set[int] = set()
    cycles: list[tuple[list[int], int]] = []
    for start in sorted(left):
        if start in seen:
            continue
        walk: list[int] = []
        pos: dict[int, int] = {}
        v = start
        while v not in seen and v not in pos:
            pos[v] = len(walk)
            walk.append(v)
            v = s_list[into[v]]
        seen.update(walk)
        if v in pos:  # closed a new cycle (walked backwards, so reverse it)
            cyc = walk[pos[v] :][::-1]
            first = cyc.index(min(cyc))
            cyc = cyc[first:] + cyc[:first]
            edge = into[cyc[0]]
            cycles.append(([*cyc, cyc[0]], int(e_list[edge])))
    return cycles


def topo_edge_order(t: np.ndarray, s: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Dependency edges ordered so each event's in-edges come before its out-edges.

    Valid edges never go back in time, so sorting events by time is a topological
    order except among events at the same instant; those get a level from a small
    Kahn pass over the same-instant edges.
    """
    n = t.size
    level = np.zeros(n, dtype=np.int64)
    tie = t[s] == t[d]
    if tie.any():
        ts, td = s[tie].tolist(), d[tie].tolist()
        indeg: dict[int, int] = {}
        out: dict[int, list[int]] = {}
        for a, b in zip(ts, td, strict=True):
            indeg[b] = indeg.get(b, 0) + 1
            out.setdefault(a, []).append(b)
        lv = {v: 0 for v in set(ts) | set(td)}
        queue = [v for v in lv if indeg.get(v, 0) == 0]
        while queue:
            v = queue.pop()
            for w in out.get(v, ()):
                lv[w] = max(lv[w], lv[v] + 1)
                indeg[w] -= 1
                if indeg[w] == 0:
                    queue.append(w)
        keys = np.fromiter(lv.keys(), np.int64, len(lv))
        level[keys] = np.fromiter(lv.values(), np.int64, len(lv))
    order = np.lexsort((np.arange(n), level, t))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def dependency_edges(
    t: np.ndarray, ekind: np.ndarray, esrc: np.ndarray, edst: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dependency edges (s, d) and the critical path's edges (cs, cd)."""
    dep = dependency_edge_indices(ekind, esrc, edst)
    s, d = esrc[dep].astype(np.int64), edst[dep].astype(np.int64)
    # The critical path also waits on safety screens: safety_flow edges that go
    # strictly forward in time (so they cannot close a cycle) count there, not in taint.
    sf = np.flatnonzero((ekind == EDGE_CODE["safety_flow"]) & (esrc >= 0) & (edst >= 0))
    sf = sf[t[esrc[sf]] < t[edst[sf]]]
    cs = np.concatenate([s, esrc[sf].astype(np.int64)])
    cd = np.concatenate([d, edst[sf].astype(np.int64)])
    return s, d, cs, cd


def forward_order(rank: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """The edges (sources ``cs``) in the topological order of their sources, ties in edge order
    (a stable sort): the order the longest-chain and taint walks take them in."""
    return np.argsort(rank[cs], kind="stable")


def longest_chain(
    t: np.ndarray,
    dur: np.ndarray,
    cs: np.ndarray,
    cd: np.ndarray,
    rank: np.ndarray,
    cfwd: np.ndarray | None = None,
) -> tuple[list[int], float]:
    """The critical path over edges (cs, cd), given the events' topological ``rank`` (and the
    edges' :func:`forward_order`, when the caller has it)."""
    n = t.size
    end = t + np.nan_to_num(dur, nan=0.0)
    if cfwd is None:
        cfwd = forward_order(rank, cs)
    CS, CD = cs[cfwd].tolist(), cd[cfwd].tolist()

    # Critical path: the dependency chain spanning the most time, from the start of
    # its first event to the end of its last. best[v] is the earliest start of a
    # chain ending at v; among equally early chains, prefer the predecessor that
    # finished last (the one v actually waited for).
    best = t.tolist()
    endl = end.tolist()
    parent = [-1] * n
    for u, v in zip(CS, CD, strict=True):
        bu = best[u]
        bv = best[v]
        if bu < bv:
            best[v] = bu
            parent[v] = u
        elif bu == bv:
            p = parent[v]
            if p < 0 or endl[u] > endl[p]:
                parent[v] = u
    span = end - np.asarray(best)
    cp: list[int] = []
    cp_len = 0.0
    if n:
        top = float(span.max())
        cand = np.flatnonzero(span == top)
        last = int(cand[np.lexsort((cand, -end[cand]))[0]])
        v = last
        while v >= 0 and len(cp) <= n:  # (bounded: parents form no cycle in a valid trace)
            cp.append(v)
            v = parent[v]
        cp.reverse()
        cp_len = top
    return cp, cp_len
