"""The graph each agent framework's program ran, as the trace importer reads it back.

tests/fixtures/traces-frameworks/<framework>/ holds files a framework's own tracing
wrote while a program of ours ran offline (its README), and EXPECTED.yaml: what the
program did, recorded by the program as it ran. Every file of every run is imported
with ``survey trace import auto`` and must give exactly that graph:

* one trace per run;
* the program's agents, plus at most one application agent (the run's root, when
  the framework names none of the program's agents there);
* its delegations (spawns and delegation messages) from one named agent to another,
  and its returns, as multisets (concurrent delegates finish in any order); those
  from and to the application agent are its start and end, not the program's;
* per agent, its model calls and its tool calls and tool names; a tool named after
  an agent is the call of that agent (smolagents writes no tool span for it, AutoGen's
  AgentTool does), so it is compared as that delegation;
* the tokens the scripted models reported (unless the framework's tracing writes no
  model call at all: NOT_WRITTEN, checked to be absent);
* a sequential run's parallelism_speedup at most 1.05, concurrent delegates' above 1.2.

A folder of trace files without EXPECTED.yaml fails (a trace store's export sits one
level down, phoenix/<framework>/). SURVEY_FRAMEWORK_FIXTURES points the
tests at another copy of the folder (a helper's worktree while fixtures are made).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.support import run

from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

HERE = Path(__file__).resolve().parent
FIXTURES = Path(
    os.environ.get("SURVEY_FRAMEWORK_FIXTURES", HERE.parents[1] / "fixtures" / "traces-frameworks")
)
SEQUENTIAL_MAX, CONCURRENT_MIN = 1.05, 1.2
# What a framework's own tracing does not write at all: checked to be absent from the
# trace (zero), so a version that starts writing it fails here and the entry goes.
# Keyed by framework folder, or folder/file for one file.
NOT_WRITTEN = {
    # autogen-agentchat 0.7.5 traces no model call (no chat span, no usage attribute).
    "autogen": ("model_calls", "tokens"),
    # mlflow 3.17.2's smolagents autologging writes no span for a model call of a
    # Model of one's own (no tokens), names tool spans by the tool's class
    # (SimpleTool.__call__), and has no span of an agent's own work but its tools, so
    # the trace's durations cannot show the delegates' concurrency.
    "mlflow": ("model_calls", "tokens", "tools", "speedup"),
    # openinference-instrumentation-dspy 0.1.48 writes no token count on any span.
    "dspy": ("tokens",),
    # The OpenAI Agents SDK writes no model-call span for a Model of one's own (its OpenAI
    # models write them), through Logfire as through its own export; a hand-off is a
    # handoff span, with no tool span for the transfer tool.
    "logfire-openai-agents": ("model_calls",),
    "logfire-openai-agents/handoff.otlp.jsonl": ("model_calls", "tool_calls", "tools"),
    "openai-agents-js": ("model_calls",),
    "openai-agents-js/handoff.agents-export.jsonl": ("model_calls", "tool_calls", "tools"),
    # opentelemetry-instrumentation-crewai 0.62.4 writes the crew, its tasks and agents
    # only: no tool span, and no model call for a BaseLLM of one's own.
    "crewai-openllmetry": ("tool_calls", "tools", "model_calls", "tokens"),
    # Without its event listener it writes the crew and the manager's two task runs
    # only: no coworker, no delegation, no tool.
    "crewai/hierarchical.otlp.jsonl": (
        "agents",
        "delegations",
        "returns",
        "tool_calls",
        "tools",
        "model_calls",
        "tokens",
    ),
}


# Runs the framework's tracing writes as several unconnected traces, nothing in the file
# joining them (no shared id, no link): checked to import as that many, each valid, so a
# version that keeps the run together fails here and the entry goes. A failure of the
# framework's tracing, counted as a failed run in docs/trace-formats.md.
SPLIT = {
    # dspy.Parallel runs each module on a thread without the caller's OpenTelemetry
    # context: the coordinator and each of its two researchers are traces of their own.
    "dspy/parallel.otlp.jsonl": 3,
}


# Runs the importer reads wrongly, with why: checked to be still wrong (the program's
# agents are not all found), so a fix fails here and the entry goes. Counted as failed
# runs in docs/trace-formats.md.
KNOWN_WRONG = {
    # OpenLLMetry's LlamaIndex instrumentation (0.62.4) names every workflow step
    # AgentWorkflow.task and every tool FunctionTool.task: the agents' names are only in
    # their system prompts' text, and the hand-offs' targets nowhere.
    "llamaindex-openllmetry/handoff.otlp.jsonl",
    # OpenInference's Haystack instrumentor (0.1.46) names every agent's span Agent.run (a
    # Haystack Agent has no name; the pipeline's component name is not written) and writes
    # no tool span: the three agents, nested, read as one.
    "haystack/agents-as-tools.otlp.jsonl",
}


_NOT_TRACES = ("EXPECTED.yaml", "pip-freeze.txt", "npm-freeze.txt")


def _trace_files(d: Path) -> set[str]:
    return {
        p.name
        for p in d.iterdir()
        if p.is_file() and p.name not in _NOT_TRACES and not p.name.endswith((".md", ".log", ".py"))
    }


def _framework_dirs() -> list[Path]:
    """Every folder holding trace files (a trace store's export sits one level down,
    phoenix/<framework>/), outside scripts/."""
    if not FIXTURES.is_dir():
        return []
    return [
        d
        for d in sorted(p for p in FIXTURES.rglob("*") if p.is_dir())
        if "scripts" not in d.relative_to(FIXTURES).parts and _trace_files(d)
    ]


def _key(d: Path) -> str:
    return d.relative_to(FIXTURES).as_posix()


def _cases() -> list[Any]:
    cases = []
    for expected in sorted(FIXTURES.rglob("EXPECTED.yaml")) if FIXTURES.is_dir() else []:
        d = expected.parent
        doc = yaml.safe_load(expected.read_text(encoding="utf-8"))
        for run_ in doc["runs"]:
            for name in run_["files"]:
                cases.append(pytest.param(d, run_, name, id=f"{_key(d)}/{name}"))
    return cases


def test_every_framework_has_expected() -> None:
    dirs = _framework_dirs()
    if not dirs:
        pytest.skip(f"no framework fixtures in {FIXTURES}")
    missing = [_key(d) for d in dirs if not (d / "EXPECTED.yaml").is_file()]
    assert not missing, f"framework folders without EXPECTED.yaml: {missing}"
    for d in dirs:
        doc = yaml.safe_load((d / "EXPECTED.yaml").read_text(encoding="utf-8"))
        listed = {f for r in doc["runs"] for f in r["files"]}
        traces = _trace_files(d)
        assert traces <= listed, f"{_key(d)}: files no run lists: {sorted(traces - listed)}"
        assert listed <= traces, f"{_key(d)}: runs list missing files: {sorted(listed - traces)}"


def graph(doc: dict[str, Any], expected_agents: set[str]) -> dict[str, Any]:
    """What a trace says the program did, in EXPECTED.yaml's terms."""
    ev = doc["events"]
    app = ev[0]["agent"]  # the root's decision comes first
    acting = {
        e["agent"] for e in ev if not (e["type"] == "tool_result" and e["agent"] == e.get("tool"))
    }
    agents = acting | {e["to"] for e in ev if e["type"] == "spawn"}
    extra = agents - expected_agents
    between = app not in expected_agents
    delegations = Counter(
        (e["agent"], e["to"])
        for e in ev
        if e["type"] in ("spawn", "message")
        and e.get("to") not in (None, e["agent"])
        and not (between and e["agent"] == app)
    )
    returns = Counter(
        (e["agent"], e["to"])
        for e in ev
        if e["type"] == "return" and not (between and e.get("to") == app)
    )
    tools: dict[str, set[str]] = {}
    calls: Counter[str] = Counter()
    for e in ev:
        # A tool named after an agent is that agent's call: compared as the delegation,
        # whether or not the framework wrote a tool span for it.
        if e["type"] == "tool_call" and e["tool"] not in expected_agents:
            calls[e["agent"]] += 1
            tools.setdefault(e["agent"], set()).add(e["tool"])
    models = Counter(e["agent"] for e in ev if e.get("role") == "llm_call")
    return {
        "app": app,
        "agents": agents,
        "extra": extra,
        "delegations": delegations,
        "returns": returns,
        "tool_calls": calls,
        "tools": tools,
        "model_calls": models,
        "tokens": {"input": doc["costs"]["input_tokens"], "output": doc["costs"]["output_tokens"]},
    }


def expected_graph(run_: dict[str, Any]) -> dict[str, Any]:
    agents = set(run_["agents"])
    delegations = Counter(tuple(d) for d in run_["delegations"])
    calls: Counter[str] = Counter()
    tools: dict[str, set[str]] = {}
    for agent, n in run_["tool_calls"].items():
        named = set(run_["tools"].get(agent, ())) & agents
        # A call of a tool named after an agent is that delegation (no tool span).
        n -= sum(c for (src, dst), c in delegations.items() if src == agent and dst in named)
        if n:
            calls[agent] = n
        rest = set(run_["tools"].get(agent, ())) - named
        if rest:
            tools[agent] = rest
    return {
        "delegations": delegations,
        "returns": Counter(tuple(r) for r in run_["returns"]),
        "tool_calls": calls,
        "tools": tools,
        "model_calls": Counter({a: n for a, n in run_["model_calls"].items() if n}),
        "tokens": dict(run_["tokens"]),
    }


@pytest.mark.parametrize(("folder", "run_", "name"), _cases())
def test_framework_run_imports_as_the_program_ran(
    tmp_path: Path, folder: Path, run_: dict[str, Any], name: str
) -> None:
    if name.endswith(".parquet") and importlib.util.find_spec("pyarrow") is None:
        pytest.skip("a Parquet export needs pyarrow: pip install -e '.[scale]'")
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run(None, "trace", "import", "auto", str(folder / name), "-o", str(out))
    assert code == 0, err
    written = sorted(out.iterdir())
    split = SPLIT.get(f"{_key(folder)}/{name}")
    if split is not None:
        assert len(written) == split, f"{len(written)} traces: {err}"
        assert all(check_file(p)[0].ok for p in written)
        return
    assert len(written) == run_["traces"], f"{len(written)} traces: {err}"
    report, trace = check_file(written[0])
    assert report.ok and trace is not None
    doc = json.loads(written[0].read_text(encoding="utf-8"))
    got = graph(doc, set(run_["agents"]))
    want = expected_graph(run_)
    if f"{_key(folder)}/{name}" in KNOWN_WRONG:
        assert not set(run_["agents"]) <= got["agents"], "now read right: remove from KNOWN_WRONG"
        return
    assert len(got["extra"]) <= 1 and got["extra"] <= {got["app"]}, got["extra"]
    absent = NOT_WRITTEN.get(f"{_key(folder)}/{name}", NOT_WRITTEN.get(_key(folder), ()))
    if "agents" not in absent:
        assert set(run_["agents"]) <= got["agents"], got["agents"]
    for key in ("delegations", "returns", "tool_calls", "tools", "model_calls", "tokens"):
        if key in absent and key == "tools" and got[key]:
            # Tools written under other names: the same agents call tools.
            assert set(got[key]) == set(want[key]), key
        elif key in absent:
            assert not any(dict(got[key]).values()), f"{key}: now written, update NOT_WRITTEN"
        else:
            assert got[key] == want[key], key
    speedup = compute(trace)["parallelism_speedup"]
    assert speedup is not None
    if "speedup" in absent:
        assert speedup <= SEQUENTIAL_MAX  # never above 1 without the work's own spans
    elif run_["mode"] == "sequential":
        assert speedup <= SEQUENTIAL_MAX
    else:
        assert speedup > CONCURRENT_MIN
