"""OpenTelemetry GenAI spans in OTLP/JSON (``resourceSpans`` / ``scopeSpans`` / ``spans``).

Facts relied on (docs/trace-formats.md): ids are hex strings in OTLP/JSON (base64 is
accepted too, as the generic protobuf JSON mapping writes bytes); times are
nanoseconds since the epoch as integers or decimal strings; attributes are
``[{"key": ..., "value": {"stringValue"|"intValue"|"doubleValue"|"boolValue"|...}}]``;
``gen_ai.operation.name`` says what a span does.

A million spans are handled without a dict per span: the file is scanned once into
raw span slices, which are decoded in batches into small typed records.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from survey_tools.traces.importers.common import ImportFailed, ImportResult
from survey_tools.traces.importers.spans import (
    AGENT,
    GENERIC,
    MODEL,
    TOOL,
    SpanRec,
    SpanSummary,
    build,
)

AGENT_OPS = {"invoke_agent", "create_agent", "invoke_workflow"}
MODEL_OPS = {"chat", "generate_content", "text_completion", "embeddings"}
BATCH = 20_000


class _AnyValue(msgspec.Struct, omit_defaults=True):
    stringValue: str | None = None
    intValue: int | str | None = None
    doubleValue: float | None = None
    boolValue: bool | None = None


class _KeyValue(msgspec.Struct):
    key: str = ""
    value: _AnyValue = msgspec.field(default_factory=_AnyValue)


class _Span(msgspec.Struct, gc=False):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    attributes: list[_KeyValue] = []


class _ScopeSpans(msgspec.Struct):
    spans: list[msgspec.Raw] = []


class _ResourceSpans(msgspec.Struct):
    scopeSpans: list[_ScopeSpans] = []


class _Otlp(msgspec.Struct):
    resourceSpans: list[_ResourceSpans] | None = None


_TOP = msgspec.json.Decoder(_Otlp)
_SPANS = msgspec.json.Decoder(list[_Span])


_HEX_DIGITS = "0123456789abcdef"
# The attributes the importer reads; the others are skipped without being converted.
_WANTED = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.agent.name",
        "gen_ai.agent.id",
        "gen_ai.transfer.target.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
    }
)


def _hex_id(raw: str, size: int) -> str | None:
    """A span or trace id as lowercase hex, from hex or base64; None if neither."""
    if len(raw) == 2 * size and not raw.strip(_HEX_DIGITS):
        return raw  # the common case, checked first: it runs once per span
    if len(raw) == 2 * size:
        try:
            bytes.fromhex(raw)
            return raw.lower()
        except ValueError:
            pass
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data.hex() if len(data) == size else None


def _nanos(v: int | str) -> int | None:
    if isinstance(v, int):
        return v if v >= 0 else None
    v = v.strip()
    # isdigit alone would let through digits int() refuses ("²").
    return int(v) if v.isascii() and v.isdigit() else None


def _attrs(kvs: list[_KeyValue]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in kvs:
        if kv.key not in _WANTED:
            continue
        v = kv.value
        if v.stringValue is not None:
            out[kv.key] = v.stringValue
        elif v.intValue is not None:
            try:
                out[kv.key] = int(v.intValue)
            except ValueError:
                out[kv.key] = v.intValue
        elif v.doubleValue is not None:
            out[kv.key] = v.doubleValue
        elif v.boolValue is not None:
            out[kv.key] = v.boolValue
    return out


def _int(v: Any) -> int:
    return v if type(v) is int and v >= 0 else 0  # (JSON gives no int subclass but bool)


def _record(
    sp: _Span, summary: SpanSummary, trace_ids: set[str], names: dict[str, str]
) -> SpanRec | None:
    """The span as a record; ``names`` interns the repeated strings (agent, tool and
    operation names), so a million records do not hold a million copies of each."""
    # The common cases inline (this runs a million times): lowercase hex ids, times
    # as plain digit strings; anything else goes through the general functions.
    raw = sp.spanId
    sid = raw if len(raw) == 16 and not raw.strip(_HEX_DIGITS) else _hex_id(raw, 8)
    if sid is None:
        summary.skipped.append(f"span {sp.name!r}: spanId {sp.spanId[:40]!r} is not an 8-byte id")
        return None
    raw = sp.parentSpanId
    if not raw:
        pid: str | None = ""
    elif len(raw) == 16 and not raw.strip(_HEX_DIGITS):
        pid = raw
    else:
        pid = _hex_id(raw, 8)
    if pid is None:
        pid = "x"  # unreadable parent: treated as missing (an orphan)
    v = sp.startTimeUnixNano
    start = int(v) if type(v) is str and v.isascii() and v.isdigit() else _nanos(v)
    v = sp.endTimeUnixNano
    end = int(v) if type(v) is str and v.isascii() and v.isdigit() else _nanos(v)
    if start is None or end is None:
        summary.skipped.append(f"span {sid}: start/end time is not a nanosecond count")
        return None
    if sp.traceId not in trace_ids:
        tid = _hex_id(sp.traceId, 16)
        if tid:
            trace_ids.add(tid)
    a = _attrs(sp.attributes)
    op = str(a.get("gen_ai.operation.name", ""))
    agent_name = a.get("gen_ai.agent.name") or a.get("gen_ai.agent.id") or ""
    target = a.get("gen_ai.transfer.target.name") or ""
    if op in AGENT_OPS:
        kind, name = AGENT, str(agent_name or sp.name or op)
    elif op == "execute_tool":
        kind, name = TOOL, str(a.get("gen_ai.tool.name") or sp.name or "tool")
    elif op in MODEL_OPS:
        kind, name = MODEL, op
    else:
        kind, name = GENERIC, op
    intern = names.setdefault
    agent = str(agent_name)
    target = str(target)
    op = op or "(none)"
    # Positional (field order of SpanRec): keyword arguments cost a dict per span.
    return SpanRec(
        sid,
        pid,
        start,
        end,
        kind,
        intern(name, name),
        intern(agent, agent),
        intern(target, target),
        str(a.get("gen_ai.tool.call.id", "")),
        False,
        _int(a.get("gen_ai.usage.input_tokens")),
        _int(a.get("gen_ai.usage.output_tokens")),
        intern(op, op),
    )


def _records(
    chunks: list[list[msgspec.Raw]],
    summary: SpanSummary,
    trace_ids: set[str],
    names: dict[str, str],
) -> list[SpanRec]:
    recs: list[SpanRec] = []
    for chunk in chunks:
        try:
            spans = _SPANS.decode(b"[" + b",".join(chunk) + b"]")
        except msgspec.ValidationError as err:
            raise ImportFailed(f"a span is not OTLP/JSON: {err}") from None
        for sp in spans:
            rec = _record(sp, summary, trace_ids, names)
            if rec is not None:
                recs.append(rec)
    return recs


def import_otlp(read: Callable[[], bytes], *, source: str) -> ImportResult:
    # Read here, not by the caller, so the only reference to the input is ours and
    # the buffer is freed as soon as the spans are decoded.
    data = read()
    try:
        top = _TOP.decode(data)
    except msgspec.ValidationError as err:  # (a subclass of DecodeError: first)
        raise ImportFailed(f"not OTLP/JSON trace data: {err}") from None
    except msgspec.DecodeError as err:
        raise ImportFailed(f"not JSON: {err}") from None
    if top.resourceSpans is None:
        raise ImportFailed("not OTLP/JSON trace data: no 'resourceSpans' list at the top level")
    del data
    summary = SpanSummary()
    trace_ids: set[str] = set()
    names: dict[str, str] = {}
    chunks = [
        ss.spans[i : i + BATCH]
        for rs in top.resourceSpans
        for ss in rs.scopeSpans
        for i in range(0, len(ss.spans), BATCH)
    ]
    # Every Raw slice keeps the whole input alive: only the chunks hold them now.
    del top
    recs = _records(chunks, summary, trace_ids, names)
    del chunks
    if len(trace_ids) > 1:
        shown = ", ".join(sorted(trace_ids)[:3])
        raise ImportFailed(
            f"the file holds spans of {len(trace_ids)} traces ({shown}, …); "
            "import one trace per file"
        )
    summary.spans = len(recs)
    builder, costs = build(recs, summary)
    del recs
    tid = next(iter(trace_ids), "") or Path(source).stem
    head = {
        "trace_id": f"otel:{tid}"[:256],
        "task_id": Path(source).stem[:256] or "otel",
        "system": "OpenTelemetry GenAI spans (OTLP/JSON); t = span times, seconds from the root",
        "topology": "unknown",
        "rewards": {},
        "costs": costs,
        "metadata": {
            "source_format": "otlp-json",
            "source": source,
            "clock": "span start/end times (ns) relative to the root span's start",
            "otel_trace_id": tid,
        },
    }
    return ImportResult(builder=builder, head=head, notes=summary.notes())
