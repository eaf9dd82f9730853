"""Held-out set 9 (tests/fixtures/traces-heldout9/), read by the importer as its programs ran.

The same ten checks as test_frameworks.py (benchmarks/framework_checks.py), on 4 runs of 2
folders (LangGraph with its supervisor written as a plain graph node, sequential and with a
``Send`` fan-out, under OpenInference's LangChain instrumentor and under OpenLLMetry), which
the importer was not changed against until their one first run (docs/trace-formats.md,
"Measured on held-out set 9 (round 11)": 32 of 40 checks then, 0 of 4 runs, at c3214edb).
The reading made after it: stages that come back to one agent after every other are a
graph's supervisor routing to its workers, and a linked span's sender reached again is a
return (spans._hub_stages, _Events.linked_from).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import heldout_runs

HELDOUT = Path(__file__).resolve().parents[2] / "fixtures" / "traces-heldout9"

# What the files of a folder (or folder/file) do not hold (README.md of the folder says so).
NOT_WRITTEN: dict[str, tuple[str, ...]] = {}

# Runs still read wrongly: the checks that fail, and why.
KNOWN_WRONG: dict[str, tuple[tuple[str, ...], str]] = {}


def test_the_held_out_set_is_all_here() -> None:
    heldout_runs.assert_all_here(HELDOUT, 4, KNOWN_WRONG, NOT_WRITTEN)


@pytest.mark.parametrize(("folder", "run_", "name"), heldout_runs.params(HELDOUT))
def test_held_out_run_imports_as_the_program_ran(
    folder: Path, run_: dict[str, Any], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    heldout_runs.assert_reads_as_it_ran(folder, run_, name, NOT_WRITTEN, KNOWN_WRONG, monkeypatch)
