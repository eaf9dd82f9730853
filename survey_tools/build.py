"""``survey build``: validate, compute everything once, then write every generated file.

The outputs and their generators are in :mod:`survey_tools.render.generators`. The build
computes the shared context once, runs every generator and writes nothing when validation or any
generator fails; ``--check`` compares the same outputs with the files on disk. The files of a
generator that returns them lazily (the site's pages) are rendered one at a time as they are
compared and staged (:class:`~survey_tools.fileio.Staged`), so a build never holds them all.
"""

from __future__ import annotations

import difflib
import os
import stat
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

import survey_tools.buildcache as buildcache
from survey_tools import heap
from survey_tools.cachedir import cache_dir
from survey_tools.errors import InvalidInput, Problem, SurveyError
from survey_tools.fileio import Staged, UnsafePath, confined, confined_stat, walk_confined
from survey_tools.render.generators import (
    GENERATORS,
    REPORTS,
    BuildContext,
    Lazy,
    Output,
    Parts,
    selected,
)
from survey_tools.render.requirements import output_problems
from survey_tools.reports.compute import compute_survey, load_valid, read_inputs, survey_of

# Folders whose every file is generated: files no generator produces any more are removed. The
# site's folder is one too (its whole content is published), whatever its configured path.
OWNED_DIRS = (f"{REPORTS}/tables", f"{REPORTS}/figures", f"{REPORTS}/site/papers")
# Every file the last build wrote, one a line: an output turned off in survey.yaml (or a file a
# generator no longer writes) is found here and removed, wherever it lives.
MANIFEST = f"{REPORTS}/outputs.txt"


class Outputs(Mapping[str, bytes]):
    """Every output of a build by path, in path order: the bytes of each file, those of a lazy
    generator (:class:`~survey_tools.render.registry.Lazy`) rendered each time they are read."""

    def __init__(self, files: Mapping[str, tuple[str, bytes | Callable[[], Output]]]) -> None:
        self._files = dict(sorted(files.items()))  # path -> (generator, bytes or renderer)

    def __getitem__(self, rel: str) -> bytes:
        name, data = self._files[rel]
        if not callable(data):
            return data
        try:
            out = data()
        except SurveyError:
            raise
        except Exception as err:  # a generator bug must not leave a half-built tree
            raise SurveyError(f"generator {name!r} failed: {type(err).__name__}: {err}") from err
        return out.encode("utf-8") if isinstance(out, str) else bytes(out)

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __contains__(self, rel: object) -> bool:
        return rel in self._files


@dataclass(frozen=True)
class BuildPlan:
    outputs: Outputs
    context: BuildContext


@dataclass(frozen=True)
class Stale:
    path: str
    status: str  # stale | missing | extra
    diff: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "status": self.status, "diff": self.diff}


# --- computing -------------------------------------------------------------------------------


def make_context(root: Path | str) -> BuildContext:
    """The computed survey every generator reads (:func:`reports.compute.compute_survey`)."""
    return compute_survey(root)


def plan_build(root: Path | str, ctx: BuildContext | None = None) -> BuildPlan:
    """Every output of every generator (a lazy generator's files rendered when read); raise
    when anything is wrong."""
    ctx = ctx if ctx is not None else make_context(root)
    memo = buildcache.enabled()
    # A claim's status (holds, changed, contradicted) is reported, never a reason to refuse:
    # `survey claims --fail-on` is the gate for those who want one.
    if ctx.corrections is not None and ctx.corrections.problems:
        raise InvalidInput(ctx.corrections.problems, "a correction is stale or invalid; nothing was written")
    unmet = output_problems(ctx.taxonomy)
    if unmet:
        raise InvalidInput(unmet, "an output's requirements are not met; nothing was written")
    outputs: dict[str, tuple[str, bytes | Callable[[], Output]]] = {}
    owner: dict[str, str] = {}
    problems: list[Problem] = []
    for name in selected(ctx.taxonomy):
        gen = GENERATORS[name]
        try:
            produced = gen(ctx)
            if memo and isinstance(produced, Parts):
                produced = _memoised(name, produced)
        except SurveyError:
            raise
        except Exception as err:  # a generator bug must not leave a half-built tree
            raise SurveyError(f"generator {name!r} failed: {type(err).__name__}: {err}") from err
        heap.keep()  # a generator's tables and texts live until the outputs are written
        for rel in produced:
            data: bytes | Callable[[], Output]
            if isinstance(produced, Lazy):
                data = produced.renderer(rel)
            else:
                raw = produced[rel]
                data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
            rel = Path(rel).as_posix()
            if rel.startswith(("/", "../")) or "/../" in rel:
                problems.append(Problem(rel, 0, 0, "", f"generator {name!r} writes outside the survey folder"))
            elif rel in owner:
                problems.append(Problem(rel, 0, 0, "", f"written by both {owner[rel]!r} and {name!r}"))
            owner[rel] = name
            outputs[rel] = (name, data)
    if problems:
        raise InvalidInput(problems, "generators disagree; nothing was written")
    outputs[MANIFEST] = ("build", ("".join(f"{rel}\n" for rel in sorted(outputs))).encode("utf-8"))
    return BuildPlan(Outputs(outputs), ctx)


def _memoised(name: str, produced: Parts) -> dict[str, bytes]:
    """The files of a generator drawn in parts: each part's files from the cache while its
    inputs are unchanged, drawn (and kept) otherwise."""
    files: dict[str, bytes] = {}
    for part_name, part in produced.parts.items():
        entry = f"{name}-{part_name}"
        key = buildcache.generator_key(entry, part.inputs)
        found = buildcache.load_outputs(entry, key)
        if found is None or set(found) != set(part.paths):
            found = {rel: d.encode("utf-8") if isinstance(d, str) else bytes(d)
                     for rel, d in produced.drawn(part_name).items()}
            buildcache.store_outputs(entry, key, found)
        files.update(found)
    return files


def owned_dirs(outputs: Mapping[str, bytes]) -> tuple[str, ...]:
    """The folders whose every file is generated: the fixed ones and the site's folder."""
    site_dirs = {rel.rsplit("/", 1)[0] for rel in outputs if rel.endswith("/index.html")}
    # Only folders of their own: never the survey root or a folder that also holds records.
    site_dirs = {d for d in site_dirs if "/" in d}
    return tuple(sorted(set(OWNED_DIRS) | site_dirs))


def _extras(
    root: Path, outputs: Mapping[str, bytes]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Files in owned folders that no generator produces, and unsafe entries found there."""
    extra: list[str] = []
    unsafe: list[tuple[str, str]] = []
    for d in owned_dirs(outputs):
        files, problems = walk_confined(root, d)
        unsafe.extend(problems)
        extra.extend(rel for rel in files if rel not in outputs and not _is_leftover_tmp(rel))
    # Outputs a previous build listed in its manifest that no generator produces any more (an
    # output turned off). The manifest is a file in the repository, so a pull request can edit
    # it: only paths where outputs live are removed, never a record or a configuration file.
    try:
        listed = (root / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        listed = []
    for rel in listed:
        if not rel or rel in outputs or not _output_place(rel):
            continue
        try:
            if confined(root, rel).is_file():
                extra.append(rel)
        except UnsafePath as err:
            unsafe.append((rel, str(err)))
    return sorted(set(extra)), sorted(set(unsafe))


# Where generators write (reports/, the generated docs and schema files, the issue form): the
# only places a file listed in a manifest may be removed from.
_OUTPUT_PREFIXES = (f"{REPORTS}/", "taxonomy/schema/", ".github/ISSUE_TEMPLATE/")
_OUTPUT_FILES = frozenset(("README.md", "CONTRIBUTING.md", "CITATION.cff", "taxonomy/README.md"))


def _output_place(rel: str) -> bool:
    return (rel.startswith(_OUTPUT_PREFIXES) or rel in _OUTPUT_FILES) and ".." not in rel.split("/")


def _is_leftover_tmp(rel: str) -> bool:
    # atomic_write's temporary files (".NAME.RANDOM.tmp"): a killed build may leave one behind.
    name = rel.rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(".tmp")


def _leftover_tmps(root: Path, outputs: Mapping[str, bytes]) -> list[Path]:
    """Temporary files a killed build left beside its outputs (removed by the next build):
    ``.NAME.RANDOM.tmp`` beside an output NAME. Each folder is listed once (a glob per output
    listed the folder of 10,000 pages 10,000 times)."""
    names: dict[Path, set[str]] = {}
    for rel in outputs:
        path = root / rel
        names.setdefault(path.parent, set()).add(path.name)
    found: list[Path] = []
    for folder, here in names.items():
        if not folder.is_dir() or folder.is_symlink():
            continue
        with os.scandir(folder) as entries:
            for e in entries:
                # mkstemp's random part has no dot: NAME is what lies before the last one.
                if (e.name.startswith(".") and e.name.endswith(".tmp") and not e.is_symlink()
                        and e.name[1:-4].rsplit(".", 1)[0] in here):
                    found.append(folder / e.name)
    return sorted(found)


def _short_diff(rel: str, old: bytes, new: bytes, limit: int = 20) -> str:
    try:
        a = old.decode("utf-8").splitlines(keepends=True)
        b = new.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return f"binary file differs ({len(old)} bytes on disk, {len(new)} generated)\n"
    lines = list(difflib.unified_diff(a, b, f"{rel} (on disk)", f"{rel} (generated)", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... {len(lines) - limit} more diff lines\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _scan(
    root: Path, outputs: Mapping[str, bytes], staged: Staged | None = None
) -> tuple[list[Stale], dict[str, str]]:
    """Each output rendered once and compared with the disk: what differs (with a diff when
    only comparing), what is left over or unsafe, and the hash of every output. With ``staged``,
    each changed file is staged there, and each extra file marked for removal."""
    stale: list[Stale] = []
    hashes: dict[str, str] = {}
    safe: set[str] = set()  # folders already seen to be real ones
    for n, rel in enumerate(outputs, 1):
        if n % heap.KEEP_EVERY == 0:
            heap.keep()  # the hashes and staged names so far live until the commit
        try:
            path, st = confined_stat(root, rel, safe)
        except UnsafePath as err:
            stale.append(Stale(rel, "unsafe", f"{err}\n"))
            continue
        data = outputs[rel]
        hashes[rel] = buildcache.file_hash(data)
        absent = st is None
        current: bytes | None = None
        # Nothing to open for a missing file (a cold build's 10,000 pages), and nothing to read
        # of one whose size already says it differs, when it is only to be replaced.
        resized = staged is not None and st is not None and stat.S_ISREG(st.st_mode) and st.st_size != len(data)
        if not (absent or resized):
            try:
                current = path.read_bytes()
            except FileNotFoundError:
                absent = True
            except OSError:
                pass
            if current == data:
                continue
        if resized:
            stale.append(Stale(rel, "stale"))
        elif current is None:
            stale.append(Stale(rel, "missing"))
        else:
            stale.append(Stale(rel, "stale", "" if staged is not None else _short_diff(rel, current, data)))
        if staged is not None:
            try:
                staged.write(path, data, new=absent)
            except OSError as err:
                err.filename = rel  # the output, not its temporary file
                raise
    extra, unsafe = _extras(root, outputs)
    stale.extend(Stale(rel, "extra") for rel in extra)
    if staged is not None:
        for rel in extra:
            staged.remove(confined(root, rel))
    seen = {s.path for s in stale}
    for rel, msg in unsafe:
        if rel not in seen:
            stale.append(Stale(rel, "unsafe", msg + "\n"))
    return stale, hashes


def compare(root: Path, outputs: Mapping[str, bytes]) -> list[Stale]:
    """Files on disk that differ from the generated ones, are missing, left over or unsafe.

    An output path that is (or passes through) a symbolic link, or anything among the generated
    folders that is not a regular file, is ``unsafe``: the build refuses to touch it.
    """
    return _scan(root, outputs)[0]


@contextmanager
def build_lock(root: Path) -> Iterator[None]:
    """Serialise builds and checks (a check waits for a build in progress) with a lock file.

    filelock picks the platform's primitive (flock on POSIX, msvcrt on Windows), so the package
    imports and locks the same way everywhere. The lock file lives in the survey's cache folder,
    not in the survey folder: a check run by a pre-commit hook must leave the working tree as it
    found it.
    """
    path = cache_dir(root) / "build.lock"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(path)
        lock.acquire()
    except OSError:
        yield  # no writable cache folder: build unlocked rather than not at all
        return
    try:
        yield
    finally:
        lock.release()


def write_outputs(root: Path, outputs: Mapping[str, bytes]) -> tuple[list[str], dict[str, str]]:
    """Write changed outputs and remove extra files as one change (all of it, or on any failure
    nothing: every file already replaced is restored); the paths written or removed, and the
    hash of every output.

    Each output is rendered once, compared with its file and, when it differs, staged beside
    it; the staged files are put in place at the end. Nothing is written or deleted when any
    output path is unsafe (a symbolic link, a way out of the survey, a pipe): every such path is
    named at once and the command fails.
    """
    for tmp in _leftover_tmps(root, outputs):
        tmp.unlink(missing_ok=True)
    with Staged() as staged:
        try:
            changes, hashes = _scan(root, outputs, staged)
            unsafe = [s for s in changes if s.status == "unsafe"]
            if unsafe:
                raise InvalidInput(
                    [Problem(s.path, 0, 0, "", s.diff.strip()) for s in unsafe],
                    "unsafe output paths; nothing was written or deleted",
                )
            staged.commit()
        except UnsafePath as err:  # appeared while writing (a race): still nothing kept
            raise SurveyError(f"{err}; nothing was changed") from None
        except OSError as err:  # a read-only or full disk: a message, not a traceback
            why = err.strerror or str(err)
            named = err.filename2 or err.filename  # os.replace names the target second
            where = named if isinstance(named, str) else "the outputs"
            raise SurveyError(f"cannot write {_relative(root, where)}: {why}; nothing was changed") from None
    return [s.path for s in changes], hashes


def _relative(root: Path, where: str) -> str:
    try:
        return Path(where).relative_to(root).as_posix()
    except ValueError:
        return where


@dataclass(frozen=True)
class BuildResult:
    written: tuple[str, ...]  # written or removed
    stale: tuple[Stale, ...]
    outputs: int
    context: BuildContext | None  # None when nothing had changed since the last build
    claims: Mapping[str, int]
    cache_hits: int
    removed: tuple[str, ...] = ()  # of ``written``: the files no output produces any more

    @property
    def ok(self) -> bool:
        return not self.stale

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "outputs": self.outputs,
            "written": [w for w in self.written if w not in self.removed],
            "removed": list(self.removed),
            "stale": [s.to_dict() for s in self.stale],
            "claims": dict(self.claims),
            "cache_hits": self.cache_hits,
        }


def build(root: Path | str, check: bool = False) -> BuildResult:
    """Regenerate every output (or, with ``check``, only compare); see the module doc."""
    root = Path(root)
    # The loaded records and the computed survey live until the end: kept out of the collector's
    # full collections (survey_tools.heap).
    with build_lock(root), heap.long_lived():
        # The input stage: every file the outputs are drawn from, read once; the key is what it read.
        inputs = read_inputs(*load_valid(root))
        corpus = inputs.corpus
        heap.keep()
        memo = buildcache.enabled()
        key = buildcache.input_key(corpus, inputs.reads) if memo else ""
        manifest = buildcache.read_manifest(root) if memo else None
        if (manifest is not None and manifest["key"] == key and buildcache.outputs_unchanged(root, manifest)
                and _extras(root, manifest["outputs"]) == ([], [])):
            # Nothing the outputs are drawn from changed, and they are on disk as written; a
            # killed build's temporary files still go, as a full build removes them.
            if not check:
                for tmp in _leftover_tmps(root, manifest["outputs"]):
                    tmp.unlink(missing_ok=True)
            summary = manifest["summary"]
            return BuildResult((), (), len(manifest["outputs"]), None, summary["claims"], corpus.cache_hits)
        ctx = survey_of(corpus, inputs=inputs)
        plan = plan_build(root, ctx)
        heap.keep()
        claims = {"total": len(ctx.claims.results), **ctx.claims.counts()}
        if check:
            found, hashes = _scan(root, plan.outputs)
            if memo and not found:
                buildcache.write_manifest(root, key, hashes, {"claims": claims})
            return BuildResult((), tuple(found), len(plan.outputs), ctx, claims, corpus.cache_hits)
        written, hashes = write_outputs(root, plan.outputs)
        # What write_outputs deleted: the written paths no output produces (no second walk).
        removed = tuple(p for p in written if p not in plan.outputs)
        if memo:
            buildcache.write_manifest(root, key, hashes, {"claims": claims})
        return BuildResult(
            tuple(written), (), len(plan.outputs), ctx, claims, corpus.cache_hits, removed
        )


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`build`. Python binds a submodule to its package's
    attribute once anything imports it, so ``from survey_tools import build`` names this module
    in every process that imported ``survey_tools.build``; called, it is the build, as the
    public API documents (``survey_tools.run_build`` is the function itself)."""

    def __call__(self, root: Path | str, check: bool = False) -> BuildResult:
        return build(root, check)


sys.modules[__name__].__class__ = _CallableModule

