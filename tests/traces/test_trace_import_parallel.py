"""The OTLP import with a helper process decoding half the batches writes exactly what
one process writes, notes and errors included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.otel_synth import iter_otlp
from survey_tools.traces.importers import otel
from survey_tools.traces.importers.common import ImportFailed

FIXTURE = Path(__file__).resolve().parents[1] / "data/traces/otel/research-assistant.otlp.json"


def _import(
    data: bytes, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[bytes, list[str]]:
    monkeypatch.setattr(otel, "BATCH", 3)
    monkeypatch.setattr(otel, "PARALLEL_MIN_CHUNKS", 2 if parallel else 1 << 30)
    try:
        res = otel.import_otlp(lambda: data, source="x.json")
    except ImportFailed as err:
        return b"", [f"failed: {err}"]
    return b"".join(res.iter_json()), res.notes


def _inputs() -> list[bytes]:
    synth = b"".join(iter_otlp(300, n_agents=7, seed=4))
    doc = json.loads(synth)
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[200]["spanId"] = "not an id"  # skipped, with a note
    spans[150]["parentSpanId"] = "ffffffffffffffff"  # an orphan
    broken = json.loads(synth)
    broken["resourceSpans"][0]["scopeSpans"][0]["spans"][250]["spanId"] = 5
    return [FIXTURE.read_bytes(), synth, json.dumps(doc).encode(), json.dumps(broken).encode()]


@pytest.mark.parametrize("k", range(4))
def test_parallel_import_matches_sequential(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _inputs()[k]
    assert _import(data, True, monkeypatch) == _import(data, False, monkeypatch)
