"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

The file gets the permissions a plain ``open(path, "w")`` would give it: the mode the umask allows
for a new file (0644 under umask 022), the existing mode for a file it replaces. (``mkstemp`` alone
would leave every file 0600, unreadable to a web server or another user.)
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    # Elsewhere the only way to read it is to set it; put it straight back.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def mode_for(path: Path) -> int:
    """The mode a plain write would leave ``path`` with: its own if it exists, else the umask's."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


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
    mode = mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
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
