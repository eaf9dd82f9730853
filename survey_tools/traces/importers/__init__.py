"""Importers: turn logs of real agent systems into orchestration traces.

Every importer has one signature, ``(read, *, source, keep_content) -> list[ImportResult]``
(``read`` gives the input's bytes; one result per trace the input holds), and is listed
in :data:`IMPORTERS` with a one-line description and the marks :func:`sniff` looks for.
Formats and the facts they rely on are in docs/trace-formats.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from survey_tools.traces.importers.common import ImportFailed, ImportResult

Read = Callable[[], bytes]


@dataclass(frozen=True)
class Importer:
    name: str
    summary: str  # one line for --help
    target: str  # "module:function", imported when the format is used
    # Byte strings that mark the format near the start of a file (any one is enough),
    # and what they are, for the line saying what sniffing looked for.
    marks: tuple[bytes, ...] = ()
    looks_for: str = ""

    def load(self) -> Callable[..., list[ImportResult]]:
        module, _, func = self.target.partition(":")
        fn: Callable[..., list[ImportResult]] = getattr(
            importlib.import_module(f"survey_tools.traces.importers.{module}"), func
        )
        return fn


# In sniffing order: the first whose marks appear wins (the more specific first).
IMPORTERS: tuple[Importer, ...] = (
    Importer(
        "otel",
        "OTLP/JSON spans, a document or JSON lines (GenAI, OpenInference)",
        "otel:import_otlp",
        (b'"resourceSpans"', b'"resource_spans"'),
        "a resourceSpans list",
    ),
    Importer(
        "otel-console",
        "OTel ConsoleSpanExporter output (indented, or one span a line)",
        "console:import_console",
        (b'"context": {\n        "trace_id"', b'"context": {"trace_id"'),
        "a span with context.trace_id",
    ),
    Importer(
        "phoenix",
        "Arize Phoenix spans DataFrame (JSON lines, JSON or Parquet)",
        "phoenix:import_phoenix",
        (b'"context.span_id"', b"PAR1"),
        "a context.span_id column, or Parquet",
    ),
    Importer(
        "mlflow",
        "MLflow traces (Trace.to_json: one trace or a list)",
        "mlflow:import_mlflow",
        (b'"mlflow.spanType"', b'"trace_location"'),
        "MLflow's mlflow.spanType or trace_location",
    ),
    Importer(
        "openai-agents",
        "OpenAI Agents SDK exports (a list, batch bodies, JSON lines)",
        "openai_agents:import_export",
        (b'"object":"trace', b'"object": "trace'),
        'objects of "object": "trace" or "trace.span"',
    ),
    Importer(
        "who-and-when",
        "a Who&When benchmark run (a JSON object with a history)",
        "who_and_when:import_run",
        (b'"history"',),
        "a history list",
    ),
    Importer(
        "openinference",
        "OpenInference spans in OTLP/JSON (the otel reader)",
        "otel:import_otlp",
    ),
)
BY_NAME = {imp.name: imp for imp in IMPORTERS}
FORMATS = ("auto", *BY_NAME)
# How far into a file sniffing looks: past a resource's attributes to its first span.
SNIFF_BYTES = 1 << 16


def sniff(head: bytes) -> Importer | None:
    """The importer whose marks appear in the start of a file, if any."""
    if head.startswith(b"PAR1"):
        return BY_NAME["phoenix"]
    found = [
        (pos, k, imp)
        for k, imp in enumerate(IMPORTERS)
        for m in imp.marks
        if (pos := head.find(m)) >= 0
    ]
    return min(found)[2] if found else None


def sniff_failure() -> str:
    looked = "; ".join(f"{imp.looks_for} ({imp.name})" for imp in IMPORTERS if imp.marks)
    return f"cannot tell the format (looked in the first {SNIFF_BYTES // 1024} KiB for {looked})"


def run_import(
    fmt: str, path: str, read: Read, *, keep_content: bool = False
) -> list[ImportResult]:
    """Import one input with the importer of ``fmt`` (``auto``: the one :func:`sniff`
    finds): one result per trace it holds."""
    if fmt != "auto":
        known = BY_NAME.get(fmt)
        if known is None:
            raise ImportFailed(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")
        return known.load()(read, source=path, keep_content=keep_content)
    box = [read()]
    imp = sniff(box[0][:SNIFF_BYTES].lstrip())
    if imp is None:
        raise ImportFailed(sniff_failure())
    # The importer's read takes the only reference, so it can free the input early.
    return imp.load()(box.pop, source=path, keep_content=keep_content)
