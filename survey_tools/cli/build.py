"""Commands over the build stage: build, stats, gaps, claims, corrections, agreement.

Each command calls the library and prints its result; matplotlib is imported only inside the
library functions that draw (a figure missing from the outputs cache).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click

from survey_tools.build import BuildResult
from survey_tools.build import build as run_build
from survey_tools.cli.common import output_format, printed, report, root_of
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.views import known_keys
from survey_tools.curate.corrections_edit import settle as settle_correction
from survey_tools.errors import EXIT_INVALID
from survey_tools.reports.agreement import agreement_text, compute_agreement
from survey_tools.reports.claims import STATUSES, ClaimsReport
from survey_tools.reports.claims_file import NOT_CHECKABLE
from survey_tools.reports.claims_output import claims_text
from survey_tools.reports.compute import Survey, compute_survey
from survey_tools.reports.corrections import CorrectionsReport, corrections_markdown
from survey_tools.reports.gaps import compute_gaps, gaps_markdown
from survey_tools.reports.report_config import load_config
from survey_tools.reports.stats_output import stats_markdown


@click.command()
@click.option("--check", is_flag=True, help="Write nothing; exit 1 listing every stale or missing output.")
@output_format()
@click.pass_context
def build(ctx: click.Context, check: bool, fmt: str) -> None:
    """Validate, then regenerate every output (reports/, taxonomy/schema/, ...).

    Every output is computed in memory first: nothing is written when validation, a claim,
    a correction or any generator fails.
    """
    result = run_build(root_of(ctx), check=check)
    report(result, fmt, text=_checked if check else _built)
    if check and result.stale:
        sys.exit(EXIT_INVALID)


def _checked(result: BuildResult) -> None:
    for s in result.stale:
        click.echo(f"{s.status}: {s.path}")
        if s.diff:
            click.echo(s.diff, nl=False)
    if result.stale:
        click.echo(f"{len(result.stale)} of {result.outputs} outputs are out of date; run `survey build`", err=True)
    else:
        click.echo(f"all {result.outputs} outputs are up to date", err=True)


def _built(result: BuildResult) -> None:
    if result.written:  # one write, not one a file: a cold build of 10,000 records lists them all
        removed = set(result.removed)
        click.echo("\n".join(f"{'removed' if rel in removed else 'wrote'} {rel}" for rel in result.written))
    click.echo(f"{len(result.written)} of {result.outputs} outputs changed", err=True)


def edition_option() -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--edition", "edition", default=None, metavar="EDITION",
        help="Report on a published edition's records (its id, e.g. the survey's arXiv version); "
        "default: the living list.",
    )


def _survey(ctx: click.Context, edition: str | None) -> Survey:
    return compute_survey(root_of(ctx)).view(edition)


@click.command()
@edition_option()
@output_format()
@click.pass_context
def stats(ctx: click.Context, edition: str | None, fmt: str) -> None:
    """Print the statistics (the same as reports/STATS.md and reports/stats.json)."""
    c = _survey(ctx, edition)
    report(c.stats, fmt, text=printed(lambda stats: stats_markdown(c.taxonomy, stats)))


@click.command()
@click.option("-k", "k", type=click.IntRange(min=0), default=None, help="Sparse means at most K records (default: the configuration's).")
@edition_option()
@output_format()
@click.pass_context
def gaps(ctx: click.Context, k: int | None, edition: str | None, fmt: str) -> None:
    """Print the gap maps: empty and sparse cells of crossed taxonomy axes."""
    s = _survey(ctx, edition)
    found = s.gaps
    if k is not None:
        records = s.views[edition] if edition else s.corpus
        found = compute_gaps(records, replace(s.config, gap_k=k))
    report(found, fmt, text=printed(gaps_markdown))


@click.command()
@click.option(
    "--fail-on", "fail_on", multiple=True, type=click.Choice([x for x in STATUSES if x != "holds"]),
    help="Exit 1 when a claim has this status (repeatable). Claims listed under `gate:` in the "
    "claims file must hold in any case.",
)
@click.option(
    "--edition", "edition", default=None, metavar="EDITION",
    help="Evaluate every claim on this published edition's records; default: each claim on the "
    "view the claims file gives it.",
)
@output_format()
@click.pass_context
def claims(ctx: click.Context, fail_on: tuple[str, ...], edition: str | None, fmt: str) -> None:
    """Each claim's status on its view: holds, changed (since the edition) or contradicted.

    Reports; exits 1 only for --fail-on statuses or for gated claims that do not hold.
    """
    s = _survey(ctx, edition)
    found = s.claims
    tripped = found.gate_failures(fail_on)

    def text(claims: ClaimsReport) -> None:
        click.echo(claims_text(claims, s.taxonomy), nl=False)
        for p in claims.problems(tripped):
            click.echo(p.format(), err=True)
        c = claims.counts()
        click.echo(
            f"{len(claims.results)} claims: {c['holds']} hold, {c['changed']} changed since the edition, "
            f"{c['contradicted']} contradicted, {c[NOT_CHECKABLE]} not checkable", err=True,
        )

    report(found, fmt, text=text)
    if tripped:
        sys.exit(EXIT_INVALID)


@click.command()
@click.option("--settle", metavar="ID", help="Settle a stale correction: remove it when its record "
              "carries the proposed value, else take the record's value as its current one.")
@output_format()
@click.pass_context
def corrections(ctx: click.Context, settle: str | None, fmt: str) -> None:
    """Check the proposed corrections and show what each would change; exit 1 if one is stale."""
    if settle is not None:
        click.echo(settle_correction(root_of(ctx), settle), err=True)
        return
    found = compute_survey(root_of(ctx)).corrections
    if found is None:
        click.echo("no corrections file", err=True)
        return

    def text(corrections: CorrectionsReport) -> None:
        click.echo(corrections_markdown(corrections), nl=False)
        for p in corrections.problems:
            click.echo(p.format(), err=True)

    report(found, fmt, text=text)
    if not found.ok:
        sys.exit(EXIT_INVALID)


@click.command()
@click.argument("audit_csv", required=False, type=click.Path(dir_okay=False, path_type=Path))
@output_format()
@click.pass_context
def agreement(ctx: click.Context, audit_csv: Path | None, fmt: str) -> None:
    """Agreement between original tags and a second reader's (orig_* vs ann_* columns).

    AUDIT_CSV defaults to the survey's audit file (files.audit in taxonomy/survey.yaml), shown with
    the caveat from the report configuration (agreement.caveat in data/reports.yaml).
    """
    root = root_of(ctx)
    tax = load_taxonomy(root)
    rel = str(audit_csv) if audit_csv else tax.data_file("audit")
    path = audit_csv if audit_csv else root / rel
    keys = known_keys(load_corpus(root, tax))
    found = compute_agreement(tax, path, rel, keys)
    if not audit_csv:  # the configured caveat describes the survey's own audit file only
        found = replace(found, caveat=load_config(tax).agreement_caveat)
    report(found, fmt, text=printed(agreement_text))


COMMANDS = (build, stats, gaps, claims, corrections, agreement)
