"""Reading a survey folder: find the record files, parse and check each, build the corpus.

Parsing dominates the cost (a 100k-record corpus is ~26 s of YAML on one core), so files are
parsed on every core and the result of each file is cached in the user's cache directory (see
:mod:`survey_tools.cachedir`; never inside the survey folder), keyed by the file's bytes and the
taxonomy's digest: a changed file or taxonomy is always re-read, an unchanged one never is.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from survey_tools._version import __version__
from survey_tools.cachedir import cache_dir
from survey_tools.corpus.checks import check_record
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Collection, Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import MAX_FILE_BYTES, parse_yaml_bytes
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write

_CACHE_FORMAT = 2
# Below this many files a process pool costs more than it saves.

# (collection name, relative path) of one file
FileRef = tuple[str, str]
# what checking a file yields: data (None when unreadable) and its problems as tuples
# (data, problems as tuples, positions of values down to depth two): what one parse yields.
Result = tuple[Any, list[tuple[str, int, int, str, str]], dict[str, tuple[int, int]]]


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


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
                raise UsageError(f"{p} is not in a record folder ({', '.join(sorted(folders))})")
            refs.append((coll.name, rel.as_posix()))
        return sorted(set(refs)), problems
    for coll in tax.collections.values():
        refs.extend(_list_folder(root, coll, problems))
    return refs, problems


def _list_folder(root: Path, coll: Collection, problems: list[Problem]) -> list[FileRef]:
    folder = root / coll.folder
    if not folder.is_dir():
        return []
    out = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        name = entry.name
        if name.startswith("."):
            continue
        rel = f"{coll.folder}/{name}"
        if name.endswith(".yaml") and entry.is_file():
            out.append((coll.name, rel))
        elif name.endswith(".yml"):
            problems.append(
                Problem(rel, 0, 0, "", "records use the .yaml extension; rename the file")
            )
    return out


def _check_bytes(tax: Taxonomy, coll: Collection, rel: str, raw: bytes) -> Result:
    # One parse with line numbers: problems found now and across records later point from it.
    doc = parse_yaml_bytes(raw, rel, positions=True)
    problems = list(doc.problems) or check_record(tax, coll, rel, doc)
    positions = {
        ".".join(map(str, path)): pos for path, pos in doc.values.items() if 0 < len(path) <= 2
    }
    return doc.data, [(p.file, p.line, p.col, p.field, p.message) for p in problems], positions


def _read(root: Path, rel: str) -> bytes | Problem:
    # Plain os calls: pathlib's object overhead is a second per 100k files.
    path = os.path.join(root, rel)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_FILE_BYTES:  # refused by size: a 100 MB file is never read into memory
                return Problem(
                    rel, 1, 1, "", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}"
                )
            return fh.read()
    except OSError as err:
        return Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}")


def _cache_path(root: Path) -> Path:
    return cache_dir(root) / "records.marshal"


def _load_cache(root: Path, tax: Taxonomy) -> dict[bytes, Result]:
    try:
        raw = _cache_path(root).read_bytes()
        header, entries = marshal.loads(raw)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if header != (_CACHE_FORMAT, __version__, tax.digest):
        return {}
    return entries if isinstance(entries, dict) else {}


def _save_cache(root: Path, tax: Taxonomy, entries: dict[bytes, Result]) -> None:
    # An unwritable cache folder still validates; it only re-parses next time.
    with contextlib.suppress(OSError, ValueError):
        atomic_write(
            _cache_path(root), marshal.dumps(((_CACHE_FORMAT, __version__, tax.digest), entries))
        )


def cache_enabled() -> bool:
    return os.environ.get("SURVEY_NO_CACHE", "") in ("", "0")


def load_corpus(
    root: Path | str,
    tax: Taxonomy | None = None,
    paths: Sequence[Path] | None = None,
    use_cache: bool | None = None,
) -> Corpus:
    """Parse and check every record file; the corpus keeps the valid-looking records and all problems."""
    root = Path(root)
    if tax is None:
        tax = load_taxonomy(root)
    refs, problems = discover(tax, paths)
    use_cache = cache_enabled() if use_cache is None else use_cache
    cache = _load_cache(root, tax) if use_cache else {}
    results: dict[str, Result] = {}
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
        hit = cache.get(d)
        if hit is not None:
            results[rel] = hit
            hits += 1
        else:
            todo.append((cname, rel, raw))
    # One process: a pool above 400 files measured no >= 25% gain on this 2-core machine with a
    # second CPU-bound process running (benchmarks/bench_speed_machinery.py), so it went.
    for cname, rel, raw in todo:
        results[rel] = _check_bytes(tax, tax.collection(cname), rel, raw)
    if use_cache:
        current = {digests[rel]: results[rel] for rel in digests if rel in results}
        # A full run prunes entries of files that changed or went away; a partial run keeps them.
        entries = current if paths is None else {**cache, **current}
        if todo or len(entries) != len(cache):
            _save_cache(root, tax, entries)
    by_coll: dict[str, list[Record]] = {name: [] for name in tax.collections}
    for cname, rel in refs:
        found = results.get(rel)
        if found is None:
            continue
        data, probs, positions = found
        problems.extend(Problem(*p) for p in probs)
        if isinstance(data, dict):
            stem = rel.rsplit("/", 1)[-1][: -len(".yaml")]
            by_coll[cname].append(Record(cname, stem, rel, data, positions))
    return Corpus(
        taxonomy=tax,
        records={k: tuple(sorted(v, key=lambda r: r.id)) for k, v in by_coll.items()},
        problems=tuple(problems),
        files=len(refs),
        cache_hits=hits,
        digest=_corpus_digest(tax, digests),
    )


def _corpus_digest(tax: Taxonomy, digests: Mapping[str, bytes]) -> str:
    h = hashlib.blake2b(tax.digest.encode(), digest_size=16)
    for rel in sorted(digests):
        h.update(digests[rel])
    return h.hexdigest()


def load_valid_corpus(root: Path | str, why: str = "fix the records first") -> Corpus:
    """The corpus, or :class:`InvalidInput` naming every problem when any record is invalid."""
    corpus = load_corpus(root)
    if corpus.problems:
        raise InvalidInput(corpus.problems, why)
    return corpus
