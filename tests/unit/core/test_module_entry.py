"""``python -m survey_tools`` is the ``survey`` command: same version line, same exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from survey_tools import __version__

REPO = Path(__file__).resolve().parents[3]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "survey_tools", *args], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_the_module_prints_the_commands_version() -> None:
    done = _run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"survey, version {__version__}"


def test_the_module_refuses_an_unknown_command_as_survey_does() -> None:
    done = _run("no-such-command")
    assert done.returncode == 2
    assert "No such command 'no-such-command'" in done.stderr
