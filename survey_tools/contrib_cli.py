"""Commands for contributors: ``survey add``, ``survey duplicates``, ``survey exclude``, ``survey diff``.

Thin wrappers: parsing options, calling the library, printing. Heavy imports stay inside.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import click

from survey_tools.errors import EXIT_INVALID, SurveyError


def _root(ctx: click.Context) -> Path:
    from survey_tools.cli import _ctx

    return _ctx(ctx).root


def _fail(err: SurveyError) -> None:
    from survey_tools.cli import fail

    fail(err)


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
    from survey_tools import adding
    from survey_tools.arxiv_client import ArxivClient, ClientConfig
    from survey_tools.errors import UsageError
    from survey_tools.loading import load_corpus
    from survey_tools.taxonomy import load_taxonomy

    root = _root(ctx)
    try:
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
    except SurveyError as err:
        _fail(err)
        return
    click.echo(f"abstract (for you to read; not stored): {plan.paper.abstract}", err=True)
    verb = "would write" if dry_run else "wrote"
    click.echo(f"{verb} {plan.rel}", err=True)
    if plan.untagged:
        click.echo(f"still untagged (survey validate fails until set): "
                   f"{', '.join(plan.untagged)}", err=True)


def _progress(refs: Iterable[str]) -> Iterable[str]:
    from tqdm import tqdm

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
    from survey_tools.duplicates import scan
    from survey_tools.loading import load_corpus

    try:
        corpus = load_corpus(_root(ctx))
    except SurveyError as err:
        _fail(err)
        return
    problems = scan(corpus)
    for p in problems:
        click.echo(p.format())
    n = len(problems)
    click.echo(f"{corpus.files} files checked, {n} duplicate problem{'s' if n != 1 else ''}",
               err=True)
    if problems:
        sys.exit(EXIT_INVALID)


COMMANDS = [add, duplicates]
