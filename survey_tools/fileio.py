"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

:func:`atomic_write` writes one file; :class:`Staged` writes many (a build's outputs) that are
put in place together, or not at all.

The file gets the permissions a plain ``open(path, "w")`` would give it: the mode the umask allows
for a new file (0644 under umask 022), the existing mode for a file it replaces. (``mkstemp`` alone
would leave every file 0600, unreadable to a web server or another user.)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO


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


def _chunks(data: str | bytes | Iterable[bytes]) -> Iterable[bytes]:
    if isinstance(data, str):
        return (data.encode("utf-8"),)
    if isinstance(data, bytes | bytearray | memoryview):
        return (bytes(data),)
    return data


def _write_temp(path: Path, chunks: Iterable[bytes], mode: int) -> tuple[str, BinaryIO]:
    """A temporary file beside ``path`` holding ``chunks``, flushed, still open (for fsync)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        fh = os.fdopen(fd, "wb", buffering=1 << 20)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        for chunk in chunks:
            fh.write(chunk)
        fh.flush()
    except BaseException:
        fh.close()
        os.unlink(tmp)
        raise
    return tmp, fh


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))  # Windows commits only writable handles
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_close(fh: BinaryIO) -> None:
    try:
        os.fsync(fh.fileno())
    finally:
        fh.close()


def atomic_write(path: Path | str, data: str | bytes | Iterable[bytes]) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    ``data`` may be an iterable of byte chunks, written as they come, so that a large output
    (an imported trace) is never joined in memory.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp, fh = _write_temp(path, _chunks(data), mode_for(path))
    try:
        _sync_close(fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# A staged file: new (never an existing name), written only, never through a link.
_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
           | getattr(os, "O_CLOEXEC", 0))


class Staged:
    """Many files written atomically as one change: each is staged beside its target, then
    :meth:`commit` puts every one in place (and removes the files asked to be removed); if any
    step fails, every file already replaced or removed is restored. :meth:`discard` (or leaving
    the ``with`` block on an error before the commit) removes what was staged: nothing changed.

    Only the staged files are in memory, never their contents: a build's hundred thousand pages
    are written as they are rendered. Each staged file is closed once written, so a build holds
    no file descriptors.

    A staged file that replaces one is on the disk before the first rename, as
    :func:`atomic_write` makes sure of one: :meth:`commit` fsyncs them first, on a few threads,
    so that a power cut cannot leave neither the old version nor the new. A file staged with
    ``new=True`` replaces nothing, so it is not synced: a cut can leave it empty or short, where
    there was no file, and nothing is lost (a build's outputs are drawn again from the records,
    and the next build compares every output's bytes and writes a damaged one again). That is
    most of a first build's cost on the disk: a cold 10,000-record build waited about a second
    for its pages' fsyncs.
    """

    _SYNC_THREADS = 16

    def __init__(self) -> None:
        self._staged: list[tuple[Path, str]] = []  # (target, temporary file)
        self._new: set[str] = set()  # temporary files of targets the caller found missing
        self._remove: list[Path] = []
        self._made: list[Path] = []  # folders created for staged files, parents first
        self._token = secrets.token_hex(4)  # this change's temporary files: .NAME.<token><n>.tmp
        self._count = 0
        self._folders: set[str] = set()  # folders known to exist (found or made)

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    def _mkdirs(self, folder: Path) -> None:
        key = os.fspath(folder)
        if key in self._folders:  # seen by an earlier write of this change
            return
        missing = []
        while not folder.is_dir():
            missing.append(folder)
            folder = folder.parent
        for d in reversed(missing):
            d.mkdir()
            self._made.append(d)
        self._folders.add(key)

    def _create(self, path: Path) -> tuple[str, int]:
        """A new, empty temporary file ``.NAME.XXXX.tmp`` beside ``path``, open for writing.

        Named from a random token and a counter rather than by ``mkstemp`` (which draws a new
        random name, and its 0600 mode needs an fchmod, for every file): O_EXCL still refuses
        any name that exists, and O_NOFOLLOW a link planted there. A new file gets the mode
        the umask allows, as a plain ``open`` would.
        """
        while True:
            self._count += 1
            tmp = os.path.join(path.parent, f".{path.name}.{self._token}{self._count:x}.tmp")
            try:
                return tmp, os.open(tmp, _CREATE, 0o666)
            except FileExistsError:
                continue

    def write(self, path: Path, data: str | bytes | Iterable[bytes], new: bool = False) -> None:
        """Stage ``data`` for ``path`` (a temporary file beside it; ``path`` is not touched yet).

        ``new``: the caller just found no file at ``path`` (a cold build's 10,000 pages), so
        there is no mode to keep and no need to look again.
        """
        self._mkdirs(path.parent)
        mode: int | None = None
        if not new:
            with contextlib.suppress(FileNotFoundError):
                mode = stat.S_IMODE(os.stat(path).st_mode)  # a replaced file keeps its mode
        tmp, fd = self._create(path)
        try:
            if mode is not None:
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, mode)
                else:  # Windows before Python 3.13
                    os.chmod(tmp, mode)
            for chunk in _chunks(data):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
        except BaseException:
            os.close(fd)
            os.unlink(tmp)
            raise
        os.close(fd)
        self._staged.append((path, tmp))
        if new:
            self._new.add(tmp)

    def _sync(self) -> None:
        """Every staged file that replaces one on the disk before the first rename (raises the
        first failure).

        The fsyncs run on a few threads, so their waits on the disk overlap; nothing else runs
        meanwhile. Each thread takes the next file from one shared list (no future or lock per
        file: at 10,000 files those were a third of a second). (A system-wide sync(2) would be
        quicker for many files but waits for every other program's writes too.)
        """
        to_sync = [tmp for _, tmp in self._staged if tmp not in self._new]
        pending = iter(to_sync)  # next() on it is atomic under the GIL
        failures: list[BaseException] = []

        def work() -> None:
            for tmp in pending:
                if failures:
                    return
                try:
                    _fsync_file(tmp)
                except BaseException as err:  # handed to the committing thread, which raises it
                    failures.append(err)
                    return

        workers = [threading.Thread(target=work, name=f"fsync-{i}", daemon=True)
                   for i in range(min(self._SYNC_THREADS, len(to_sync)))]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if failures:
            raise failures[0]

    def remove(self, path: Path) -> None:
        """Remove ``path`` at the commit."""
        self._remove.append(path)

    def commit(self) -> None:
        """Put every staged file in place and remove the others; all or (restored) nothing."""
        self._sync()
        done: list[tuple[Path, str | bytes | None]] = []  # target, its old version (a link or bytes)
        try:
            for path, tmp in self._staged:
                # Nothing to keep where the caller found no file (a cold build's 10,000 pages).
                done.append((path, None if tmp in self._new else _keep(path)))
                os.replace(tmp, path)
            self._staged, self._new = [], set()
            for path in self._remove:
                done.append((path, _keep(path)))
                path.unlink()
        except BaseException:
            for path, old in reversed(done):
                if old is None:
                    path.unlink(missing_ok=True)
                elif isinstance(old, str):
                    os.replace(old, path)
                    # A rename between two links of one file does nothing: the file was not
                    # replaced yet, and its kept link is left to remove.
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(old)
                else:
                    atomic_write(path, old)
            raise
        finally:
            self._remove = []
        for _, old in done:
            if isinstance(old, str):
                with contextlib.suppress(OSError):
                    os.unlink(old)
        self._made = []

    def discard(self) -> None:
        """Remove every staged file and the folders made for them: nothing was changed."""
        for _, tmp in self._staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for d in reversed(self._made):
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty: a folder something else wrote into stays
        self._staged, self._remove, self._made = [], [], []
        self._new = set()
        self._folders = set()


def _keep(path: Path) -> str | bytes | None:
    """The current version of ``path``, kept to restore it: a hard link beside it (no copy of
    its bytes), or its bytes where links are not possible; None when there is no file."""
    if not os.path.lexists(path):
        return None
    fd, keep = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.unlink(keep)
    try:
        os.link(path, keep)
    except OSError:
        return path.read_bytes()
    return keep


class UnsafePath(ValueError):
    """A path the toolkit must not write, delete or read through (a link or a way out)."""


def confined(root: Path | str, rel: str, safe: set[str] | None = None) -> Path:
    """``root / rel``, provided no part of it is a symbolic link or leads outside ``root``.

    A pull request can replace an output folder with a link to ``../../somewhere``; writing or
    deleting through it would touch files outside the survey. Each existing component is checked
    with ``lstat`` (a link is refused whatever it points at), and the relative path must not
    climb out. Raises :class:`UnsafePath` naming the offending component.

    ``safe`` remembers the folders found to be real ones, for a caller that checks many paths
    under the same few folders in one pass (a build's 10,000 pages share two): each folder is
    looked at once, not once per file below it.
    """
    return confined_stat(root, rel, safe)[0]


def _rel_parts(rel: str) -> tuple[tuple[str, ...], bool]:
    """``Path(rel).parts`` and whether ``rel`` is absolute. On POSIX a path with no empty and no
    ``.`` segment is its segments as written (pathlib drops only those): split, not parsed, for
    the 10,000 outputs of a build (tests/unit/core/test_fileio.py holds the two equal)."""
    if type(rel) is str and os.name == "posix":
        split = rel.split("/")
        if "" not in split and "." not in split:
            return tuple(split), False
    given = Path(rel)
    return given.parts, given.is_absolute()


def confined_stat(
    root: Path | str, rel: str, safe: set[str] | None = None
) -> tuple[Path, os.stat_result | None]:
    """:func:`confined`, and the ``lstat`` of the path it checked last: None when nothing is
    there yet. A build looks at 10,000 outputs this way and needs not open a missing one, nor
    read one whose size already says it differs."""
    parts, absolute = _rel_parts(rel)
    if not parts or absolute or ".." in parts:
        raise UnsafePath(f"{rel}: not a path inside the survey folder")
    last = len(parts) - 1
    current = os.fspath(root)
    path = Path(os.path.join(current, *parts))
    for i, part in enumerate(parts):
        current = os.path.join(current, part)
        if safe is not None and i < last and current in safe:
            continue
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return path, None  # the rest will be created by us as real folders
        except OSError as err:
            raise UnsafePath(f"{rel}: cannot inspect {current}: {err.strerror or err}") from None
        shown = "/".join(parts[: i + 1])
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(
                f"{shown} is a symbolic link; outputs are written only into real folders and "
                f"files inside the survey (remove the link and run the command again)"
            )
        if i < last:
            if not stat.S_ISDIR(st.st_mode):
                raise UnsafePath(f"{shown} is not a folder")
            if safe is not None:
                safe.add(current)
        elif not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            raise UnsafePath(f"{shown} is not a regular file (a pipe, device or socket)")
    return path, st  # the last part is never skipped: st is its lstat


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
    # Each entry's relative path is its folder's and its name (no pathlib per entry: a folder
    # of 10,000 pages).
    stack = [(base, Path(rel_dir).as_posix())]
    while stack:
        folder, folder_rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            problems.append((folder_rel, f"{folder_rel}: cannot list: {err.strerror}"))
            continue
        for entry in entries:
            rel = f"{folder_rel}/{entry.name}"
            if entry.is_symlink():
                problems.append(
                    (
                        rel,
                        f"{rel} is a symbolic link among generated outputs (remove it; outputs "
                        f"are real files, and a link would publish or overwrite what it points at)",
                    )
                )
            elif entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), rel))
            elif entry.is_file(follow_symlinks=False):
                files.append(rel)
            else:
                problems.append((rel, f"{rel} is not a regular file (a pipe, device or socket)"))
    return sorted(files), sorted(problems)
