"""``survey diff``: what a change to the corpus moves, as Markdown for a reviewer.

The base revision's survey folder is read from git (``git archive``) into a temporary folder
and loaded exactly like the working tree, so both sides go through the same code. The report
names papers by title, with their tags in the taxonomy's words: papers added and removed (per
collection), papers re-tagged (tag, before, after) and other edits; then every statistics and
gap-map cell whose count moved, grouped by table in the order of ``reports/STATS.md``, labelled
as the tables label them; then the claims whose status changed.

The default base is where this branch left the upstream default branch: the merge base with
``origin/HEAD``, else with ``main`` or ``master`` (local or on ``origin``), else the first parent
of ``HEAD``.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from survey_tools import hidden
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import ControlledField
from survey_tools.errors import SurveyError, UsageError
from survey_tools.net.hrefs import safe_href
from survey_tools.reports.axes import mode_of, plain_str
from survey_tools.reports.claims import ClaimsReport
from survey_tools.reports.compute import survey_of
from survey_tools.reports.counting import Table
from survey_tools.reports.gaps import GapReport
from survey_tools.reports.stats import Stats
from survey_tools.reports.tables import md_autolink, md_cell, md_code, md_inert, md_table

# What a survey folder needs for its records and reports (the rest of the repository is code).
SURVEY_PATHS = ("taxonomy", "data")
# Branches tried, in order, when origin/HEAD is not set (a clone made without it, a CI checkout).
DEFAULT_BRANCHES = ("main", "master", "origin/main", "origin/master")


# --- git ---------------------------------------------------------------------------------------


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed; survey diff reads the base revision with git") from None


def _git(root: Path, *args: str) -> bytes:
    """Run git; on failure a message in our words, never git's ``fatal:`` line alone."""
    res = _run_git(root, *args)
    if res.returncode != 0:
        lines = res.stderr.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1].removeprefix("fatal: ").removeprefix("error: ") if lines else "no message"
        raise UsageError(f"git {args[0]} failed ({last})")
    return res.stdout


def _try_git(root: Path, *args: str) -> str | None:
    res = _run_git(root, *args)
    return res.stdout.decode().strip() if res.returncode == 0 else None


def _commit(root: Path, rev: str) -> str | None:
    return _try_git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")


@dataclass(frozen=True)
class Base:
    rev: str  # a full commit id
    how: str  # how it was chosen, for the report's heading


def default_base(root: Path) -> Base:
    """The merge base with the upstream default branch, else the first parent of HEAD."""
    if _try_git(root, "rev-parse", "--git-dir") is None:
        raise UsageError(f"{root} is not in a git repository; survey diff compares the working tree with a git revision")
    if _commit(root, "HEAD") is None:
        raise UsageError("this repository has no commit yet: there is nothing to compare with")
    candidates: list[str] = []
    upstream = _try_git(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if upstream:
        candidates.append(upstream)
    candidates += [b for b in DEFAULT_BRANCHES if b not in candidates]
    for branch in candidates:
        if _commit(root, branch) is None:
            continue
        mb = _try_git(root, "merge-base", branch, "HEAD")
        if mb:
            return Base(mb, f"merge base with {branch}")
    parent = _commit(root, "HEAD^")
    if parent:
        return Base(parent, "first parent of HEAD (no origin/HEAD, main or master branch)")
    raise UsageError(
        "no base to compare with: no origin/HEAD, main or master branch shares history with "
        "HEAD, and HEAD has no parent; name one with --base REV"
    )


def resolve_base(root: Path, base: str | None) -> Base:
    if base is None:
        return default_base(root)
    if _try_git(root, "rev-parse", "--git-dir") is None:
        raise UsageError(f"{root} is not in a git repository; survey diff compares the working tree with a git revision")
    rev = _commit(root, base)
    if rev is None:
        raise UsageError(f"{base} is not a revision of this repository")
    return Base(rev, base)


def export_revision(root: Path, rev: str, dest: Path, folders: tuple[str, ...]) -> None:
    """Write the survey folders as they were at ``rev`` under ``dest``."""
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    tree = _git(root, "ls-tree", "--name-only", f"{rev}:{prefix}" if prefix else rev)
    present = set(tree.decode().split())
    wanted = [f"{prefix}{f}" for f in folders if f in present]
    if not wanted:
        raise UsageError(f"revision {rev[:12]} has no survey folder ({', '.join(folders)})")
    raw = _git(root, "archive", "--format=tar", rev, *wanted)
    with tarfile.open(fileobj=BytesIO(raw)) as tar:
        _extract(tar, dest)
    if prefix:  # a survey in a sub-folder of the repository: move it to dest's top
        (dest / prefix).rename(dest / "_survey")
        for child in (dest / "_survey").iterdir():
            child.rename(dest / child.name)


def _extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract ``tar`` under ``dest``: files and folders only, nothing outside ``dest``.

    ``extractall(filter="data")`` does exactly this from Python 3.11.4 (and 3.12); Debian 12's
    python3 is 3.11.2, where the keyword does not exist, so there the same rules are applied here.
    """
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    base = dest.resolve()
    members = []
    for m in tar.getmembers():
        target = (base / m.name).resolve()
        if not (m.isfile() or m.isdir()) or m.name.startswith("/") or not target.is_relative_to(base):
            raise SurveyError(f"git archive gave an unexpected entry {m.name!r}; survey diff stopped")
        m.mode = (m.mode | 0o600) & 0o755  # what the data filter does: no set-id bits, owner can read
        members.append(m)
    tar.extractall(dest, members=members)  # noqa: S202 - every member checked above


# --- records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paper:
    collection: str  # the collection's label
    key: str
    title: str
    path: str
    tags: tuple[tuple[str, str], ...] = ()  # (field label, value labels), in taxonomy order
    link: str = ""  # the primary link
    identifier: str = ""  # e.g. "arXiv 2501.01234; DOI 10.1/x"
    edition: str = ""  # "living (added 2026-05-01)" or an edition's id
    summary: str = ""


@dataclass(frozen=True)
class Retag:
    paper: Paper
    tags: tuple[tuple[str, str, str], ...]  # (field label, before, after)
    other: tuple[tuple[str, str, str], ...]  # other fields that changed: (label, old text, new text)


def _value_labels(cf: ControlledField, raw: Any, na: str, untagged: str) -> str:
    """A record's value of ``cf`` in the taxonomy's words (``O2 delegate: Learned``)."""
    if raw is None:
        return untagged
    if cf.kind == "mapping":
        if not isinstance(raw, Mapping):
            return plain_str(raw)
        if not raw:
            return "none"
        modes = {m.id: m.label for m in cf.modes}
        return "; ".join(f"{cf.label_of(str(k))}: {modes.get(mode_of(v), mode_of(v))}" for k, v in raw.items())
    if isinstance(raw, list):
        return ", ".join(cf.label_of(plain_str(v)) for v in raw) or "none"
    value = plain_str(raw)
    return value if value in (na, untagged) else cf.label_of(value)


def _text(v: Any) -> str:
    """A field's value as one line of text (lists joined, mappings as key: value)."""
    if v is None:
        return ""
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {_text(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "; ".join(_text(x) for x in v)
    return plain_str(v)


def _paper(rec: Record, corpus: Corpus) -> Paper:
    tax = corpus.taxonomy
    coll = tax.collections[rec.collection]
    title = str(rec.get(coll.title_field) or rec.title or rec.id)
    tags = tuple(
        (cf.label, _value_labels(cf, rec.get(cf.name), tax.na, tax.untagged)) for cf in coll.controlled
    )
    # The conventions render/model.py reads too: the first of `links` (else `url`), the fields of
    # type identifiers (else `identifier`), the taxonomy's edition fields.
    links = rec.get("links")
    link = str(links[0]) if isinstance(links, list) and links else str(rec.get("url") or "")
    ids: list[str] = []
    for f in coll.fields:
        value = rec.get(f.name)
        if f.type == "identifiers" and isinstance(value, Mapping):
            ids += [f"{k}: {plain_str(v)}" for k, v in value.items() if v]
    if not ids and rec.get("identifier"):
        ids.append(str(rec.get("identifier")))
    edition = ""
    if tax.editions is not None:
        edition = plain_str(rec.get(tax.editions.field) or "")
        added = rec.get(tax.editions.added_field)
        if added:
            edition += f" (added {plain_str(added)})"
    summary = _text(rec.get("summary") if rec.get("summary") is not None else rec.get("note"))
    return Paper(coll.label, rec.id, title, rec.path, tags, link, "; ".join(ids), edition, summary)


def _field_label(corpus: Corpus, rec: Record, name: str) -> str:
    coll = corpus.taxonomy.collections[rec.collection]
    for f in coll.fields:
        if f.name == name:
            return f.label or name
    cf = coll.controlled_field(name)
    return cf.label if cf else name


def record_diff(old: Corpus, new: Corpus) -> tuple[tuple[Paper, ...], tuple[Paper, ...], tuple[Retag, ...]]:
    """Papers added, removed and changed (matched by file path), sorted by collection and key."""
    a = {r.path: r for r in old}
    b = {r.path: r for r in new}
    order = {name: i for i, name in enumerate(new.taxonomy.collections)}

    def sort_key(r: Record) -> tuple[int, str]:
        return (order.get(r.collection, len(order)), r.id)

    added = tuple(_paper(r, new) for r in sorted((b[p] for p in set(b) - set(a)), key=sort_key))
    removed = tuple(_paper(r, old) for r in sorted((a[p] for p in set(a) - set(b)), key=sort_key))
    changed: list[Retag] = []
    for path in sorted(set(a) & set(b), key=lambda p: sort_key(b[p])):
        ra, rb = a[path], b[path]
        if ra.data == rb.data:
            continue
        tax = new.taxonomy
        controlled = tax.collections[rb.collection].controlled
        tags = tuple(
            (cf.label, _value_labels(cf, ra.get(cf.name), tax.na, tax.untagged),
             _value_labels(cf, rb.get(cf.name), tax.na, tax.untagged))
            for cf in controlled if ra.get(cf.name) != rb.get(cf.name)
        )
        names = {cf.name for cf in controlled}
        keys = list(ra.data) + [k for k in rb.data if k not in ra.data]
        other = tuple((_field_label(new, rb, k), _text(ra.get(k)), _text(rb.get(k))) for k in keys
                      if k not in names and ra.get(k) != rb.get(k))
        changed.append(Retag(_paper(rb, new), tags, other))
    return added, removed, tuple(changed)


# --- reports -----------------------------------------------------------------------------------

# A cell: (table id, row id, column id); its place and labels come from the tables.
CellKey = tuple[str, str, str]


@dataclass(frozen=True)
class CellLabels:
    table: str
    cell: str
    order: tuple[int, int, int]


@dataclass(frozen=True)
class Cells:
    counts: dict[CellKey, int] = field(default_factory=dict)
    labels: dict[CellKey, CellLabels] = field(default_factory=dict)

    def add(self, key: CellKey, n: int, table: str, cell: str, order: tuple[int, int, int]) -> None:
        self.counts[key] = n
        self.labels[key] = CellLabels(table, cell, order)


def _add_table(out: Cells, t: Table, n: int, table_id: str, title: str) -> None:
    for i, r in enumerate(t.row_values):
        for j, c in enumerate(t.col_values):
            label = t.rows.label_of(r) if t.cols is None else f"{t.rows.label_of(r)} × {t.cols.label_of(c)}"
            out.add((table_id, r, c if t.cols is not None else ""), t.counts[i][j], title, label, (n, i, j))


def _stat_cells(corpus: Corpus, stats: Stats) -> Cells:
    tax = corpus.taxonomy
    out = Cells()
    n = 0
    for i, (k, v) in enumerate(stats.headline.items()):
        label = tax.collections[k].label if k in tax.collections else k
        out.add(("headline", k, ""), v, "Headline counts", label, (n, i, 0))
    for t in (*stats.fields, *stats.groups, *stats.crosstabs):
        n += 1
        _add_table(out, t, n, t.id, t.title)
        if t.id in stats.touched:
            n += 1
            for i, (k, v) in enumerate(stats.touched[t.id].items()):
                out.add((f"{t.id}/records", k, ""), v, f"{t.title}: records by coverage", k, (n, i, 0))
    return out


def _gap_cells(report: GapReport) -> Cells:
    out = Cells()
    n = 0
    for g in report.tables:
        for kind, t, word in (("broad", g.broad, "all"), ("strict", g.strict, report.strict_label)):
            n += 1
            _add_table(out, t, n, f"{g.id}/{kind}", f"{g.title} ({word})")
    return out


def _claim_states(report: ClaimsReport) -> dict[str, tuple[str, str]]:
    """Each claim's id -> (statement, status), read from the claims report's own dictionary."""
    out: dict[str, tuple[str, str]] = {}
    for r in report.to_dict().get("results", []):
        status = str(r.get("status", ""))
        if r.get("count") is not None:
            status += f" ({r['count']})"
        out[str(r["id"])] = (str(r.get("statement", "")), status)
    return out


@dataclass(frozen=True)
class Moved:
    table: str
    cell: str
    before: int
    after: int


def moved_cells(old: Cells, new: Cells) -> tuple[Moved, ...]:
    """Cells whose count differs, in table order; a cell on one side only counts as 0 on the other."""
    keys = set(old.counts) | set(new.counts)
    rows = []
    for k in keys:
        a, b = old.counts.get(k, 0), new.counts.get(k, 0)
        if a != b:
            lab = new.labels.get(k) or old.labels[k]
            rows.append((lab.order, lab.table, lab.cell, a, b))
    rows.sort(key=lambda x: (x[0], x[2]))
    return tuple(Moved(t, c, a, b) for _, t, c, a, b in rows)


@dataclass(frozen=True)
class ClaimChange:
    id: str
    statement: str
    before: str
    after: str


@dataclass(frozen=True)
class CorpusDiff:
    added: tuple[Paper, ...]
    removed: tuple[Paper, ...]
    changed: tuple[Retag, ...]
    cells: tuple[Moved, ...]  # statistics
    gaps: tuple[Moved, ...]
    claims: tuple[ClaimChange, ...]
    notes: tuple[str, ...] = ()
    base: str = ""  # how the base was chosen

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.cells or self.gaps
                    or self.claims)


def diff_corpora(old: Corpus, new: Corpus) -> CorpusDiff:
    added, removed, changed = record_diff(old, new)
    notes: list[str] = []
    if new.problems:
        notes.append(f"The working tree has {len(new.problems)} record problem(s): run `survey validate`.")
    cells: tuple[Moved, ...] = ()
    gaps: tuple[Moved, ...] = ()
    claims: list[ClaimChange] = []
    try:
        # Each side computed the way the build computes it: claims with the corrections applied.
        s0, s1 = survey_of(old), survey_of(new)
        cells = moved_cells(_stat_cells(old, s0.stats), _stat_cells(new, s1.stats))
        gaps = moved_cells(_gap_cells(s0.gaps), _gap_cells(s1.gaps))
        k0, k1 = _claim_states(s0.claims), _claim_states(s1.claims)
        for cid in [*k0, *(k for k in k1 if k not in k0)]:
            a, b = k0.get(cid), k1.get(cid)
            before, after = (a[1] if a else "absent"), (b[1] if b else "absent")
            if _status(before) != _status(after):
                claims.append(ClaimChange(cid, (b or a or ("", ""))[0], before, after))
    except SurveyError as err:
        # The paper-level diff is still useful when a side's reports cannot be computed.
        notes.append(f"Statistics, gaps and claims were not compared: {err}")
    return CorpusDiff(added, removed, changed, cells, gaps, tuple(claims), tuple(notes))


def _status(text: str) -> str:
    return text.split(" (", 1)[0]


def diff_revision(root: Path, base: str | None = None) -> tuple[str, CorpusDiff]:
    """Compare the survey at ``base`` (default: see :func:`default_base`) with the working tree."""
    root = Path(root)
    chosen = resolve_base(root, base)
    new = load_corpus(root)
    folders = (*SURVEY_PATHS, *(c.folder for c in new.taxonomy.collections.values()))
    with tempfile.TemporaryDirectory(prefix="survey-diff-") as tmp:
        export_revision(root, chosen.rev, Path(tmp), folders)
        old = load_corpus(Path(tmp), use_cache=False)
        d = diff_corpora(old, new)
    return chosen.rev, CorpusDiff(d.added, d.removed, d.changed, d.cells, d.gaps, d.claims, d.notes, chosen.how)


# --- Markdown ----------------------------------------------------------------------------------


# Characters that change how the text around them reads without showing themselves
# (survey_tools.hidden): controls (C0 but tab and line feed, DEL, C1), the bidirectional marks
# and controls (U+202E turns "txt.exe" into "exe.txt" on screen), the zero-width characters and
# the other format characters (tag characters can carry hidden ASCII). A stranger's text
# reaches the comment without them; look-alike spaces stay (they hide nothing).
_HIDDEN = hidden.pattern(hidden.C0, hidden.C1, hidden.BIDI, hidden.ZERO_WIDTH, hidden.FORMAT, keep="\t\n")


def visible(text: str) -> str:
    """``text`` without control, bidirectional, zero-width and other format characters."""
    return _HIDDEN.sub("", text)


def _md(v: Any, limit: int = 120) -> str:
    """Free text as one escaped table cell or note, cut to ``limit`` characters of text.

    The report is posted as a pull-request comment: record text is inert there (no @mention,
    bare link or e-mail link a contributor could slip in through a title or a summary), and
    shows what it says (no bidirectional or control characters)."""
    text = "—" if v is None or v == "" else " ".join(visible(str(v)).split())
    return md_inert(text if len(text) <= limit else text[: limit - 1] + "…")


def _paper_cell(p: Paper) -> str:
    return f"{_md(p.title)} ({md_code(p.key)})"


def _link(p: Paper) -> str:
    # A link shows its own address (an autolink, percent-encoded so it cannot close early):
    # no text of the record's can label it.
    # Only an address the href rule lets into a link (net/hrefs.py) is one; the rest is text.
    url = p.link
    if safe_href(url) and len(url) <= 2000:
        return md_cell(md_autolink(url))
    return _md("(not a web address; left out)" if url else url)


def _table(lines: list[str], headers: Sequence[str], rows: Iterable[Sequence[Any]], limit: int,
           align: str = "") -> None:
    """A table of at most ``limit`` rows; a last row says how many more were left out."""
    shown = list(rows)
    more = len(shown) - limit
    shown = shown[:limit]
    if more > 0:
        shown.append([f"… {more} more", *[""] * (len(headers) - 1)])
    lines += [md_table(headers, shown, align, pad=False), ""]


def _by_collection(papers: Iterable[Paper]) -> Iterator[tuple[str, list[Paper]]]:
    groups: dict[str, list[Paper]] = {}
    for p in papers:
        groups.setdefault(p.collection, []).append(p)
    yield from groups.items()


def _moved_section(out: list[str], heading: str, moved: tuple[Moved, ...], limit: int) -> None:
    """All moved cells of one kind in one table (table, cell, before, after), in table order."""
    if not moved:
        return
    out += [f"### {heading} ({len(moved)} cells moved)", ""]
    _table(out, ["table", "cell", "before", "after"],
           ((_md(m.table), _md(m.cell), m.before, m.after) for m in moved), limit, "llrr")


def _added_section(out: list[str], coll: str, papers: list[Paper], limit: int) -> None:
    """Per added paper what a reviewer checks: link, identifier, edition, summary, then every tag."""
    out += [f"### Added to {_md(coll)} ({len(papers)})", ""]
    for p in papers[:limit]:
        out += [f"#### {_md(p.title)} ({md_code(p.key)})", ""]
        rows: list[Sequence[str]] = [
            ("Link", _link(p) if p.link else "—"),
            ("Identifier", _md(p.identifier or "—", 300)),
            ("Edition", _md(p.edition or "—")),
            ("Summary", _md(p.summary or "—", 1000)),
            ("File", md_cell(md_code(p.path))),
            *((_md(name), _md(value, 300)) for name, value in p.tags),
        ]
        out += [md_table(["field", "value"], rows, pad=False), ""]
    if len(papers) > limit:
        out += [f"_… {len(papers) - limit} more papers._", ""]


def to_markdown(rev: str, d: CorpusDiff, limit: int = 200) -> str:
    """The reviewer's report (job summary, pull-request comment); says so when nothing changed."""
    # Every text below may come from an artifact the pull request's run wrote (diff_report.py):
    # each is escaped here, headings included.
    how = f" ({_md(d.base)})" if d.base else ""
    out = [f"## Survey changes against {md_code(rev[:12])}{how}", ""]
    if d.empty:
        out += ["No paper, statistic, gap-map cell or claim changed.", ""]
    for coll, papers in _by_collection(d.added):
        _added_section(out, coll, papers, limit)
    for coll, papers in _by_collection(d.removed):
        out += [f"### Removed from {_md(coll)} ({len(papers)})", ""]
        _table(out, ["paper", "file"], ((_paper_cell(p), md_cell(md_code(p.path))) for p in papers), limit)
    if d.changed:
        n = sum(len(c.tags) + len(c.other) for c in d.changed)
        out += [f"### Edited ({len(d.changed)} papers, {n} fields)", ""]
        _table(out, ["paper", "field", "before", "after"],
               ((_paper_cell(c.paper), _md(t), _md(a or "—", 400), _md(b or "—", 400))
                for c in d.changed for t, a, b in (*c.tags, *c.other)), limit)
    _moved_section(out, "Statistics", d.cells, limit)
    _moved_section(out, "Gap maps", d.gaps, limit)
    if d.claims:
        out += [f"### Claims whose status changed ({len(d.claims)})", ""]
        _table(out, ["claim", "statement", "before", "after"],
               ((md_code(c.id), _md(c.statement), _md(c.before), _md(c.after)) for c in d.claims), limit)
    out += [f"_{_md(n, 1000)}_" for n in d.notes]
    return "\n".join(out).rstrip() + "\n"
