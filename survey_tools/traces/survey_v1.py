"""The survey's own trace format (profile ``survey-v1``): validation and export.

The survey's artifact (xxzcc/awesome-llm-mas-rl, ``trace-schema/``) defines traces
by a JSON Schema and a validator script. A trace is valid in this profile when it
meets both: the shape in ``schemas/survey-trace-v1.schema.json`` (our encoding of
it), unique event ids, edges that name events, and no negative cost. Everything our
own profile checks beyond that (our schema's stricter fields, the graph rules) is
reported as a warning. The export maps a trace of ours onto that format and lists
what it loses (docs/trace-formats.md, "The survey's format").
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson

from survey_tools.errors import SurveyError
from survey_tools.traces.limits import (
    DEFAULT_LIMITS,
    Limits,
    size_problem,
    string_problem,
    strip_bom,
)
from survey_tools.traces.problems import InvalidTrace, TraceReport, json_path
from survey_tools.traces.validate import DEFAULT_LIMIT, _event_id, _schema_errors, check_bytes

PROFILES = ("toolkit", "survey-v1")
SCHEMA_FILE = "survey-trace-v1.schema.json"
# Top-level keys the survey's format has (its schema allows no others).
_TOP = ("trace_id", "task_id", "system", "topology", "events", "edges", "rewards", "costs")


class ExportFailed(SurveyError):
    """The trace cannot be written in the survey's format."""


@cache
def _validator() -> Any:
    text = (resources.files("survey_tools.traces") / "schemas" / SCHEMA_FILE).read_text("utf-8")
    return jsonschema_rs.validator_for(orjson.loads(text))


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def check_file_v1(
    path: Path | str,
    *,
    limit: int = DEFAULT_LIMIT,
    name: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> TraceReport:
    """Validate one trace in the survey-v1 profile (errors: its rules; warnings: ours)."""
    path = Path(path)
    report = TraceReport(file=name if name is not None else str(path), limit=limit)
    try:
        too_big = size_problem(path.stat().st_size, limits)
        if too_big is not None:
            report.add("$", too_big, "size")
            return report
        data = strip_bom(path.read_bytes())
    except OSError as err:
        report.add("$", f"cannot read the file: {err.strerror or err}", "io")
        return report
    too_long = string_problem(data, limits)
    if too_long is not None:
        msg, line, col = too_long
        report.add("$", msg, "size", line=line, col=col)
        return report
    # Our own profile's verdict first: it reports JSON errors with their line and
    # column, and its problems are this profile's warnings.
    ours, _ = check_bytes(data, report.file, limit=limit, limits=limits)
    if any(p.check in ("json", "size") for p in ours.problems):
        for p in ours.problems:
            report.add(p.path, p.message, p.check, p.event_id, p.line, p.col)
        return report
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as err:  # (our decoder took it: not expected)
        report.add("$", f"not JSON: {err}", "json")
        return report
    del data
    _check_doc(doc, report)
    # Our problem at a place this profile already reports adds nothing: not repeated.
    errors = {p.path for p in report.problems}
    for p in ours.problems:
        if p.path not in errors:
            report.warn(p)
    report.warning_total += ours.total - len(ours.problems)
    return report


def _check_doc(doc: Any, report: TraceReport) -> None:
    events = doc.get("events") if isinstance(doc, dict) else None
    for parts, msg in _schema_errors(doc, _validator()):
        report.add(json_path(parts), msg, "survey-v1", _event_id(events, parts))
    if not isinstance(doc, dict):
        return
    ids: Counter[str] = Counter()
    if isinstance(events, list):
        for i, ev in enumerate(events):
            if isinstance(ev, dict) and isinstance(ev.get("id"), str):
                if ids[ev["id"]]:
                    report.add(
                        json_path(["events", i, "id"]), "duplicate event id", "survey-v1", ev["id"]
                    )
                ids[ev["id"]] += 1
    edges = doc.get("edges")
    if isinstance(edges, list):
        for i, edge in enumerate(edges):
            if not isinstance(edge, dict):
                continue
            for end in ("src", "dst"):
                ref = edge.get(end)
                if isinstance(ref, str) and ref not in ids:
                    report.add(
                        json_path(["edges", i, end]), f"no event has id {ref!r}", "survey-v1"
                    )
    costs = doc.get("costs")
    if isinstance(costs, dict):
        for key, v in costs.items():
            if _number(v) and v < 0:
                report.add(json_path(["costs", key]), "a cost cannot be negative", "survey-v1")


@dataclass(frozen=True)
class Export:
    """A trace in the survey's format, and what the mapping left out or changed."""

    doc: dict[str, Any]
    notes: list[str]

    def to_bytes(self) -> bytes:
        return orjson.dumps(self.doc, option=orjson.OPT_INDENT_2) + b"\n"


def export_v1(path: Path, *, limits: Limits = DEFAULT_LIMITS) -> Export:
    """Map a valid trace of ours onto the survey's format (the module docstring)."""
    data = (
        strip_bom(path.read_bytes()) if size_problem(path.stat().st_size, limits) is None else b""
    )
    if not data:
        raise ExportFailed(size_problem(path.stat().st_size, limits) or "the file is empty")
    report, _ = check_bytes(data, str(path), limit=20, limits=limits)
    if not report.ok:
        raise InvalidTrace(report)
    src: dict[str, Any] = orjson.loads(data)
    del data
    notes: list[str] = []
    out: dict[str, Any] = {k: src[k] for k in _TOP if k in src}
    dropped = sorted(k for k in src if k not in _TOP and k != "metrics")
    if dropped:
        notes.append("dropped (the survey's format has no place for them): " + ", ".join(dropped))
    if not out["events"]:
        raise ExportFailed("the survey's format needs at least one event; this trace has none")
    if "metrics" in src:
        kept = {k: v for k, v in src["metrics"].items() if _number(v) and math.isfinite(v)}
        gone = sorted(set(src["metrics"]) - set(kept))
        if gone:
            notes.append("metrics that are not numbers dropped: " + ", ".join(gone))
        out["metrics"] = kept
    stops = 0
    events = []
    for ev in out["events"]:
        if ev["type"] == "stop":
            # No stop in the survey's event types: a decision that says it stops.
            ev = {**ev, "type": "orchestrator_decision", "decision": "stop"}
            stops += 1
        events.append(ev)
    out["events"] = events
    if stops:
        notes.append(f"{stops} stop event(s) written as orchestrator_decision with decision: stop")
    x_edges = 0
    edges = []
    for edge in out["edges"]:
        if len(edge) > 3:
            edge = {k: edge[k] for k in ("src", "dst", "type")}
            x_edges += 1
        edges.append(edge)
    out["edges"] = edges
    if x_edges:
        notes.append(f"x- keys of {x_edges} edge(s) dropped (edges take no other keys there)")
    return Export(doc=out, notes=notes)
