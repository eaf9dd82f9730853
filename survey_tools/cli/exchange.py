"""``survey import`` and ``survey export``: records from and to other formats (the survey's CSV
layout, with BibTeX for full author lists). A module of its own so that ``survey validate`` does
not load the list readers (Markdown, TeX decoding) that an import needs."""

from __future__ import annotations

from pathlib import Path

import click

from survey_tools.adopt.csvio import export_csv, plan_import, write_import
from survey_tools.cli.common import root_of
from survey_tools.cli.listopts import list_limits
from survey_tools.corpus.loading import load_valid_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.views import corpus_view, view_ids
from survey_tools.errors import UsageError
from survey_tools.schema_words import suggest


@click.group(name="import")
def import_() -> None:
    """Create records from other formats."""


@import_.command(name="csv")
@click.argument("papers_csv", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("excluded_csv", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--bib",
    type=click.Path(dir_okay=False, path_type=Path),
    help="BibTeX file to take full author lists and DOIs from.",
)
@click.option(
    "--overwrite", is_flag=True, help="Replace records that already exist (default: keep them)."
)
@click.option("--dry-run", is_flag=True, help="Check and report, write nothing.")
@click.option("--edition", metavar="ID",
              help="The published edition the CSVs are (default: the latest in taxonomy/survey.yaml).")
@list_limits
@click.pass_context
def import_csv(
    ctx: click.Context,
    papers_csv: Path,
    excluded_csv: Path | None,
    bib: Path | None,
    overwrite: bool,
    dry_run: bool,
    edition: str | None,
) -> None:
    """Build records from CSV files in the survey's layout (taxonomy/csv.yaml).

    Every row is checked before anything is written: one bad row writes nothing.
    """
    tax = load_taxonomy(root_of(ctx))
    plan = plan_import(tax, papers_csv, excluded_csv, bib, edition)
    for w in plan.warnings:  # kept as the list has it, but worth a look (a year, a line break)
        click.echo(f"warning: {w}", err=True)
    if dry_run:
        click.echo(f"would write {len(plan.files)} records")
        return
    write_import(tax, plan, overwrite=overwrite)
    written = len(plan.files) - len(plan.skipped)
    click.echo(
        f"wrote {written} records"
        + (f", kept {len(plan.skipped)} existing (use --overwrite)" if plan.skipped else "")
    )


@click.group(name="export")
def export() -> None:
    """Write the corpus in other formats."""


@export.command(name="csv")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--edition", metavar="ID",
              help="Only the records of this published edition (default: the living list).")
@click.pass_context
def export_csv_cmd(ctx: click.Context, out_dir: Path, edition: str | None) -> None:
    """Write OUT_DIR/papers.csv and OUT_DIR/excluded.csv in the survey's CSV layout.

    With --edition, a work retained in that edition and excluded since is exported as retained,
    so that the export of the survey's edition reproduces the survey's own CSV files.
    """
    corpus = load_valid_corpus(root_of(ctx), "fix the records before exporting")
    if edition is not None:
        known = view_ids(corpus.taxonomy)
        if edition not in known:
            near = suggest(edition, known)
            hint = f" (did you mean {near!r}?)" if near else f" (known: {', '.join(known) or 'none'})"
            raise UsageError(f"--edition {edition!r} is not an edition of this survey{hint}")
        corpus = corpus_view(corpus, edition)
    for path in export_csv(corpus.taxonomy, corpus, out_dir):
        click.echo(f"wrote {path}")


COMMANDS = (import_, export)
