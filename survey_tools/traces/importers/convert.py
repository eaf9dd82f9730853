"""Import one input to a file (or standard output), validating what is written."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from survey_tools.fileio import mode_for
from survey_tools.traces.importers import run_import
from survey_tools.traces.importers.common import ImportFailed, write_stream
from survey_tools.traces.limits import (
    DEFAULT_LIMITS,
    Limits,
    size_problem,
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


def import_to(
    fmt: str,
    src: Path,
    target: Path | None,
    *,
    keep_content: bool = False,
    check: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[str]:
    """Import ``src`` and write the trace to ``target`` (stdout when None).

    The trace is written to a temporary file and, by default when it has at most
    CHECK_LIMIT events, validated there; only then does it reach ``target`` (by
    rename), so a failed import never leaves a file behind. Returns the importer's
    notes (repairs, generic operations).
    """
    with _no_gc():
        return _import_to(fmt, src, target, keep_content=keep_content, check=check, limits=limits)


def _import_to(
    fmt: str,
    src: Path,
    target: Path | None,
    *,
    keep_content: bool,
    check: bool | None,
    limits: Limits,
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

    result = run_import(fmt, str(src), read, keep_content=keep_content)
    notes = result.notes
    n_events = result.builder.n_events
    do_check = check if check is not None else n_events <= CHECK_LIMIT
    if not do_check:
        notes.append(
            f"{n_events} events: not re-validated here (--check to do so, "
            "or run survey trace validate)"
        )
    where = target.parent if target is not None else Path(tempfile.gettempdir())
    where.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".import.", suffix=".json", dir=where)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write_stream(tmp, result.iter_json())
        del result
        if do_check:
            report, _ = check_file(tmp, name=str(target or "<stdout>"), limit=20, limits=limits)
            if not report.ok:
                raise InvalidTrace(report)
        if target is None:
            with open(tmp, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
        else:
            # mkstemp made the file 0600; give the trace the mode a plain write would.
            os.chmod(tmp, mode_for(target))
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return notes
