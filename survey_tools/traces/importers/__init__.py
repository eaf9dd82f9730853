"""Importers: turn logs of real agent systems into orchestration traces.

Each importer reads one input and returns an :class:`~.common.ImportResult` (the
trace builder plus a summary of what was repaired or kept generic). Formats and the
facts they rely on are in docs/trace-formats.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from survey_tools.traces.importers.common import ImportResult

# ``openinference`` names the same reader as ``otel``: OpenInference spans are OTLP
# spans, told apart span by span by their ``openinference.span.kind`` attribute.
FORMATS = ("who-and-when", "otel", "openinference", "openai-agents")


def run_import(
    fmt: str, path: str, read: Callable[[], bytes], *, keep_content: bool = False
) -> list[ImportResult]:
    """Import one input with the importer of ``fmt``: one result per trace it holds."""
    # Imported here: the CLI needs FORMATS on every command, the importers only here.
    import orjson

    from survey_tools.traces.importers.common import ImportFailed
    from survey_tools.traces.importers.openai_agents import import_export
    from survey_tools.traces.importers.otel import import_otlp
    from survey_tools.traces.importers.who_and_when import import_log

    if fmt == "who-and-when":
        try:
            doc = orjson.loads(read())
        except orjson.JSONDecodeError as err:
            raise ImportFailed(f"not JSON: {err}") from None
        return [import_log(doc, source=path, keep_content=keep_content)]
    if fmt in ("otel", "openinference"):
        return import_otlp(read, source=path)
    if fmt == "openai-agents":
        return import_export(read(), source=path)
    raise ImportFailed(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")
