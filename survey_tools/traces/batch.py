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

from survey_tools.csvcells import spreadsheet_safe
from survey_tools.errors import UsageError
from survey_tools.traces.limits import DEFAULT_LIMITS, Limits
from survey_tools.traces.problems import TraceReport
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
    from survey_tools.traces.metrics import compute  # not on the validate path

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
    bar: Any = None
    if progress:
        # Lazy: tqdm costs about 35 ms of start-up and only a terminal run shows a bar.
        from tqdm import tqdm

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

    from survey_tools.traces.metrics import flat_row

    row = flat_row(m)
    lines = [(k, _cell(row[k])) for k in fields]
    cp = m.get("critical_path", [])
    shown = " ".join(cp[:max_list]) + (f" … (+{len(cp) - max_list})" if len(cp) > max_list else "")
    lines.append(("critical_path", shown))
    for i, path in enumerate(m.get("taint_paths", [])[:max_list]):
        lines.append((f"taint_path[{i}]", " -> ".join(path)))
    width = max(len(k) for k, _ in lines)
    return "".join(f"{k:<{width}}  {v}\n" for k, v in lines)


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
    widths = [max(len(r[i]) for r in cells) for i in range(len(SUMMARY_COLUMNS))]
    return "".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in cells
    )
