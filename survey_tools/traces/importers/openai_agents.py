"""OpenAI Agents SDK trace exports.

An export is a list of the dicts the SDK's tracing processors receive: one
``{"object": "trace", "id", "workflow_name", "group_id", "metadata"}`` and spans
``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
"span_data": {"type": ...}, "error"}`` with ISO 8601 times. Accepted as a JSON array,
as ``{"data": [...]}`` (the body the SDK's backend exporter posts, several traces in
one batch), or as JSON lines of any of these (a file processor writing one trace or
span per line, or one batch per line). Spans are grouped by ``trace_id``: one trace
per id.

span_data types: agent -> spawn/return of that agent; handoff -> a delegation message
(``from_agent`` -> ``to_agent``); function -> tool_call/tool_result; generation and
response -> model calls, whose ``usage`` gives the tokens; the SDK's ``task`` (a
whole run) and ``turn`` spans, exported as ``custom`` with ``data.sdk_span_type``,
-> steps of the run, whose ``usage`` gives the tokens when no model call reports
any; guardrail -> a safety_event when ``triggered``; other custom spans and anything
else -> generic events. A span's ``error`` (``{"message", "data"}``) is kept in its
events' ``attributes.error``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from survey_tools.traces.importers.common import ImportFailed, ImportResult, content_hash, iso_nanos
from survey_tools.traces.importers.spans import (
    AGENT,
    GENERIC,
    GUARD,
    HANDOFF,
    MODEL,
    STEP,
    TOOL,
    SpanRec,
    SpanSummary,
    build,
)
from survey_tools.traces.limits import span_count_problem

MAX_TOKENS = 1 << 53  # past this a JSON number is no longer an exact count


_NOT_EXPORT = (
    "not an OpenAI Agents SDK export: expected a list of trace and "
    'trace.span objects, {"data": [...]}, or JSON lines of these'
)


def _unpack(doc: Any) -> list[Any] | None:
    """The items of one JSON value: a batch body, a list, or one trace or span."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        return list(doc["data"])
    if isinstance(doc, dict) and doc.get("object") in ("trace", "trace.span"):
        return [doc]
    if isinstance(doc, list):
        return doc
    return None


def _items(data: bytes) -> list[Any]:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as whole:
        items: list[Any] = []
        for n, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError as err:
                if n == 1:  # not JSON lines either: say what is wrong with the document
                    raise ImportFailed(f"not JSON: {whole}") from None
                raise ImportFailed(f"line {n}: not JSON ({err})") from None
            got = _unpack(value)
            if got is None:
                raise ImportFailed(f"line {n}: {_NOT_EXPORT}") from None
            items.extend(got)
        return items
    got = _unpack(doc)
    if got is None:
        raise ImportFailed(_NOT_EXPORT)
    return got


def _tokens(usage: Any, sid: str) -> tuple[int, int]:
    if not isinstance(usage, dict):
        return 0, 0

    def num(*keys: str) -> int:
        for k in keys:
            v = usage.get(k)
            if v is None:
                continue
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_TOKENS:
                return v
            shown = str(v) if len(str(v)) <= 24 else f"{str(v)[:12]}… ({len(str(v))} characters)"
            raise ImportFailed(f"span {sid[:80]!r}: usage.{k}: {shown} is not a token count")
        return 0

    return num("input_tokens", "prompt_tokens"), num("output_tokens", "completion_tokens")


def _error(s: dict[str, Any]) -> str:
    """A failed span's error as one line: its message, and its data when short."""
    err = s.get("error")
    if not err:
        return ""
    if isinstance(err, dict):
        msg = str(err.get("message") or "error")
        data = err.get("data")
        if data:
            extra = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
            msg = f"{msg} ({extra[:1000]})"
        return msg[:4096]
    return str(err)[:4096]


def _record(s: dict[str, Any], tid: str, summary: SpanSummary) -> SpanRec | None:
    sid = s.get("id")
    raw_sd = s.get("span_data")
    sd: dict[str, Any] = raw_sd if isinstance(raw_sd, dict) else {}
    if not isinstance(sid, str) or not sid:
        summary.skipped.append("a span without an id")
        return None
    start, end = iso_nanos(s.get("started_at")), iso_nanos(s.get("ended_at"))
    if start is None:
        summary.skipped.append(f"span {sid[:80]}: started_at is not an ISO 8601 time")
        return None
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
        usage_rank=3,
        error=_error(s),
    )
    custom = sd.get("data") if kind_name == "custom" else None
    sdk_type = custom.get("sdk_span_type") if isinstance(custom, dict) else None
    if kind_name == "agent":
        rec.kind, rec.name = AGENT, str(sd.get("name") or "agent")
    elif kind_name == "function":
        rec.kind, rec.name = TOOL, str(sd.get("name") or "function")
        if isinstance(sd.get("input"), str):
            rec.content_ref = content_hash(sd["input"])
    elif kind_name == "handoff":
        rec.kind, rec.target = HANDOFF, str(sd.get("to_agent") or "agent")
    elif kind_name in ("generation", "response"):
        rec.kind, rec.usage_rank = MODEL, 0
        rec.input_tokens, rec.output_tokens = _tokens(sd.get("usage"), sid)
    elif kind_name == "guardrail":
        rec.kind, rec.triggered = GUARD, sd.get("triggered") is True
        rec.name = str(sd.get("name") or "guardrail")
    elif sdk_type in ("task", "turn") and isinstance(custom, dict):
        # A run (task) and each of its turns carry the usage the runner summed.
        rec.kind, rec.operation = STEP, str(sdk_type)
        rec.usage_rank = 1 if sdk_type == "turn" else 2
        rec.input_tokens, rec.output_tokens = _tokens(custom.get("usage"), sid)
    elif kind_name == "custom":
        rec.operation = f"custom:{sd.get('name', '')}"
    return rec


def import_export(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """One trace per trace id of the export."""
    del keep_content  # spans keep no content
    data = read()
    # Counted before anything is decoded (3 million tiny spans fit in the size limit and need
    # gigabytes as dicts): every span says "trace.span" once, so this bounds the spans from above.
    too_many = span_count_problem(data.count(b'"trace.span"'), '"trace.span" objects or more')
    if too_many:
        raise ImportFailed(too_many)
    items = _items(data)
    del data
    traces = {
        str(i.get("id")): i for i in items if isinstance(i, dict) and i.get("object") == "trace"
    }
    spans: dict[str, list[dict[str, Any]]] = {}
    for i in items:
        if isinstance(i, dict) and i.get("object") == "trace.span":
            spans.setdefault(str(i.get("trace_id")), []).append(i)
    n_spans = sum(map(len, spans.values()))
    too_many = span_count_problem(n_spans)
    if too_many:
        raise ImportFailed(too_many)
    others = (
        len(items)
        - sum(1 for i in items if isinstance(i, dict) and i.get("object") == "trace")
        - n_spans
    )
    if not spans:
        raise ImportFailed(
            "no trace.span objects: not an OpenAI Agents SDK export "
            f"({len(items)} item(s), {others} of another kind)"
        )
    results = [_one_trace(tid, traces.get(tid, {}), spans[tid], source) for tid in sorted(spans)]
    if len(results) > 1:
        for r in results:
            r.notes = [f"trace {r.key}: {n}" for n in r.notes]
    empty = sorted(set(traces) - set(spans))
    if empty:
        results[0].notes.append(
            f"{len(empty)} trace(s) without spans ignored: {', '.join(empty[:3])}"
        )
    if others:
        results[0].notes.append(f"{others} item(s) that are neither trace nor trace.span ignored")
    return results


def _one_trace(
    tid: str, meta_trace: dict[str, Any], spans: list[dict[str, Any]], source: str
) -> ImportResult:
    workflow = str(meta_trace.get("workflow_name") or "workflow")
    summary = SpanSummary()
    recs = [r for s in spans if (r := _record(s, tid, summary)) is not None]
    if not recs:
        raise ImportFailed(f"trace {tid}: no usable spans: " + "; ".join(summary.skipped[:3]))
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
    return ImportResult(builder=builder, head=head, notes=summary.notes(), key=tid)
