"""``survey init``: start a new survey folder (from a CSV list, or empty)."""

from __future__ import annotations

from pathlib import Path

import click

from survey_tools.build import build as run_build
from survey_tools.contrib.csvio import plan_import, write_import
from survey_tools.contrib.init import InitOptions, parse_lists, scaffold
from survey_tools.corpus.taxonomy import load_taxonomy


def _names(values: tuple[str, ...]) -> list[str]:
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


@click.command()
@click.argument("directory", required=False, default=".",
                type=click.Path(file_okay=False, path_type=Path), metavar="[DIR]")
@click.option("--from-csv", "from_csv", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="An existing list: its columns become the fields and its rows the records.")
@click.option("--id-column", metavar="COL", help="The column naming each record (default: the first).")
@click.option("--controlled", multiple=True, metavar="COL,...",
              help="Columns whose values form a controlled vocabulary (with no CSV: NAME=v1,v2).")
@click.option("--list", "lists", multiple=True, metavar="COL:SEP,...",
              help="Columns holding several values joined by SEP, e.g. tags:; (repeatable).")
@click.option("--ignore", multiple=True, metavar="COL,...", help="Columns to keep out of the records.")
@click.option("--title", default=None, help="The survey's title (default: from the folder name).")
@click.option("--description", default="", help="One or two sentences for the README's introduction.")
def init(directory: Path, from_csv: Path | None, id_column: str | None, controlled: tuple[str, ...],
         lists: tuple[str, ...], ignore: tuple[str, ...], title: str | None, description: str) -> None:
    """Scaffold a complete survey folder in DIR: taxonomy/ (survey.yaml with every setting at
    its documented default, one field file per controlled column, csv.yaml, commands.yaml),
    data/reports.yaml, corpus/, a CI workflow and a pre-commit configuration. With --from-csv
    the list is imported; the folder then validates and builds."""

    root = directory.resolve()
    list_specs = [s for v in lists for s in (v.split(",") if v.count(":") > 1 else [v])]
    opts = InitOptions(
        title=title or root.name.replace("-", " ").replace("_", " ").strip().title() or "Survey",
        csv_path=from_csv,
        id_column=id_column,
        controlled=_names(controlled) if from_csv else [c for v in controlled for c in [v]],
        lists=parse_lists(list_specs),
        ignore=_names(ignore),
        description=description,
    )
    written = scaffold(root, opts)
    click.echo(f"wrote {len(written)} configuration files under {root}", err=True)
    if from_csv is not None:
        tax = load_taxonomy(root)
        plan = write_import(tax, plan_import(tax, from_csv))
        click.echo(f"imported {len(plan.files)} records from {from_csv.name}", err=True)
    result = run_build(root)
    click.echo(f"built {len(result.written)} outputs; next: survey validate, then edit taxonomy/", err=True)


COMMANDS = (init,)
