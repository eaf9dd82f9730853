"""``survey diff``: what a change to the corpus moves, as Markdown for a pull-request comment.

The base revision's survey folder is read from git (``git archive``) into a temporary folder
and loaded exactly like the working tree, so both sides go through the same code: records
added, removed and changed field by field, then every statistics cell, gap-table cell and claim
whose count or status differs.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

from survey_tools.corpus.records import Corpus
from survey_tools.errors import SurveyError, UsageError

# What a survey folder needs for its records and reports (the rest of the repository is code).
SURVEY_PATHS = ("taxonomy", "data")


def _git(root: Path, *args: str) -> bytes:
    try:
        res = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed; survey diff reads the base with git") from None
    if res.returncode != 0:
        msg = res.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {' '.join(args[:2])} failed: {msg[-1] if msg else 'no message'}")
    return res.stdout


def merge_base(root: Path, branch: str = "main") -> str:
    """The commit where this branch left ``branch`` (``branch`` itself when on it)."""
    return _git(root, "merge-base", branch, "HEAD").decode().strip()


def export_revision(root: Path, rev: str, dest: Path, folders: tuple[str, ...]) -> None:
    """Write the survey folders as they were at ``rev`` under ``dest``."""
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    tree = _git(root, "ls-tree", "--name-only", f"{rev}:{prefix}" if prefix else rev)
    present = set(tree.decode().split())
    wanted = [f"{prefix}{f}" for f in folders if f in present]
    if not wanted:
        raise UsageError(f"revision {rev} has no survey folder ({', '.join(folders)})")
    raw = _git(root, "archive", "--format=tar", rev, *wanted)
    with tarfile.open(fileobj=BytesIO(raw)) as tar:
        tar.extractall(dest, filter="data")
    if prefix:  # a survey in a sub-folder of the repository: move it to dest's top
        (dest / prefix).rename(dest / "_survey")
        for child in (dest / "_survey").iterdir():
            child.rename(dest / child.name)


def _flatten(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            yield from _flatten(v, f"{path}.{k}" if path else str(k))
    else:
        yield path, value


@dataclass(frozen=True)
class RecordChange:
    path: str
    fields: tuple[tuple[str, Any, Any], ...]  # (dotted field, before, after)


@dataclass(frozen=True)
class CorpusDiff:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[RecordChange, ...]
    cells: tuple[tuple[str, int, int], ...]  # statistics: (cell, before, after)
    gaps: tuple[tuple[str, int, int], ...]
    claims: tuple[tuple[str, str, str], ...]  # (claim, before, after) as "n (status)"
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.cells or self.gaps
                    or self.claims)


def record_diff(
    old: Corpus, new: Corpus
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[RecordChange, ...]]:
    a = {r.path: r for r in old}
    b = {r.path: r for r in new}
    added = tuple(sorted(set(b) - set(a)))
    removed = tuple(sorted(set(a) - set(b)))
    changed = []
    for path in sorted(set(a) & set(b)):
        if a[path].data == b[path].data:
            continue
        fa, fb = dict(_flatten(a[path].data)), dict(_flatten(b[path].data))
        keys = list(fa) + [k for k in fb if k not in fa]
        fields = tuple((k, fa.get(k), fb.get(k)) for k in keys if fa.get(k) != fb.get(k))
        changed.append(RecordChange(path, fields))
    return added, removed, tuple(changed)


def _table_cells(t: Any, prefix: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, r in enumerate(t.row_values):
        for j, c in enumerate(t.col_values):
            out[f"{prefix}/{r}/{c}"] = t.counts[i][j]
    return out


def _reports(corpus: Corpus) -> tuple[dict[str, int], dict[str, int], dict[str, str]]:
    """Statistics cells, gap cells and claim outcomes of one corpus."""
    from survey_tools.reports.claims import evaluate_claims, load_claims
    from survey_tools.reports.gaps import compute_gaps
    from survey_tools.reports.stats import compute_stats, load_config

    config = load_config(corpus.taxonomy)
    cells = compute_stats(corpus, config).cells()
    gaps: dict[str, int] = {}
    for g in compute_gaps(corpus, config).tables:
        gaps.update(_table_cells(g.broad, f"{g.id}/broad"))
        gaps.update(_table_cells(g.strict, f"{g.id}/strict"))
    source, claim_list = load_claims(corpus.taxonomy)
    report = evaluate_claims(corpus, claim_list, source, None)
    claims = {r.claim.id: f"{r.actual} ({'holds' if r.ok else 'fails'})" for r in report.results}
    return cells, gaps, claims


def _changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[tuple[str, Any, Any], ...]:
    keys = list(a) + [k for k in b if k not in a]
    return tuple((k, a.get(k, 0), b.get(k, 0)) for k in keys if a.get(k, 0) != b.get(k, 0))


def diff_corpora(old: Corpus, new: Corpus) -> CorpusDiff:
    added, removed, changed = record_diff(old, new)
    notes: list[str] = []
    try:
        c0, g0, k0 = _reports(old)
        c1, g1, k1 = _reports(new)
    except SurveyError as err:
        # The record-level diff is still useful when a side's reports cannot be computed.
        notes.append(f"Statistics, gaps and claims were not compared: {err}")
        c0 = c1 = g0 = g1 = {}
        k0 = k1 = {}
    claims = tuple((k, a or "absent", b or "absent") for k, a, b in _changes(k0, k1))
    return CorpusDiff(added, removed, changed, _changes(c0, c1), _changes(g0, g1), claims,
                      tuple(notes))


def diff_revision(root: Path, base: str | None = None) -> tuple[str, CorpusDiff]:
    """Compare the survey at ``base`` (default: merge base with main) with the working tree."""
    from survey_tools.corpus.loading import load_corpus

    root = Path(root)
    rev = base or merge_base(root)
    try:
        rev = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except UsageError:
        raise UsageError(f"{rev} is not a revision of this repository") from None
    new = load_corpus(root)
    folders = (*SURVEY_PATHS, *(c.folder for c in new.taxonomy.collections.values()))
    with tempfile.TemporaryDirectory(prefix="survey-diff-") as tmp:
        export_revision(root, rev, Path(tmp), folders)
        old = load_corpus(Path(tmp), use_cache=False)
        return rev, diff_corpora(old, new)


def _cell(v: Any) -> str:
    text = "—" if v is None else str(v)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 80 else text[:77] + "..."


def to_markdown(rev: str, d: CorpusDiff, limit: int = 200) -> str:
    """The pull-request comment: short sections, tables, nothing when nothing changed."""
    out = [f"## Survey changes against `{rev[:12]}`", ""]
    if d.empty:
        out += ["No record, statistic, gap cell or claim changes.", ""]
    if d.added:
        out += [f"**Added ({len(d.added)})**: " + ", ".join(f"`{p}`" for p in d.added), ""]
    if d.removed:
        out += [f"**Removed ({len(d.removed)})**: " + ", ".join(f"`{p}`" for p in d.removed), ""]
    if d.changed:
        out += [f"**Changed ({len(d.changed)})**", "", "| record | field | before | after |",
                "| --- | --- | --- | --- |"]
        rows = [(c.path, f, a, b) for c in d.changed for f, a, b in c.fields]
        for p, f, a, b in rows[:limit]:
            out.append(f"| `{p}` | {f} | {_cell(a)} | {_cell(b)} |")
        if len(rows) > limit:
            out.append(f"| … | {len(rows) - limit} more | | |")
        out.append("")
    for title, items in (("Statistics cells", d.cells), ("Gap-table cells", d.gaps),
                         ("Claims", d.claims)):
        if not items:
            continue
        head = "claim" if title == "Claims" else "cell"
        out += [f"**{title} that moved ({len(items)})**", "", f"| {head} | before | after |",
                "| --- | --- | --- |"]
        for k, a, b in items[:limit]:
            out.append(f"| {_cell(k)} | {_cell(a)} | {_cell(b)} |")
        if len(items) > limit:
            out.append(f"| … {len(items) - limit} more | | |")
        out.append("")
    out += [f"_{n}_" for n in d.notes]
    return "\n".join(out).rstrip() + "\n"
