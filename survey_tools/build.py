"""``survey build``: validate, compute everything once, then write every generated file.

The outputs and their generators are in :mod:`survey_tools.render.generators`. The build
computes the shared context once, runs every generator in memory and writes nothing when
validation or any generator fails; ``--check`` compares the same outputs with the files on disk.
"""

from __future__ import annotations

import difflib
import fcntl
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.cachedir import cache_dir
from survey_tools.corpus.configs import data_config_problems
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.validation import report_for
from survey_tools.errors import InvalidInput, Problem, SurveyError
from survey_tools.fileio import atomic_write
from survey_tools.render.generators import (
    GENERATORS,
    REPORTS,
    BuildContext,
    output_problems,
    selected,
)
from survey_tools.reports.agreement import load_agreement
from survey_tools.reports.claims import ClaimsReport, evaluate_claims, load_claims_file
from survey_tools.reports.corrections import (
    CorrectionsReport,
    corrected_claims,
    evaluate_corrections,
    load_corrections,
    metadata_applied,
)
from survey_tools.reports.gaps import compute_gaps
from survey_tools.reports.stats import ReportConfig, Stats, compute_stats, load_config

# Folders whose every file is generated: files no generator produces any more are removed.
OWNED_DIRS = (f"{REPORTS}/tables", f"{REPORTS}/figures", f"{REPORTS}/site/papers")
# Every file the last build wrote, one a line: an output turned off in survey.yaml (or a file a
# generator no longer writes) is found here and removed, wherever it lives.
MANIFEST = f"{REPORTS}/outputs.txt"


@dataclass(frozen=True)
class BuildPlan:
    outputs: Mapping[str, bytes]
    context: BuildContext


@dataclass(frozen=True)
class Stale:
    path: str
    status: str  # stale | missing | extra
    diff: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "status": self.status, "diff": self.diff}


# --- computing -------------------------------------------------------------------------------


def make_context(root: Path | str, jobs: int | None = None) -> BuildContext:
    """Validate the corpus and compute everything the generators share; raise on any problem."""

    root = Path(root)
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax, jobs=jobs)
    report = report_for(corpus)
    if not report.ok:
        raise InvalidInput(report.problems, "the records are invalid; nothing was written")
    found = data_config_problems(root, tax.files)
    if found:
        raise InvalidInput(found, "a configuration file is invalid; nothing was written")
    config = load_config(tax)
    stats = compute_stats(corpus, config)
    gaps = compute_gaps(corpus, config)
    # Claims are computed from the records alone (never from a previous build's outputs).
    agreement = load_agreement(corpus, config.agreement_caveat)
    claims_file = load_claims_file(tax)
    claims = evaluate_claims(
        corpus, claims_file.claims, claims_file.source, claims_file.gate, agreement, claims_file.not_checkable
    )
    corrections = _corrections(corpus, config, stats, claims, claims_file.claims)
    if corrections is not None:
        claims = corrected_claims(claims, corrections)
    shown = metadata_applied(corpus, corrections)
    return BuildContext(root, tax, corpus, config, stats, gaps, claims, corrections, agreement, shown)


def _corrections(
    corpus: Corpus, config: ReportConfig, stats: Stats, claims: ClaimsReport, claim_list: Any
) -> CorrectionsReport | None:

    loaded = load_corrections(corpus.taxonomy)
    if loaded is None:
        return None
    return evaluate_corrections(corpus, config, stats, claims, claim_list, loaded)




def plan_build(root: Path | str, jobs: int | None = None) -> BuildPlan:
    """Every output of every generator, in memory; raise when anything is wrong."""
    ctx = make_context(root, jobs)
    # A claim's status (holds, changed, contradicted) is reported, never a reason to refuse:
    # `survey claims --fail-on` is the gate for those who want one.
    if ctx.corrections is not None and ctx.corrections.problems:
        raise InvalidInput(ctx.corrections.problems, "a correction is stale or invalid; nothing was written")
    unmet = output_problems(ctx.taxonomy)
    if unmet:
        raise InvalidInput(unmet, "an output's requirements are not met; nothing was written")
    outputs: dict[str, bytes] = {}
    owner: dict[str, str] = {}
    problems: list[Problem] = []
    for name in selected(ctx.taxonomy):
        gen = GENERATORS[name]
        try:
            produced = gen(ctx)
        except SurveyError:
            raise
        except Exception as err:  # a generator bug must not leave a half-built tree
            raise SurveyError(f"generator {name!r} failed: {type(err).__name__}: {err}") from err
        for rel, data in produced.items():
            rel = Path(rel).as_posix()
            if rel.startswith(("/", "../")) or "/../" in rel:
                problems.append(Problem(rel, 0, 0, "", f"generator {name!r} writes outside the survey folder"))
            elif rel in owner:
                problems.append(Problem(rel, 0, 0, "", f"written by both {owner[rel]!r} and {name!r}"))
            owner[rel] = name
            outputs[rel] = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if problems:
        raise InvalidInput(problems, "generators disagree; nothing was written")
    outputs[MANIFEST] = ("".join(f"{rel}\n" for rel in sorted(outputs))).encode("utf-8")
    return BuildPlan(dict(sorted(outputs.items())), ctx)


def _extras(root: Path, outputs: Mapping[str, bytes]) -> list[str]:
    out = []
    for d in OWNED_DIRS:
        base = root / d
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and rel not in outputs and not p.name.startswith("."):
                out.append(rel)
    try:
        listed = (root / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        listed = []
    for rel in listed:
        safe = rel and not rel.startswith(("/", "../")) and "/../" not in rel
        if safe and rel not in outputs and rel not in out and (root / rel).is_file():
            out.append(rel)
    return sorted(out)


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


def compare(root: Path, outputs: Mapping[str, bytes]) -> list[Stale]:
    """Files on disk that differ from the generated ones, are missing, or are left over."""
    stale: list[Stale] = []
    for rel, data in outputs.items():
        try:
            current = (root / rel).read_bytes()
        except OSError:
            stale.append(Stale(rel, "missing"))
            continue
        if current != data:
            stale.append(Stale(rel, "stale", _short_diff(rel, current, data)))
    stale.extend(Stale(rel, "extra") for rel in _extras(root, outputs))
    return stale


@contextmanager
def build_lock(root: Path, exclusive: bool = True) -> Iterator[None]:
    """Serialise builds (and let checks wait for a build in progress) with a lock file.

    The lock file lives in the survey's cache folder, not in the survey folder: a check run by a
    pre-commit hook must leave the working tree as it found it.
    """
    path = cache_dir(root) / "build.lock"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield  # no writable cache folder: build unlocked rather than not at all
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def write_outputs(root: Path, outputs: Mapping[str, bytes]) -> list[str]:
    """Write changed outputs atomically; on any failure restore every file already replaced."""
    changes = compare(root, outputs)
    done: list[tuple[str, bytes | None]] = []
    current = ""
    try:
        for s in changes:
            current = s.path
            path = root / s.path
            old = path.read_bytes() if path.exists() else None
            if s.status == "extra":
                path.unlink()
            else:
                atomic_write(path, outputs[s.path])
            done.append((s.path, old))
    except BaseException as err:
        for rel, old in reversed(done):
            path = root / rel
            if old is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, old)
        if isinstance(err, OSError):  # a read-only or full disk: a message, not a traceback
            why = err.strerror or str(err)
            raise SurveyError(f"cannot write {current}: {why}; nothing was changed") from None
        raise
    return [s.path for s in changes]


@dataclass(frozen=True)
class BuildResult:
    written: tuple[str, ...]  # written or removed
    stale: tuple[Stale, ...]
    outputs: int
    context: BuildContext
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
            "claims": {"total": len(self.context.claims.results), **self.context.claims.counts()},
            "cache_hits": self.context.corpus.cache_hits,
        }


def build(root: Path | str, check: bool = False, jobs: int | None = None) -> BuildResult:
    """Regenerate every output (or, with ``check``, only compare); see the module doc."""
    root = Path(root)
    with build_lock(root, exclusive=not check):
        plan = plan_build(root, jobs)
        if check:
            return BuildResult((), tuple(compare(root, plan.outputs)), len(plan.outputs), plan.context)
        removed = tuple(_extras(root, plan.outputs))
        written = write_outputs(root, plan.outputs)
        return BuildResult(tuple(written), (), len(plan.outputs), plan.context, removed)
