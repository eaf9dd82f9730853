"""Validation of a whole survey folder: every record on its own, then across records."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from survey_tools.errors import Problem, Report, UsageError
from survey_tools.identifiers import record_identifiers
from survey_tools.loading import load_corpus
from survey_tools.records import Corpus, Record
from survey_tools.taxonomy import Taxonomy, load_taxonomy
from survey_tools.yamlio import load_yaml_file

_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+\s*")
_NON_WORD = re.compile(r"[^\w\s]")


@lru_cache(maxsize=1 << 18)
def normalize_title(title: str) -> str:
    """Case, accents, LaTeX braces and punctuation removed: titles that differ only so are equal.

    Cached: cross-record checks and duplicate detection normalise every title more than once.
    """
    t = title
    if not t.isascii():
        t = unicodedata.normalize("NFKD", t)
        t = "".join(ch for ch in t if not unicodedata.combining(ch))
    if "\\" in t:
        t = _LATEX_COMMAND.sub(" ", t)  # LaTeX commands such as \emph
    t = t.replace("{", "").replace("}", "")
    t = _NON_WORD.sub(" ", t.lower())
    return " ".join(t.split())


def _where(tax: Taxonomy, rec: Record, path: tuple[str, ...]) -> tuple[int, int]:
    # Cross-record problems are rare: re-reading the file for its line beats keeping every position.
    doc = load_yaml_file(tax.root / rec.path, rec.path)
    return doc.position(path) if not doc.problems else (1, 1)


def _identifier_field(rec: Record, kind: str) -> tuple[str, ...]:
    ids = rec.get("identifiers")
    if isinstance(ids, dict) and kind in ids:
        return ("identifiers", kind)
    if "identifier" in rec.data:
        return ("identifier",)
    for f in ("links", "url"):
        if f in rec.data:
            return (f,)
    return ()


def cross_check(corpus: Corpus) -> list[Problem]:
    """Problems that only show across records: shared identifiers and titles, retained and excluded at once."""
    tax = corpus.taxonomy
    problems: list[Problem] = []
    kinds = {k: v.normalize for k, v in tax.identifiers.items()}
    seen: dict[tuple[str, str], list[Record]] = defaultdict(list)
    titles: dict[str, list[Record]] = defaultdict(list)
    for rec in corpus:
        for kind, value in record_identifiers(rec.data, kinds).items():
            seen[(kind, value)].append(rec)
        if rec.title:
            titles[normalize_title(rec.title)].append(rec)

    def report(
        rec: Record, path: tuple[str, ...], field: str, others: list[Record], what: str
    ) -> None:
        line, col = _where(tax, rec, path)
        names = ", ".join(o.path for o in others)
        crossing = {o.collection for o in others} | {rec.collection}
        if len(crossing) > 1:
            msg = f"{what} is both retained and excluded (also in {names})"
        else:
            msg = f"{what} is also used by {names}"
        problems.append(Problem(rec.path, line, col, field, msg))

    for (kind, value), recs in sorted(seen.items()):
        if len(recs) < 2:
            continue
        label = tax.identifiers[kind].label
        for rec in recs:
            others = [o for o in recs if o is not rec]
            path = _identifier_field(rec, kind)
            report(rec, path, ".".join(path) or kind, others, f"{label} {value}")
    for norm, recs in sorted(titles.items()):
        if len(recs) < 2 or not norm:
            continue
        for rec in recs:
            others = [o for o in recs if o is not rec]
            report(rec, ("title",), "title", others, "the same title")
    return problems


def require_fields(corpus: Corpus, fields: Sequence[str]) -> list[Problem]:
    """Problems for records whose ``fields`` are missing or still untagged."""
    tax = corpus.taxonomy
    problems: list[Problem] = []
    for name in fields:
        cf = tax.find_field(name)
        if cf is None:
            known = [c.name for coll in tax.collections.values() for c in coll.controlled]
            raise UsageError(
                f"--require {name}: no such controlled field (known: {', '.join(known)})"
            )
        for rec in corpus.of(cf.collection or tax.retained.name):
            value = rec.get(name)
            if value is None or value == tax.untagged:
                line, col = _where(tax, rec, (name,))
                problems.append(
                    Problem(
                        rec.path, line, col, name, f"not yet tagged (required by --require {name})"
                    )
                )
    return problems


def validate_corpus(
    root: Path | str,
    paths: Sequence[Path] | None = None,
    require: Sequence[str] = (),
    jobs: int | None = None,
) -> Report:
    """Check every record (or only those in ``paths``) and return every problem found.

    Cross-record checks always look at the whole corpus, so that a new file is compared with
    every existing one; with ``paths``, only problems in those files are reported.
    """
    root = Path(root)
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax, jobs=jobs)
    return report_for(corpus, paths, require)


def report_for(
    corpus: Corpus, paths: Sequence[Path] | None = None, require: Sequence[str] = ()
) -> Report:
    tax = corpus.taxonomy
    report = Report(checked=corpus.files)
    report.extend(corpus.problems)
    report.extend(cross_check(corpus))
    # Near-identical titles (a typo, a changed subtitle): the same work entered twice.
    from survey_tools.duplicates import fuzzy_title_problems

    report.extend(fuzzy_title_problems(corpus))
    report.extend(require_fields(corpus, require))
    if paths:
        from survey_tools.loading import discover

        wanted = {rel for _, rel in discover(tax, paths)[0]}
        report.problems = [p for p in report.problems if p.file in wanted]
        report.checked = len(wanted)
    return report
