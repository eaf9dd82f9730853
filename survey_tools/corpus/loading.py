"""Reading a survey folder: find the record files, parse and check each, build the corpus.

Parsing and checking dominate the cost, so the result of each file is cached in the user's cache
directory (see :mod:`survey_tools.cachedir`; never inside the survey folder), keyed by the
file's path in the survey, its bytes, the taxonomy's digest and the toolkit's own source
(``hashing.source_digest``): a changed file, taxonomy or toolkit is always re-read, an unchanged
one never is, whichever clone of the survey it sits in.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from survey_tools import heap
from survey_tools._version import __version__
from survey_tools.cachedir import cache_base
from survey_tools.corpus.checks import WRONG_FOLDER, check_record
from survey_tools.corpus.published import published_data
from survey_tools.corpus.readback import readback_problems, value_problems
from survey_tools.corpus.records import Corpus, Record, one_copy
from survey_tools.corpus.taxonomy import Collection, Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import MAX_FILE_BYTES, YamlDocument, parse_yaml_bytes
from survey_tools.errors import WARNING, InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.hashing import content_digest, content_hasher, hex_of, source_digest

_CACHE_FORMAT = 7  # 7: warnings (errors.WARNING) and published (cleaned) values; 4: entries hashed with SHA-256 (survey_tools.hashing); 5: messages in plain words, blank ids read as absent; 6: values read back against their lines

# (collection name, relative path) of one file
FileRef = tuple[str, str]
# what checking a file yields: data (None when unreadable) and its problems as tuples
# (data, problems as tuples, positions of values down to depth two): what one parse yields.
Result = tuple[Any, list[tuple[str, int, int, str, str]], dict[str, tuple[int, int]]]


def _digest(raw: bytes) -> bytes:
    return content_digest(raw, 16)


def discover(
    tax: Taxonomy, paths: Sequence[Path] | None = None
) -> tuple[list[FileRef], list[Problem]]:
    """Record files of every collection (or only ``paths``), sorted, relative to the root."""
    root = tax.root
    refs: list[FileRef] = []
    problems: list[Problem] = []
    folders = {c.folder: c for c in tax.collections.values()}
    if paths:
        for p in paths:
            ap = p if p.is_absolute() else Path.cwd() / p
            if ap.is_symlink():
                raise UsageError(f"{p} {_LINK_MESSAGE}")
            try:
                rel = ap.resolve().relative_to(root.resolve())
            except ValueError:
                raise UsageError(f"{p} is not inside the survey folder {root}") from None
            if ap.is_dir():
                coll = folders.get(rel.as_posix())
                if coll is None:
                    raise UsageError(f"{p} is not a record folder ({', '.join(sorted(folders))})")
                refs.extend(_list_folder(root, coll, problems))
                continue
            if not ap.exists():
                raise UsageError(f"{p} does not exist")
            coll = folders.get(rel.parent.as_posix())
            if coll is None:
                homes = " or ".join(f"{c.folder}/{c.id_field.upper()}.yaml" for c in folders.values())
                raise UsageError(f"{p} is not where records are read, so it is never checked: records "
                                 f"live in {homes}; move it there")
            refs.append((coll.name, rel.as_posix()))
        return sorted(set(refs)), problems
    for coll in tax.collections.values():
        refs.extend(_list_folder(root, coll, problems))
    return refs, problems


def _list_folder(root: Path, coll: Collection, problems: list[Problem]) -> list[FileRef]:
    folder = root / coll.folder
    if folder.is_symlink():
        problems.append(Problem(coll.folder, 0, 0, "", _LINK_MESSAGE))
        return []
    if not folder.is_dir():
        return []
    out = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        name = entry.name
        if name.startswith("."):
            continue
        shown = _shown_name(name)
        rel = f"{coll.folder}/{shown}"
        if shown != name:
            # Problems are lines of text: a name that cannot be printed as one is refused.
            problems.append(Problem(rel, 0, 0, "", _NAME_MESSAGE))
            continue
        if name.endswith(".yaml"):
            why = _not_a_record_file(entry)
            if why:
                problems.append(Problem(rel, 0, 0, "", why))
            else:
                out.append((coll.name, rel))
        elif name.endswith(".yml"):
            problems.append(
                Problem(rel, 0, 0, "", f"records end in .yaml, not .yml: rename the file to "
                                       f"{name[:-4]}.yaml")
            )
        else:
            # Never read, so never checked: a contributor's record would be left out unseen.
            problems.append(Problem(rel, 0, 0, "", _unread_message(coll, entry)))
    return out


def _unread_message(coll: Collection, entry: os.DirEntry[str]) -> str:
    home = f"{coll.folder}/{coll.id_field.upper()}.yaml"
    try:
        folder = entry.is_dir(follow_symlinks=False)
    except OSError:
        folder = False
    if folder:
        return f"is a folder, where no record is read: records live directly in {home}; move its files up"
    stem = entry.name.split(".", 1)[0]
    return f"is not read as a record: records live in {home}; rename it to {coll.folder}/{stem}.yaml"


_LINK_MESSAGE = (
    "is a symbolic link; records are read only from regular files inside the survey folder "
    "(copy the file in instead)"
)
_NAME_MESSAGE = (
    "file name is not valid UTF-8 or holds a control character; rename the file to its key"
)


def _shown_name(name: str) -> str:
    """The name as it may appear in a message: undecodable bytes and controls escaped."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return name.encode("unicode_escape").decode("ascii")
    return name


def _not_a_record_file(entry: os.DirEntry[str]) -> str | None:
    """Why a ``*.yaml`` entry is not read as a record (a link, a folder, a pipe), or None."""
    try:
        if entry.is_symlink():
            return _LINK_MESSAGE
        if entry.is_dir(follow_symlinks=False):
            return "is a folder, not a record file"
        if not entry.is_file(follow_symlinks=False):
            return "is not a regular file (a pipe, device or socket); records are regular files"
    except OSError as err:
        return f"cannot inspect: {err.strerror or err}"
    return None


def _shared_positions(positions: Mapping[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    # Records laid out alike hold the same names and (line, column) pairs: one copy of each.
    return {sys.intern(name): one_copy((pair[0], pair[1])) for name, pair in positions.items()}


def _check_bytes(tax: Taxonomy, coll: Collection, rel: str, raw: bytes) -> Result:
    # One parse with line numbers: problems found now and across records later point from it.
    doc = parse_yaml_bytes(raw, rel, positions=True)
    problems = list(doc.problems) or _checked(tax, coll, rel, raw, doc)
    if len(problems) == 1 and problems[0].message.startswith(WRONG_FOLDER):
        doc.data = None  # another folder's record: not one of this collection's (one line says so)
    if isinstance(doc.data, dict):  # what every output is drawn from: links cleaned, text NFC
        doc.data = published_data(coll, doc.data)
    # Shared as they are made (see _shared_positions): a cold build's 10,000 records need no
    # second pass over them.
    positions = {
        sys.intern(".".join(map(str, path))): one_copy(pos)
        for path, pos in doc.values.items()
        if 0 < len(path) <= 2
    }
    return doc.data, [(p.file, p.line, p.col, p.field, p.message) for p in problems], positions


def _checked(tax: Taxonomy, coll: Collection, rel: str, raw: bytes, doc: YamlDocument) -> list[Problem]:
    """The record's problems, each value read back against its line first: where the text read
    is not what was written (readback.py), that line replaces the check's own on the value."""
    problems = check_record(tax, coll, rel, doc)
    text = raw.decode("utf-8", "replace")
    back = readback_problems(tax, coll, rel, text, doc)
    back += value_problems(coll, rel, doc, text) if problems else []
    if back:
        said = {(p.line, p.field) for p in back}
        problems = [p for p in problems if (p.line, p.field) not in said] + back
    return problems


def _read(root: Path, rel: str) -> bytes | Problem:
    # Plain os calls: pathlib's object overhead is a second per 100k files. O_NOFOLLOW and the
    # fstat below hold even if the file was swapped for a link or a pipe after it was listed.
    path = os.path.join(root, rel)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return Problem(rel, 0, 0, "", _LINK_MESSAGE)
        return Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Problem(rel, 0, 0, "", "is not a regular file; records are regular files")
        if st.st_size > MAX_FILE_BYTES:  # refused by size: a 100 MB file is never read
            return Problem(
                rel, 1, 1, "", f"file is {st.st_size:,} bytes; the limit is {MAX_FILE_BYTES:,}"
            )
        # One os.read of the size fstat gave, rather than a file object, whose set-up asks the
        # file whether it is a terminal and where it stands, and which reads once more to meet
        # the end: four system calls fewer a record.
        data = os.read(fd, st.st_size + 1)
        if len(data) > st.st_size:  # it grew since: the rest too, as a file object would
            chunks = [data]
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    except OSError as err:
        return Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}")
    finally:
        os.close(fd)


# Entries of files this folder no longer has (another clone's, an earlier edit's) kept beside the
# current ones, newest first: enough for a few worktrees of a survey, bounded for a big one.
_KEEP_OTHERS = 2000


def _cache_path(tax: Taxonomy) -> Path:
    # Named by the taxonomy's digest, not by the folder: what a file's check yields depends only
    # on its path in the survey, its bytes and the taxonomy, so a clone or worktree of the same
    # survey elsewhere on the machine reads the parses another one made.
    return cache_base() / "records" / f"{tax.digest}.msgpack"


# The cache is data, never code: MessagePack decoded into these exact types (a wrong type makes
# the whole file invalid), each entry carrying a keyed hash of its own content, so a corrupted or
# edited entry is noticed and the cache rebuilt rather than trusted. (It used to be marshal,
# which is not meant for data one did not write oneself.)
class _Entry(msgspec.Struct, array_like=True, frozen=True):
    key: bytes
    data: Any
    problems: list[tuple[str, int, int, str, str]]
    positions: dict[str, tuple[int, int]]
    check: bytes


class _CacheFile(msgspec.Struct, array_like=True, frozen=True):
    format: int
    version: str
    taxonomy: str
    entries: list[_Entry]


_DECODER = msgspec.msgpack.Decoder(_CacheFile)
_ENCODER = msgspec.msgpack.Encoder()


def _entry_check(tax: Taxonomy, key: bytes, result: Result) -> bytes:
    body = _ENCODER.encode((key, result[0], result[1], result[2]))
    # Keyed by the taxonomy: an entry checked against another taxonomy's rules never passes.
    return content_digest(tax.digest.encode() + b"\0" + body, 16)


def _code_version() -> str:
    # The release and a digest of the package's own source: an edit to a message in checks.py
    # (or to anything else of the toolkit) drops the cache at once, without SURVEY_NO_CACHE.
    return f"{__version__}+{source_digest()}"


def _load_cache(tax: Taxonomy) -> dict[bytes, _Entry]:
    """The cache's entries by key, not yet verified: an entry's hash is checked when it is used
    (:func:`_verified`), so a run pays for the files it has, not for every entry kept."""
    try:
        cached = _DECODER.decode(_cache_path(tax).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        return {}  # (msgspec raises UnicodeDecodeError for a string that is not UTF-8)
    if (cached.format, cached.version, cached.taxonomy) != (_CACHE_FORMAT, _code_version(), tax.digest):
        return {}
    return {e.key: e for e in cached.entries}


def _verified(tax: Taxonomy, entry: _Entry) -> Result | None:
    result: Result = (entry.data, entry.problems, entry.positions)
    return result if _entry_check(tax, entry.key, result) == entry.check else None


def _save_cache(tax: Taxonomy, current: dict[bytes, Result], others: list[_Entry]) -> None:
    # An unwritable cache folder still validates; it only re-parses next time. Entries kept
    # from before keep the hash they came with: one edited on disk is still caught when used.
    try:
        rows = [_Entry(k, r[0], list(r[1]), dict(r[2]), _entry_check(tax, k, r)) for k, r in current.items()]
        body = _ENCODER.encode(_CacheFile(_CACHE_FORMAT, _code_version(), tax.digest, rows + others))
    except (TypeError, OverflowError, ValueError):
        return  # a value MessagePack cannot hold (a 64-digit integer): parse again next time
    with contextlib.suppress(OSError, ValueError):
        _cache_path(tax).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(_cache_path(tax), body)


def cache_enabled() -> bool:
    return os.environ.get("SURVEY_NO_CACHE", "") in ("", "0")


def load_corpus(
    root: Path | str,
    tax: Taxonomy | None = None,
    paths: Sequence[Path] | None = None,
    use_cache: bool | None = None,
    _distrust: bool = False,
) -> Corpus:
    """Parse and check every record file; the corpus keeps the valid-looking records and all problems."""
    root = Path(root)
    if tax is None:
        tax = load_taxonomy(root)
    refs, problems = discover(tax, paths)
    warnings: list[Problem] = []
    use_cache = cache_enabled() if use_cache is None else use_cache
    cache = _load_cache(tax) if use_cache and not _distrust else {}
    results: dict[str, Result] = {}
    cached: set[str] = set()  # files whose result came from the cache
    todo: list[tuple[str, str, bytes]] = []
    digests: dict[str, bytes] = {}
    hits = 0
    for cname, rel in refs:
        raw = _read(root, rel)
        if isinstance(raw, Problem):
            problems.append(raw)
            continue
        # The cache key includes the path: problems name their file.
        d = _digest(rel.encode() + b"\0" + raw)
        digests[rel] = d
        entry = cache.get(d)
        hit = _verified(tax, entry) if entry is not None else None
        if entry is not None and hit is None:
            # One entry that does not match its hash: trust none of the cache.
            return load_corpus(root, tax, paths, use_cache=use_cache, _distrust=True)
        if hit is not None:
            results[rel] = hit
            cached.add(rel)
            hits += 1
        else:
            todo.append((cname, rel, raw))
    # One process: a pool above 400 files measured no >= 25% gain on this 2-core machine with a
    # second CPU-bound process running (benchmarks/bench_speed_machinery.py), so it went.
    for n, (cname, rel, raw) in enumerate(todo, 1):
        results[rel] = _check_bytes(tax, tax.collection(cname), rel, raw)  # positions shared
        if n % heap.KEEP_EVERY == 0:
            heap.keep()  # within a build, the records read so far are out of full collections
    if use_cache:
        current = {digests[rel]: results[rel] for rel in digests if rel in results}
        # This run's files first, then the others the cache held (other folders', older
        # versions'), up to _KEEP_OTHERS of them: the oldest go.
        others = [e for k, e in cache.items() if k not in current][:_KEEP_OTHERS]
        if todo or len(current) + len(others) != len(cache):
            _save_cache(tax, current, others)
    by_coll: dict[str, list[Record]] = {name: [] for name in tax.collections}
    for cname, rel in refs:
        found = results.get(rel)
        if found is None:
            continue
        data, probs, positions = found
        for p in probs:
            (warnings if p[4].startswith(WARNING) else problems).append(Problem(*p))
        if isinstance(data, dict):
            stem = rel.rsplit("/", 1)[-1][: -len(".yaml")]
            if rel in cached:  # decoded from the cache: names and pairs are copies of their own
                positions = _shared_positions(positions)
            by_coll[cname].append(Record(cname, stem, rel, data, positions))
    return Corpus(
        taxonomy=tax,
        records={k: tuple(sorted(v, key=lambda r: r.id)) for k, v in by_coll.items()},
        problems=tuple(problems),
        files=len(refs),
        warnings=tuple(warnings),
        cache_hits=hits,
        digest=_corpus_digest(tax, digests),
    )


def _corpus_digest(tax: Taxonomy, digests: Mapping[str, bytes]) -> str:
    h = content_hasher(tax.digest.encode())
    for rel in sorted(digests):
        h.update(digests[rel])
    return hex_of(h, 16)


def load_valid_corpus(root: Path | str, why: str = "fix the records first") -> Corpus:
    """The corpus, or :class:`InvalidInput` naming every problem when any record is invalid."""
    corpus = load_corpus(root)
    if corpus.problems:
        raise InvalidInput(corpus.problems, why)
    return corpus
