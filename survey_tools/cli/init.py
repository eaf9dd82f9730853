"""``survey init``: start a new survey folder, from a list kept in any common format or empty."""

from __future__ import annotations

from pathlib import Path

import click

from survey_tools.adopt.sources import FORMATS
from survey_tools.adopt.start import InitRequest, run_init
from survey_tools.build import build as run_build
from survey_tools.cli.common import root_of
from survey_tools.cli.listopts import list_limits


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

    del keep_fields  # accepted for older scripts: every field is imported now (see its --help)
    root = (directory if directory is not None else root_of(ctx)).resolve()
    request = InitRequest(
        sources=sources, fmt=fmt, id_field=id_field, controlled=controlled, lists=lists, ignore=ignore,
        distinct_titles=distinct_titles, public_fields=public_fields,
        list_repository=list_repository, title=title, description=description, awesome=awesome,
        dry_run=dry_run, toolkit_repository=toolkit_repository, toolkit_commit=toolkit_commit,
    )
    result = run_init(root, request, build=run_build, say=lambda text, err: click.echo(text, err=err))
    if result.dry_run:
        raise click.exceptions.Exit(0)
    click.echo(f"wrote {result.configuration} configuration files under {root}", err=True)
    click.echo(f"built {result.outputs} outputs; next: survey validate, then edit taxonomy/", err=True)


COMMANDS = (init,)
