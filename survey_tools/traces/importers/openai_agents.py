"""OpenAI Agents SDK trace exports.

An export is a list of the dicts the SDK's tracing processors receive: one
``{"object": "trace", "id", "workflow_name", "group_id", "metadata"}`` and spans
``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
"span_data": {"type": ...}, "error"}`` with ISO 8601 times. Accepted as a JSON array,
as ``{"data": [...]}`` (the body the SDK posts), or as JSON lines.

span_data types: agent -> spawn/return of that agent; handoff -> a delegation message
(``from_agent`` -> ``to_agent``); function -> tool_call/tool_result; generation and
response -> model calls, whose ``usage`` gives the tokens; guardrail -> a
safety_event when ``triggered``; custom and anything else -> generic events.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from survey_tools.traces.importers.common import ImportFailed, ImportResult
from survey_tools.traces.importers.spans import (
    AGENT,
    GENERIC,
    GUARD,
    HANDOFF,
    MODEL,
    TOOL,
    SpanRec,
    SpanSummary,
    build,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _items(data: bytes) -> list[Any]:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = None
        items: list[Any] = []
        for n, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append(orjson.loads(line))
            except orjson.JSONDecodeError as err:
                raise ImportFailed(
                    f"line {n}: neither a JSON document nor JSON lines ({err})"
                ) from None
        return items
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        return list(doc["data"])
    if isinstance(doc, dict) and doc.get("object") in ("trace", "trace.span"):
        return [doc]
    if isinstance(doc, list):
        return doc
    raise ImportFailed(
        "not an OpenAI Agents SDK export: expected a list of trace and "
        'trace.span objects, {"data": [...]}, or JSON lines'
    )


def _nanos(v: Any) -> int | None:
    if not isinstance(v, str):
        return None
    try:
        dt = datetime.fromisoformat(v.strip())
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    delta = dt - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def _tokens(usage: Any) -> tuple[int, int]:
    if not isinstance(usage, dict):
        return 0, 0

    def num(*keys: str) -> int:
        for k in keys:
            v = usage.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                return v
        return 0

    return num("input_tokens", "prompt_tokens"), num("output_tokens", "completion_tokens")


def import_export(data: bytes, *, source: str) -> ImportResult:
    items = _items(data)
    traces = [i for i in items if isinstance(i, dict) and i.get("object") == "trace"]
    spans = [i for i in items if isinstance(i, dict) and i.get("object") == "trace.span"]
    others = len(items) - len(traces) - len(spans)
    if not spans:
        raise ImportFailed(
            "no trace.span objects: not an OpenAI Agents SDK export "
            f"({len(items)} item(s), {others} of another kind)"
        )
    trace_ids = {str(s.get("trace_id")) for s in spans} | {str(t.get("id")) for t in traces}
    if len(trace_ids) > 1:
        shown = ", ".join(sorted(trace_ids)[:3])
        raise ImportFailed(
            f"the export holds {len(trace_ids)} traces ({shown}, …); import one trace per file"
        )
    tid = next(iter(trace_ids))
    meta_trace = traces[0] if traces else {}
    workflow = str(meta_trace.get("workflow_name") or "workflow")

    summary = SpanSummary()
    recs: list[SpanRec] = []
    for s in spans:
        sid = s.get("id")
        raw_sd = s.get("span_data")
        sd: dict[str, Any] = raw_sd if isinstance(raw_sd, dict) else {}
        if not isinstance(sid, str) or not sid:
            summary.skipped.append("a span without an id")
            continue
        start, end = _nanos(s.get("started_at")), _nanos(s.get("ended_at"))
        if start is None:
            summary.skipped.append(f"span {sid}: started_at is not an ISO 8601 time")
            continue
        if end is None:
            end = start  # never ended (or unreadable): an instant
        kind_name = str(sd.get("type", ""))
        parent = s.get("parent_id")
        rec = SpanRec(
            span_id=sid,
            parent_id=parent if isinstance(parent, str) else tid,
            start=start,
            end=end,
            kind=GENERIC,
            name=kind_name,
            operation=kind_name or "(none)",
        )
        if kind_name == "agent":
            rec.kind, rec.name = AGENT, str(sd.get("name") or "agent")
        elif kind_name == "function":
            rec.kind, rec.name = TOOL, str(sd.get("name") or "function")
        elif kind_name == "handoff":
            rec.kind, rec.target = HANDOFF, str(sd.get("to_agent") or "agent")
        elif kind_name in ("generation", "response"):
            rec.kind = MODEL
            rec.input_tokens, rec.output_tokens = _tokens(sd.get("usage"))
        elif kind_name == "guardrail":
            rec.kind, rec.triggered = GUARD, sd.get("triggered") is True
            rec.name = str(sd.get("name") or "guardrail")
        elif kind_name == "custom":
            rec.operation = f"custom:{sd.get('name', '')}"
        recs.append(rec)
    if not recs:
        raise ImportFailed("no usable spans: " + "; ".join(summary.skipped[:3]))
    # The trace itself is the root: the workflow, from the first start to the last end.
    root = SpanRec(
        span_id=tid,
        parent_id="",
        start=min(r.start for r in recs),
        end=max(r.end for r in recs),
        kind=AGENT,
        name=workflow,
        operation="trace",
    )
    summary.spans = len(recs)
    builder, costs = build([root, *recs], summary, root_agent=workflow)
    head = {
        "trace_id": f"openai-agents:{tid}"[:256],
        "task_id": str(meta_trace.get("group_id") or workflow)[:256],
        "system": "OpenAI Agents SDK trace export; t = span times, seconds from the first start",
        "topology": "unknown",
        "rewards": {},
        "costs": costs,
        "metadata": {
            "source_format": "openai-agents",
            "source": source,
            "clock": "span started_at/ended_at relative to the earliest span",
            "workflow_name": workflow,
            "trace_metadata": meta_trace.get("metadata") or {},
        },
    }
    notes = summary.notes()
    if others:
        notes.append(f"{others} item(s) that are neither trace nor trace.span ignored")
    return ImportResult(builder=builder, head=head, notes=notes)
