"""Per-trace metrics of many traces as Parquet, in one process or on a Ray cluster.

One function, :func:`trace_row`, turns one trace file into one row (its scalar
metrics, or why it is invalid). :func:`to_parquet` streams rows into a Parquet file
batch by batch, so memory holds one trace and one batch whatever the number of
traces; :func:`to_parquet_ray` maps the same function over the files with Ray Data
(a local cluster or ``address=`` a running one) and writes the batches as they
arrive, in input order, so both give the same file content. pyarrow and Ray come
from the optional extra ``scale`` (docs/traces.md, "Many traces").
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.extras import require_extra
from survey_tools.fileio import mode_for
from survey_tools.heap import release_left
from survey_tools.traces.limits import DEFAULT_LIMITS, Limits
from survey_tools.traces.metrics import SCALAR_FIELDS, compute, flat_row
from survey_tools.traces.validate import check_file

# Columns that are not integers: text, and measures that may be fractional or null.
TEXT = frozenset(
    {
        "trace_id",
        "task_id",
        "system",
        "topology",
        "work_basis",
        "o5_last_useful_return",
        "reward_channel",
    }
)
FLOAT = frozenset(
    {
        "o4_fan_in_mean",
        "o5_stop_t",
        "o5_idle_tail_s",
        "makespan_s",
        "critical_path_s",
        "total_work_s",
        "parallelism_speedup",
        "messages_per_tool_call",
        "messages_per_agent",
        "wall_clock_s",
        "tokens_per_event",
        "reward",
        "tokens_per_reward",
        "wall_clock_s_per_reward",
    }
)
# Before the metrics: which file, whether it is valid, and its first problem if not.
LEAD = ("file", "valid", "problems", "first_problem")
BATCH_ROWS = 512


def _pyarrow() -> Any:
    # pyarrow is the [scale] extra and costs start-up time: loaded only for Parquet output.
    pa = require_extra("scale", "pyarrow", "pyarrow.parquet")
    return pa, pa.parquet


def arrow_schema() -> Any:
    pa, _ = _pyarrow()
    fields = [
        pa.field("file", pa.string()),
        pa.field("valid", pa.bool_()),
        pa.field("problems", pa.int64()),
        pa.field("first_problem", pa.string()),
    ]
    for key in SCALAR_FIELDS:
        kind = pa.string() if key in TEXT else pa.float64() if key in FLOAT else pa.int64()
        fields.append(pa.field(key, kind))
    return pa.schema(fields)


def trace_row(path: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """One trace file as one row: its scalar metrics, or why it is not valid."""
    report, trace = check_file(path, limit=1, limits=limits)
    row: dict[str, Any] = {
        "file": path,
        "valid": report.ok,
        "problems": report.total,
        "first_problem": report.problems[0].format() if report.problems else None,
    }
    release_left(trace)  # the decoded events go before the metrics' arrays (heap.py)
    m = flat_row(compute(trace, max_taint_paths=0)) if trace is not None and report.ok else {}
    for key in SCALAR_FIELDS:
        v = m.get(key)
        row[key] = float(v) if key in FLOAT and v is not None else v
    return row


def rows_table(rows: list[dict[str, Any]]) -> Any:
    pa, _ = _pyarrow()
    return pa.Table.from_pylist(rows, schema=arrow_schema())


@dataclass(frozen=True)
class Written:
    traces: int
    invalid: int


class _AtomicParquet:
    """A Parquet writer on a temporary file that becomes ``target`` only on success."""

    def __init__(self, target: Path) -> None:
        _, pq = _pyarrow()
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".metrics.", suffix=".parquet", dir=target.parent)
        os.close(fd)
        self.tmp, self.target = Path(name), target
        self.writer = pq.ParquetWriter(self.tmp, arrow_schema())
        self.traces = self.invalid = 0

    def write(self, table: Any) -> None:
        self.writer.write_table(table)
        self.traces += table.num_rows
        self.invalid += table.num_rows - sum(bool(v) for v in table.column("valid").to_pylist())

    def __enter__(self) -> _AtomicParquet:
        return self

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.writer.close()
        if exc_type is None:
            os.chmod(self.tmp, mode_for(self.target))
            os.replace(self.tmp, self.target)
        else:
            self.tmp.unlink(missing_ok=True)


def _batches(paths: Iterable[Path], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for p in paths:
        batch.append(str(p))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def to_parquet(
    paths: Iterable[Path],
    target: Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    batch_rows: int = BATCH_ROWS,
) -> Written:
    """Rows of every trace into ``target``, one batch at a time (bounded memory)."""
    with _AtomicParquet(target) as out:
        for batch in _batches(paths, batch_rows):
            out.write(rows_table([trace_row(p, limits) for p in batch]))
    return Written(out.traces, out.invalid)


def _rows_of_batch(batch: Any) -> Any:
    """Ray Data: a batch of paths (an Arrow table) -> the Arrow table of their rows."""
    return rows_table([trace_row(str(p)) for p in batch.column("path").to_pylist()])


def to_parquet_ray(
    paths: list[Path],
    target: Path,
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    batch_rows: int = 64,
) -> Written:
    """The same rows computed by Ray Data tasks across processes (or machines).

    Without ``address`` a local Ray runtime is started with ``num_cpus`` workers (and
    stopped after); with it, the cluster there is used (``auto`` for the one this
    machine belongs to). Workers read the trace files by path: on a real cluster they
    must see the same files (a shared file system). Rows come back in input order and
    are written by this process as they arrive.
    """
    # Ray Data is the [scale] extra (ray[data]); seconds to import, so only for this engine.
    ray = require_extra("scale", "ray", "ray.data")
    started = not ray.is_initialized()
    if started:
        ray.init(
            address=address,
            num_cpus=num_cpus if address is None else None,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True  # the same file as one process writes
        ctx.enable_progress_bars = False
        items = ray.data.from_items([{"path": str(p)} for p in paths])
        ds: Any = items.map_batches(_rows_of_batch, batch_format="pyarrow", batch_size=batch_rows)
        schema = arrow_schema()
        with _AtomicParquet(target) as out:
            if paths:
                for table in ds.iter_batches(batch_format="pyarrow", batch_size=None):
                    out.write(table.cast(schema))
        return Written(out.traces, out.invalid)
    finally:
        if started:
            ray.shutdown()
