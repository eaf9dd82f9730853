"""Validate a trace: the JSON Schema, then the graph the events and edges form.

Graph checks (each problem carries its JSON path and, where there is one, the id
of the event it concerns; the tag in brackets names the check):

* ``duplicate-id``: event ids are unique;
* ``dangling-edge``: every edge endpoint is an event id;
* ``edge-time``: causal, spawn, message, return, tool_dependency and aggregate edges
  do not go back in time;
* ``cycle``: those edges form no cycle (only edges between events at the same
  instant can, since the others go strictly forward);
* ``before-spawn``: a spawned agent does nothing before its (first) spawn;
* ``return-target``: a ``return`` goes to the agent that spawned its sender, unless
  the event gives a ``reason``;
* ``tool-result``: a ``tool_result`` answers an earlier ``tool_call`` of the same tool
  (by ``call_id`` when the result has one, else first-in first-out per tool);
* ``after-stop``: nothing but ``despawn`` follows the first ``stop``.

Numbers are finite (the parser rejects NaN, Infinity and overflowing literals) and
costs non-negative (the schema).
"""

from __future__ import annotations

import json
import mmap
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from operator import is_not
from pathlib import Path
from typing import Any

import jsonschema_rs
import numpy as np

from survey_tools.heap import leave_to_exit, release_left
from survey_tools.schema_words import Vocabulary, explain_all
from survey_tools.schema_words import json_short as _short
from survey_tools.traces.decode import Decoded, decode
from survey_tools.traces.graph import dependency_edge_indices, find_cycles, spawn_info
from survey_tools.traces.limits import DEFAULT_LIMITS, Buffer, Limits, size_problem
from survey_tools.traces.problems import TraceReport, json_path
from survey_tools.traces.schema import EDGE_TYPES, EVENT_TYPES, compiled_validator, schema
from survey_tools.traces.table import EVENT_CODE, Table

DEFAULT_LIMIT = 1000


@dataclass
class Trace:
    """A trace that was read (and checked); ``report.ok`` says whether it is valid."""

    file: str
    head: dict[str, Any]
    table: Table
    report: TraceReport


# ---------------------------------------------------------------------------
# schema


# A trace's wording of schema errors (the one explainer's table, schema_words.KEYWORDS, in
# JSON's words: an integer, an array, an object, null), as data.
TRACE_WORDS = Vocabulary(
    templates={
        "required": "missing required field {short}",
        "type": "must be {want}, not {got}",
        "enum": "{value} is not one of: {choices}",
        "minimum": "must be >= {limit}, got {value}",
        "exclusiveMinimum": "must be >= {limit}, got {value}",
        "maxLength": "is longer than {limit} characters ({length})",
        "minLength": "is shorter than {limit}",
        "additionalProperties": "unknown field",
        "fallback": "{message_short}",
    },
    worded=frozenset(
        {
            "required",
            "type",
            "enum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "additionalProperties",
        }
    ),
    type_names={
        "number": "a number",
        "integer": "an integer",
        "string": "a string",
        "object": "an object",
        "array": "an array",
        "boolean": "a boolean",
        "null": "null",
    },
    value_kinds={
        "null": "null",
        "boolean": "a boolean",
        "integer": "an integer",
        "number": "a number",
        "nonfinite": "a non-finite number",
        "string": "a string",
        "array": "an array",
        "object": "an object",
        "other": "an object",
    },
    json_values=True,
    keys_together=True,
)


def _event_id(doc_events: Any, parts: list[Any]) -> str:
    if (
        len(parts) >= 2
        and parts[0] == "events"
        and isinstance(parts[1], int)
        and isinstance(doc_events, list)
        and 0 <= parts[1] < len(doc_events)
    ):
        ev = doc_events[parts[1]]
        if isinstance(ev, dict) and isinstance(ev.get("id"), str):
            return str(ev["id"])[:256]
    return ""


def _schema_errors(instance: Any, validator: Any) -> list[tuple[list[Any], str]]:
    said, _ = explain_all(validator.iter_errors(instance), TRACE_WORDS)
    return [(list(s.path), s.message) for s in said]


_EVENT_VALIDATOR: Any = None


def _event_validator() -> Any:
    global _EVENT_VALIDATOR
    if _EVENT_VALIDATOR is None:
        full = schema()
        sub = {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": "#/$defs/event"}
        _EVENT_VALIDATOR = jsonschema_rs.validator_for(sub)
    return _EVENT_VALIDATOR


def check_schema(dec: Decoded, report: TraceReport) -> None:
    if dec.typed:
        # Events and edges already passed their definitions; check the rest.
        doc = dict(dec.head, events=[], edges=[])
        for parts, msg in _schema_errors(doc, compiled_validator()):
            report.add(json_path(parts), msg, "schema")
        for i, ev in sorted(dec.recheck.items()):
            for parts, msg in _schema_errors(ev, _event_validator()):
                report.add(json_path(["events", i, *parts]), msg, "schema", str(ev.get("id")))
        return
    events = dec.doc.get("events") if isinstance(dec.doc, dict) else None
    for parts, msg in _schema_errors(dec.doc, compiled_validator()):
        report.add(json_path(parts), msg, "schema", _event_id(events, parts))


# ---------------------------------------------------------------------------
# graph


def _fmt_t(x: float) -> str:
    return f"{x:g}"


class _Checker:
    def __init__(self, tb: Table, report: TraceReport) -> None:
        self.tb = tb
        self.r = report
        self.valid_t = np.isfinite(tb.t)

    def eid(self, i: int) -> str:
        v = self.tb.ids[i]
        return v if isinstance(v, str) else ""

    def name(self, code: int) -> str:
        return self.tb.names.names[code] if code >= 0 else "?"

    def run(self) -> None:
        self.duplicate_ids()
        self.dangling_edges()
        self.edge_time_and_cycles()
        self.spawns_and_returns()
        self.tool_results()
        self.after_stop()

    def duplicate_ids(self) -> None:
        tb = self.tb
        first = tb.first
        for i in np.flatnonzero((first != np.arange(tb.n)) & (first >= 0)).tolist():
            self.r.add(
                f"$.events[{i}].id",
                f"duplicate event id (first used at $.events[{int(first[i])}])",
                "duplicate-id",
                self.eid(i),
            )

    def dangling_edges(self) -> None:
        tb = self.tb
        for end, idx, raw in (("src", tb.esrc, tb.src_ids), ("dst", tb.edst, tb.dst_ids)):
            for j in np.flatnonzero(idx < 0).tolist():
                if raw[j] is None:
                    continue  # not a string: the schema has said so
                what = "source" if end == "src" else "target"
                self.r.add(
                    f"$.edges[{j}].{end}",
                    f"edge {what} {_short(raw[j])} is not the id of any event",
                    "dangling-edge",
                )

    def _dep_edges(self) -> np.ndarray:
        tb = self.tb
        return dependency_edge_indices(tb.ekind, tb.esrc, tb.edst)

    def edge_time_and_cycles(self) -> None:
        tb = self.tb
        dep = self._dep_edges()
        s, d = tb.esrc[dep], tb.edst[dep]
        ts, td = tb.t[s], tb.t[d]
        back = ts > td
        for k in np.flatnonzero(back).tolist():
            j = int(dep[k])
            self.r.add(
                f"$.edges[{j}]",
                f"{EDGE_TYPES[tb.ekind[j]]} edge goes back in time: "
                f"{_short(self.eid(int(s[k])))} at t={_fmt_t(ts[k])} -> "
                f"{_short(self.eid(int(d[k])))} at t={_fmt_t(td[k])}",
                "edge-time",
                self.eid(int(d[k])),
            )
        tie = ~(ts < td) & ~back
        for cycle, j in find_cycles(s[tie], d[tie], dep[tie]):
            ids = " -> ".join(self.eid(i) for i in cycle)
            self.r.add(
                f"$.edges[{j}]",
                f"dependency cycle: {ids}",
                "cycle",
                self.eid(cycle[0]),
            )

    def spawns_and_returns(self) -> None:
        tb = self.tb
        info = spawn_info(tb)
        if info.child.size == 0:
            return
        n_names = len(tb.names.names)
        first_t = np.full(n_names + 1, -np.inf)  # never spawned: no constraint
        first_t[info.child] = tb.t[info.event]
        acting = (tb.agent >= 0) & self.valid_t
        early = np.flatnonzero(acting & (tb.t < first_t[tb.agent]))
        spawn_event = np.full(n_names + 1, -1, dtype=np.int64)
        spawn_event[info.child] = info.event
        for i in early.tolist():
            a = int(tb.agent[i])
            self.r.add(
                f"$.events[{i}].t",
                f"agent {_short(self.name(a))} acts at t={_fmt_t(tb.t[i])} before it is "
                f"spawned at t={_fmt_t(first_t[a])} (event {self.eid(int(spawn_event[a]))})",
                "before-spawn",
                self.eid(i),
            )
        spawner = np.full(n_names + 1, -1, dtype=np.int64)
        spawner[info.child] = info.parent
        ret = (tb.etype == EVENT_CODE["return"]) & (tb.to >= 0) & (tb.agent >= 0)
        parent = spawner[np.where(tb.agent >= 0, tb.agent, n_names)]
        bad = ret & (parent >= 0) & (tb.to != parent) & ~tb.has_reason
        for i in np.flatnonzero(bad).tolist():
            self.r.add(
                f"$.events[{i}].to",
                f"return goes to {_short(self.name(int(tb.to[i])))}, but "
                f"{_short(self.name(int(tb.agent[i])))} was spawned by "
                f"{_short(self.name(int(parent[i])))}; give a reason if this is intended",
                "return-target",
                self.eid(i),
            )

    def tool_results(self) -> None:
        tb = self.tb
        for i, msg in pair_tools(tb).problems:
            self.r.add(f"$.events[{i}]", msg, "tool-result", self.eid(i))

    def after_stop(self) -> None:
        tb = self.tb
        stops = np.flatnonzero((tb.etype == EVENT_CODE["stop"]) & self.valid_t)
        if stops.size == 0:
            return
        first = int(stops[np.argmin(tb.t[stops])])
        t_stop = tb.t[first]
        late = (tb.t > t_stop) & (tb.etype != EVENT_CODE["despawn"]) & (tb.etype >= 0)
        for i in np.flatnonzero(late).tolist():
            self.r.add(
                f"$.events[{i}].t",
                f"{EVENT_TYPES[tb.etype[i]]} at t={_fmt_t(tb.t[i])} after the stop at "
                f"t={_fmt_t(t_stop)} (event {self.eid(first)}); only despawn may follow a stop",
                "after-stop",
                self.eid(i),
            )


@dataclass
class ToolPairs:
    """Which tool_call each answered tool_result answers, and the problems.

    ``results[i]`` answers ``calls[i]`` (event indices); kept as arrays because a
    million-event trace has hundreds of thousands of pairs.
    """

    results: np.ndarray
    calls: np.ndarray
    problems: list[tuple[int, str]]

    @property
    def call_of(self) -> dict[int, int]:
        return dict(zip(self.results.tolist(), self.calls.tolist(), strict=True))


def pair_tools(tb: Table) -> ToolPairs:
    """Each tool_result with the tool_call it answers: by ``call_id`` where it has one, else
    the oldest unanswered earlier call of its tool."""
    call_code, res_code = EVENT_CODE["tool_call"], EVENT_CODE["tool_result"]
    ok = np.isfinite(tb.t) & (tb.tool >= 0)
    calls = np.flatnonzero((tb.etype == call_code) & ok)
    results = np.flatnonzero((tb.etype == res_code) & ok)
    # Most traces name no call ids: a count (identity checks) instead of a pass building flags.
    if tb.call_id.count(None) == len(tb.call_id):
        cid_arr = np.zeros(len(tb.call_id), dtype=bool)
    else:
        cid_arr = np.fromiter(map(is_not, tb.call_id, repeat(None)), bool, len(tb.call_id))
    problems: list[tuple[int, str]] = []
    by_id_r, by_id_c = _pair_by_id(tb, calls, results[cid_arr[results]], cid_arr, problems)
    fifo_results, fifo_pairs = _pair_in_order(
        tb, calls[~cid_arr[calls]], results[~cid_arr[results]], problems
    )
    return ToolPairs(
        np.concatenate([by_id_r, fifo_results.astype(np.int64)]),
        np.concatenate([by_id_c, fifo_pairs.astype(np.int64)]),
        problems,
    )


def _pair_by_id(
    tb: Table,
    calls: np.ndarray,
    named: np.ndarray,
    cid_arr: np.ndarray,
    problems: list[tuple[int, str]],
) -> tuple[np.ndarray, np.ndarray]:
    """Results naming a ``call_id`` (``named``) with the first call of that id; a result whose
    call is missing, of another tool or later than it is a problem."""
    cid, names = tb.call_id, tb.names.names
    rev = calls[cid_arr[calls]].tolist()[::-1]
    # Built from the end, so the first call with an id wins.
    by_id: dict[str, int] = dict(zip(map(cid.__getitem__, rev), rev, strict=True))
    keys = list(map(cid.__getitem__, named.tolist()))
    matched = np.fromiter(map(by_id.get, keys, repeat(-1)), np.int64, len(keys))
    safe = np.maximum(matched, 0)
    missing = matched < 0
    wrong_tool = ~missing & (tb.tool[safe] != tb.tool[named])
    too_late = ~missing & ~wrong_tool & (tb.t[safe] > tb.t[named])
    good = ~(missing | wrong_tool | too_late)
    for k in np.flatnonzero(~good).tolist():
        r, c = int(named[k]), int(matched[k])
        if missing[k]:
            msg = f"tool_result names call_id {_short(cid[r])}, which no tool_call has"
        elif wrong_tool[k]:
            msg = (
                f"tool_result of {_short(names[tb.tool[r]])} answers call "
                f"{_short(cid[r])} of tool {_short(names[tb.tool[c]])}"
            )
        else:
            msg = (
                f"tool_result at t={_fmt_t(tb.t[r])} comes before its "
                f"tool_call at t={_fmt_t(tb.t[c])}"
            )
        problems.append((r, msg))
    return named[good], matched[good]


def _pair_in_order(
    tb: Table, fifo_calls: np.ndarray, fifo_res: np.ndarray, problems: list[tuple[int, str]]
) -> tuple[np.ndarray, np.ndarray]:
    """Results without a call id: each answers the oldest unanswered earlier call of its tool.

    Per tool, walk calls (+1) and results (-1) in time order; the number of unanswered calls
    is that walk clamped at zero, which is the plain prefix sum minus its running minimum, so
    the whole matching runs vectorised.
    """
    if not fifo_res.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    names = tb.names.names
    seq = np.concatenate([fifo_calls, fifo_res])
    is_res = np.concatenate([np.zeros(fifo_calls.size, bool), np.ones(fifo_res.size, bool)])
    # By tool, then time, then calls before results, then event order: the last two are the
    # order ``seq`` is built in (calls, then results, each in event order), which lexsort's
    # stable passes keep among ties, so only tool and time are sorted (0.034 s against 0.044 s
    # for four keys on the 1M-event trace's 755,000 tool events; TRACES.md, round 10).
    order = np.lexsort((tb.t[seq], tb.tool[seq]))
    seq, is_res = seq[order], is_res[order]
    tool = tb.tool[seq].astype(np.int64)
    start = np.searchsorted(tool, tool, side="left")  # first position of each tool
    step = np.where(is_res, -1, 1)
    total = np.cumsum(step)
    local = total - (total[start] - step[start])  # prefix sum within the tool
    # Running minimum within each tool: shift each tool's values below all earlier
    # tools' so one global running minimum never looks across a tool boundary.
    big = np.int64(4 * (seq.size + 1))
    group = np.cumsum(np.r_[True, tool[1:] != tool[:-1]]) - 1
    run_min = np.minimum.accumulate(local - group * big) + group * big
    waiting = local - np.minimum(run_min, 0)  # unanswered calls after each step
    before = np.where(start == np.arange(seq.size), 0, np.r_[0, waiting[:-1]])
    answered = is_res & (before >= 1)
    # The j-th answered result of a tool takes the tool's j-th call.
    calls_in_order = seq[~is_res]
    calls_before: np.ndarray = np.cumsum(~is_res) - (~is_res)
    res_rank: np.ndarray = np.cumsum(answered) - answered
    first_call = calls_before[start]
    first_res: np.ndarray = res_rank[start]
    pick = first_call + (res_rank - first_res)
    for k in np.flatnonzero(is_res & ~answered).tolist():
        r = int(seq[k])
        problems.append(
            (
                r,
                f"tool_result of {_short(names[tb.tool[r]])} at "
                f"t={_fmt_t(tb.t[r])} answers no earlier, unanswered "
                f"tool_call of that tool",
            )
        )
    return seq[answered], calls_in_order[pick[answered]]


# ---------------------------------------------------------------------------
# entry points


def check_graph(table: Table, report: TraceReport) -> None:
    _Checker(table, report).run()


def _run(
    read: Callable[[], Buffer], name: str, limit: int, limits: Limits = DEFAULT_LIMITS
) -> tuple[TraceReport, Trace | None]:
    # The previous trace's objects, left to the survey process's exit, go before the next is
    # read: a batch holds one trace at a time (heap.py).
    release_left()
    report = TraceReport(file=name, limit=limit)
    dec = decode(read, report, limits)
    if dec is None:
        return report, None
    report.events, report.edges = dec.table.n, dec.table.m
    check_schema(dec, report)
    check_graph(dec.table, report)
    trace = Trace(file=name, head=dec.head, table=dec.table, report=report)
    leave_to_exit(trace)
    return report, trace


def check_file(
    path: Path | str,
    *,
    limit: int = DEFAULT_LIMIT,
    name: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[TraceReport, Trace | None]:
    """Validate one trace file; the trace is ``None`` when it is not even a JSON object.

    A file larger than ``limits.max_bytes`` is refused without being read.
    """
    path = Path(path)
    label = name if name is not None else str(path)

    def read() -> Buffer:
        # Mapped rather than read: no copy of a 200 MB file on the heap, and a fraction
        # of the page faults (benchmarks/TRACES.md, round 5). What cannot be mapped (an
        # empty file, a pipe) is read.
        with path.open("rb") as f:
            try:
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                return f.read()

    try:
        too_big = size_problem(path.stat().st_size, limits)
        if too_big is not None:
            report = TraceReport(file=label, limit=limit)
            report.add("$", too_big, "size")
            return report, None
        return _run(read, label, limit, limits)
    except OSError as err:
        report = TraceReport(file=label, limit=limit)
        report.add("$", f"cannot read the file: {err.strerror or err}", "io")
        return report, None


def check_bytes(
    data: bytes,
    name: str = "<trace>",
    *,
    limit: int = DEFAULT_LIMIT,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[TraceReport, Trace | None]:
    too_big = size_problem(len(data), limits)
    if too_big is not None:
        report = TraceReport(file=name, limit=limit)
        report.add("$", too_big, "size")
        return report, None
    return _run(lambda: data, name, limit, limits)


def check_value(
    value: Any, name: str = "<trace>", *, limit: int = DEFAULT_LIMIT
) -> tuple[TraceReport, Trace | None]:
    """Validate a trace given as Python data (serialised first, so the rules are the same)."""
    try:
        data = json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as err:
        report = TraceReport(file=name, limit=limit)
        report.add("$", f"not JSON data: {err}", "json")
        return report, None
    return check_bytes(data, name, limit=limit)
