"""A trace store's export: MLflow traces (``Trace.to_json()``, trace schema version 3).

A trace is ``{"info": {"trace_id": "tr-…", "request_time", "state", "trace_metadata",
"tags", …}, "data": {"spans": [...]}}``; a file holds one such object or a list of
them (what ``mlflow.search_traces(return_type="list")`` gives, each written with
``to_json``). A span: ``trace_id`` and ``span_id`` / ``parent_span_id`` (base64 of the
OpenTelemetry ids; null at the root), ``name``, ``start_time_unix_nano``,
``end_time_unix_nano``, ``status`` (``{"code": "STATUS_CODE_OK" | "STATUS_CODE_ERROR",
"message"}``), ``events``, ``links`` and ``attributes`` whose values are JSON text
(``"mlflow.spanType": "\\"AGENT\\""``). MLflow's span type stands for OpenInference's
span kind (``AGENT``, ``TOOL``, ``LLM`` and ``CHAT_MODEL``, ``CHAIN``, ``RETRIEVER``,
``EMBEDDING``, ``RERANKER``, ``PARSER`` and ``UNKNOWN``); an agent's name is its
``name`` attribute (smolagents' autologging writes the agent object's fields);
``mlflow.chat.tokenUsage`` (``input_tokens``, ``output_tokens``) gives tokens. Spans
are then read as OTLP spans are (otel.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from survey_tools.traces.importers import encoded
from survey_tools.traces.importers.common import ImportFailed, ImportResult
from survey_tools.traces.importers.otel import WANTED, hex_id, span_record_at, span_traces
from survey_tools.traces.importers.spans import SpanRec, collect_spans

_NOT = 'not an MLflow trace export: expected {"info", "data": {"spans"}} or a list of them'


def _traces(data: bytes) -> list[dict[str, Any]]:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise ImportFailed(f"not JSON: {err}") from None
    docs = doc if isinstance(doc, list) else [doc]
    out = []
    for n, t in enumerate(docs, start=1):
        data_part = t.get("data") if isinstance(t, dict) else None
        if not isinstance(data_part, dict) or not isinstance(data_part.get("spans"), list):
            raise ImportFailed(f"trace {n}: {_NOT}")
        out.append(t)
    return out


def _value(v: Any) -> Any:
    """An attribute's value: MLflow keeps each as JSON text."""
    if isinstance(v, str):
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            return v
    return v


def _attributes(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    a = {k: _value(v) for k, v in raw.items()}
    out = {k: v for k, v in a.items() if k in WANTED and isinstance(v, str | int | float)}
    # The span type, the agent's name and the usage, read as an OTLP export of the same
    # attributes is (encoded.py); a type OpenInference has no kind for is kept as a label.
    for key, value in encoded.reading(raw).items():
        out.setdefault(key, value)
    kind = a.get("mlflow.spanType")
    if isinstance(kind, str) and kind:
        out.setdefault("openinference.span.kind", encoded.SYNONYMS.get(kind, kind))
    return out


def _record(n: int, sp: Any, names: dict[str, str]) -> tuple[str, SpanRec] | str:
    if not isinstance(sp, dict):
        return f"trace {n}: a span that is not an object"
    sid, tid = sp.get("span_id"), sp.get("trace_id")
    sid = hex_id(sid, 8) if isinstance(sid, str) else None
    tid = hex_id(tid, 16) if isinstance(tid, str) else None
    name = str(sp.get("name") or "")
    if sid is None or tid is None:
        return f"trace {n}: span {name[:80]!r}: span_id/trace_id is not an id"
    parent = sp.get("parent_span_id")
    pid = (hex_id(parent, 8) or "x") if isinstance(parent, str) and parent else ""
    start, end = sp.get("start_time_unix_nano"), sp.get("end_time_unix_nano")
    if not isinstance(start, int) or start < 0:
        return f"trace {n}: span {sid}: start_time_unix_nano is not a nanosecond count"
    end = end if isinstance(end, int) and end >= start else start
    raw_status = sp.get("status")
    status: dict[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    error = ""
    if status.get("code") in ("STATUS_CODE_ERROR", "ERROR"):
        error = str(status.get("message") or "error")[:4096]
    rec = span_record_at(
        f"trace {n}", sid, pid, start, end, name, _attributes(sp.get("attributes")), error, names
    )
    return tid, rec


def import_mlflow(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """One trace per run of an MLflow trace export."""
    del keep_content  # spans keep no content
    spans = ((n, sp) for n, t in enumerate(_traces(read()), start=1) for sp in t["data"]["spans"])
    by_trace, summary = collect_spans(spans, _record)
    return span_traces(
        by_trace,
        summary,
        source=source,
        source_format="mlflow-traces",
        system="MLflow trace export; t = span times, seconds from the root",
    )
