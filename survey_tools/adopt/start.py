"""``survey init``, the whole flow: the list read (several BibTeX files joined), the survey
scaffolded beside the target, the rows imported and repaired until the corpus validates, built
and moved into place; a dry run prints the mapping and every row's problems and writes nothing.
The command parses its options and calls :func:`run_init`; progress goes through ``say``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.adopt.bibtex_list import join_bibtex
from survey_tools.adopt.csvio import ImportOptions, plan_import, write_import
from survey_tools.adopt.init import (
    InitOptions,
    describe_columns,
    field_report,
    parse_lists,
    scaffold,
    staged,
)
from survey_tools.adopt.repair import repair_corpus
from survey_tools.adopt.sources import read_source
from survey_tools.adopt.table import Table
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput, UsageError

# (text, to stderr): how run_init reports as it goes; the command passes click.echo.
Say = Callable[[str, bool], None]


@dataclass(frozen=True)
class InitRequest:
    """What ``survey init`` was asked, as its options give it (before the list is read)."""

    sources: tuple[Path, ...] = ()
    fmt: str | None = None
    id_field: str | None = None
    controlled: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()  # FIELD=SEP
    ignore: tuple[str, ...] = ()
    distinct_titles: bool = False
    public_fields: tuple[str, ...] = ()
    list_repository: str = ""
    title: str | None = None
    description: str = ""
    awesome: bool = False
    dry_run: bool = False
    toolkit_repository: str | None = None
    toolkit_commit: str | None = None


@dataclass(frozen=True)
class InitResult:
    """Nothing for a dry run; else the configuration files written and the outputs built."""

    root: Path
    dry_run: bool
    configuration: int = 0
    outputs: int = 0


class _DryRunDone(Exception):
    """Leaves the staging folder without moving anything into place (a dry run's end)."""


def _options(root: Path, request: InitRequest, table: Table | None) -> InitOptions:
    name = root.name.replace("-", " ").replace("_", " ").strip().title() or "Survey"
    return InitOptions(
        title=request.title or (table.title if table is not None and table.title else name),
        source=request.sources[0] if request.sources else None,
        fmt=request.fmt or (table.format if table is not None else None),
        id_field=request.id_field,
        controlled=list(request.controlled),
        lists=parse_lists(request.lists),
        ignore=list(request.ignore),
        description=request.description or (table.description if table is not None else ""),
        distinct_titles=request.distinct_titles,
        public_fields=tuple(request.public_fields),
        list_repository=request.list_repository,
        # a list that calls itself awesome keeps the name and the badge
        entry_order="source" if table is not None and table.format == "markdown" else "",
        awesome=request.awesome or bool(table is not None and table.title.lower().startswith("awesome")),
        toolkit_repository=request.toolkit_repository,
        toolkit_commit=request.toolkit_commit,
    )


def run_init(root: Path, request: InitRequest, *, build: Callable[[Path], Any], say: Say) -> InitResult:
    """``survey init`` into ``root``; ``build`` is the build stage (this room never imports
    it). A list it cannot read, or a failing build, leaves ``root`` as it was."""
    try:
        with tempfile.TemporaryDirectory(prefix="survey-init-") as joined_dir:
            source, where = _one_source(request.sources, Path(joined_dir))
            table = read_source(source, request.fmt, strict=False) if source is not None else None
            opts = _options(root, request, table)
            if request.dry_run and table is not None:
                say(f"{table.file}: {table.format}, {len(table.rows)} entries, {len(table.columns)} columns", False)
                for line in describe_columns(table, opts):
                    say(f"  {line}", False)
            with staged(root, opts.source) as tmp:
                written, warnings = scaffold(tmp, opts, table)
                for w in warnings:
                    say(f"warning: {where(w)}", True)
                if table is not None and source is not None:
                    _import_rows(tmp, source, table, opts, request.dry_run, where, say)
                elif request.dry_run:
                    say("nothing written (--dry-run)", False)
                    raise _DryRunDone
                result = build(tmp)
    except _DryRunDone:
        return InitResult(root, dry_run=True)
    return InitResult(root, dry_run=False, configuration=len(written), outputs=len(result.written))


def _one_source(sources: tuple[Path, ...], folder: Path) -> tuple[Path | None, Callable[[str], str]]:
    """The list to read: the one file, or several .bib files joined into one in ``folder``
    (with the function that gives the joined text's lines as each file's own)."""
    if len(sources) <= 1:
        return (sources[0] if sources else None), (lambda text: text)
    not_bib = [p.name for p in sources if p.suffix.lower() != ".bib"]
    if not_bib:
        raise UsageError(f"--from given {len(sources)} times: only BibTeX files are read together "
                         f"(not {', '.join(not_bib)})")
    joined = join_bibtex(list(sources))
    path = folder / joined.label
    path.write_text(joined.text, encoding="utf-8")
    return path, joined.where


def _import_rows(tmp: Path, source: Path, table: Table, opts: InitOptions, dry_run: bool,
                 where: Callable[[str], str], say: Say) -> None:
    """The list's rows into records under ``tmp``, repaired until the corpus validates, and the
    report of what went where."""
    tax = load_taxonomy(tmp)
    try:
        plan = plan_import(tax, source, options=ImportOptions(distinct_titles=opts.distinct_titles, partial=True))
    except InvalidInput:
        if dry_run:
            say("nothing written (--dry-run)", True)
        raise
    for w in plan.warnings:
        say(f"warning: {where(w)}", True)
    if dry_run:
        n = len(plan.warnings)
        said = f"{n} warning{'' if n == 1 else 's'} above" if n else "no problems"
        say(f"{len(plan.files)} entries, {said}; nothing written (--dry-run)", False)
        raise _DryRunDone
    write_import(tax, plan)
    rows = {rel: f"{source.name}:{line}" for rel, line in plan.lines.items()}
    fixed = repair_corpus(tmp, rows, frozenset({tax.retained.id_field, tax.retained.title_field}))
    for w in fixed.warnings:
        say(f"warning: {where(w)}", True)
    moved = dict(plan.moved)
    for name, n in fixed.moved.items():
        moved[name] = moved.get(name, 0) + n
    for line in field_report(table, opts, moved):
        say(line, True)
    say(f"imported {len(plan.files) - len(fixed.dropped)} entries from {source.name}", True)


__all__ = ["InitRequest", "InitResult", "run_init"]
