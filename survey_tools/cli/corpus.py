"""``survey validate``: the records checked against the taxonomy and each other. The taxonomy's
commands are in :mod:`survey_tools.cli.taxonomy` and import and export in
:mod:`survey_tools.cli.exchange`, so that validate (every pull request, pre-commit) loads neither
ruamel.yaml nor the list readers."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from survey_tools.cli.common import output_format, report, root_of
from survey_tools.corpus.protocol import has_protocol
from survey_tools.corpus.repository import repository_warning, site_url_warning
from survey_tools.corpus.screening_logs import MAX_SEARCH_AGE_DAYS, stale_search_warning
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.corpus.validation import validate_corpus
from survey_tools.errors import EXIT_INVALID, EXIT_OK, Report


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
        # Problems and the records' own warnings (errors.WARNING), in file order: a warning's
        # line says what is published instead and the line to write; it never fails the run.
        for p in sorted(set(checked.problems) | set(checked.warnings)):
            click.echo(p.format())
        n, w = len(checked.problems), len(set(checked.warnings))
        said = f", {w} warning{'s' if w != 1 else ''}" if w else ""
        click.echo(f"{checked.checked} files checked, {n} problem{'s' if n != 1 else ''}{said}", err=True)
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


COMMANDS = (validate,)
