"""Small OTLP/JSON spans for the importer's shape tests, written by hand (no framework's)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MS = 1_000_000


def span(
    keys: Mapping[str, str],
    span_id: int,
    parent: int,
    name: str,
    start: int,
    end: int,
    **attrs: Any,
) -> dict[str, Any]:
    """One span of trace ``1…1``, times in milliseconds; ``keys`` maps keyword names to the
    dotted attribute names a keyword cannot hold, and 0 as ``parent`` makes a root."""
    out: dict[str, Any] = {
        "traceId": "1" * 32,
        "spanId": f"{span_id:016x}",
        "name": name,
        "startTimeUnixNano": str(start * MS),
        "endTimeUnixNano": str(end * MS),
        "attributes": [
            {"key": keys.get(k, k), "value": {"stringValue": v}} for k, v in attrs.items()
        ],
    }
    if parent:
        out["parentSpanId"] = f"{parent:016x}"
    return out


def imported(tmp: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """``spans`` written as one OTLP/JSON request in ``tmp``, imported by ``survey trace
    import otel --explain`` (which must succeed): the trace's events and what it said."""
    from helpers.support import run  # noqa: PLC0415 - the CLI only for the tests that import

    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out), "--explain")
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events, err
