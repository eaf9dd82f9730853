"""survey check-paths: every file a branch adds or changes is one the survey reads, or it fails.

`survey validate` reads the records where the taxonomy lays them out (``corpus/KEY.yaml``), so
a record saved anywhere else (at the repository's root, in ``corpus/papers/``, without the
``.yaml`` extension) is never read: the pull request would pass green and the paper would
silently not be in the list. This check compares the branch with its base and gives every added
or changed file a place:

- a record: directly in a collection's folder, named ``*.yaml`` (its content is validate's job);
- a configuration file: ``taxonomy/``, ``data/``, ``screening/``, ``.github/`` and the git and
  pre-commit files at the root;
- a generated output (README, CONTRIBUTING, ``reports/``...): only when it is exactly what
  ``survey build`` makes (``--built DIR``, the pull-request checks' scratch build); a hand edit
  there would be replaced after the merge;
- a path the survey documents in ``taxonomy/survey.yaml`` under ``contributions: {paths: [...]}``
  (glob patterns: the toolkit's code in this repository, a maintainer's notes folder).

Anything else fails with where it should go ("records live in corpus/KEY.yaml").

The base is the one `survey diff` uses (:func:`survey_tools.review.diff.resolve_base`): ``--base``
(``BASE_SHA`` in CI), else the merge base of HEAD with ``origin/HEAD``, ``main``, ``master``,
``origin/main`` or ``origin/master``, else HEAD's first parent. What is compared is the index
(the staged files: in a CI checkout the same as HEAD; under pre-commit, what is being committed).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import FORMER_FIELD, Collection, Taxonomy
from survey_tools.corpus.yamlio import parse_yaml_bytes
from survey_tools.errors import Problem, Report, UsageError
from survey_tools.review.diff import _git, resolve_base
from survey_tools.review.taxonomy_change import TAXONOMY_PATHS, Who, taxonomy_change_lines

# Where `survey build` writes (build.py's _OUTPUT_PREFIXES and _OUTPUT_FILES, and the manifest
# reports/outputs.txt naming the rest; tests/unit/core/test_check_paths.py keeps them equal).
GENERATED_PREFIXES = ("reports/", "taxonomy/schema/", ".github/ISSUE_TEMPLATE/")
GENERATED_FILES = frozenset(("README.md", "CONTRIBUTING.md", "CITATION.cff", "taxonomy/README.md"))
MANIFEST = "reports/outputs.txt"
# Configuration a pull request may change: the taxonomy, hand-written data, the living search's
# queue, the workflows and the repository's own settings.
CONFIG_PREFIXES = ("taxonomy/", "data/", "screening/", ".github/")
CONFIG_FILES = frozenset((".gitignore", ".gitattributes", ".pre-commit-config.yaml"))
# Extensions a record is saved with by mistake (the web editor keeps whatever name is typed).
_RECORD_LIKE = (".yaml", ".yml", ".txt", ".md", ".json", "")


@dataclass(frozen=True)
class PathCheck:
    """The result: the base compared with, the files looked at and every misplaced one; notes
    say what a maintainer checks in a change that has its place (the taxonomy)."""

    base: str
    how: str
    changed: tuple[str, ...]
    report: Report
    notes: tuple[str, ...] = ()


def documented_paths(tax: Taxonomy) -> list[str]:
    """The glob patterns of ``contributions.paths`` in taxonomy/survey.yaml."""
    doc = tax.document("taxonomy/survey.yaml")
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    section = data.get("contributions") or {}
    return [str(p) for p in section.get("paths") or []]


def changed_files(root: Path, base: str) -> list[str]:
    """Files added, copied, modified or renamed-to in the index against ``base``, relative to the
    survey folder (files outside it are not the survey's)."""
    return _indexed(root, base, "ACMRT")


def deleted_files(root: Path, base: str) -> list[str]:
    """Files the index deletes against ``base``, relative to the survey folder."""
    return _indexed(root, base, "D")


def _indexed(root: Path, base: str, diff_filter: str) -> list[str]:
    """The index's files of one kind of change against ``base`` (git's --diff-filter letters),
    relative to the survey folder (files outside it are not the survey's)."""
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    raw = _git(
        root, "diff", "--cached", "--name-only", "--no-renames", "-z",
        f"--diff-filter={diff_filter}", base, "--", ".",
    )
    top = [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]
    return sorted(p[len(prefix) :] for p in top if p.startswith(prefix))


def _base_record(root: Path, base: str, rel: str) -> dict[str, Any]:
    try:
        raw = _git(root, "show", f"{base}:./{rel}")
    except UsageError:
        return {}
    data = parse_yaml_bytes(raw, rel, positions=False).data
    return data if isinstance(data, dict) else {}


def removal_problems(
    tax: Taxonomy,
    deleted: Iterable[str],
    before: dict[str, dict[str, Any]],
    staged: dict[str, Any],
) -> list[Problem]:
    """A record the branch deletes: re-keyed (its title now in another added file) or removed
    (not moved to another collection, as `survey exclude` does). Keys are stable: links, claims
    and the audit file name them."""
    folders = {c.folder: c for c in tax.collections.values()}
    added_titles: dict[str, str] = {}
    former: list[dict[str, Any]] = []
    for rel, raw in staged.items():
        coll = folders.get(str(PurePosixPath(rel).parent))
        data = parse_yaml_bytes(raw, rel, positions=False).data if coll and raw else None
        if isinstance(data, dict):
            added_titles.setdefault(str(data.get(coll.title_field)), rel)  # type: ignore[union-attr]
            whole = data.get(FORMER_FIELD)
            if isinstance(whole, dict):
                former.append(whole)
    out = []
    for rel in deleted:
        coll = folders.get(str(PurePosixPath(rel).parent))
        if coll is None or not rel.endswith(".yaml"):
            continue
        old = before.get(rel, {})
        key = str(old.get(coll.id_field) or PurePosixPath(rel).stem)
        if any(f.get(coll.id_field) == key for f in former):
            continue  # moved to another collection whole (survey exclude)
        moved_to = added_titles.get(str(old.get(coll.title_field)))
        if moved_to is not None:
            out.append(
                Problem(
                    moved_to,
                    0,
                    0,
                    "",
                    (
                        f"is the record {key!r} ({rel}) under a new key: a record's key never changes "
                        f"(links, claims and the audit file name it): keep the file {rel} and its "
                        f"{coll.id_field}: {key}, and make the change there"
                    ),
                )
            )
        else:
            out.append(
                Problem(
                    rel,
                    0,
                    0,
                    "",
                    (
                        f"this pull request deletes the record {key!r}: a record leaves the list through "
                        f"`survey exclude {key}` (the reason kept in the exclusion log), not by deleting "
                        f"its file; restore it, or propose the removal in an issue"
                    ),
                )
            )
    return out


def _generated(rel: str, listed: frozenset[str]) -> bool:
    return rel in listed or rel in GENERATED_FILES or rel.startswith(GENERATED_PREFIXES)


def _listed_outputs(root: Path) -> frozenset[str]:
    try:
        text = (root / MANIFEST).read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def _record_home(tax: Taxonomy, raw: bytes | None, rel: str) -> Collection:
    """The collection a misplaced file's fields fit best (the first collection when none fits)."""
    first = next(iter(tax.collections.values()))
    if raw is None:
        return first
    data = parse_yaml_bytes(raw, rel, positions=False).data
    if not isinstance(data, dict):
        return first
    scored = [
        (sum(k in set(c.field_names()) for k in data), i, c)
        for i, c in enumerate(tax.collections.values())
    ]
    return max(scored, key=lambda s: (s[0], -s[1]))[2]


def _looks_like_record(tax: Taxonomy, raw: bytes, rel: str) -> bool:
    data = parse_yaml_bytes(raw, rel, positions=False).data
    return isinstance(data, dict) and any(
        sum(k in set(c.field_names()) for k in data) >= 3 for c in tax.collections.values()
    )


def _stem(name: str) -> str:
    """The name without its wrong extension, and without trailing dots and spaces (``paper.``
    becomes ``paper``, not ``paper..yaml``: Windows drops them, and no key ends in one)."""
    for ext in (".yaml.txt", ".yml.txt", ".yaml", ".yml", ".txt", ".md", ".json"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    return name.rstrip(". ") or "KEY"


def _misplaced(tax: Taxonomy, rel: str, raw: bytes | None) -> str:
    """Where the file should go, in words."""
    path = PurePosixPath(rel)
    folders = {c.folder: c for c in tax.collections.values()}
    inside = next((c for f, c in folders.items() if rel.startswith(f + "/")), None)
    home = inside or _record_home(tax, raw, rel)
    where = f"records live in {home.folder}/{home.id_field.upper()}.yaml"
    target = f"{home.folder}/{_stem(path.name)}.yaml"
    if inside is not None and len(path.parts) > len(PurePosixPath(inside.folder).parts) + 1:
        return f"is in a sub-folder, where no record is read: {where}; move it to {target}"
    if inside is not None:
        return f"is not read as a record: {where} (ending in .yaml); rename it to {target}"
    if raw is not None and _looks_like_record(tax, raw, rel):
        return (
            f"is a record, but not where records are read, so the paper would be silently "
            f"left out of the list: {where}; move it to {target}"
        )
    if path.suffix.lower() in _RECORD_LIKE:
        return (
            f"is not where records are read, so it would be silently left out: {where}; "
            f"if it is a record, move it to {target}, otherwise remove it from the pull request"
        )
    return (
        f"is outside what the survey reads: a pull request adds records ({where}); remove it "
        f"from the pull request, or a maintainer documents its path under contributions.paths "
        f"in taxonomy/survey.yaml"
    )


def _generated_problem(rel: str, built: Path | None, raw: bytes | None) -> str | None:
    """None when the file is byte for byte what the build made (a maintainer's regenerated
    output); otherwise why the edit would be lost."""
    if built is not None and raw is not None:
        try:
            if (built / rel).read_bytes() == raw:
                return None
        except OSError:
            pass
    return (
        "is made by `survey build` from the records, and main rebuilds it after the merge, so "
        "an edit here is lost: undo it, and add the paper as a new file made from the blank "
        "record in CONTRIBUTING.md"
    )


def placement_problems(
    tax: Taxonomy,
    changed: Iterable[str],
    staged: dict[str, bytes | None],
    built: Path | None = None,
    documented: Sequence[str] = (),
) -> list[Problem]:
    """One problem per changed file that has no place in the survey (see the module's rules)."""
    folders = {c.folder for c in tax.collections.values()}
    listed = _listed_outputs(tax.root) | {MANIFEST}
    problems: list[Problem] = []
    for rel in changed:
        path = PurePosixPath(rel)
        raw = staged.get(rel)
        if str(path.parent) in folders and (
            rel.endswith((".yaml", ".yml")) or path.name.startswith(".")
        ):
            continue  # a record (or the folder's .gitkeep): validate reads and checks it
        if any(fnmatch.fnmatchcase(rel, pat) for pat in documented):
            continue
        if _generated(rel, listed):
            why = _generated_problem(rel, built, raw)
            if why:
                problems.append(
                    Problem(
                        rel,
                        0,
                        0,
                        "",
                        f"{why} (records live in "
                        f"{next(iter(tax.collections.values())).folder}/KEY.yaml)",
                    )
                )
            continue
        if rel.startswith(CONFIG_PREFIXES) or rel in CONFIG_FILES:
            continue
        problems.append(Problem(rel, 0, 0, "", _misplaced(tax, rel, raw)))
    return problems


def _staged_bytes(root: Path, rel: str) -> bytes | None:
    try:
        return _git(root, "show", f":./{rel}")
    except UsageError:  # a file git cannot show is judged by its name alone
        return None


def check_paths(
    tax: Taxonomy, base: str | None = None, built: Path | None = None, who: Who | None = None
) -> PathCheck:
    """Compare the index with the base (see the module docstring) and report misplaced files."""
    root = tax.root
    chosen = resolve_base(root, base or None)  # BASE_SHA set but empty: the default base
    changed = changed_files(root, chosen.rev)
    staged: dict[str, Any] = {rel: _staged_bytes(root, rel) for rel in changed}
    report = Report(checked=len(changed))
    report.extend(placement_problems(tax, changed, staged, built, documented_paths(tax)))
    deleted = deleted_files(root, chosen.rev)
    before = {rel: _base_record(root, chosen.rev, rel) for rel in deleted if rel.endswith(".yaml")}
    report.extend(removal_problems(tax, deleted, before, staged))
    # The taxonomy: a contributor's change fails unless allowed; an allowed one gets a note
    # (review/taxonomy_change.py).
    before_tax = {rel: _base_bytes(root, chosen.rev, rel) for rel in changed if rel.startswith(TAXONOMY_PATHS)}

    def records() -> dict[str, Any]:
        return {r.id: r.data for r in load_corpus(root, tax)}

    refused, notes = taxonomy_change_lines(changed, before_tax, staged, records, who or Who())
    report.extend(refused)
    return PathCheck(chosen.rev, chosen.how, tuple(changed), report, tuple(notes))


def _base_bytes(root: Path, base: str, rel: str) -> bytes | None:
    try:
        return _git(root, "show", f"{base}:./{rel}")
    except UsageError:  # added by the branch
        return None
