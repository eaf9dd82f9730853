"""`survey --help` lists the commands from a table instead of importing every command module:
the table must say what each command says of itself, and listing must import no command."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from survey_tools.cli import _MODULE_OF, SHORT_HELP, cli


def test_every_command_has_one_line() -> None:
    assert set(SHORT_HELP) == set(_MODULE_OF)


@pytest.mark.parametrize("name", sorted(_MODULE_OF))
def test_line_is_the_commands_own_short_help(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    assert SHORT_HELP[name] == command.get_short_help_str(limit=10_000)


def test_help_imports_no_command_module() -> None:
    code = (
        "import sys\n"
        "from survey_tools.cli import cli\n"
        "try:\n"
        "    cli(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('survey_tools.cli.') "
        "and m != 'survey_tools.cli.common')\n"
        "print(loaded, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands:" in proc.stdout
    assert "validate" in proc.stdout
    assert proc.stderr.strip() == "[]"


def test_validate_loads_no_list_reader() -> None:
    # `survey validate` runs on every pull request and in pre-commit: the readers of other
    # formats (markdown-it-py, pylatexenc) belong to `survey import` and `survey init` only.
    code = (
        "import sys, click\n"
        "from survey_tools.cli import cli\n"
        "cli.get_command(click.Context(cli), 'validate')\n"
        "print(sorted(m for m in ('markdown_it', 'pylatexenc', 'survey_tools.adopt.csvio') "
        "if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_validate_run_loads_no_ruamel_and_no_list_reader() -> None:
    """`survey validate` run on a whole survey (the frozen one) loads neither ruamel.yaml (the
    `taxonomy` commands' round-trip YAML, in cli/taxonomy.py) nor the list readers."""
    from helpers.survey_copy import SURVEY

    code = (
        "import sys\n"
        "from survey_tools.cli import cli\n"
        "try:\n"
        f"    cli.main(['--root', {str(SURVEY)!r}, 'validate'], standalone_mode=False)\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', 'markdown_it', 'pylatexenc') "
        "or m in ('survey_tools.adopt.taxonomy_edit', 'survey_tools.cli.taxonomy')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout + proc.stderr
