"""``survey init``: start a new survey folder, from a list kept in any common format or empty."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import click

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
from survey_tools.adopt.sources import FORMATS, read_source
from survey_tools.adopt.table import Table
from survey_tools.build import build as run_build
from survey_tools.cli.common import root_of
from survey_tools.cli.listopts import list_limits
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput, UsageError


@click.command()
@click.argument("directory", required=False, default=None,
                type=click.Path(file_okay=False, path_type=Path), metavar="[DIR]")
@click.option("--from", "--from-csv", "sources", multiple=True,
              type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Your list: CSV/TSV, an Excel workbook, a YAML or JSON file of entries (CSL-JSON too), JSON "
                   "lines, BibTeX, RIS, or a Markdown README. Its columns become the fields and its rows the "
                   "entries. Several .bib files (--from a.bib --from b.bib, in \\bibliography{a,b} order) are "
                   "read as one, so an @string or crossref of one serves the others.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="The list's format when its file name does not say.")
@click.option("--id", "--id-column", "id_field", metavar="FIELD",
              help="The column naming each entry (default: one called id or key, else keys made from the titles).")
@click.option("--controlled", multiple=True, metavar="FIELD",
              help="A column whose values form a controlled vocabulary (repeatable; with no list: NAME=v1,v2).")
@click.option("--list", "lists", multiple=True, metavar="FIELD=SEP",
              help="A column holding several values joined by SEP, e.g. --list 'Tags=;' (repeatable).")
@click.option("--ignore", multiple=True, metavar="FIELD", help="A column to keep out of the entries (repeatable).")
@click.option("--distinct-titles", is_flag=True,
              help="Rows that look like one work twice (the same or a nearly the same title, a shared "
                   "link) are different entries (one row per study, say).")
@click.option("--keep-field", "keep_fields", multiple=True, metavar="FIELD",
              help="Kept for older scripts: every field of a list is imported now, those off the allowlist "
                   "private (kept in the records, out of every output; --public-field publishes one).")
@click.option("--public-field", "public_fields", multiple=True, metavar="FIELD",
              help="A field of the list to publish although it is not one a reader is meant to see "
                   "(only title, authors, year, venue, identifiers, links, summary and --controlled "
                   "tags are; every other field is imported private: kept, out of every output). Repeatable.")
@click.option("--list-repository", metavar="URL", default="",
              help="The repository the list comes from (https://github.com/OWNER/REPO): the relative links "
                   "of its introduction and other words init copies point into it.")
@click.option("--title", default=None, help="The list's title (default: the list's own, else the folder name).")
@click.option("--description", default="", help="One or two sentences for the README's introduction.")
@click.option("--awesome", is_flag=True, help="Call it an awesome list: 'Awesome' before the title and the badge.")
@click.option("--dry-run", is_flag=True, help="Print the mapping and every row's problems; write nothing.")
@click.option("--toolkit-repository", metavar="URL",
              help="Until the toolkit has a release: the repository its workflow installs it from "
                   "(https://github.com/OWNER/REPO; default: the running checkout's survey.repository).")
@click.option("--toolkit-commit", metavar="SHA",
              help="Until the toolkit has a release: the full commit to install (default: the running checkout's HEAD).")
@list_limits
@click.pass_context
def init(ctx: click.Context, directory: Path | None, sources: tuple[Path, ...], fmt: str | None,
         id_field: str | None, controlled: tuple[str, ...], lists: tuple[str, ...], ignore: tuple[str, ...],
         distinct_titles: bool, keep_fields: tuple[str, ...], public_fields: tuple[str, ...],
         list_repository: str, title: str | None,
         description: str, awesome: bool, dry_run: bool, toolkit_repository: str | None,
         toolkit_commit: str | None) -> None:
    """Start a survey in DIR (default: the --root folder): taxonomy/ (the survey, one file per
    controlled field, the import/export layout), data/reports.yaml, one record per entry of the
    list in corpus/, a CI workflow and a pre-commit configuration; then build it. A row's
    problems are listed by row and never refuse the list: a value no field can hold is kept in
    the record's private import_notes; a file that is not a list, or a failing build, leaves DIR
    as it was."""

    root = (directory if directory is not None else root_of(ctx)).resolve()
    keep = frozenset(f.lower() for f in keep_fields)
    with tempfile.TemporaryDirectory(prefix="survey-init-") as joined_dir:
        source, where = _one_source(sources, Path(joined_dir))
        table = read_source(source, fmt, keep, strict=False) if source is not None else None
        name = root.name.replace("-", " ").replace("_", " ").strip().title() or "Survey"
        opts = InitOptions(
            title=title or (table.title if table is not None and table.title else name),
            source=sources[0] if sources else None,
            fmt=fmt or (table.format if table is not None else None),
            id_field=id_field,
            controlled=list(controlled),
            lists=parse_lists(lists),
            ignore=list(ignore),
            description=description or (table.description if table is not None else ""),
            distinct_titles=distinct_titles,
            keep_fields=tuple(keep),
            public_fields=tuple(public_fields),
            list_repository=list_repository,
            # a list that calls itself awesome keeps the name and the badge
            entry_order="source" if table is not None and table.format == "markdown" else "",
            awesome=awesome or bool(table is not None and table.title.lower().startswith("awesome")),
            toolkit_repository=toolkit_repository,
            toolkit_commit=toolkit_commit,
        )
        if dry_run and table is not None:
            click.echo(f"{table.file}: {table.format}, {len(table.rows)} entries, {len(table.columns)} columns")
            for line in describe_columns(table, opts):
                click.echo(f"  {line}")
        with staged(root, opts.source) as tmp:
            written, warnings = scaffold(tmp, opts, table)
            for w in warnings:
                click.echo(f"warning: {where(w)}", err=True)
            if table is not None and source is not None:
                _import_rows(tmp, source, table, opts, dry_run, where)
            elif dry_run:
                click.echo("nothing written (--dry-run)")
                raise click.exceptions.Exit(0)
            result = run_build(tmp)
    click.echo(f"wrote {len(written)} configuration files under {root}", err=True)
    click.echo(f"built {len(result.written)} outputs; next: survey validate, then edit taxonomy/", err=True)


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
                 where: Callable[[str], str]) -> None:
    """The list's rows into records under ``tmp``, repaired until the corpus validates, and the
    report of what went where."""
    tax = load_taxonomy(tmp)
    try:
        plan = plan_import(tax, source, options=ImportOptions(distinct_titles=opts.distinct_titles, partial=True))
    except InvalidInput:
        if dry_run:
            click.echo("nothing written (--dry-run)", err=True)
        raise
    for w in plan.warnings:
        click.echo(f"warning: {where(w)}", err=True)
    if dry_run:
        n = len(plan.warnings)
        said = f"{n} warning{'' if n == 1 else 's'} above" if n else "no problems"
        click.echo(f"{len(plan.files)} entries, {said}; nothing written (--dry-run)")
        raise click.exceptions.Exit(0)
    write_import(tax, plan)
    rows = {rel: f"{source.name}:{line}" for rel, line in plan.lines.items()}
    fixed = repair_corpus(tmp, rows, frozenset({tax.retained.id_field, tax.retained.title_field}))
    for w in fixed.warnings:
        click.echo(f"warning: {where(w)}", err=True)
    moved = dict(plan.moved)
    for name, n in fixed.moved.items():
        moved[name] = moved.get(name, 0) + n
    for line in field_report(table, opts, moved):
        click.echo(line, err=True)
    click.echo(f"imported {len(plan.files) - len(fixed.dropped)} entries from {source.name}", err=True)


COMMANDS = (init,)
