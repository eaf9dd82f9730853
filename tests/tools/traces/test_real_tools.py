"""Imports of what the real tools write, generated here by the tools themselves: the
OpenTelemetry SDK (its OTLP JSON file exporter, and its OTLP/HTTP protobuf exporter
posting to a loopback collector), the OpenInference instrumentation of the OpenAI
Agents SDK, and the Agents SDK's own tracing (a processor capturing its export dicts,
and its BackendSpanExporter posting batch bodies to a loopback server). The SDK runs
offline on a scripted model (tests/tools/traces/agents_run.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from survey_tools.cli import cli
from survey_tools.traces.validate import check_file

HERE = Path(__file__).resolve().parent
INSTALL = "pip install -e '.[interop]'"
# The loopback servers come from pytest-httpserver, part of the same extra.
pytest.importorskip("pytest_httpserver", reason=f"pytest-httpserver is not installed ({INSTALL})")


def _need(module: str) -> None:
    pytest.importorskip(module, reason=f"{module} is not installed ({INSTALL})")


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["trace", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stderr


def import_folder(tmp_path: Path, fmt: str, src: Path) -> tuple[list[dict[str, Any]], str]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    code, err = run("import", fmt, str(src), "-o", str(out))
    assert code == 0, err
    docs = []
    for p in sorted(out.glob(f"{src.stem}*.trace.json")):
        report, _ = check_file(p)
        assert report.ok, [x.format() for x in report.sorted()]
        docs.append(json.loads(p.read_text()))
    return docs, err


def _otel_provider(exporter: Any, processor: str = "simple") -> Any:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "survey-test"}))
    proc = SimpleSpanProcessor if processor == "simple" else BatchSpanProcessor
    provider.add_span_processor(proc(exporter))
    return provider


def _genai_runs(provider: Any, runs: int, *, legacy: bool) -> None:
    """``runs`` traces of a planner that delegates to a coder, which chats and calls a tool.
    ``legacy`` writes the token counts under their names before GenAI semconv 1.27."""
    from opentelemetry.trace import Status, StatusCode

    tracer = provider.get_tracer("survey-tools-test")
    tin, tout = (
        ("gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens")
        if legacy
        else ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")
    )
    for k in range(runs):
        with tracer.start_as_current_span(
            "invoke_agent planner",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"},
        ):
            with tracer.start_as_current_span(
                "chat", attributes={"gen_ai.operation.name": "chat", tin: 100 + k, tout: 20}
            ):
                pass
            with tracer.start_as_current_span(
                "invoke_agent coder",
                attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder"},
            ):
                with tracer.start_as_current_span(
                    "chat", attributes={"gen_ai.operation.name": "chat", tin: 50, tout: 5}
                ):
                    pass
                with tracer.start_as_current_span(
                    "execute_tool run_tests",
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "run_tests",
                    },
                ) as tool:
                    tool.set_status(Status(StatusCode.ERROR, "2 tests failed"))
    provider.shutdown()


@pytest.mark.parametrize("legacy", [False, True], ids=["current", "legacy-token-names"])
def test_otel_sdk_file_exporter_json_lines(tmp_path: Path, legacy: bool) -> None:
    _need("opentelemetry.exporter.otlp.json.file")
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter

    src = tmp_path / "spans.jsonl"
    _genai_runs(_otel_provider(FileSpanExporter(str(src))), runs=3, legacy=legacy)
    lines = src.read_text().splitlines()
    assert len(lines) == 15  # one export batch (one span) per line
    docs, err = import_folder(tmp_path, "otel", src)
    assert len(docs) == 3  # one trace per trace id
    for k, doc in enumerate(sorted(docs, key=lambda d: d["costs"]["input_tokens"])):
        assert doc["costs"]["input_tokens"] == 150 + k and doc["costs"]["output_tokens"] == 25
        assert doc["costs"]["tool_calls"] == 1
        assert doc["metadata"]["source_format"] == "otlp-json-lines"
        spawns = [(e["agent"], e["to"]) for e in doc["events"] if e["type"] == "spawn"]
        assert spawns == [("planner", "coder")]
        call = next(e for e in doc["events"] if e["type"] == "tool_call")
        assert call["tool"] == "run_tests" and call["attributes"]["error"] == "2 tests failed"
    assert "1 failed span(s)" in err


def test_otel_sdk_file_with_a_span_name_that_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    # The SDK's own file, one byte of one span's name broken: refused with the line and span,
    # never an internal fault (msgspec raises UnicodeDecodeError for such a string).
    _need("opentelemetry.exporter.otlp.json.file")
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter

    src = tmp_path / "spans.jsonl"
    _genai_runs(_otel_provider(FileSpanExporter(str(src))), runs=1, legacy=False)
    lines = src.read_bytes().split(b"\n")
    n = next(i for i, line in enumerate(lines) if b"execute_tool run_tests" in line)
    lines[n] = lines[n].replace(b"execute_tool run_tests", b"execute_tool \xffrun_tests", 1)
    src.write_bytes(b"\n".join(lines))
    span_id = json.loads(lines[n].replace(b"\xff", b""))["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"]
    code, err = run("import", "otel", str(src), "-o", str(tmp_path / "out.json"))
    assert code == 1
    assert f"line {n + 1}: span {span_id!r}: text that is not valid UTF-8 (byte 0xff, " in err, err
    assert "internal fault" not in err and not (tmp_path / "out.json").exists()


def test_otel_sdk_otlp_http_to_a_loopback_collector(tmp_path: Path, httpserver: Any) -> None:
    """The SDK's OTLP/HTTP exporter posts protobuf; the loopback collector decodes each
    request with opentelemetry-proto and writes it as one JSON line (as a collector's
    file exporter does: several resource batches, several traces)."""
    _need("opentelemetry.exporter.otlp.proto.http")
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    from werkzeug import Request, Response

    received: list[str] = []

    def collect(request: Request) -> Response:
        msg = ExportTraceServiceRequest()
        msg.ParseFromString(request.get_data())
        received.append(json.dumps(MessageToDict(msg)))
        return Response(b"", status=200, content_type="application/x-protobuf")

    httpserver.expect_request("/v1/traces", method="POST").respond_with_handler(collect)
    exporter = OTLPSpanExporter(endpoint=httpserver.url_for("/v1/traces"), timeout=10)
    _genai_runs(_otel_provider(exporter, "batch"), runs=2, legacy=False)
    assert received, "the exporter posted nothing"
    src = tmp_path / "collector.jsonl"
    src.write_text("\n".join(received) + "\n")
    docs, _ = import_folder(tmp_path, "otel", src)
    assert len(docs) == 2
    assert sorted(d["costs"]["tokens"] for d in docs) == [175, 176]
    # Protobuf's JSON mapping writes ids in base64: read as the same hex ids.
    assert all(len(d["metadata"]["otel_trace_id"]) == 32 for d in docs)


def test_openinference_spans_of_the_agents_sdk(tmp_path: Path) -> None:
    """OpenInference's instrumentor of the Agents SDK, exported by the OTel SDK's file
    exporter: AGENT, TOOL, LLM and CHAIN spans, llm.token_count.*, tool names."""
    _need("openinference.instrumentation.openai_agents")
    _need("opentelemetry.exporter.otlp.json.file")
    sys.path.insert(0, str(HERE))
    import agents_run
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter

    src = tmp_path / "openinference.jsonl"
    provider = _otel_provider(FileSpanExporter(str(src)))
    inst = OpenAIAgentsInstrumentor()
    inst.instrument(tracer_provider=provider)
    try:
        from agents.tracing import get_trace_provider

        processors = list(get_trace_provider()._multi_processor._processors)
        agents_run.run(processors, runs=1)
    finally:
        inst.uninstrument()
        provider.shutdown()
    kinds = set()
    for line in src.read_text().splitlines():
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:
                    for kv in sp["attributes"]:
                        if kv["key"] == "openinference.span.kind":
                            kinds.add(kv["value"]["stringValue"])
    assert {"AGENT", "TOOL"} <= kinds
    docs, err = import_folder(tmp_path, "openinference", src)
    assert len(docs) == 1
    doc = docs[0]
    tools = sorted(e["tool"] for e in doc["events"] if e["type"] == "tool_call")
    assert tools == ["lookup_order", "refund"]
    assert all(
        e.get("content_ref", "").startswith("sha256:")
        for e in doc["events"]
        if e["type"] == "tool_call"
    )
    agents = {e["to"] for e in doc["events"] if e["type"] == "spawn"}
    assert {"triage", "refunds"} <= agents
    if "LLM" in kinds:
        assert doc["costs"]["tokens"] == 1500
    assert "unknown operations" not in err or "openinference:" in err


def _agents_items(runs: int) -> list[dict[str, Any]]:
    _need("agents")
    sys.path.insert(0, str(HERE))
    import agents_run

    cap = agents_run.Capture()
    agents_run.run([cap], runs=runs)
    return cap.items


def _check_agents_doc(doc: dict[str, Any]) -> None:
    # Usage of the scripted model's four calls, reported on the SDK's task and turn spans.
    assert doc["costs"]["tokens"] == 1500
    assert doc["costs"]["input_tokens"] == 1300 and doc["costs"]["tool_calls"] == 2
    roles = [e.get("role") for e in doc["events"] if e["type"] == "orchestrator_decision"]
    assert roles.count("turn") == 4 and roles.count("task") == 1
    failed = [e for e in doc["events"] if "error" in e.get("attributes", {})]
    assert {e["type"] for e in failed} == {"tool_call", "tool_result"}
    assert all(e["tool"] == "refund" for e in failed)
    assert "Error running tool" in failed[0]["attributes"]["error"]
    # The handoff is the delegation: triage brings refunds in (a spawn the first time).
    handoffs = [
        (e["agent"], e["to"])
        for e in doc["events"]
        if e["type"] in ("spawn", "message") and e.get("role") in ("handoff", "transfer")
    ]
    assert ("triage", "refunds") in handoffs


def test_agents_sdk_batch_body_of_several_traces(tmp_path: Path) -> None:
    items = _agents_items(runs=3)
    src = tmp_path / "batch.json"
    src.write_text(json.dumps({"data": items}))
    docs, err = import_folder(tmp_path, "openai-agents", src)
    assert len(docs) == 3 and "30 span(s)" not in err
    for doc in docs:
        _check_agents_doc(doc)


@pytest.mark.parametrize("what", ["items", "batches"])
def test_agents_sdk_json_lines(tmp_path: Path, what: str) -> None:
    items = _agents_items(runs=2)
    src = tmp_path / "file-processor.jsonl"
    if what == "items":  # one trace or span per line
        src.write_text("".join(json.dumps(i) + "\n" for i in items))
    else:  # one batch body per line
        src.write_text(json.dumps({"data": items[:7]}) + "\n" + json.dumps({"data": items[7:]}))
    docs, _ = import_folder(tmp_path, "openai-agents", src)
    assert len(docs) == 2
    for doc in docs:
        _check_agents_doc(doc)


def test_agents_sdk_backend_exporter_to_a_loopback_server(tmp_path: Path, httpserver: Any) -> None:
    """The SDK's own BackendSpanExporter posts ``{"data": [...]}`` bodies."""
    _need("agents")
    from agents.tracing.processors import BackendSpanExporter, BatchTraceProcessor
    from werkzeug import Request, Response

    bodies: list[bytes] = []

    def ingest(request: Request) -> Response:
        bodies.append(request.get_data())
        return Response(b"{}", status=200, content_type="application/json")

    httpserver.expect_request("/v1/traces/ingest", method="POST").respond_with_handler(ingest)
    exporter = BackendSpanExporter(
        api_key="sk-test", endpoint=httpserver.url_for("/v1/traces/ingest"), max_retries=1
    )
    proc = BatchTraceProcessor(exporter, schedule_delay=60.0)
    sys.path.insert(0, str(HERE))
    import agents_run

    agents_run.run([proc], runs=2)
    proc.force_flush()
    proc.shutdown()
    assert bodies, "the exporter posted nothing"
    for n, body in enumerate(bodies):
        src = tmp_path / f"body{n}.json"
        src.write_bytes(body)
    docs: list[dict[str, Any]] = []
    for n in range(len(bodies)):
        got, _ = import_folder(tmp_path, "openai-agents", tmp_path / f"body{n}.json")
        docs.extend(got)
    assert len(docs) == 2
    for doc in docs:
        _check_agents_doc(doc)
