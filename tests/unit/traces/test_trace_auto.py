"""``survey trace import auto``: the format told from the file, span links joining the
traces of one run, and the same run read from every file format that holds spans.

The run is AutoGen-shaped (benchmarks/otel_synth.py ``iter_linked``): one small trace
per message the runtime delivers, each linked to the publish span of the one before,
agents handing off with ``transfer_to_<agent>`` tools. The same spans are written as
OTLP JSON lines and as ConsoleSpanExporter output (both formatters, as ``to_json``
writes them): every one must import as the same single trace. Phoenix's spans DataFrame
keeps no span links: the same spans exported from it (JSON lines, and Parquet when
pyarrow is installed) come out one trace per delivery, each read alike.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.support import run

from benchmarks.otel_synth import iter_linked
from survey_tools.traces.importers import FORMATS, IMPORTERS
from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

TURNS = 12  # 60 spans, 12 traces


def _spans() -> list[dict[str, Any]]:
    out = []
    for line in iter_linked(TURNS * 5, seed=1):
        for rs in orjson.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                out.extend(ss["spans"])
    return out


def _value(v: dict[str, Any]) -> Any:
    if "intValue" in v:
        return int(v["intValue"])
    return next(iter(v.values()))


def _iso(ns: str) -> str:
    dt = datetime.fromtimestamp(int(ns) // 1000 / 1e6, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _console(sp: dict[str, Any]) -> dict[str, Any]:
    """A span as the SDK's ReadableSpan.to_json writes it."""
    return {
        "name": sp["name"],
        "context": {
            "trace_id": "0x" + sp["traceId"],
            "span_id": "0x" + sp["spanId"],
            "trace_state": "[]",
        },
        "kind": "SpanKind.INTERNAL",
        "parent_id": "0x" + sp["parentSpanId"] if sp["parentSpanId"] else None,
        "start_time": _iso(sp["startTimeUnixNano"]),
        "end_time": _iso(sp["endTimeUnixNano"]),
        "status": {"status_code": "UNSET"},
        "attributes": {kv["key"]: _value(kv["value"]) for kv in sp["attributes"]},
        "events": [],
        "links": [
            {
                "context": {
                    "trace_id": "0x" + ln["traceId"],
                    "span_id": "0x" + ln["spanId"],
                    "trace_state": "[]",
                },
                "attributes": {},
            }
            for ln in sp.get("links", [])
        ],
        "resource": {"attributes": {"service.name": "autogen-like"}, "schema_url": ""},
    }


def _phoenix(sp: dict[str, Any]) -> dict[str, Any]:
    """A span as a row of Phoenix's spans DataFrame (to_json(orient="records"))."""
    row: dict[str, Any] = {
        "name": sp["name"],
        "span_kind": "UNKNOWN",
        "parent_id": sp["parentSpanId"] or None,
        "start_time": int(sp["startTimeUnixNano"]) / 1e6,
        "end_time": int(sp["endTimeUnixNano"]) / 1e6,
        "status_code": "UNSET",
        "status_message": "",
        "events": [],
        "context.span_id": sp["spanId"],
        "context.trace_id": sp["traceId"],
    }
    for kv in sp["attributes"]:
        row["attributes." + kv["key"]] = _value(kv["value"])
    return row


def write_all(tmp: Path) -> dict[str, Path]:
    spans = _spans()
    files = {
        "otlp": tmp / "run.otlp.jsonl",
        "console": tmp / "run.console.txt",
        "console-oneline": tmp / "run.console-oneline.txt",
    }
    files["otlp"].write_bytes(b"".join(iter_linked(TURNS * 5, seed=1)))
    files["console"].write_text(
        "".join(json.dumps(_console(sp), indent=4) + "\n" for sp in spans), encoding="utf-8"
    )
    files["console-oneline"].write_text(
        "".join(json.dumps(_console(sp)) + "\n" for sp in spans), encoding="utf-8"
    )
    return files


def _graph(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    ev = doc["events"]
    _, trace = check_file(path)
    assert trace is not None
    m = compute(trace)
    return {
        "agents": sorted({e["agent"] for e in ev}),
        "delegations": Counter(
            (e["agent"], e["to"]) for e in ev if e["type"] in ("spawn", "message")
        ),
        "returns": Counter((e["agent"], e["to"]) for e in ev if e["type"] == "return"),
        "tools": Counter(e["tool"] for e in ev if e["type"] == "tool_call"),
        "tokens": doc["costs"]["tokens"],
        # Besides the root (the first delivery's span, where the run starts).
        "runtime_events": sum(
            1
            for e in ev
            if "autogen" in e.get("attributes", {}).get("operation", "") and e.get("role") != "root"
        ),
        "speedup": m["parallelism_speedup"],
    }


def test_linked_traces_are_one_run_in_every_format(tmp_path: Path) -> None:
    files = write_all(tmp_path)
    graphs = {}
    for kind, path in files.items():
        out = tmp_path / f"{kind}.trace.json"
        code, _, err = run(None, "trace", "import", "auto", str(path), "-o", str(out))
        assert code == 0, err
        assert f"{TURNS} traces joined into one by span links" in err
        assert "autogen process" in err and "autogen publish" in err  # folded, counted
        graphs[kind] = _graph(out)
    first = graphs["otlp"]
    for kind, g in graphs.items():
        # The console's times are microseconds: the speedup may differ in its last digits.
        assert {**g, "speedup": None} == {**first, "speedup": None}, kind
        assert g["speedup"] is not None and g["speedup"] <= 1.0, kind
    assert first["agents"] == ["agent_0", "agent_1", "agent_2", "agent_3", "agent_4", "root"]
    # The application starts the first agent; after that every turn is a hand-off.
    hand_offs = Counter({(f"agent_{k % 5}", f"agent_{(k + 1) % 5}"): 0 for k in range(5)})
    for k in range(TURNS):
        hand_offs[(f"agent_{k % 5}", f"agent_{(k + 1) % 5}")] += 1
    assert first["delegations"] == hand_offs + Counter({("root", "agent_0"): 1})
    assert first["runtime_events"] == 0  # runtime spans are never events of their own


def test_without_links_each_delivery_is_a_trace(tmp_path: Path) -> None:
    lines = []
    for line in iter_linked(TURNS * 5, seed=1):
        doc = orjson.loads(line)
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:
                    sp.pop("links", None)
        lines.append(orjson.dumps(doc))
    src = tmp_path / "unlinked.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run(None, "trace", "import", "auto", str(src), "-o", str(out))
    assert code == 0, err
    assert len(list(out.iterdir())) == TURNS


def _folder_graphs(tmp: Path, src: Path) -> list[dict[str, Any]]:
    out = tmp / (src.name + ".out")
    out.mkdir()
    code, _, err = run(None, "trace", "import", "auto", str(src), "-o", str(out))
    assert code == 0, err
    return [_graph(p) for p in sorted(out.iterdir())]


def test_phoenix_export_json_lines_and_parquet(tmp_path: Path) -> None:
    rows = [_phoenix(sp) for sp in _spans()]
    src = tmp_path / "spans.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    graphs = _folder_graphs(tmp_path, src)
    assert len(graphs) == TURNS  # no links in a DataFrame: one trace per delivery
    # Each delivery: the agent, its model call's tokens, its hand-off.
    assert [g["tools"] for g in graphs[:2]] == [
        Counter({"transfer_to_agent_1": 1}),
        Counter({"transfer_to_agent_2": 1}),
    ]
    assert all(g["runtime_events"] == 0 for g in graphs)
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    # A DataFrame has every column on every row (None where a span lacks it).
    columns = sorted({k for row in rows for k in row} - {"events"})
    rows = [{k: row.get(k) for k in columns} for row in rows]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "spans.parquet")
    assert _folder_graphs(tmp_path, tmp_path / "spans.parquet") == graphs


@pytest.mark.parametrize(
    "content",
    ['{"x": 1}', "plain text\n", "[1, 2, 3]", ""],
    ids=["object", "text", "list", "empty"],
)
def test_a_file_auto_cannot_place_gets_one_line(tmp_path: Path, content: str) -> None:
    src = tmp_path / "what.json"
    src.write_text(content, encoding="utf-8")
    code, out, err = run(None, "trace", "import", "auto", str(src), "-o", str(tmp_path / "o.json"))
    assert code == 1 and out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "cannot tell the format" in lines[0] and "resourceSpans" in lines[0]
    assert not (tmp_path / "o.json").exists()


def test_help_lists_every_format_with_one_line() -> None:
    code, out, _ = run(None, "trace", "import", "--help")
    assert code == 0
    for name in FORMATS:
        assert sum(1 for ln in out.splitlines() if ln.split()[:1] == [name]) == 1, name
    assert {imp.name for imp in IMPORTERS} | {"auto"} == set(FORMATS)


def test_docs_list_every_row_of_the_framework_table() -> None:
    from survey_tools.traces.importers.frameworks import RULES

    docs = (Path(__file__).resolve().parents[3] / "docs" / "trace-formats.md").read_text()
    missing = [r.why for r in RULES if f"| {r.family} | {r.why} |" not in docs]
    assert not missing, missing
