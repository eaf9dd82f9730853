"""Import one input to a file (or standard output), validating what is written."""

from __future__ import annotations

import gc
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from survey_tools.fileio import mode_for
from survey_tools.traces.importers import run_import
from survey_tools.traces.importers.common import ImportFailed, ImportResult, write_stream
from survey_tools.traces.limits import (
    DEFAULT_LIMITS,
    Limits,
    size_problem,
    spans_limited,
    string_problem,
    strip_bom,
)
from survey_tools.traces.problems import InvalidTrace
from survey_tools.traces.validate import check_file

# Above this many events the written trace is not re-validated in the same process
# unless asked (--check): the importers build valid traces by construction (tested),
# and re-validating a multi-million-event trace would double time and memory.
CHECK_LIMIT = 250_000


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: an import allocates millions of small
    tracked objects (span records, event tuples) and no cycles, so every collection
    pass is wasted work that grows with the heap (at a million spans it was half the
    time). Reference counting still frees everything; collection resumes after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def trace_file_name(stem: str, key: str) -> str:
    """``<stem>.<key>.trace.json`` for one of several traces of an input (the key made
    safe as a file name), ``<stem>.trace.json`` for the only one."""
    if not key:
        return stem + ".trace.json"
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("._")[:80] or "trace"
    return f"{stem}.{safe}.trace.json"


def import_to(
    fmt: str,
    src: Path,
    target: Path | None,
    *,
    keep_content: bool = False,
    check: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
    folder: bool = False,
) -> list[str]:
    """Import ``src`` and write its trace to ``target`` (stdout when None).

    With ``folder`` the trace goes into the folder ``target`` as
    ``<stem>.trace.json``; an input holding several traces (several trace ids) needs a
    folder, and gets one ``<stem>.<trace id>.trace.json`` per trace. Each trace is
    written to a temporary file and, by default when it has at most CHECK_LIMIT
    events, validated there; only when every trace of the input passed do they reach
    their targets (by rename), so a failed import never leaves a file behind.
    Returns the importer's notes (repairs, generic operations).
    """
    with _no_gc():
        return _import_to(
            fmt, src, target, keep_content=keep_content, check=check, limits=limits, folder=folder
        )


def _import_to(
    fmt: str,
    src: Path,
    target: Path | None,
    *,
    keep_content: bool,
    check: bool | None,
    limits: Limits,
    folder: bool,
) -> list[str]:
    too_big = size_problem(src.stat().st_size, limits)
    if too_big is not None:
        raise ImportFailed(too_big)

    def read() -> bytes:
        data = strip_bom(src.read_bytes())
        too_long = string_problem(data, limits)
        if too_long is not None:
            msg, line, col = too_long
            raise ImportFailed(f"line {line}, column {col}: {msg}")
        return data

    with spans_limited(limits.max_spans):
        results = run_import(fmt, str(src), read, keep_content=keep_content)
    if len(results) > 1 and not folder:
        shown = ", ".join(r.key for r in results[:3])
        raise ImportFailed(
            f"holds {len(results)} traces ({shown}{', …' if len(results) > 3 else ''}): "
            "give -o FOLDER to write one file per trace"
        )
    if folder and target is not None:
        targets: list[Path | None] = [
            target / trace_file_name(src.stem, r.key if len(results) > 1 else "") for r in results
        ]
    else:
        targets = [target]
    notes: list[str] = []
    where = (
        target
        if folder and target is not None
        else (target.parent if target is not None else Path(tempfile.gettempdir()))
    )
    where.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, Path | None]] = []
    try:
        for dest in targets:
            # Each trace is let go once written, so a large one is not held while
            # it is validated.
            result = results.pop(0)
            notes.extend(result.notes)
            written.append((_write_checked(result, dest, where, check, limits, notes), dest))
            del result
        for tmp, dest in written:
            if dest is None:
                with open(tmp, "rb") as fh:
                    while chunk := fh.read(1 << 20):
                        sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
            else:
                # mkstemp made the file 0600; give the trace the mode a plain write would.
                os.chmod(tmp, mode_for(dest))
                os.replace(tmp, dest)
    finally:
        for tmp, _ in written:
            if tmp.exists():
                tmp.unlink()
    return notes


def _write_checked(
    result: ImportResult,
    dest: Path | None,
    where: Path,
    check: bool | None,
    limits: Limits,
    notes: list[str],
) -> Path:
    """Write one trace to a temporary file in ``where`` and validate it there."""
    n_events = result.builder.n_events
    do_check = check if check is not None else n_events <= CHECK_LIMIT
    if not do_check:
        notes.append(
            f"{n_events} events: not re-validated here (--check to do so, "
            "or run survey trace validate)"
        )
    fd, tmp_name = tempfile.mkstemp(prefix=".import.", suffix=".json", dir=where)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write_stream(tmp, result.iter_json())
        if do_check:
            report, _ = check_file(tmp, name=str(dest or "<stdout>"), limit=20, limits=limits)
            if not report.ok:
                raise InvalidTrace(report)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp
