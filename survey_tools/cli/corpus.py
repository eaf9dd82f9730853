"""Commands over the records themselves: validate and the taxonomy (import and export, which
read and write other formats, are in :mod:`survey_tools.cli.exchange`)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from survey_tools.adopt.taxonomy_edit import migrate_field, rename_value
from survey_tools.cli.common import output_format, report, root_of
from survey_tools.corpus.protocol import has_protocol
from survey_tools.corpus.record_schema import schema_files
from survey_tools.corpus.repository import repository_warning, site_url_warning
from survey_tools.corpus.screening_logs import MAX_SEARCH_AGE_DAYS, stale_search_warning
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.corpus.validation import validate_corpus
from survey_tools.errors import EXIT_INVALID, EXIT_OK, Report
from survey_tools.fileio import atomic_write


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--require",
    multiple=True,
    metavar="FIELD",
    help="Also fail when FIELD is untagged on any record (repeatable): a field kept optional until every record is tagged.",
)
@click.option(
    "--maintainer-warnings/--no-maintainer-warnings",
    default=True,
    envvar="SURVEY_MAINTAINER_WARNINGS",
    show_envvar=True,
    help="Print warnings only a maintainer can act on (survey.repository not set); "
    "`tools/ci.sh pull-request` turns them off, a contributor's checks never show them.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Maintainers: also warn when the newest search run in screening/runs.yaml is more than "
    "--max-search-age days old (a warning; the exit code is unchanged).",
)
@click.option(
    "--max-search-age",
    "max_search_age",
    type=click.IntRange(min=0),
    default=MAX_SEARCH_AGE_DAYS,
    show_default=True,
    metavar="DAYS",
    help="With --strict: how old the newest search run may be.",
)
@output_format()
@click.pass_context
def validate(
    ctx: click.Context,
    paths: tuple[Path, ...],
    require: tuple[str, ...],
    maintainer_warnings: bool,
    strict: bool,
    max_search_age: int,
    fmt: str,
) -> None:
    """Check records against the taxonomy and each other (default: the whole corpus).

    Prints one line per problem as FILE:LINE:COL: FIELD: MESSAGE and exits 0 when clean,
    1 when any record is invalid, 2 on a usage error.
    """
    tax = load_taxonomy(root_of(ctx))
    found = validate_corpus(root_of(ctx), list(paths) or None, require=require, tax=tax)

    def text(checked: Report) -> None:
        for p in checked:
            click.echo(p.format())
        n = len(checked.problems)
        click.echo(f"{checked.checked} files checked, {n} problem{'s' if n != 1 else ''}", err=True)
        warnings = [repository_warning(tax), site_url_warning(tax)] if not paths and maintainer_warnings else []
        for warning in filter(None, warnings):
            click.echo(f"warning: {warning}", err=True)
        stale = _stale_search(tax, max_search_age) if strict else None
        if stale:
            click.echo(f"warning: {stale}", err=True)

    report(found, fmt, text=text)
    sys.exit(EXIT_OK if found.ok else EXIT_INVALID)


def _stale_search(tax: Taxonomy, max_days: int) -> str | None:
    """The stale-search warning of a survey with a search protocol (none without one)."""
    if not has_protocol(tax):
        return None
    return stale_search_warning(tax.root, dt.date.today(), max_days)


@click.group()
def taxonomy() -> None:
    """Inspect the taxonomy and the schemas generated from it."""


@taxonomy.command(name="schema")
@click.option("--check", is_flag=True, help="Exit 1 if taxonomy/schema/ is stale; write nothing.")
@click.pass_context
def taxonomy_schema(ctx: click.Context, check: bool) -> None:
    """Write the JSON Schemas generated from taxonomy/ to taxonomy/schema/."""
    root = root_of(ctx)
    stale = []
    for rel, text in schema_files(load_taxonomy(root)).items():
        path = root / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not check:
            atomic_write(path, text)
    for rel in stale:
        click.echo(f"{'stale' if check else 'wrote'}: {rel}")
    if check and stale:
        sys.exit(EXIT_INVALID)


@taxonomy.command(name="rename")
@click.argument("field")
@click.argument("old")
@click.argument("new")
@click.pass_context
def taxonomy_rename(ctx: click.Context, field: str, old: str, new: str) -> None:
    """Rewrite every record using value OLD of FIELD to use NEW (comments and order kept).

    Add NEW to the field's taxonomy file first; remove OLD afterwards.
    """
    changed = rename_value(root_of(ctx), field, old, new)
    for rel in changed:
        click.echo(f"rewrote {rel}")
    click.echo(f"{len(changed)} record(s) now use {new!r} for {field}", err=True)


@taxonomy.command(name="migrate")
@click.argument("field")
@click.option("--to", "to", required=True, type=click.Choice(["multi", "single", "list", "string"]),
              help="multi/single for a controlled field, list/string for a plain one.")
@click.pass_context
def taxonomy_migrate(ctx: click.Context, field: str, to: str) -> None:
    """Make FIELD hold several values or one: its definition, every record, the exclusion log's
    copies and the CSV layout are rewritten together (comments and order kept)."""
    changed = migrate_field(root_of(ctx), field, to)
    for rel in changed:
        click.echo(f"rewrote {rel}")
    click.echo(f"{field} now holds {'several values' if to in ('multi', 'list') else 'one value'}", err=True)


COMMANDS = (validate, taxonomy)
