"""Held-out set 8 (tests/fixtures/traces-heldout8/), read by the importer as its programs ran.

The same ten checks as test_frameworks.py (benchmarks/framework_checks.py), on 10 runs of 5
framework folders (Strands Agents and Microsoft Agent Framework under OpenLLMetry, LangGraph
under LangSmith's OpenTelemetry export, CAMEL under OpenInference's OpenAI instrumentor,
smolagents under MLflow's tracing exported as OTLP) that the importer was not changed
against until their one first run (docs/trace-formats.md, "Measured on held-out set 8
(round 10)": 73 of 100 checks then, strict, at db8bc5ba). What a file does not hold at all
is :data:`NOT_WRITTEN` here (checked to be absent: nothing invented in its place), kept apart
from the fixed set's framework_checks.NOT_WRITTEN so that the strict figure of
``bench_frameworks.py tests/fixtures/traces-heldout8`` stays strict. What the importer still
reads wrongly is :data:`KNOWN_WRONG`, each with the checks that fail and why: checked to
fail exactly so, so a fix (or a new failure) shows here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import heldout_runs

HELDOUT = Path(__file__).resolve().parents[2] / "fixtures" / "traces-heldout8"

# What the files of a folder (or folder/file) do not hold (README.md of the folder says so).
NOT_WRITTEN: dict[str, tuple[str, ...]] = {
    # camel-openinference: no agent or tool span at all, only the model calls; since round 10
    # the agents are read from their system prompts and the tool calls from what the models
    # asked and their next requests answered, so every check is checked strictly (no entry).
}

# Runs still read wrongly: the checks that fail, and why.
KNOWN_WRONG: dict[str, tuple[tuple[str, ...], str]] = {
    # None since round 10: every run reads as its program ran.
}


def test_the_held_out_set_is_all_here() -> None:
    heldout_runs.assert_all_here(HELDOUT, 10, KNOWN_WRONG, NOT_WRITTEN)


@pytest.mark.parametrize(("folder", "run_", "name"), heldout_runs.params(HELDOUT))
def test_held_out_run_imports_as_the_program_ran(
    folder: Path, run_: dict[str, Any], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    heldout_runs.assert_reads_as_it_ran(folder, run_, name, NOT_WRITTEN, KNOWN_WRONG, monkeypatch)
