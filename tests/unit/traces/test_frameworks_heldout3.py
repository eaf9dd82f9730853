"""Held-out set 3 (tests/fixtures/traces-heldout3/), read by the importer as its programs ran.

The same ten checks as test_frameworks.py (benchmarks/framework_checks.py), on 9 runs of 4
framework/instrumentor folders the importer was not changed against until their one first
run (docs/trace-formats.md, "Measured on held-out set 3": 28 of 90 checks then, strict). What
a file does not hold at all is :data:`NOT_WRITTEN` here (checked to be absent: nothing
invented in its place), kept apart from the fixed set's framework_checks.NOT_WRITTEN so that
the strict figure of ``bench_frameworks.py tests/fixtures/traces-heldout3`` stays strict.
What the importer still reads wrongly is :data:`KNOWN_WRONG`, each with the checks that fail
and why: checked to fail exactly so, so a fix (or a new failure) shows here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import heldout_runs

HELDOUT = Path(__file__).resolve().parents[2] / "fixtures" / "traces-heldout3"

# What the files of a folder (or folder/file) do not hold (README.md of the folder says so).
NOT_WRITTEN: dict[str, tuple[str, ...]] = {
    # griptape 1.13's OpenTelemetryObservabilityDriver names every span <Class>.<method>()
    # with no attribute: no agent's name (every agent is Agent.run()), no token count, no
    # tool activity name (SearchTool.try_run(), never SearchTool_search_papers).
    "griptape": ("agents", "tokens", "tools"),
    # opentelemetry-instrumentation-haystack 0.62.4 wraps Pipeline.run and the chat
    # generator's run only: no agent, no tool span, no token count.
    "haystack-openllmetry": ("agents", "tool_calls", "tools", "tokens"),
    # @traceloop/instrumentation-langchain 0.27.0 names every agent by its graph's class
    # (workflow CompiledStateGraph) and every tool by its class (DynamicStructuredTool), and
    # parents every span on the program's root: but the times nest, the model calls'
    # system prompts name their agents and each tool's ToolMessage names its tool, which
    # the importer reads (nothing is missing).
}

# Checks keyed by agent name, which a file naming no agent cannot pass.
_BY_AGENT = "keyed by agents' names, which the file does not write"

# Runs still read wrongly: the checks that fail, and why.
KNOWN_WRONG: dict[str, tuple[tuple[str, ...], str]] = {
    "griptape/agents-as-tools.otlp.jsonl": (
        ("agents", "delegations", "returns", "tool_calls", "tools", "model_calls"),
        f"{_BY_AGENT}: the agents are read by shape alone (three Agent.run() method spans, one "
        "inside a StructureRunTool of another, model calls by OpenAiChatPromptDriver's 'Chat', "
        "tools by their classes' 'Tool') and numbered Agent, Agent#2, Agent#3, which the "
        "checks count as agents the program does not have; renamed, the run reads as it ran "
        "(test_nameless_run_reads_right_up_to_names)",
    ),
    "griptape/parallel-tools.otlp.jsonl": (
        ("agents", "delegations", "returns", "tool_calls", "tools", "model_calls"),
        f"as agents-as-tools: {_BY_AGENT}; four agents numbered, right up to their names",
    ),
    "griptape/workflow.otlp.jsonl": (
        ("agents", "delegations", "tool_calls", "tools", "model_calls"),
        f"as agents-as-tools: {_BY_AGENT}; the workflow's three Agent.run() are siblings, two "
        "at once (so different agents), their fan-in read from the stages; right up to names",
    ),
    "haystack-openllmetry/agents-as-tools.otlp.jsonl": (
        ("delegations", "returns", "model_calls"),
        f"{_BY_AGENT}: every model call is a flat child of the pipeline root, which owns "
        "them all (haystack_pipeline: 6); whose each call is shows only in the times",
    ),
    "haystack-openllmetry/parallel-tools.otlp.jsonl": (
        ("delegations", "returns", "model_calls"),
        f"{_BY_AGENT}, as agents-as-tools (the delegates' overlap read as speedup 1.20, not "
        "above the concurrent bound 1.2, until round 9 moved the run's decision to its first "
        "span)",
    ),
}


def test_the_held_out_set_is_all_here() -> None:
    heldout_runs.assert_all_here(HELDOUT, 9, KNOWN_WRONG, NOT_WRITTEN)


@pytest.mark.parametrize(("folder", "run_", "name"), heldout_runs.params(HELDOUT))
def test_held_out_run_imports_as_the_program_ran(
    folder: Path, run_: dict[str, Any], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    heldout_runs.assert_reads_as_it_ran(folder, run_, name, NOT_WRITTEN, KNOWN_WRONG, monkeypatch)


# Runs whose file names no agent, read right but for the names: the import numbers the
# agents it tells apart by shape (Agent, Agent#2...), and each, given the program's name
# that fits best, has the program's delegations, returns, tool calls and model calls.
UP_TO_NAMES = (
    "griptape/agents-as-tools.otlp.jsonl",
    "griptape/parallel-tools.otlp.jsonl",
    "griptape/workflow.otlp.jsonl",
)


@pytest.mark.parametrize("key", UP_TO_NAMES)
def test_nameless_run_reads_right_up_to_names(key: str) -> None:
    heldout_runs.assert_reads_up_to_names(HELDOUT, key)
