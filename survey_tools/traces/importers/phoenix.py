"""A trace store's export: Arize Phoenix's spans DataFrame.

``px.Client().get_spans_dataframe()`` (and the span queries) give one row per span
with the columns ``name``, ``span_kind``, ``parent_id``, ``start_time``, ``end_time``,
``status_code``, ``status_message``, ``events``, ``context.span_id``,
``context.trace_id`` and one column per attribute, ``attributes.<key>`` (OpenInference
keys: ``attributes.openinference.span.kind``, ``attributes.llm.token_count.prompt``,
…). People keep it as they keep any DataFrame: ``to_json(orient="records",
lines=True)`` (JSON lines), ``orient="records"`` (a JSON array) or ``to_parquet``.
Read here: those three, times as ISO 8601 text, epoch milliseconds (pandas' default
in JSON) or Parquet timestamps; attributes as flat ``attributes.`` columns or as one
``attributes`` object (nested objects joined with dots). Missing values (null, NaN)
are absent attributes. Spans are then read as OTLP spans are (otel.py).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import orjson

from survey_tools.extras import require_extra
from survey_tools.traces.importers.common import (
    ImportFailed,
    ImportResult,
    datetime_nanos,
    iso_nanos,
)
from survey_tools.traces.importers.otel import WANTED, hex_id, span_record_at, span_traces
from survey_tools.traces.importers.spans import SpanRec, collect_spans

_NOT = (
    "not a Phoenix spans export: expected rows with context.span_id, context.trace_id, "
    "start_time and end_time (JSON lines, a JSON array of records, or Parquet)"
)


def _rows_json(data: bytes) -> Iterator[tuple[int, Any]]:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        for n, line in enumerate(data.split(b"\n"), start=1):
            if line.strip():
                try:
                    yield n, orjson.loads(line)
                except orjson.JSONDecodeError as err:
                    raise ImportFailed(f"line {n}: not JSON: {err}") from None
        return
    if isinstance(doc, list):
        yield from ((1, row) for row in doc)
    elif isinstance(doc, dict):
        yield 1, doc
    else:
        raise ImportFailed(_NOT)


def _rows_parquet(data: bytes) -> Iterator[tuple[int, Any]]:
    pq = require_extra("scale", "pyarrow", "pyarrow.parquet").parquet
    try:
        table = pq.read_table(io.BytesIO(data))
    except Exception as err:  # pyarrow raises its own kinds for a broken file
        raise ImportFailed(f"not a readable Parquet file: {err}") from None
    yield from enumerate(table.to_pylist(), start=1)


def _nanos(v: Any) -> int | None:
    if isinstance(v, datetime):  # Parquet's timestamps
        return datetime_nanos(v)
    if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0:
        return int(round(v * 1_000_000))  # pandas' to_json: epoch milliseconds
    return iso_nanos(v)


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and prefix not in WANTED:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
        return
    if prefix not in WANTED or value is None:
        return
    if isinstance(value, float) and not math.isfinite(value):
        return  # a DataFrame's missing value
    if isinstance(value, dict | list):
        value = orjson.dumps(value).decode()  # a JSON object kept as text, as OTLP keeps it
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a count a DataFrame column of floats holds
    if isinstance(value, str | int | float):
        out[prefix] = value


def _attributes(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    nested = row.get("attributes")
    if isinstance(nested, dict):
        _flatten("", nested, out)
    for key, value in row.items():
        if key.startswith("attributes."):
            _flatten(key[11:], value, out)
    kind = row.get("span_kind")
    # Phoenix fills span_kind from the OpenInference attribute, or guesses it for other
    # conventions (UNKNOWN when it cannot): a span's own attributes come first.
    if (
        isinstance(kind, str)
        and kind not in ("", "UNKNOWN")
        and "openinference.span.kind" not in out
        and "gen_ai.operation.name" not in out
    ):
        out["openinference.span.kind"] = kind
    return out


def _id(v: Any, size: int) -> str | None:
    if not isinstance(v, str):
        return None
    return hex_id(v[2:] if v[:2] in ("0x", "0X") else v, size)


def _record(n: int, row: Any, names: dict[str, str]) -> tuple[str, SpanRec] | str:
    if not isinstance(row, dict):
        raise ImportFailed(f"line {n}: {_NOT}")
    raw_ctx = row.get("context")
    ctx: dict[str, Any] = raw_ctx if isinstance(raw_ctx, dict) else {}
    sid = _id(row.get("context.span_id", ctx.get("span_id")), 8)
    tid = _id(row.get("context.trace_id", ctx.get("trace_id")), 16)
    if sid is None or tid is None:
        if "context.span_id" not in row and "span_id" not in ctx:
            raise ImportFailed(f"line {n}: {_NOT}")
        return f"row {n}: context.span_id/trace_id is not an id"
    parent = row.get("parent_id")
    pid = (_id(parent, 8) or "x") if isinstance(parent, str) and parent else ""
    start, end = _nanos(row.get("start_time")), _nanos(row.get("end_time"))
    if start is None:
        return f"row {n}: span {sid}: start_time is not a time"
    status = row.get("status_code")
    error = str(row.get("status_message") or "error")[:4096] if status == "ERROR" else ""
    rec = span_record_at(
        f"row {n}",
        sid,
        pid,
        start,
        end if end is not None else start,
        str(row.get("name") or ""),
        _attributes(row),
        error,
        names,
    )
    return tid, rec


def import_phoenix(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """One trace per run of a Phoenix spans export (JSON lines, JSON or Parquet)."""
    del keep_content  # spans keep no content
    data = read()
    rows = _rows_parquet(data) if data.startswith(b"PAR1") else _rows_json(data)
    by_trace, summary = collect_spans(rows, _record)
    del data
    return span_traces(
        by_trace,
        summary,
        source=source,
        source_format="phoenix-spans",
        system="Arize Phoenix spans export; t = span times, seconds from the root",
    )
