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


class UnsafePath(ValueError):
    """A path the toolkit must not write, delete or read through (a link or a way out)."""


def confined(root: Path | str, rel: str) -> Path:
    """``root / rel``, provided no part of it is a symbolic link or leads outside ``root``.

    A pull request can replace an output folder with a link to ``../../somewhere``; writing or
    deleting through it would touch files outside the survey. Each existing component is checked
    with ``lstat`` (a link is refused whatever it points at), and the relative path must not
    climb out. Raises :class:`UnsafePath` naming the offending component.
    """
    root = Path(root)
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise UnsafePath(f"{rel}: not a path inside the survey folder")
    current = root
    for i, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            break  # the rest will be created by us as real folders
        except OSError as err:
            raise UnsafePath(f"{rel}: cannot inspect {current}: {err.strerror or err}") from None
        shown = "/".join(parts[: i + 1])
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(
                f"{shown} is a symbolic link; outputs are written only into real folders and "
                f"files inside the survey (remove the link and run the command again)"
            )
        if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            raise UnsafePath(f"{shown} is not a folder")
        if i == len(parts) - 1 and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            raise UnsafePath(f"{shown} is not a regular file (a pipe, device or socket)")
    return root.joinpath(*parts)


def walk_confined(
    root: Path | str, rel_dir: str
) -> tuple[list[str], list[tuple[str, str]]]:
    """Files below ``root/rel_dir`` (relative paths, sorted) and the problems found there.

    Problems are ``(relative path, message)`` pairs.

    Never follows a symbolic link: a link, or anything that is neither a file nor a folder, is
    reported as a problem instead of being listed or entered.
    """
    root = Path(root)
    try:
        base = confined(root, rel_dir)
    except UnsafePath as err:
        return [], [(rel_dir, str(err))]
    if not base.is_dir():
        return [], []
    files: list[str] = []
    problems: list[tuple[str, str]] = []
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            where = folder.relative_to(root).as_posix()
            problems.append((where, f"{where}: cannot list: {err.strerror}"))
            continue
        for entry in entries:
            rel = Path(entry.path).relative_to(root).as_posix()
            if entry.is_symlink():
                problems.append(
                    (
                        rel,
                        f"{rel} is a symbolic link among generated outputs (remove it; outputs "
                        f"are real files, and a link would publish or overwrite what it points at)",
                    )
                )
            elif entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                files.append(rel)
            else:
                problems.append((rel, f"{rel} is not a regular file (a pipe, device or socket)"))
    return sorted(files), sorted(problems)
