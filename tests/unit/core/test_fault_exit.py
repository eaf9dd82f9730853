"""A fault in the toolkit is told apart from bad input: one line, exit code 3, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from survey_tools.errors import EXIT_FAULT

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny-survey"

# The bug is planted in a child process: patching `validate_corpus` in the test process leaked
# into every module that imported the name while the patch was in place (later tests on the
# same worker then failed with the simulated bug).
PLANT = """
import sys
import survey_tools.corpus.validation as validation
import survey_tools.cli.corpus as commands

def broken(*args, **kwargs):
    raise ZeroDivisionError("simulated bug")

validation.validate_corpus = broken
commands.validate_corpus = broken
from survey_tools.cli import main
sys.argv = ["survey", "--root", sys.argv[1], "validate"]
main()
"""


def _run(debug: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SURVEY_DEBUG"}
    if debug:
        env["SURVEY_DEBUG"] = "1"
    return subprocess.run(
        [sys.executable, "-c", PLANT, str(TINY)], capture_output=True, text=True, env=env, check=False
    )


def test_a_bug_exits_3_with_one_line() -> None:
    result = _run(debug=False)
    assert result.returncode == EXIT_FAULT
    assert "Traceback" not in result.stdout + result.stderr
    assert "error: internal fault (ZeroDivisionError: simulated bug)" in result.stderr
    debug = _run(debug=True)
    assert debug.returncode == 1
    assert "Traceback" in debug.stderr and "ZeroDivisionError: simulated bug" in debug.stderr
