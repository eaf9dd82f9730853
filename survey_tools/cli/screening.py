"""Commands of the living list: ``survey search`` fills the screening queue, ``survey screen``
lists it, decides on candidates, and trades it with ASReview and reference managers.

Thin wrappers: parsing options, calling :mod:`survey_tools.curate.search` and
:mod:`survey_tools.curate.screening`, printing.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from survey_tools.adopt.table import MAX_ENTRIES
from survey_tools.cli.common import echo_json, report, root_of
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.protocol import Protocol
from survey_tools.curate import screen as flows
from survey_tools.curate import screening, search
from survey_tools.errors import UsageError

_EXTRA = {"ignore_unknown_options": True, "allow_extra_args": True}


@click.command(name="search")
@click.option("--family", "families", multiple=True, metavar="NAME",
              help="A query family of taxonomy/protocol.yaml (id or label); repeatable. Default: all.")
@click.option("--since", metavar="DATE", help="First submission date (default: the day after the "
              "last run, or the edition's cutoff).")
@click.option("--until", metavar="DATE", help="Last submission date (default: today).")
@click.option("--max-results", type=click.IntRange(min=1), metavar="N",
              help="At most N hits per family (default: the protocol's max_results).")
@click.option("--arxiv-url", metavar="URL",
              help="arXiv query endpoint (default: $SURVEY_ARXIV_URL or arXiv's own).")
@click.option("--delay", type=click.FloatRange(min=0), metavar="SECONDS",
              help="Pause between requests (default: $SURVEY_ARXIV_DELAY or the protocol's, 3 s).")
@click.option("--timeout", type=click.FloatRange(min=0.01), metavar="SECONDS",
              help="Give up on a silent server after this long (30).")
@click.option("--retries", type=click.IntRange(min=0), default=3, show_default=True,
              help="Retries of a failed page, waiting longer each time.")
@click.option("--backoff", type=click.FloatRange(min=0), metavar="SECONDS",
              help="Wait before the first retry, doubled each time (default: the delay).")
@click.option("--dry-run", is_flag=True, help="Print the queries; send nothing, write nothing.")
@click.pass_context
def search_cmd(ctx: click.Context, families: tuple[str, ...], since: str | None, until: str | None,
               max_results: int | None, arxiv_url: str | None, delay: float | None,
               timeout: float | None, retries: int, backoff: float | None, dry_run: bool) -> None:
    """Search arXiv as taxonomy/protocol.yaml says and queue the new papers.

    Every hit is checked against the retained records, the exclusion log and the queue
    (arXiv ids of any version, DOIs, equal or near-equal titles); new ones are written to
    screening/queue/ with a relevance score, and the run is appended to screening/runs.yaml.
    Nothing is written when a request fails.
    """
    request = search.SearchRequest(
        families=families, since=since, until=until, max_results=max_results, arxiv_url=arxiv_url,
        delay=delay, timeout=timeout, retries=retries, backoff=backoff, dry_run=dry_run,
    )
    done = search.run_search(root_of(ctx), request, _progress)
    for label, fid, query in done.queries:
        click.echo(f"# {label} ({fid})")
        click.echo(query)
    for line in done.lines:
        click.echo(line)
    for aid in done.plan.new if done.plan is not None else ():
        click.echo(f"queued {screening.file_name(aid)}", err=True)


def _progress(items: Iterable[Any], total: int) -> Iterable[Any]:
    # disable=None: a bar on a terminal, nothing in CI logs and tests.
    return tqdm(items, desc="arXiv", unit="hit", file=sys.stderr, disable=None)


@click.command(name="screen", context_settings=_EXTRA)
@click.argument("args", nargs=-1, type=click.UNPROCESSED,
                metavar="[ID | export OUT | import-labels FILE | import-found FILE]")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "asreview", "ris"]),
              help="Listing: table (default) or json. export: asreview (CSV) or ris.")
@click.option("--retain", is_flag=True, help="Turn candidate ID into a retained record.")
@click.option("--exclude", "exclude_", is_flag=True, help="Turn candidate ID into an exclusion.")
@click.option("--interactive", is_flag=True, help="Walk the queue best first, asking at each.")
@click.option("--stage", help="The screening stage of the decision (a stage of the exclusion log).")
@click.option("--key", help="--retain: the record's key (default: derived from the title).")
@click.option("--summary", help="--retain: one sentence in your own words (default: untagged).")
@click.option("--note", default="", help="--exclude: why, in your own words (required).")
@click.option("--date", help="Decision date, YYYY-MM-DD (default: today).")
@click.option("--limit", type=click.IntRange(min=1), help="Listing: show the best N only.")
@click.option("--max-entries", type=click.IntRange(min=1), default=MAX_ENTRIES, show_default=True,
              help="import-labels: rows or records the export may hold (as survey init's lists).")
@click.pass_context
def screen(ctx: click.Context, args: tuple[str, ...], fmt: str | None, retain: bool,
           exclude_: bool, interactive: bool, stage: str | None, key: str | None,
           summary: str | None, note: str, date: str | None, limit: int | None,
           max_entries: int) -> None:
    """List the screening queue best first, or decide on a candidate.

    \b
    survey screen [--format table|json]            the queue, best first
    survey screen ID --retain [tag options]         candidate -> corpus/<key>.yaml
    survey screen ID --exclude --stage S --reason R --note TEXT
    survey screen --interactive                     retain / exclude / skip / quit
    survey screen export --format asreview|ris OUT
    survey screen import-labels FILE                ASReview's labels as decisions
    survey screen import-found FILE                 candidates found by hand, queued

    import-found reads a CSV or YAML list of candidates found outside arXiv's API (id, title,
    the url of the page each was found on; optional authors, published, family, note) and
    queues the new ones with a search run of its own, as `survey search` does.

    Tag options are those of `survey add` (--retain) and `survey exclude` (--exclude); the
    exclusion's source and query family default to the protocol's values for the candidate.
    """
    root = root_of(ctx)
    rest = [*args, *ctx.args]
    if rest[:1] == ["export"]:
        _export(root, rest[1:], fmt)
        return
    if rest[:1] == ["import-labels"]:
        _import_labels(root, rest[1:], stage, date, max_entries)
        return
    if rest[:1] == ["import-found"]:
        _import_found(root, rest[1:], date)
        return
    if interactive:
        if rest or retain or exclude_:
            raise UsageError("--interactive takes no id and no --retain/--exclude")
        _interactive(root, date)
        return
    if retain and exclude_:
        raise UsageError("give --retain or --exclude, not both")
    if not (retain or exclude_):
        if rest:
            raise UsageError(f"what should happen to {rest[0]}? give --retain or --exclude")
        _list(root, fmt or "table", limit)
        return
    decision = flows.decide(root, flows.DecisionRequest(
        tuple(rest), retain, stage=stage, key=key, summary=summary, note=note, date=date))
    click.echo(decision.message, err=True)
    if decision.untagged:
        click.echo(f"still untagged (survey validate fails until set): {', '.join(decision.untagged)}",
                   err=True)


def _list(root: Path, fmt: str, limit: int | None) -> None:
    queue = flows.queue_listing(root, fmt, limit)
    report(queue, fmt, json=lambda q: echo_json([c.summary() for c in q]), table=_queue_table)


def _queue_table(queue: list[screening.Candidate]) -> None:
    if not queue:
        click.echo("the screening queue is empty (run survey search)")
        return
    click.echo(f"{'score':>6}  {'id':<12} {'first seen':<10}  {'families':<28} title")
    for c in queue:
        fams = ",".join(c.families)
        click.echo(f"{c.score:6.3f}  {c.id:<12} {c.data.get('first_seen', ''):<10}  "
                   f"{fams[:28]:<28} {c.title}")


def _export(root: Path, rest: list[str], fmt: str | None) -> None:
    if len(rest) != 1:
        raise UsageError("give one output file: survey screen export --format asreview OUT.csv")
    n = flows.export_queue(root, fmt, Path(rest[0]))
    click.echo(f"wrote {rest[0]} ({n} queue candidates)", err=True)


def _import_labels(root: Path, rest: list[str], stage: str | None, date: str | None,
                   max_entries: int) -> None:
    if len(rest) != 1:
        raise UsageError("give one file: survey screen import-labels ASREVIEW_EXPORT (.csv, .tsv, .xlsx or .ris)")
    done = flows.import_labels(root, Path(rest[0]), stage, date, max_entries)
    for message in done.messages:
        click.echo(message, err=True)
    click.echo(done.summary())


def _import_found(root: Path, rest: list[str], date: str | None) -> None:
    if len(rest) != 1:
        raise UsageError("give one file: survey screen import-found CANDIDATES (.csv or .yaml)")
    done = flows.import_found(root, Path(rest[0]), date)
    for line in done.lines:
        click.echo(line)
    for aid in done.plan.new:
        click.echo(f"queued {screening.file_name(aid)}", err=True)


def _interactive(root: Path, date: str | None) -> None:
    corpus, protocol = search.valid_corpus(root)
    tax = corpus.taxonomy
    excluded = tax.excluded
    reason_field = excluded.controlled_field(protocol.fields["reason"]) if excluded else None
    stage_field = excluded.controlled_field(protocol.fields["stage"]) if excluded else None
    queue = screening.ranked(screening.load_queue(root))
    if not queue:
        click.echo("the screening queue is empty (run survey search)")
        return
    done = 0
    for n, cand in enumerate(_walk(queue), start=1):
        _show(cand, protocol, n, len(queue))
        choice = click.prompt("[r]etain, [e]xclude, [s]kip, [q]uit",
                              type=click.Choice(["r", "e", "s", "q"]), show_choices=False)
        if choice == "q":
            break
        if choice == "s":
            continue
        if choice == "r":
            summ = click.prompt("summary in your own words (empty: leave untagged)", default="",
                                show_default=False)
            d = screening.plan_retain(root, corpus, protocol, cand, {}, summary=summ or None, date=date)
        else:
            assert reason_field is not None and stage_field is not None
            reason = click.prompt(f"reason ({', '.join(reason_field.ids)})",
                                  type=click.Choice(list(reason_field.ids)), show_choices=False)
            st = click.prompt("stage", type=click.Choice(list(stage_field.ids)), show_choices=False,
                              default=protocol.exclude_stage or stage_field.ids[0])
            why = click.prompt("note (why, in your own words)")
            d = screening.plan_exclude(root, corpus, protocol, cand,
                                       {reason_field.name: reason, stage_field.name: st}, why, date)
        screening.apply(root, d)
        done += 1
        click.echo(d.message)
        corpus = load_corpus(root, tax)
    click.echo(f"{done} decision{'s' if done != 1 else ''} recorded; "
               f"{len(screening.load_queue(root))} candidates left in the queue")


def _walk(queue: list[screening.Candidate]) -> Iterator[screening.Candidate]:
    yield from queue


def _show(c: screening.Candidate, protocol: Protocol, n: int, total: int) -> None:
    d = c.data
    authors = list(d.get("authors") or [])
    who = ", ".join(authors[:6]) + (f" and {len(authors) - 6} more" if len(authors) > 6 else "")
    fams = ", ".join(f.label if (f := protocol.family(x)) else x for x in c.families)
    click.echo("")
    click.echo(f"[{n}/{total}] {c.title}")
    click.echo(f"  {who} ({c.year})  arXiv:{c.id}")
    click.echo(f"  score {c.score:.3f}; found by {fams}; first seen {d.get('first_seen', '')}")
    click.echo(textwrap.fill(str(d.get("abstract", "")), width=96, initial_indent="  ",
                             subsequent_indent="  "))


COMMANDS = [search_cmd, screen]
