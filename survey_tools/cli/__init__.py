"""The ``survey`` command: a thin layer that parses options and calls the library.

Commands live by pipeline stage (:mod:`.corpus`, :mod:`.build`, :mod:`.contrib`,
:mod:`.traces`); this module builds the group and is the one place where a library error
(:class:`~survey_tools.errors.SurveyError`) becomes a message on stderr and an exit code.
"""

from __future__ import annotations

import gc
import importlib
import os
import traceback
from pathlib import Path
from typing import Any

import click

from survey_tools import heap
from survey_tools._version import __version__
from survey_tools.cli.common import Context, report_error
from survey_tools.errors import EXIT_FAULT, EXIT_INVALID, SurveyError

# Each command's module, imported only when that command runs (click's lazy-loading pattern):
# the trace commands pull in numpy and the contributor commands the arXiv client, which
# `survey validate` should not pay for at every start.
COMMAND_MODULES = {
    "survey_tools.cli.corpus": ("validate",),
    "survey_tools.cli.taxonomy": ("taxonomy",),
    "survey_tools.cli.exchange": ("import", "export"),
    "survey_tools.cli.build": ("build", "stats", "gaps", "claims", "corrections", "agreement"),
    "survey_tools.cli.contrib": (
        "add",
        "duplicates",
        "exclude",
        "diff",
        "check-paths",
        "links",
        "refresh",
    ),
    "survey_tools.cli.traces": ("trace",),
    "survey_tools.cli.screening": ("search", "screen"),
    "survey_tools.cli.init": ("init",),
}
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}

# Each command's one-line help for `survey --help`, so that listing the commands imports none of
# them (importing all twenty took over a second of CPU). tests/unit/core/test_cli_help.py holds each
# line equal to the command's own short help.
SHORT_HELP = {
    "add": "Add a work to the corpus as a new record.",
    "agreement": "Agreement between original tags and a second reader's (orig_* vs ann_* columns).",
    "build": "Validate, then regenerate every output (reports/, taxonomy/schema/, ...).",
    "check-paths": "Fail when the branch adds or changes a file the survey never reads (a record outside "
    "the records' folder, a generated file edited by hand), saying where it should go.",
    "claims": "Each claim's status on its view: holds, changed (since the edition) or contradicted.",
    "corrections": "Check the proposed corrections and show what each would change; exit 1 if one is stale.",
    "diff": "Print Markdown for a reviewer: papers added, removed and re-tagged (titles and tags), "
    "the statistics and gap-map cells that moved, and the claims whose status changed.",
    "duplicates": "Find the same work twice in the corpus and the exclusion log.",
    "exclude": "Append an exclusion, or move a retained record to the exclusion log (and back).",
    "export": "Write the corpus in other formats.",
    "gaps": "Print the gap maps: empty and sparse cells of crossed taxonomy axes.",
    "import": "Create records from other formats.",
    "init": "Start a survey in DIR (default: the --root folder): taxonomy/ (the survey, one file per "
    "controlled field, the import/export layout), data/reports.yaml, one record per entry of the "
    "list in corpus/, a CI workflow and a pre-commit configuration; then build it.",
    "links": "Check every URL the records hold: links, evidence, corrections, resolved identifiers.",
    "refresh": "Compare records with current metadata: version, title, authors, DOI, venue.",
    "screen": "List the screening queue best first, or decide on a candidate.",
    "search": "Search arXiv as taxonomy/protocol.yaml says and queue the new papers.",
    "stats": "Print the statistics (the same as reports/STATS.md and reports/stats.json).",
    "taxonomy": "Inspect the taxonomy and the schemas generated from it.",
    "trace": "Validate and measure run traces of LLM agent systems (independent of the survey).",
    "validate": "Check records against the taxonomy and each other (default: the whole corpus).",
}


class SurveyGroup(click.Group):
    """The root group: loads commands on demand, and is the one place where a command's
    :class:`SurveyError` becomes a message and an exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_MODULE_OF)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(name) for name in _MODULE_OF)
        rows = [
            (name, click.Command(name, help=SHORT_HELP[name]).get_short_help_str(limit))
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = _MODULE_OF.get(cmd_name)
        if module is None:
            return None
        commands = importlib.import_module(module).COMMANDS
        return next(c for c in commands if c.name == cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SurveyError as err:
            ctx.exit(report_error(err))
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except MemoryError:
            # The input builds more than the machine (or its limit on this process) holds: not a
            # bug, and not a traceback either; the readers' own limits name what to lower.
            click.echo(
                "error: out of memory: the input expands to more than this process may hold; "
                "lower the command's limits (--max-bytes, --max-entries, --max-spans) or give it "
                "a smaller input",
                err=True,
            )
            ctx.exit(EXIT_INVALID)
        except Exception as err:
            # A bug, not bad input: one line and its own exit code (3), so that scripts and CI
            # can tell the two apart; SURVEY_DEBUG=1 shows the traceback for a bug report.
            if os.environ.get("SURVEY_DEBUG", "") not in ("", "0"):
                raise
            where = traceback.extract_tb(err.__traceback__)[-1]
            click.echo(
                f"error: internal fault ({type(err).__name__}: {err}) at "
                f"{Path(where.filename).name}:{where.lineno}; this is a bug in the toolkit, not in "
                f"your input: please report it with the command you ran (SURVEY_DEBUG=1 shows the "
                f"traceback)",
                err=True,
            )
            ctx.exit(EXIT_FAULT)


@click.group(cls=SurveyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Survey folder (holds taxonomy/, corpus/, exclusions/, reports/).",
)
# The version from the package itself: it is right whatever the installed distribution is called.
@click.version_option(version=__version__, prog_name="survey")
@click.pass_context
def cli(ctx: click.Context, root: Path) -> None:
    """Validate, measure and publish a curated literature corpus."""
    ctx.obj = Context(root=root)


# How often the collector walks every object that outlived two collections (CPython's default
# is after 10 younger collections; here after 100). The command is one short process whose
# records, tables and pages stay alive until it ends: with the default, a cold build of 10,000
# records spent 1.7-1.8 s (8-10% of it) walking them again and again; now 0.2 s, at the same
# peak memory (benchmarks/build-scale.md). Cycles among new objects are still collected as often.
_FULL_COLLECTION_EVERY = 100


def main() -> None:
    # numpy's OpenBLAS starts a worker thread per core as numpy loads, before any command runs:
    # 0.08-0.1 s of CPU in every `survey trace` run on this 2-core machine (benchmarks/TRACES.md,
    # round 10), for linear algebra no command does at a size that threads would speed up (the
    # trace checks and metrics are elementwise; the screening ranking is a matrix-vector
    # product). Only the survey process, before numpy is first imported, and only when the
    # user has not chosen a number.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    gen0, gen1, _ = gc.get_threshold()
    gc.set_threshold(gen0, gen1, _FULL_COLLECTION_EVERY)
    # The survey process itself (not click's test runner, which calls cli): what a command left
    # to the exit (a large trace's decoded events and columns) is not freed piece by piece.
    with heap.exit_leaves_heap():
        cli(standalone_mode=True)


__all__ = ["cli", "main"]
