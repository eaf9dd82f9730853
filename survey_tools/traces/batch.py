"""Validate or measure many traces: input expansion, one result per trace, renderers."""

from __future__ import annotations

import csv
import glob
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools import heap
from survey_tools.columns import pad_columns
from survey_tools.csvcells import spreadsheet_safe
from survey_tools.errors import UsageError
from survey_tools.traces.limits import DEFAULT_LIMITS, Limits
from survey_tools.traces.metrics import SCALAR_FIELDS, compute, flat_row
from survey_tools.traces.problems import TraceReport
from survey_tools.traces.scale import to_parquet, to_parquet_ray
from survey_tools.traces.validate import check_file


def expand_inputs(paths: Iterable[Path | str]) -> list[Path]:
    """Files as given, folders as their ``*.json`` files (sorted), glob patterns (quoted,
    so the shell leaves them: ``'runs/**/*.json'``) as their matching files (sorted);
    missing paths and patterns matching nothing are usage errors."""
    out: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend(sorted(q for q in p.glob("*.json") if q.is_file()))
        elif p.exists():
            out.append(p)
        elif glob.has_magic(str(raw)):
            found = sorted(Path(q) for q in glob.iglob(str(raw), recursive=True))
            found = [q for q in found if q.is_file()]
            if found:
                out.extend(found)
            else:
                missing.append(str(p))
        else:
            missing.append(str(p))
    if missing:
        raise UsageError("no such file or folder: " + ", ".join(missing))
    return out


@dataclass
class Measured:
    """The outcome for one trace: its validation report and, if valid, its metrics."""

    path: Path
    report: TraceReport
    metrics: dict[str, Any] | None


def measure_file(
    path: Path, *, limit: int, max_taint_paths: int, limits: Limits = DEFAULT_LIMITS
) -> Measured:
    report, trace = check_file(path, limit=limit, limits=limits)
    if trace is None or not report.ok:
        return Measured(path, report, None)
    # The decoded events left to the survey process's exit go before the metrics build arrays
    # of their own: the peak memory stays validation's (heap.py).
    heap.release_left(trace)
    # The columns' lists (ids, edge ends, call ids: millions of items) live until the metrics
    # are made: out of the collections the metrics' own objects start, each of which walked
    # them whole while they were young (0.16 s of a 1M-event trace's metrics; TRACES.md, round 9).
    heap.keep()
    return Measured(path, report, compute(trace, max_taint_paths=max_taint_paths))


def measure_all(
    paths: list[Path],
    *,
    limit: int,
    max_taint_paths: int,
    progress: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[Measured]:
    """Measure each trace in turn; a bad trace yields a report, never an exception."""
    with heap.long_lived():  # (for measure_file's heap.keep)
        yield from _measure_each(paths, limit, max_taint_paths, progress, limits)


def _measure_each(
    paths: list[Path], limit: int, max_taint_paths: int, progress: bool, limits: Limits
) -> Iterator[Measured]:
    bar: Any = None
    if progress:
        from tqdm import tqdm  # heavy (35-140 ms of start-up); only a terminal run shows a bar

        bar = tqdm(total=len(paths), unit="trace", desc="metrics", leave=False)
    try:
        for p in paths:
            yield measure_file(p, limit=limit, max_taint_paths=max_taint_paths, limits=limits)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


# ---------------------------------------------------------------------------
# renderers (pure functions of the metrics, so tests can compare them)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e15 else repr(v)
    return str(v)


def render_csv(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(fields)
    for row in rows:
        # File names and trace ids come from the input: none may run as a spreadsheet formula.
        cells = ["" if row.get(f) is None else row.get(f) for f in fields]
        w.writerow([spreadsheet_safe(c) if isinstance(c, str) else c for c in cells])
    return buf.getvalue()


def render_jsonl(items: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n" for i in items)


def render_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def render_table(m: dict[str, Any], fields: tuple[str, ...], *, max_list: int = 12) -> str:
    """One trace as ``metric  value`` lines, lists abbreviated."""

    row = flat_row(m)
    lines = [(k, _cell(row[k])) for k in fields]
    cp = m.get("critical_path", [])
    shown = " ".join(cp[:max_list]) + (f" … (+{len(cp) - max_list})" if len(cp) > max_list else "")
    lines.append(("critical_path", shown))
    for i, path in enumerate(m.get("taint_paths", [])[:max_list]):
        lines.append((f"taint_path[{i}]", " -> ".join(path)))
    return "".join(f"{k}  {v}\n" for k, v in pad_columns(lines, free_last=True))


SUMMARY_COLUMNS = (
    "trace_id",
    "events",
    "agents",
    "spawn_tree_depth",
    "critical_path_s",
    "parallelism_speedup",
    "messages_per_tool_call",
    "tainted_sources",
)


def render_summary_table(rows: list[dict[str, Any]]) -> str:
    """Several traces as one aligned table with a few key columns."""
    cells = [list(SUMMARY_COLUMNS)] + [[_cell(r.get(c)) for c in SUMMARY_COLUMNS] for r in rows]
    return "".join("  ".join(r).rstrip() + "\n" for r in pad_columns(cells))


# ---------------------------------------------------------------------------
# survey trace metrics: one call, its output and its messages


@dataclass(frozen=True)
class MetricsRun:
    """What ``survey trace metrics`` prints: the output (None: nothing to write), the lines
    for standard error, and whether a trace was invalid (exit 1)."""

    text: str | None
    messages: tuple[str, ...]
    failed: bool


def _skipped_lines(report: TraceReport) -> list[str]:
    lines = [p.format() for p in report.sorted()]
    if report.omitted:
        lines.append(f"{report.file}: … {report.omitted} more problem(s)")
    return [*lines, f"{report.file}: skipped: not a valid trace"]


def _render_csv_rows(results: list[dict[str, Any]], single: bool) -> str:
    fields = SCALAR_FIELDS if single else ("file", *SCALAR_FIELDS)
    return render_csv([dict(flat_row(m), file=m.get("file")) for m in results], fields)


def _render_table(results: list[dict[str, Any]], single: bool) -> str:
    if single:
        return render_table(results[0], SCALAR_FIELDS) if results else ""
    return render_summary_table([flat_row(m) for m in results])


# One renderer per output format of the metrics: (results, single trace?) -> text.
METRICS_RENDERERS = {
    "json": lambda results, single: render_json(results[0] if single and results else results),
    "jsonl": lambda results, single: render_jsonl(results),
    "csv": _render_csv_rows,
    "table": _render_table,
}
METRICS_FORMATS = (*METRICS_RENDERERS, "parquet")


def parquet_metrics(
    paths: list[Path],
    output: Path | None,
    *,
    engine: str,
    limits: Limits,
    ray_address: str | None = None,
    ray_cpus: int | None = None,
) -> MetricsRun:
    """One Parquet row per trace (invalid ones included), in one process or on Ray."""
    if output is None:
        raise UsageError("--format parquet needs -o FILE.parquet")
    if engine == "ray":
        written = to_parquet_ray(paths, output, address=ray_address, num_cpus=ray_cpus)
    else:
        written = to_parquet(paths, output, limits=limits)
    return MetricsRun(
        None,
        (f"metrics: {written.traces} trace(s) -> {output}, {written.invalid} invalid",),
        bool(written.invalid),
    )


def metrics_run(
    paths: list[Path],
    fmt: str,
    *,
    single: bool,
    limit: int,
    max_taint_paths: int,
    limits: Limits,
    progress: bool = False,
    to_file: bool = False,
) -> MetricsRun:
    """The metrics of every valid trace in ``fmt`` (a format of :data:`METRICS_RENDERERS`);
    an invalid trace is reported and skipped. ``single``: one trace file was given (its metrics
    alone, without a ``file`` column)."""
    results: list[dict[str, Any]] = []
    messages: list[str] = []
    skipped = 0
    for res in measure_all(
        paths, limit=limit, max_taint_paths=max_taint_paths, progress=progress, limits=limits
    ):
        if res.metrics is None:
            skipped += 1
            messages += _skipped_lines(res.report)
        else:
            results.append(res.metrics if single else dict(res.metrics, file=str(res.path)))
    text = METRICS_RENDERERS[fmt](results, single) if results or to_file else None
    if not single:
        messages.append(
            f"metrics: {len(paths)} trace(s), {len(results)} measured, {skipped} skipped (invalid)"
        )
    return MetricsRun(text, tuple(messages), bool(skipped))
