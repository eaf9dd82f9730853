"""Validation of a whole survey folder: every record on its own, then across records."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from survey_tools.corpus.configs import data_config_problems
from survey_tools.corpus.duplicates import cross_check, declared_problems, fuzzy_title_problems
from survey_tools.corpus.loading import discover, load_corpus
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import Problem, Report, UsageError


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
                line, col = rec.where((name,))
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
) -> Report:
    """Check every record (or only those in ``paths``) and return every problem found.

    Cross-record checks always look at the whole corpus, so that a new file is compared with
    every existing one; with ``paths``, only problems in those files are reported.
    """
    root = Path(root)
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax)
    report = report_for(corpus, paths, require)
    if not paths:  # the whole folder: its configuration files too
        report.extend(data_config_problems(tax.document, tax.files))
    return report


def report_for(
    corpus: Corpus, paths: Sequence[Path] | None = None, require: Sequence[str] = ()
) -> Report:
    tax = corpus.taxonomy
    report = Report(checked=corpus.files)
    report.extend(corpus.problems)
    report.extend(cross_check(corpus))
    # Near-identical titles (a typo, a changed subtitle): the same work entered twice.
    report.extend(fuzzy_title_problems(corpus))
    report.extend(declared_problems(corpus))
    report.extend(require_fields(corpus, require))
    if paths:
        wanted = {rel for _, rel in discover(tax, paths)[0]}
        report.problems = [p for p in report.problems if p.file in wanted]
        report.checked = len(wanted)
    return report
