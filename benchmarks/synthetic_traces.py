"""Synthetic orchestration traces of any size, for benchmarks and property tests
(test data, not part of the package).

The generator imitates a two-level hierarchy: an orchestrator spawns leads, each lead
spawns workers, workers call tools, message siblings and return; the orchestrator
aggregates once and stops. Untrusted tool results are mostly screened by a safety
event, and a few are not, so the taint metric has something to find. Every trace it
makes is valid, and the same arguments always give the same bytes.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from survey_tools.fileio import atomic_write
from survey_tools.traces.schema import SCHEMA_VERSION

TOOLS = ("web.search", "web.fetch", "python.exec", "file.read", "calculator")
UNTRUSTED_TOOLS = frozenset({"web.search", "web.fetch"})


@dataclass(frozen=True)
class SynthParams:
    n_events: int = 10_000
    n_agents: int = 200
    seed: int = 0
    # Share of untrusted tool results that are *not* screened by a safety event.
    unscreened: float = 0.02
    # Share of worker steps that message a sibling instead of calling a tool.
    message_share: float = 0.2
    # False leaves out the final ``stop`` event (the survey's reference validator does
    # not know that event type); the other events and the random draws stay the same.
    stop: bool = True


def _r3(x: float) -> float:
    # Millisecond resolution keeps the JSON short and the output byte-stable.
    return round(x, 3)


def generate(params: SynthParams = SynthParams()) -> dict[str, Any]:
    """Build a valid trace with about ``params.n_events`` events."""
    rng = random.Random(params.seed)
    n_agents = max(2, params.n_agents)
    n_leads = max(1, n_agents // 20)
    n_workers = max(1, n_agents - 1 - n_leads)
    leads = [f"lead_{i:03d}" for i in range(n_leads)]
    workers = [f"worker_{i:04d}" for i in range(n_workers)]
    lead_of = {w: leads[i % n_leads] for i, w in enumerate(workers)}

    # Raw events are (t, seq, fields) so that sorting by time is stable and total.
    raw: list[list[Any]] = []
    edges_raw: list[tuple[int, int, str]] = []
    timeline: dict[str, list[tuple[float, int]]] = {}

    def add(t: float, **fields: Any) -> int:
        k = len(raw)
        fields["t"] = _r3(t)
        raw.append([fields["t"], k, fields])
        timeline.setdefault(fields["agent"], []).append((fields["t"], k))
        return k

    def edge(a: int, b: int, kind: str) -> None:
        edges_raw.append((a, b, kind))

    overhead = 1 + 2 * (n_leads + n_workers) + n_leads + 2 + (n_leads + n_workers)
    budget = max(n_workers * 2, params.n_events - overhead)
    per_worker = max(2, budget // n_workers)
    extra = max(0, budget - per_worker * n_workers)

    root = add(
        0.0,
        type="orchestrator_decision",
        agent="orchestrator",
        role="lead",
        to=leads[0],
        content_ref="sha256-plan",
        duration_s=0.2,
    )
    lead_spawn: dict[str, int] = {}
    t = 0.2
    for lead in leads:
        s = add(t, type="spawn", agent="orchestrator", to=lead, role="lead", duration_s=0.01)
        edge(root, s, "causal")
        lead_spawn[lead] = s
        t += 0.01
    worker_spawn: dict[str, int] = {}
    lead_clock = {lead: raw[lead_spawn[lead]][0] + 0.05 for lead in leads}
    for w in workers:
        lead = lead_of[w]
        s = add(lead_clock[lead], type="spawn", agent=lead, to=w, role="worker", duration_s=0.01)
        edge(lead_spawn[lead], s, "spawn")
        worker_spawn[w] = s
        lead_clock[lead] += 0.01

    messages: list[tuple[int, str]] = []
    worker_return: dict[str, int] = {}
    for wi, w in enumerate(workers):
        n_here = per_worker + (1 if wi < extra else 0)
        clock = raw[worker_spawn[w]][0] + 0.05
        prev = worker_spawn[w]
        prev_kind = "spawn"
        left = n_here - 1  # the return
        while left > 0:
            if left >= 2 and rng.random() >= params.message_share:
                tool = TOOLS[rng.randrange(len(TOOLS))]
                dur = _r3(rng.uniform(0.05, 1.5))
                call = add(
                    clock,
                    type="tool_call",
                    agent=w,
                    tool=tool,
                    role="worker",
                    content_ref=f"sha256-q{len(raw)}",
                    duration_s=dur,
                    trusted=True,
                )
                edge(prev, call, prev_kind)
                clock += dur
                untrusted = tool in UNTRUSTED_TOOLS
                res = add(
                    clock,
                    type="tool_result",
                    agent=w,
                    tool=tool,
                    content_ref=f"sha256-r{len(raw)}",
                    duration_s=0.01,
                    trusted=not untrusted,
                )
                edge(call, res, "tool_dependency")
                clock += 0.01 + rng.uniform(0.0, 0.2)
                left -= 2
                prev, prev_kind = res, "causal"
                if untrusted and left >= 2 and rng.random() >= params.unscreened:
                    guard = add(
                        clock,
                        type="safety_event",
                        agent=w,
                        role="guard",
                        content_ref="screened",
                        duration_s=0.02,
                    )
                    edge(res, guard, "safety_flow")
                    clock += 0.02
                    left -= 1
                    prev, prev_kind = guard, "safety_flow"
            else:
                peer = workers[rng.randrange(n_workers)]
                msg = add(
                    clock,
                    type="message",
                    agent=w,
                    to=peer,
                    role="worker",
                    content_ref=f"sha256-m{len(raw)}",
                    duration_s=0.05,
                    trusted=True,
                )
                raw[msg][2]["from"] = w
                edge(prev, msg, prev_kind)
                messages.append((msg, peer))
                clock += 0.05 + rng.uniform(0.0, 0.3)
                left -= 1
                prev, prev_kind = msg, "causal"
        ret = add(
            clock,
            type="return",
            agent=w,
            to=lead_of[w],
            role="worker",
            content_ref=f"sha256-a{len(raw)}",
            duration_s=0.05,
            trusted=True,
        )
        raw[ret][2]["from"] = w
        edge(prev, ret, prev_kind)
        worker_return[w] = ret

    # A message is consumed by the recipient's next event after it arrives.
    for msg, peer in messages:
        tl = timeline[peer]
        mt = raw[msg][0]
        j = bisect.bisect_right(tl, (mt, len(raw)))
        if j < len(tl):
            edge(msg, tl[j][1], "message")

    lead_return: dict[str, int] = {}
    for lead in leads:
        mine = [worker_return[w] for w in workers if lead_of[w] == lead]
        t_ret = max(raw[k][0] for k in mine) + 0.1 if mine else lead_clock[lead]
        ret = add(
            t_ret,
            type="return",
            agent=lead,
            to="orchestrator",
            role="lead",
            content_ref=f"sha256-l{len(raw)}",
            duration_s=0.05,
            trusted=True,
        )
        raw[ret][2]["from"] = lead
        for k in mine:
            edge(k, ret, "return")
        lead_return[lead] = ret
    t_agg = max(raw[k][0] for k in lead_return.values()) + 0.2
    agg = add(
        t_agg,
        type="aggregate",
        agent="orchestrator",
        role="lead",
        content_ref="sha256-final",
        duration_s=0.5,
    )
    for ret in lead_return.values():
        edge(ret, agg, "aggregate")
    t_stop = _r3(t_agg + 0.5 + rng.uniform(0.0, 2.0))
    if params.stop:
        stop = add(t_stop, type="stop", agent="orchestrator", role="lead", duration_s=0.0)
        edge(agg, stop, "causal")
    t_end = t_stop + 0.01
    for w in workers:
        add(t_end, type="despawn", agent=lead_of[w], to=w, duration_s=0.0)
    for lead in leads:
        add(t_end + 0.01, type="despawn", agent="orchestrator", to=lead, duration_s=0.0)

    raw.sort(key=lambda r: (r[0], r[1]))
    new_id = {r[1]: f"e{i}" for i, r in enumerate(raw)}
    events: list[dict[str, Any]] = []
    for r in raw:
        fields = r[2]
        ev: dict[str, Any] = {"id": new_id[r[1]], "t": fields.pop("t")}
        ev.update(fields)
        events.append(ev)
    edges = [{"src": new_id[a], "dst": new_id[b], "type": kind} for a, b, kind in edges_raw]
    edges.sort(key=lambda e: (int(e["src"][1:]), int(e["dst"][1:]), e["type"]))
    n_tool_calls = sum(1 for e in events if e["type"] == "tool_call")
    n_messages = sum(1 for e in events if e["type"] == "message")
    return {
        "schema_version": SCHEMA_VERSION,
        "trace_id": f"synthetic-{params.n_events}-{params.seed}",
        "task_id": "synthetic-task",
        "system": "survey-tools synthetic generator",
        "topology": "hierarchical",
        "events": events,
        "edges": edges,
        "rewards": {"team": 1.0, "tool": 0.5},
        "costs": {
            "tokens": 150 * len(events),
            "wall_clock_s": _r3(events[-1]["t"]),
            "tool_calls": n_tool_calls,
            "messages": n_messages,
        },
    }


def iter_json_chunks(trace: dict[str, Any]) -> Iterator[bytes]:
    """Serialise ``trace`` one event or edge per line, without one giant bytes object."""
    head = {k: v for k, v in trace.items() if k not in ("events", "edges")}
    yield b"{\n"
    for k, v in head.items():
        yield orjson.dumps(k) + b": " + orjson.dumps(v) + b",\n"
    for key in ("events", "edges"):
        yield orjson.dumps(key) + b": [\n"
        items = trace[key]
        for i, item in enumerate(items):
            yield orjson.dumps(item) + (b",\n" if i + 1 < len(items) else b"\n")
        yield b"]" + (b",\n" if key == "events" else b"\n")
    yield b"}\n"


def write(path: Path | str, params: SynthParams = SynthParams()) -> Path:
    """Write a synthetic trace to ``path`` (atomically) and return the path."""
    path = Path(path)
    atomic_write(path, b"".join(iter_json_chunks(generate(params))))
    return path
