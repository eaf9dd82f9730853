"""Commands for contributors: ``survey add``, ``survey duplicates``, ``survey exclude``, ``survey diff``.

Thin wrappers: parsing options, calling the library, printing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import click
from tqdm import tqdm

from survey_tools.cli.common import root_of
from survey_tools.contrib import adding, exclusions
from survey_tools.contrib.arxiv_client import ArxivClient, ClientConfig
from survey_tools.contrib.diff import diff_revision, to_markdown
from survey_tools.corpus.duplicates import scan
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import EXIT_INVALID, UsageError

_EXTRA = {"ignore_unknown_options": True, "allow_extra_args": True}


@click.command(context_settings=_EXTRA)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="ARXIV_ID_OR_URL")
@click.option("--from-file", "from_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Add every arXiv id or URL listed in this file, one a line.")
@click.option("--key", help="The record's key (default: derived from the title).")
@click.option("--summary", help="One sentence in your own words (default: left untagged).")
@click.option("--dry-run", is_flag=True, help="Print the record instead of writing it.")
@click.option("--arxiv-url", metavar="URL",
              help="arXiv query endpoint (default: $SURVEY_ARXIV_URL or arXiv's own).")
@click.option("--delay", type=float, metavar="SECONDS",
              help="Pause between requests (default: $SURVEY_ARXIV_DELAY or 3, arXiv's limit).")
@click.option("--timeout", type=float, metavar="SECONDS", help="Give up on a silent server (30).")
@click.pass_context
def add(ctx: click.Context, args: tuple[str, ...], from_file: Path | None, key: str | None,
        summary: str | None, dry_run: bool, arxiv_url: str | None, delay: float | None,
        timeout: float | None) -> None:
    """Add an arXiv paper to the corpus as a new record.

    Taxonomy fields are set with options named in taxonomy/commands.yaml (for example
    --category rl_method --reward-type shared --credit agent --topology centralized
    --scenario coding --is-rl yes --subdecision O2=learned); every controlled field also
    answers to its own name with dashes. Fields not given are written as untagged, so
    `survey validate` fails until they are filled. Nothing is written when the paper is
    already retained or excluded.
    """

    root = root_of(ctx)
    tax = load_taxonomy(root)
    tags, refs = adding.parse_field_options(tax, tax.retained, [*args, *ctx.args])
    if len(refs) > 1:
        raise UsageError(f"give one arXiv id or URL, not {len(refs)}: {' '.join(refs)}")
    arxiv_ref = refs[0] if refs else None
    if (arxiv_ref is None) == (from_file is None):
        raise UsageError("give one arXiv id or URL, or --from-file LIST")
    if from_file is not None and key is not None:
        raise UsageError("--key names one record; it cannot be used with --from-file")
    corpus = load_corpus(root, tax)
    client = ArxivClient(ClientConfig.from_env(arxiv_url, delay, timeout))
    if from_file is not None:
        outcomes = adding.add_many(root, corpus, adding.read_id_list(from_file), client, tags, dry_run, _progress)
        _summary(outcomes, dry_run)
        if any(o.status == "failed" for o in outcomes):
            sys.exit(EXIT_INVALID)
        return
    assert arxiv_ref is not None
    plan = adding.plan_add(root, corpus, arxiv_ref, client.fetch, tags, key, summary)
    if dry_run:
        click.echo(plan.text, nl=False)
    else:
        adding.write_plan(plan)
    click.echo(f"abstract (for you to read; not stored): {plan.paper.abstract}", err=True)
    verb = "would write" if dry_run else "wrote"
    click.echo(f"{verb} {plan.rel}", err=True)
    if plan.untagged:
        click.echo(f"still untagged (survey validate fails until set): "
                   f"{', '.join(plan.untagged)}", err=True)


def _progress(refs: Iterable[str]) -> Iterable[str]:
    # disable=None: a bar on a terminal, silence in CI logs and tests.
    return tqdm(refs, desc="arXiv", unit="paper", file=sys.stderr, disable=None)


def _summary(outcomes: list, dry_run: bool) -> None:
    counts = {s: sum(o.status == s for o in outcomes) for s in ("added", "skipped", "failed")}
    verb = "would add" if dry_run else "added"
    for o in outcomes:
        click.echo(f"{o.status}: {o.ref}: {o.detail}")
    click.echo(f"{verb} {counts['added']}, skipped {counts['skipped']}, "
               f"failed {counts['failed']}")


@click.command()
@click.pass_context
def duplicates(ctx: click.Context) -> None:
    """Find the same work twice in the corpus and the exclusion log.

    Same arXiv id (ignoring version), DOI or OpenReview id; the same title after
    normalisation; or titles at least 90% similar (rapidfuzz ratio). Exit 1 when any is found.
    """

    corpus = load_corpus(root_of(ctx))
    problems = scan(corpus)
    for p in problems:
        click.echo(p.format())
    n = len(problems)
    click.echo(f"{corpus.files} files checked, {n} duplicate problem{'s' if n != 1 else ''}",
               err=True)
    if problems:
        sys.exit(EXIT_INVALID)


@click.command(context_settings=_EXTRA)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="ID_OR_URL")
@click.option("--note", default="", help="Why the work is excluded, in your own words (required).")
@click.option("--title", help="The work's title (looked up on arXiv for arXiv ids).")
@click.option("--date", help="Screening date, YYYY-MM-DD (default: today).")
@click.option("--restore", is_flag=True,
              help="Move the exclusion ID_OR_URL (E###) back to the corpus.")
@click.option("--dry-run", is_flag=True, help="Print what would be written; write nothing.")
@click.option("--arxiv-url", metavar="URL", help="arXiv query endpoint (see survey add).")
@click.pass_context
def exclude(ctx: click.Context, args: tuple[str, ...], note: str, title: str | None,
            date: str | None, restore: bool, dry_run: bool, arxiv_url: str | None) -> None:
    """Append an exclusion, or move a retained record to the exclusion log (and back).

    ID_OR_URL is a retained record's key (moved, with all its metadata kept), or an arXiv id,
    DOI or URL of a new work. Controlled fields are options named in taxonomy/commands.yaml,
    for example --stage abstract_screen --reason no_rl_component --source arXiv
    --query-family "multi-agent LLM". The same duplicate checks as `survey add` apply.
    """

    root = root_of(ctx)
    tax = load_taxonomy(root)
    coll = tax.excluded
    if coll is None:
        raise UsageError("this survey has no exclusion log")
    tags, refs = adding.parse_field_options(tax, coll, [*args, *ctx.args])
    if len(refs) != 1:
        raise UsageError(f"give exactly one id or URL (got {len(refs)})")
    corpus = load_corpus(root, tax)
    if corpus.problems:
        raise UsageError("the corpus has invalid records; run survey validate and fix them first")
    if restore:
        if tags or note or title:
            raise UsageError("--restore takes only the exclusion's id")
        move = exclusions.plan_restore(root, corpus, refs[0])
    else:
        fetch = None
        if not title:

            fetch = ArxivClient(ClientConfig.from_env(arxiv_url)).fetch
        move = exclusions.plan_exclusion(root, corpus, refs[0], tags, note, title, date, fetch)
    if dry_run:
        for rel, text in move.write:
            click.echo(f"# {rel}\n{text}", nl=False)
        for rel in move.remove:
            click.echo(f"# would remove {rel}")
        return
    exclusions.apply(root, move)
    click.echo(move.message, err=True)


@click.command(name="diff")
@click.option("--base", metavar="REV",
              help="Git revision to compare with (default: the merge base with origin/HEAD, "
                   "else main or master, else the first parent of HEAD).")
@click.pass_context
def diff_cmd(ctx: click.Context, base: str | None) -> None:
    """Print Markdown for a reviewer: papers added, removed and re-tagged (titles and tags),
    the statistics and gap-map cells that moved, and the claims whose status changed."""

    rev, d = diff_revision(root_of(ctx), base)
    click.echo(to_markdown(rev, d), nl=False)


COMMANDS = [add, duplicates, exclude, diff_cmd]
