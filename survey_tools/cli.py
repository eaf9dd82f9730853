"""The ``survey`` command: a thin layer that parses options and calls the library.

Heavy libraries (pandas, matplotlib) are imported inside the commands that need them,
so that ``survey validate`` starts fast.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from survey_tools.errors import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    InvalidInput,
    Problem,
    SurveyError,
)


@dataclass(frozen=True)
class Context:
    root: Path


def emit_problems(problems: list[Problem]) -> None:
    for p in problems:
        click.echo(p.format(), err=False)


def fail(err: SurveyError) -> None:
    """Print a library error as a message (no traceback) and exit with its code."""
    if isinstance(err, InvalidInput):
        for p in err.problems:
            click.echo(p.format(), err=True)
    click.echo(f"error: {err}", err=True)
    sys.exit(err.exit_code)


def echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Survey folder (holds taxonomy/, corpus/, exclusions/, reports/).",
)
@click.version_option(package_name="survey-tools")
@click.pass_context
def cli(ctx: click.Context, root: Path) -> None:
    """Validate, measure and publish a curated literature corpus."""
    ctx.obj = Context(root=root)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except SurveyError as err:  # pragma: no cover - commands catch their own
        fail(err)


def _ctx(ctx: click.Context) -> Context:
    obj = ctx.find_object(Context)
    return obj if obj is not None else Context(root=Path("."))


def _output_format(default: str = "text") -> Any:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default=default,
        show_default=True,
        help="Output for people (text) or machines (json).",
    )


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--require",
    multiple=True,
    metavar="FIELD",
    help="Also fail when FIELD is untagged on any record (repeatable), e.g. subdecisions.",
)
@_output_format()
@click.pass_context
def validate(
    ctx: click.Context, paths: tuple[Path, ...], require: tuple[str, ...], fmt: str
) -> None:
    """Check records against the taxonomy and each other (default: the whole corpus).

    Prints one line per problem as FILE:LINE:COL: FIELD: MESSAGE and exits 0 when clean,
    1 when any record is invalid, 2 on a usage error.
    """
    from survey_tools.validation import validate_corpus

    c = _ctx(ctx)
    try:
        report = validate_corpus(c.root, list(paths) or None, require=require)
    except SurveyError as err:
        fail(err)
        return
    if fmt == "json":
        echo_json(report.to_dict())
    else:
        for p in report:
            click.echo(p.format())
        n = len(report.problems)
        summary = f"{report.checked} files checked, {n} problem{'s' if n != 1 else ''}"
        click.echo(summary, err=True)
    sys.exit(EXIT_OK if report.ok else EXIT_INVALID)


@cli.group(name="import")
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
@click.pass_context
def import_csv(
    ctx: click.Context,
    papers_csv: Path,
    excluded_csv: Path | None,
    bib: Path | None,
    overwrite: bool,
    dry_run: bool,
) -> None:
    """Build records from CSV files in the survey's layout (taxonomy/csv.yaml).

    Every row is checked before anything is written: one bad row writes nothing.
    """
    from survey_tools.csvio import plan_import, write_import
    from survey_tools.taxonomy import load_taxonomy

    c = _ctx(ctx)
    try:
        tax = load_taxonomy(c.root)
        plan = plan_import(tax, papers_csv, excluded_csv, bib)
        if dry_run:
            click.echo(f"would write {len(plan.files)} records")
            return
        write_import(tax, plan, overwrite=overwrite)
    except SurveyError as err:
        fail(err)
        return
    written = len(plan.files) - len(plan.skipped)
    click.echo(
        f"wrote {written} records"
        + (f", kept {len(plan.skipped)} existing (use --overwrite)" if plan.skipped else "")
    )


@cli.group(name="export")
def export() -> None:
    """Write the corpus in other formats."""


@export.command(name="csv")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def export_csv_cmd(ctx: click.Context, out_dir: Path) -> None:
    """Write OUT_DIR/papers.csv and OUT_DIR/excluded.csv in the survey's CSV layout."""
    from survey_tools.csvio import export_csv
    from survey_tools.loading import load_corpus
    from survey_tools.taxonomy import load_taxonomy

    c = _ctx(ctx)
    try:
        tax = load_taxonomy(c.root)
        corpus = load_corpus(c.root, tax)
        if corpus.problems:
            raise InvalidInput(corpus.problems, "fix the records before exporting")
        for path in export_csv(tax, corpus, out_dir):
            click.echo(f"wrote {path}")
    except SurveyError as err:
        fail(err)


@cli.group()
def taxonomy() -> None:
    """Inspect the taxonomy and the schemas generated from it."""


@taxonomy.command(name="schema")
@click.option("--check", is_flag=True, help="Exit 1 if taxonomy/schema/ is stale; write nothing.")
@click.pass_context
def taxonomy_schema(ctx: click.Context, check: bool) -> None:
    """Write the JSON Schemas generated from taxonomy/ to taxonomy/schema/."""
    from survey_tools.fileio import atomic_write
    from survey_tools.taxonomy import load_taxonomy, schema_files

    c = _ctx(ctx)
    try:
        tax = load_taxonomy(c.root)
    except SurveyError as err:
        fail(err)
        return
    stale = []
    for rel, text in schema_files(tax).items():
        path = c.root / rel
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
    from survey_tools.taxonomy_edit import rename_value

    c = _ctx(ctx)
    try:
        changed = rename_value(c.root, field, old, new)
    except SurveyError as err:
        fail(err)
        return
    for rel in changed:
        click.echo(f"rewrote {rel}")
    click.echo(f"{len(changed)} record(s) now use {new!r} for {field}", err=True)


# Sub-command groups live beside the library stage they drive; each keeps its heavy
# imports inside its commands so that registering it here costs nothing.
from survey_tools.traces.cli import trace  # noqa: E402

cli.add_command(trace)

# build, stats, gaps, claims, corrections, agreement (the reports/ stage)
from survey_tools.build_cli import COMMANDS as _BUILD_COMMANDS  # noqa: E402

for _build_cmd in _BUILD_COMMANDS:
    cli.add_command(_build_cmd)

from survey_tools.contrib_cli import COMMANDS as _CONTRIB  # noqa: E402

for _cmd in _CONTRIB:
    cli.add_command(_cmd)

__all__ = [
    "cli",
    "main",
    "Context",
    "fail",
    "echo_json",
    "emit_problems",
    "EXIT_INVALID",
    "EXIT_USAGE",
]
