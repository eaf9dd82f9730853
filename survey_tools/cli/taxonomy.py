"""``survey taxonomy``: the generated schemas, and values renamed or fields migrated in every
record (round-trip YAML through ruamel.yaml, which only these commands load)."""

from __future__ import annotations

import sys

import click

from survey_tools.adopt.taxonomy_edit import migrate_field, rename_value
from survey_tools.cli.common import root_of
from survey_tools.corpus.record_schema import refresh_schema_files
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import EXIT_INVALID


@click.group()
def taxonomy() -> None:
    """Inspect the taxonomy and the schemas generated from it."""


@taxonomy.command(name="schema")
@click.option("--check", is_flag=True, help="Exit 1 if taxonomy/schema/ is stale; write nothing.")
@click.pass_context
def taxonomy_schema(ctx: click.Context, check: bool) -> None:
    """Write the JSON Schemas generated from taxonomy/ to taxonomy/schema/."""
    root = root_of(ctx)
    stale = refresh_schema_files(root, load_taxonomy(root), check=check)
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
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Choice(["multi", "single", "list", "string"]),
    help="multi/single for a controlled field, list/string for a plain one.",
)
@click.pass_context
def taxonomy_migrate(ctx: click.Context, field: str, to: str) -> None:
    """Make FIELD hold several values or one: its definition, every record, the exclusion log's
    copies and the CSV layout are rewritten together (comments and order kept)."""
    changed = migrate_field(root_of(ctx), field, to)
    for rel in changed:
        click.echo(f"rewrote {rel}")
    click.echo(
        f"{field} now holds {'several values' if to in ('multi', 'list') else 'one value'}",
        err=True,
    )


COMMANDS = (taxonomy,)
