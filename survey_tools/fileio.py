"""Atomic file writes: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

# Knows each platform's convention for caches (XDG on Linux, ~/Library/Caches on macOS,
# %LOCALAPPDATA% on Windows), which we would otherwise hand-write.
from platformdirs import user_cache_path


def atomic_write(path: Path | str, data: str | bytes | Iterable[bytes]) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    ``data`` may be an iterable of byte chunks, written as they come, so that a large output
    (an imported trace) is never joined in memory.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        chunks: Iterable[bytes] = (data.encode("utf-8"),)
    elif isinstance(data, bytes | bytearray | memoryview):
        chunks = (bytes(data),)
    else:
        chunks = data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


ENV_CACHE_DIR = "SURVEY_CACHE_DIR"


def user_cache_dir(sub: str = "") -> Path:
    """Where the toolkit keeps caches for this user: ``$SURVEY_CACHE_DIR`` when set, else the
    platform's user cache folder (``~/.cache/survey-tools`` on Linux), with ``sub`` inside it.

    Caches hold what can be recomputed (results of link checks, parsed records); they live
    outside the survey folder so that a clone stays clean and builds stay deterministic.
    """
    env = os.environ.get(ENV_CACHE_DIR)
    base = Path(env).expanduser() if env else user_cache_path("survey-tools", appauthor=False)
    return base / sub if sub else base
