"""Which traces of one file are one run: the joins that need no span link.

A framework that runs work on a thread or task of its own without the caller's
OpenTelemetry context (DSPy's ``Parallel``) writes that work as a trace of its own: a root
with no parent and no link. Nothing names the run it belongs to, but its shape does: **a
trace whose root lies, in time, inside the root span of another trace of the same process
is part of that run**, a child of that trace's innermost span open over all of it (a model
call excepted: it calls no one). Never joined, whatever the times:

* traces of different processes (OpenTelemetry's resource, when the file gives one:
  Phoenix's export keeps none, so nothing is joined this way there);
* a trace whose root is named as the other's root is (another run of the same entry
  point: a server answering two requests at once);
* traces whose run ids disagree (:data:`RUN_IDS`: both carry one and no value is shared);
* a trace inside two runs that do not nest in each other (it could be either's), or
  starting while more than :data:`MAX_OPEN` runs of its process are open.

Run ids that agree let a trace join a run it only starts inside (it may end later: work
the run left running). Shared ids alone join no two runs: a session or conversation id is
shared by every run of a session, and a workflow id by every run of a workflow. But **a
trace that does no work** (no agent, model call, tool call or hand-off: a workflow being
built, a session being opened) **joins the run of its process sharing a run id with it**,
the first that starts after it (else the last before): Microsoft Agent Framework's
``workflow.build`` and the ``workflow.run`` after it carry one ``workflow.id``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from survey_tools.traces.importers.spans import AGENT, HANDOFF, MODEL, TOOL, SpanRec

# Attributes naming a run, a conversation or a session: a trace carrying one value and a
# trace carrying another are not one run.
RUN_IDS = (
    "session.id",
    "gen_ai.conversation.id",
    "langfuse.session.id",
    "workflow.id",
    "thread.id",
    "thread_id",
    "conversation.id",
)


MAX_OPEN = 256


@dataclass(frozen=True)
class _Run:
    """A trace (or traces already joined): its root span, window, process and run ids."""

    key: str
    root: SpanRec
    start: int
    end: int
    process: str
    ids: frozenset[str]


def _runs(by_trace: dict[str, list[SpanRec]], find: Callable[[str], str]) -> list[_Run]:
    """One :class:`_Run` per group of traces that has a single root without links."""
    groups: dict[str, list[str]] = {}
    for tid in by_trace:
        groups.setdefault(find(tid), []).append(tid)
    out = []
    for key, members in groups.items():
        recs = [r for m in members for r in by_trace[m]]
        ids = {r.span_id for r in recs}
        roots = [r for r in recs if not r.parent_id or r.parent_id not in ids]
        if len(roots) != 1 or roots[0].links or roots[0].parent_id:
            continue  # joined by links, or orphans: not a single root of its own
        procs = {r.process for r in recs}
        if len(procs) != 1 or not roots[0].process:
            continue
        root = roots[0]
        run_ids = frozenset(i for r in recs for i in r.run_ids)
        out.append(_Run(key, root, root.start, root.end, root.process, run_ids))
    return out


def _agrees(a: _Run, b: _Run) -> bool | None:
    """True when a run id is shared, False when both carry one of a key and none is shared,
    None when their ids say nothing."""
    if a.ids & b.ids:
        return True
    keys_a = {i.partition("=")[0] for i in a.ids}
    keys_b = {i.partition("=")[0] for i in b.ids}
    return False if keys_a & keys_b else None


def _holds(host: _Run, inner: _Run) -> bool:
    if host.key == inner.key or host.process != inner.process:
        return False
    if host.root.span == inner.root.span:
        return False  # another run of the same entry point
    agree = _agrees(host, inner)
    if agree is False:
        return False
    if not host.start <= inner.start <= host.end:
        return False
    return inner.end <= host.end or agree is True


def _innermost(hosts: list[_Run]) -> _Run | None:
    """The host nested in every other one; None when two do not nest (ambiguous)."""
    best = min(hosts, key=lambda h: (h.end - h.start, h.start, h.key))
    for h in hosts:
        if not h.start <= best.start <= best.end <= h.end:
            return None
    return best


def _parent(recs: list[SpanRec], inner: _Run) -> SpanRec:
    """The innermost span of ``recs`` open over all of ``inner`` (its start, when it
    outlives them), a model call excepted."""
    end = inner.end
    spans = [r for r in recs if r.kind != MODEL and r.start <= inner.start]
    over = [r for r in spans if r.end >= end] or [r for r in spans if r.end >= inner.start]
    return min(over, key=lambda r: (r.end - r.start, -r.start, r.span_id))


def union_nested(
    by_trace: dict[str, list[SpanRec]], up: dict[str, str], find: Callable[[str], str]
) -> int:
    """Joins each trace whose root lies inside another run of its process (module
    docstring), its root made the child of that run's span open over it; returns how
    many traces were joined. Runs are swept in start order, each tried only against the
    runs still open when it starts."""
    runs = sorted(_runs(by_trace, find), key=lambda r: (r.start, r.key))
    if len(runs) < 2:
        return 0
    spans: dict[str, list[SpanRec]] = {}
    for tid, recs in by_trace.items():
        spans.setdefault(find(tid), []).extend(recs)
    joined = 0
    open_: list[_Run] = []
    for inner in runs:
        open_ = [h for h in open_ if h.end >= inner.start]
        # Past MAX_OPEN runs open at once (a server's concurrent requests), times cannot
        # single out one: none is joined by them.
        hosts = [h for h in open_ if _holds(h, inner)] if len(open_) <= MAX_OPEN else []
        open_.append(inner)
        host = _innermost(hosts) if hosts else None
        if host is None:
            continue
        into, out = find(host.key), find(inner.key)
        parent = _parent(spans[into], inner)
        inner.root.parent_id = parent.span_id
        inner.root.follows = inner.end > parent.end
        up[out] = into
        spans[into].extend(spans.pop(out, []))
        joined += 1
    return joined


_WORK = frozenset({AGENT, MODEL, TOOL, HANDOFF})


def union_idle_by_ids(
    by_trace: dict[str, list[SpanRec]], up: dict[str, str], find: Callable[[str], str]
) -> set[str]:
    """Joins each trace that does no work to the run of its process sharing a run id with
    it (module docstring); returns the traces so joined (bookkeeping of their run)."""
    groups: dict[str, list[SpanRec]] = {}
    for tid, recs in by_trace.items():
        groups.setdefault(find(tid), []).extend(recs)
    if len(groups) < 2:
        return set()
    busy: dict[tuple[str, str], list[tuple[int, str]]] = {}  # (process, id) -> runs
    idle_runs: list[tuple[str, int, str, frozenset[str]]] = []
    for g, recs in groups.items():
        procs = {r.process for r in recs}
        ids = frozenset(i for r in recs for i in r.run_ids)
        if len(procs) != 1 or "" in procs or not ids:
            continue
        proc, start = next(iter(procs)), min(r.start for r in recs)
        if any(r.kind in _WORK for r in recs):
            for i in ids:
                busy.setdefault((proc, i), []).append((start, g))
        else:
            idle_runs.append((g, start, proc, ids))
    idle: set[str] = set()
    for g, start, proc, ids in idle_runs:
        runs = sorted({run for i in ids for run in busy.get((proc, i), ())})
        if not runs:
            continue
        later = [h for t, h in runs if t >= start]
        up[g] = later[0] if later else runs[-1][1]
        idle.add(g)
    return {tid for tid in by_trace if tid in idle}
