"""The OpenTelemetry SDK's ``ConsoleSpanExporter`` output.

The exporter writes each span as ``ReadableSpan.to_json()``: its default formatter
indents the object (4 spaces) and ends it with a newline, so a file is JSON objects one
after another; a one-line formatter (``to_json(indent=None)``) gives JSON lines. Both
are read here. A span is ``{"name", "context": {"trace_id": "0x…", "span_id": "0x…"},
"kind", "parent_id": "0x…" | null, "start_time", "end_time" (ISO 8601, UTC, to the
microsecond), "status": {"status_code": "UNSET" | "OK" | "ERROR", "description"?},
"attributes": {key: value}, "events", "links": [{"context": {...}, "attributes"}],
"resource"}``. Spans are then read as OTLP spans are (otel.py): the same conventions,
framework tables, links and one trace per run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from survey_tools.traces.importers import selfsaid
from survey_tools.traces.importers.common import ImportFailed, ImportResult, content_hash, iso_nanos
from survey_tools.traces.importers.otel import (
    WANTED,
    hex_id,
    span_record_at,
    span_traces,
)
from survey_tools.traces.importers.spans import SpanRec, collect_spans


def objects(text: str) -> list[tuple[int, Any]]:
    """The JSON values of ``text`` one after another (whitespace between them), each
    with the line it starts on."""
    dec = json.JSONDecoder()
    out: list[tuple[int, Any]] = []
    pos, line, n = 0, 1, len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n":
            if text[pos] == "\n":
                line += 1
            pos += 1
        if pos >= n:
            return out
        try:
            value, end = dec.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            raise ImportFailed(f"line {err.lineno}: not JSON: {err.msg}") from None
        out.append((line, value))
        line += text.count("\n", pos, end)
        pos = end


def _hex(v: Any, size: int) -> str | None:
    if not isinstance(v, str):
        return None
    return hex_id(v[2:] if v[:2] in ("0x", "0X") else v, size)


def _attrs(raw: Any, named: tuple[str, ...] = ()) -> dict[str, Any]:
    """The attributes the importer reads (as otel._attrs: WANTED, the self-described
    ones, those the span name's template names)."""
    if not isinstance(raw, dict):
        return {}
    return {
        k: v
        for k, v in raw.items()
        if (k in WANTED or selfsaid.described(k) or k in named) and isinstance(v, str | int | float)
    }


def _error(status: Any) -> str:
    if not isinstance(status, dict) or status.get("status_code") != "ERROR":
        return ""
    return str(status.get("description") or "error")[:4096]


def _record(line: int, doc: Any, names: dict[str, str]) -> tuple[str, SpanRec] | str:
    if not isinstance(doc, dict) or not isinstance(doc.get("context"), dict):
        return f"line {line}: not a span (no 'context' object)"
    ctx = doc["context"]
    sid, tid = _hex(ctx.get("span_id"), 8), _hex(ctx.get("trace_id"), 16)
    name = str(doc.get("name") or "")
    if sid is None or tid is None:
        return f"line {line}: span {name[:80]!r}: context.span_id/trace_id is not an id"
    parent = doc.get("parent_id")
    pid = "" if parent is None else (_hex(parent, 8) or "x")
    start, end = iso_nanos(doc.get("start_time")), iso_nanos(doc.get("end_time"))
    if start is None:
        return f"line {line}: span {sid}: start_time is not an ISO 8601 time"
    rec = span_record_at(
        f"line {line}",
        sid,
        pid,
        start,
        end if end is not None else start,
        name,
        _attrs(doc.get("attributes"), selfsaid.placeholders(name)),
        _error(doc.get("status")),
        names,
    )
    links = []
    for link in doc.get("links") or ():
        lc = link.get("context") if isinstance(link, dict) else None
        if isinstance(lc, dict):
            lt, ls = _hex(lc.get("trace_id"), 16), _hex(lc.get("span_id"), 8)
            if lt and ls:
                links.append((lt, ls))
    rec.links = tuple(links)
    res = doc.get("resource")
    if isinstance(res, dict):
        key = "resource:" + content_hash(json.dumps(res, sort_keys=True, default=str))[7:23]
        rec.process = names.setdefault(key, key)
    return tid, rec


def import_console(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """One trace per run found in ConsoleSpanExporter output (either formatter)."""
    del keep_content  # spans keep no content
    try:
        text = read().decode("utf-8")
    except UnicodeDecodeError as err:
        raise ImportFailed(f"not UTF-8 text (byte {err.start})") from None
    docs = objects(text)
    del text
    by_trace, summary = collect_spans(docs, _record)
    return span_traces(
        by_trace,
        summary,
        source=source,
        source_format="otel-console",
        system="OpenTelemetry ConsoleSpanExporter output; t = span times, seconds from the root",
    )
