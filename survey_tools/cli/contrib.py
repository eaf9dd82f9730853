"""Commands for contributors and maintainers: ``survey add``, ``survey duplicates``,
``survey exclude``, ``survey diff``, ``survey check-paths``, ``survey links``, ``survey refresh``.

Thin wrappers: parsing options, calling the library, printing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from survey_tools.cli.common import output_format, printed, root_of
from survey_tools.cli.common import report as emit
from survey_tools.corpus.duplicates import declared_pairs, scan
from survey_tools.corpus.examples import add_example, exclude_example
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.options import short_option
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.curate import adding, exclusions, links, refresh
from survey_tools.errors import EXIT_INVALID, EXIT_OK, SurveyError, UsageError
from survey_tools.review.diff import diff_revision, to_markdown
from survey_tools.review.diff_report import MAX_BYTES, render_report, to_json
from survey_tools.review.placement import check_paths
from survey_tools.review.taxonomy_change import Who
from survey_tools.schema_words import suggest

_EXTRA = {"ignore_unknown_options": True, "allow_extra_args": True}


# The default deadline of `survey add` for one work, in seconds (--deadline changes it).
ADD_DEADLINE = 45.0


class _SurveyHelp(click.Command):
    """A command whose help ends with examples built from the survey's own taxonomy."""

    def __init__(self, *args: Any, examples: Callable[[Path], list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        try:
            lines = self.examples(root_of(ctx))
        except SurveyError:
            return  # no readable survey here: the generic help stands alone
        if lines:
            with formatter.section("For this survey"):
                formatter.write_text("\n\n".join(lines))


def _add_examples(root: Path) -> list[str]:
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax)
    flags = adding.flag_names(tax, tax.retained)
    short = sorted({short_option(tax, tax.retained, cf) for cf in flags.values()})
    return [f"Example: {add_example(tax, corpus.retained)}",
            "Taxonomy options: " + ", ".join(f"--{f}" for f in short),
            "Fields for --set: " + ", ".join(tax.retained.field_names())]


def _exclude_examples(root: Path) -> list[str]:
    tax = load_taxonomy(root)
    if tax.excluded is None:
        return ["This survey has no exclusion collection."]
    short = sorted({short_option(tax, tax.excluded, cf) for cf in tax.excluded.controlled})
    return [f"Example: {exclude_example(tax)}",
            "Taxonomy options: " + ", ".join(f"--{f}" for f in short)]


@click.command(cls=_SurveyHelp, examples=_add_examples, context_settings=_EXTRA)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[ID_OR_URL]")
@click.option("--set", "sets", multiple=True, metavar="FIELD=VALUE",
              help="Set any field of the record (repeatable); checked against the field's type.")
@click.option("--from-file", "from_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Add every id or URL listed in this file, one a line.")
@click.option("--key", help="The record's key (default: as taxonomy/commands.yaml add.key says).")
@click.option("--summary", help="One sentence in your own words (default: left untagged).")
@click.option("--dry-run", is_flag=True, help="Print the record instead of writing it.")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="The day the paper joins the living list (default: today).")
@click.option("--not-duplicate-of", "distinct", multiple=True, metavar="KEY=REASON",
              help="Declare the paper a different work from record KEY despite a similar title (repeatable).")
@click.option("--arxiv-url", metavar="URL",
              help="arXiv query endpoint (default: $SURVEY_ARXIV_URL or arXiv's own).")
@click.option("--crossref-url", metavar="URL",
              help="Crossref REST API for DOIs (default: $SURVEY_CROSSREF_URL or Crossref's own).")
@click.option("--openreview-url", metavar="URL",
              help="OpenReview API for OpenReview ids (default: $SURVEY_OPENREVIEW_URL or OpenReview's own).")
@click.option("--delay", type=float, metavar="SECONDS",
              help="Pause between arXiv requests (default: $SURVEY_ARXIV_DELAY or 3, arXiv's limit).")
@click.option("--timeout", type=float, metavar="SECONDS", help="Give up on a silent server (30).")
@click.option("--deadline", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help=f"Stop asking the network after this long in all, Retry-After waits included "
                   f"(default: {ADD_DEADLINE:g} for one work, no limit with --from-file).")
@click.pass_context
def add(ctx: click.Context, args: tuple[str, ...], sets: tuple[str, ...], from_file: Path | None,
        key: str | None, summary: str | None, dry_run: bool, day: str | None,
        distinct: tuple[str, ...], arxiv_url: str | None, crossref_url: str | None,
        openreview_url: str | None, delay: float | None, timeout: float | None,
        deadline: float | None) -> None:
    """Add a work to the corpus as a new record.

    ID_OR_URL is an arXiv id or URL, a DOI (looked up on Crossref) or an OpenReview id
    (openreview:ID or a forum URL); without one, --set gives the record's fields. Every
    controlled field answers to an option with its own name (dashes for underscores) and to
    the short names in taxonomy/commands.yaml. Fields not given are written as untagged, so
    `survey validate` fails until they are filled. Nothing is written when the work is
    already in the survey.
    """

    request = adding.AddRequest(
        words=(*args, *ctx.args), sets=sets, from_file=from_file, key=key, summary=summary, dry_run=dry_run,
        day=day, not_duplicate_of=distinct, arxiv_url=arxiv_url, crossref_url=crossref_url,
        openreview_url=openreview_url, delay=delay, timeout=timeout,
        # One work is one short conversation: a server asking to wait a minute on every try
        # (three minutes in all) gets an answer within this, not the whole wait.
        deadline=deadline if deadline is not None or from_file is not None else ADD_DEADLINE,
    )
    result = adding.add(root_of(ctx), request, _progress)
    if result.plan is None:
        _summary(list(result.outcomes), dry_run)
        if result.failed:
            sys.exit(EXIT_INVALID)
        return
    plan = result.plan
    if dry_run:
        click.echo(plan.text, nl=False)
    if plan.work.abstract:
        click.echo(f"abstract (for you to read; not stored): {plan.work.abstract}", err=True)
    verb = "would write" if dry_run else "wrote"
    click.echo(f"{verb} {plan.rel}", err=True)
    if plan.untagged:
        click.echo(f"still to fill (left untagged; survey validate fails until set): "
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
    Pairs a record declares distinct (``not_duplicate_of: {key: reason}``) pass, and are listed
    with their reason.
    """

    corpus = load_corpus(root_of(ctx))
    problems = scan(corpus)
    for p in problems:
        click.echo(p.format())
    for d in declared_pairs(corpus):
        if d.score is not None:
            click.echo(f"{d.record.path}: not a duplicate of {d.other} (titles {d.score:.0f}% similar), "
                       f"declared: {d.reason}")
    n = len(problems)
    click.echo(f"{corpus.files} files checked, {n} duplicate problem{'s' if n != 1 else ''}",
               err=True)
    if problems:
        sys.exit(EXIT_INVALID)


@click.command(cls=_SurveyHelp, examples=_exclude_examples, context_settings=_EXTRA)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="ID_OR_URL")
@click.option("--note", default="", help="Why the work is excluded, in your own words (required).")
@click.option("--title", help="The work's title (looked up on arXiv for arXiv ids).")
@click.option("--date", help="Screening date, YYYY-MM-DD (default: today).")
@click.option("--restore", is_flag=True,
              help="Move the exclusion ID_OR_URL (E###) back to the corpus.")
@click.option("--dry-run", is_flag=True, help="Print what would be written; write nothing.")
@click.option("--arxiv-url", metavar="URL", help="arXiv query endpoint (see survey add).")
@click.option("--duplicate-of", metavar="KEY",
              help="The retained record this work duplicates (a near-duplicate title is then the reason, not a refusal).")
@click.pass_context
def exclude(ctx: click.Context, args: tuple[str, ...], note: str, title: str | None,
            date: str | None, restore: bool, dry_run: bool, arxiv_url: str | None,
            duplicate_of: str | None) -> None:
    """Append an exclusion, or move a retained record to the exclusion log (and back).

    ID_OR_URL is a retained record's key (moved, with all its metadata kept), or an arXiv id,
    DOI or URL of a new work. Controlled fields are options named after the fields and in
    taxonomy/commands.yaml (see below). The same duplicate checks as `survey add` apply.
    """

    request = exclusions.ExcludeRequest(
        words=(*args, *ctx.args), note=note, title=title, date=date, restore=restore, dry_run=dry_run,
        arxiv_url=arxiv_url, duplicate_of=duplicate_of,
    )
    move = exclusions.exclude(root_of(ctx), request)
    if dry_run:
        for rel, text in move.write:
            click.echo(f"# {rel}\n{text}", nl=False)
        for rel in move.remove:
            click.echo(f"# would remove {rel}")
        return
    click.echo(move.message, err=True)


@click.command(name="diff")
@click.option("--base", metavar="REV",
              help="Git revision to compare with (default: the merge base with origin/HEAD, "
                   "else main or master, else the first parent of HEAD).")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True,
              help="Markdown for a reviewer, or the report's facts as JSON (what a pull request's "
                   "run hands the comment job).")
@click.option("--render-report", "report", metavar="FILE",
              type=click.Path(dir_okay=False, allow_dash=True),
              help="Render the comment for a JSON report (from --format json) instead of comparing: "
                   "the file is checked against the report's schema and size cap; no git, no survey.")
@click.pass_context
def diff_cmd(ctx: click.Context, base: str | None, fmt: str, report: str | None) -> None:
    """Print Markdown for a reviewer: papers added, removed and re-tagged (titles and tags),
    the statistics and gap-map cells that moved, and the claims whose status changed."""
    if report is not None:
        if base is not None or fmt != "md":
            raise UsageError("--render-report renders a report already made: no --base or --format")
        with click.open_file(report, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)  # one byte more than the cap: too big is refused unread
        click.echo(render_report(raw), nl=False)
        return
    rev, d = diff_revision(root_of(ctx), base)
    if fmt == "json":
        click.echo(to_json(rev, d), nl=False)
    else:
        click.echo(to_markdown(rev, d), nl=False)


def _keys(only: tuple[str, ...]) -> list[str]:
    """``--only a,b --only c`` -> [a, b, c]."""
    return [k for item in only for k in item.replace(",", " ").split() if k]


def _check_keys(corpus: Corpus, keys: list[str]) -> None:
    known = {r.id for r in corpus}
    unknown = [k for k in keys if k not in known]
    if unknown:
        hints = []
        for k in unknown:
            near = suggest(k, known)
            hints.append(f"{k} (did you mean {near}?)" if near else k)
        raise UsageError(f"no record with the key {', '.join(hints)}")


@click.command(name="links")
@output_format("table", "json", "md", default="table")
@click.option("--concurrency", type=click.IntRange(1, 1000), default=32, show_default=True,
              help="Requests in flight at once.")
@click.option("--per-host", type=click.IntRange(1, 100), default=4, show_default=True,
              help="Requests in flight at once to one host (politeness).")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True,
              metavar="SECONDS", help="Give up on a host that does not answer.")
@click.option("--retries", type=click.IntRange(0, 10), default=3, show_default=True,
              help="Retries after 429 and 5xx answers (with backoff, honouring Retry-After).")
@click.option("--max-wait", type=click.FloatRange(0, 3600), default=60.0, show_default=True,
              metavar="SECONDS", help="Longest Retry-After to honour; longer is rate-limited.")
@click.option("--ttl", type=click.FloatRange(0, None), default=24.0, show_default=True,
              metavar="HOURS", help="How long a result stays in the cache.")
@click.option("--no-cache", is_flag=True,
              help="Check every URL; neither read nor write the cache.")
@click.option("--only", multiple=True, metavar="KEY",
              help="Check only these records (repeat, or separate keys with commas).")
@click.option("--all", "show_all", is_flag=True, help="List ok URLs too (table and md).")
@click.option("--deadline", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help="Stop asking after this long in all; URLs not checked by then are "
                   "unreachable (default: no limit).")
@click.pass_context
def links_cmd(ctx: click.Context, fmt: str, concurrency: int, per_host: int, timeout: float,
              retries: int, max_wait: float, ttl: float, no_cache: bool, only: tuple[str, ...],
              show_all: bool, deadline: float | None) -> None:
    """Check every URL the records hold: links, evidence, corrections, resolved identifiers.

    HEAD first (GET when a server refuses HEAD; bodies are never downloaded), redirects
    followed and reported, 429 and 5xx retried honouring Retry-After. Each URL ends as ok,
    redirected (moved permanently: a suggested new URL), broken (4xx, redirect loop),
    unreachable (timeout, DNS, refused, 5xx) or rate-limited. Results are cached for --ttl
    hours in the user's cache folder ($SURVEY_CACHE_DIR/links). Exit 1 when a link is broken.
    """

    root = root_of(ctx)
    corpus = load_corpus(root)
    keys = _keys(only)
    _check_keys(corpus, keys)
    settings = links.Settings(
        concurrency=concurrency, per_host=per_host, timeout=timeout, retries=retries,
        max_wait=max_wait, ttl=ttl * 3600, use_cache=not no_cache, deadline=_deadline(deadline),
    )
    bar: list[tqdm] = []

    def progress_total(n: int) -> Callable[[int], None]:
        # disable=None: a bar on a terminal, silence in CI logs and tests.
        bar.append(tqdm(total=n, desc="links", unit="url", file=sys.stderr, disable=None))
        return bar[0].update

    try:
        report = links.check_corpus(corpus, keys, settings, progress_total)
    finally:
        for b in bar:
            b.close()
    emit(report, fmt, json=printed(links.to_json),
         md=printed(lambda r: links.to_markdown(r, show_all)),
         table=printed(lambda r: links.to_table(r, show_all)))
    if report.broken:
        sys.exit(EXIT_INVALID)


@click.command(name="refresh")
@click.argument("keys", nargs=-1, metavar="[KEY]...")
@click.option("--write", "do_write", is_flag=True,
              help="Apply the changes to living-list records; propose them as corrections "
                   "for records of the survey's edition.")
@output_format("text", "json", "md", default="text")
@click.option("--arxiv-url", metavar="URL",
              help="arXiv query endpoint (default: $SURVEY_ARXIV_URL or arXiv's own).")
@click.option("--delay", type=float, metavar="SECONDS",
              help="Pause between requests to one service (default: $SURVEY_ARXIV_DELAY or 3 "
                   "for arXiv, each other service's own rule).")
@click.option("--timeout", type=float, metavar="SECONDS", help="Give up on a silent server (30).")
@click.option("--sources", default="arxiv", show_default=True, metavar="LIST",
              help="Services to ask, comma-separated: arxiv, semanticscholar, dblp, crossref, "
                   "openreview, or all (endpoints: $SURVEY_S2_URL, $SURVEY_DBLP_URL, "
                   "$SURVEY_CROSSREF_URL, $SURVEY_OPENREVIEW_URL).")
@click.option("--no-cache", is_flag=True,
              help="Ask the other services again (their answers are kept 7 days in the user's "
                   "cache folder).")
@click.option("--deadline", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help="Stop asking the network after this long in all (default: no limit).")
@click.pass_context
def refresh_cmd(ctx: click.Context, keys: tuple[str, ...], do_write: bool, fmt: str,
                arxiv_url: str | None, delay: float | None, timeout: float | None,
                sources: str, no_cache: bool, deadline: float | None) -> None:
    """Compare records with current metadata: version, title, authors, DOI, venue.

    Asks arXiv about every retained record with an arXiv id (or the KEYs given), 100 ids a
    request, and with --sources also Semantic Scholar, DBLP, Crossref and OpenReview. Prints
    a diff for a reviewer, each change with its service and page; nothing is written without
    --write. A venue is proposed when a service lists the paper at one, or arXiv's journal
    reference or the authors' comment states an acceptance.
    """

    request = refresh.RefreshRequest(
        keys=keys, write=do_write, arxiv_url=arxiv_url, delay=delay, timeout=timeout, sources=sources,
        use_cache=not no_cache, deadline=deadline,
    )
    report = refresh.refresh(root_of(ctx), request)
    emit(report, fmt, json=printed(refresh.to_json), md=printed(refresh.to_markdown),
         text=printed(refresh.to_text))


def _deadline(seconds: float | None) -> float | None:
    """The command's deadline on the monotonic clock, counted from now."""
    return None if seconds is None else time.monotonic() + seconds


@click.command(name="check-paths")
@click.option("--base", metavar="REV", envvar="BASE_SHA", show_envvar=True,
              help="Git revision the branch is compared with (default: the merge base with "
                   "origin/HEAD, else main or master, else the first parent of HEAD).")
@click.option("--built", metavar="DIR", type=click.Path(file_okay=False, path_type=Path),
              help="A folder `survey build` wrote from this branch: a generated file the branch "
                   "changes passes when it is exactly the built one.")
@click.option("--author-association", "association", metavar="ROLE", envvar="PR_AUTHOR_ASSOCIATION",
              show_envvar=True,
              help="GitHub's author_association of the pull request's author (the pull-request "
                   "workflow passes it): a change to the taxonomy fails unless it is OWNER, MEMBER "
                   "or COLLABORATOR or --taxonomy-allowed is given; unset, the change passes with a note.")
@click.option("--taxonomy-allowed/--no-taxonomy-allowed", "allowed", default=False,
              envvar="SURVEY_TAXONOMY_ALLOWED", show_envvar=True,
              help="A maintainer allowed the pull request's taxonomy change (the workflow sets it "
                   "when the pull request carries the label taxonomy-change).")
@click.pass_context
def check_paths_cmd(ctx: click.Context, base: str | None, built: Path | None,
                    association: str | None, allowed: bool) -> None:
    """Fail when the branch adds or changes a file the survey never reads (a record outside
    the records' folder, a generated file edited by hand), saying where it should go.

    Compares the staged files (a CI checkout: HEAD) with the base; records, configuration
    files, generated outputs identical to --built and the paths listed under
    contributions.paths in taxonomy/survey.yaml have a place. Exits 0 when every file has one,
    1 otherwise.
    """
    who = Who(association or None, allowed)
    result = check_paths(load_taxonomy(root_of(ctx)), base, built, who)
    for p in result.report:
        click.echo(p.format())
    for note in result.notes:  # not a problem: beside the summary, on stderr
        click.echo(f"note: {note}", err=True)
    n = len(result.report.problems)
    click.echo(f"{len(result.changed)} changed file{'s' if len(result.changed) != 1 else ''} "
               f"compared with {result.base[:12]} ({result.how}): {n} with no place in the survey",
               err=True)
    sys.exit(EXIT_OK if result.report.ok else EXIT_INVALID)


COMMANDS = [add, duplicates, exclude, diff_cmd, check_paths_cmd, links_cmd, refresh_cmd]
