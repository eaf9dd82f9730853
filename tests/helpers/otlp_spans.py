"""Small OTLP/JSON spans for the importer's shape tests, written by hand (no framework's)."""

from __future__ import annotations

from collections.abc import Mapping
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
