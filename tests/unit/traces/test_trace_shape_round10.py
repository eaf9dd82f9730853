"""Round 10's readings (docs/trace-formats.md, "Who is an agent"), each on a small run of
spans of no framework's: a delegation its holder waits for lasts the delegate's span (so the
time an agent's span holds beyond its traced calls is work, once, and delegates at once
overlap); the framework's bookkeeping before the first span of work does not start the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import otlp_spans
from helpers.support import run

_KEYS = {
    "op": "gen_ai.operation.name",
    "agent_name": "gen_ai.agent.name",
    "model": "gen_ai.request.model",
}


def _span(span: int, parent: int, name: str, start: int, end: int, **attrs: Any) -> dict[str, Any]:
    return otlp_spans.span(_KEYS, span, parent, name, start, end, **attrs)


def _chat(span: int, parent: int, start: int, end: int) -> dict[str, Any]:
    return _span(span, parent, "chat m", start, end, op="chat", model="m")


def _agent(span: int, parent: int, name: str, start: int, end: int) -> dict[str, Any]:
    return _span(
        span, parent, f"invoke_agent {name}", start, end, op="invoke_agent", agent_name=name
    )


def _import(tmp: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Path]:
    src = tmp / "run.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    out = tmp / "out.json"
    code, _, err = run(None, "trace", "import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    events: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))["events"]
    return events, out


def _metrics(out: Path) -> dict[str, Any]:
    code, text, err = run(None, "trace", "metrics", str(out), "--format", "json")
    assert code == 0, err
    got: dict[str, Any] = json.loads(text)
    return got


def _delegates(a: tuple[int, int], b: tuple[int, int]) -> list[dict[str, Any]]:
    """A boss whose two delegates each make one short model call at the start of their
    span, the rest of it (a tool's untraced run) no span's."""
    return [
        _span(0x10, 0, "run", 0, 200),
        _agent(0x20, 0x10, "boss", 0, 200),
        _chat(0x21, 0x20, 0, 20),
        _agent(0x30, 0x20, "a", *a),
        _chat(0x31, 0x30, a[0], a[0] + 10),
        _agent(0x40, 0x20, "b", *b),
        _chat(0x41, 0x40, b[0], b[0] + 10),
    ]


@pytest.mark.parametrize(
    ("a", "b", "concurrent"),
    [((20, 190), (25, 185), True), ((20, 100), (100, 190), False)],
)
def test_a_delegation_lasts_the_delegates_span(
    tmp_path: Path, a: tuple[int, int], b: tuple[int, int], concurrent: bool
) -> None:
    ev, out = _import(tmp_path, _delegates(a, b))
    spawns = {e["to"]: e.get("duration_s") for e in ev if e["type"] == "spawn"}
    assert spawns["a"] == pytest.approx((a[1] - a[0]) / 1000)
    assert spawns["b"] == pytest.approx((b[1] - b[0]) / 1000)
    speedup = _metrics(out)["parallelism_speedup"]
    # At once: the boss's 0.2 s plus b's own 0.16 s, over the 0.2 s path; in turn: 1.
    assert speedup == pytest.approx(1.8 if concurrent else 1.0, abs=0.01)


def test_bookkeeping_before_the_first_work_does_not_start_the_run(tmp_path: Path) -> None:
    spans = [
        _span(0x10, 0, "run", 0, 300),
        # the program building its agents: folded, no event of its own
        _span(0x11, 0x10, "create_agent a", 10, 11, op="create_agent", agent_name="a"),
        _span(0x12, 0x10, "create_agent b", 90, 91, op="create_agent", agent_name="b"),
        _agent(0x20, 0x10, "a", 100, 300),
        _chat(0x21, 0x20, 100, 300),
    ]
    ev, out = _import(tmp_path, spans)
    root = next(e for e in ev if e.get("role") == "root")
    assert root["t"] == pytest.approx(0.1)
    assert _metrics(out)["critical_path_s"] == pytest.approx(0.2)
