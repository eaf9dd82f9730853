"""A fault in the toolkit is told apart from bad input: one line, exit code 3, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import survey_tools.corpus.validation as validation
from survey_tools.cli import cli
from survey_tools.errors import EXIT_FAULT

TINY = Path(__file__).resolve().parents[1] / "data" / "tiny-survey"


def test_a_bug_exits_3_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(validation, "validate_corpus", broken)
    monkeypatch.setattr("survey_tools.cli.corpus.validate_corpus", broken)
    monkeypatch.delenv("SURVEY_DEBUG", raising=False)
    result = CliRunner().invoke(cli, ["--root", str(TINY), "validate"])
    assert result.exit_code == EXIT_FAULT
    assert "Traceback" not in result.output + result.stderr
    assert "error: internal fault (ZeroDivisionError: simulated bug)" in result.stderr
    monkeypatch.setenv("SURVEY_DEBUG", "1")
    debug = CliRunner().invoke(cli, ["--root", str(TINY), "validate"])
    assert isinstance(debug.exception, ZeroDivisionError)
