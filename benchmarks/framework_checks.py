"""The ten checks of one framework run: what ``survey trace import`` reads from the files a
framework wrote, against the EXPECTED.yaml its program recorded as it ran.

tests/fixtures/traces-frameworks/README.md says what a folder and its EXPECTED.yaml hold.
Each file of each run is imported with ``survey trace import auto`` and checked ten ways
(:data:`CHECKS`): it imports; it is one trace; the program's agents, and at most one agent
more (the application at the root, when the framework names none of the program's agents
there); its delegations and returns (multisets, from one named agent to another); per
agent, its tool calls, its tool names and its model calls; the tokens the scripted models
reported; a sequential run's parallelism_speedup at most 1.05, concurrent delegates' above
1.1 (1.2 until round 12: with nested work counted once by the spans' structure, a run whose two
delegates overlap for a third of its critical path reads about 1.2, honestly; 1.1 still keeps
it apart from every sequential run). A thing the framework's tracing does not write at all (:data:`NOT_WRITTEN`) is right
when it is absent from the trace (nothing invented in its place).

tests/unit/traces/test_frameworks.py asserts these checks on every fixture folder;
benchmarks/bench_frameworks.py prints them as a table for any folder of runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SEQUENTIAL_MAX, CONCURRENT_MIN = 1.05, 1.1
CHECKS = (
    "imports",
    "traces",
    "agents",
    "delegations",
    "returns",
    "tool_calls",
    "tools",
    "model_calls",
    "tokens",
    "speedup",
)
# What a framework's own tracing does not write at all: checked to be absent from the
# trace (zero), so a version that starts writing it fails and the entry goes. Keyed by
# framework folder (its name, the last part of its path), or folder/file for one file.
# ``tokens_other``: the framework's own model calls (EXPECTED's model_calls_other: a group
# chat's speaker selector) leave no usage in the file, so the trace's tokens are the agents'
# (the sum of tokens_by_agent), not the run's.
NOT_WRITTEN: dict[str, tuple[str, ...]] = {
    # autogen-agentchat 0.7.5 traces no model call (no chat span, no usage attribute); the
    # runtime's messages carry each agent's answers with their usage (read since round 13),
    # but the selector's calls answer with no message.
    "autogen": ("tokens_other",),
    # mlflow 3.17.2's smolagents autologging writes no span for a model call of a
    # Model of one's own (no tokens), names tool spans by the tool's class
    # (SimpleTool.__call__), and has no span of an agent's own work but its tools, so
    # the trace's durations cannot show the delegates' concurrency.
    "mlflow": ("model_calls", "tokens", "tools", "speedup"),
    # openinference-instrumentation-dspy 0.1.48 writes no token count on any span.
    "dspy": ("tokens",),
    # openinference-instrumentation-haystack 0.1.46 writes no tool span (a Haystack
    # Agent's tools run inside its ToolInvoker, which it does not trace), but its model
    # calls' messages say which tools were asked for and answered: since round 13 the
    # importer reads them (spans._answered_next), so the folder has no entry here.
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


def absent(folder: str, name: str) -> tuple[str, ...]:
    """What the framework of ``folder`` (its last part) does not write in file ``name``."""
    key = folder.rsplit("/", 1)[-1]
    return NOT_WRITTEN.get(f"{key}/{name}", NOT_WRITTEN.get(key, ()))


def graph(doc: dict[str, Any], expected_agents: set[str]) -> dict[str, Any]:
    """What a trace says the program did, in EXPECTED.yaml's terms."""
    ev = doc["events"]
    app = ev[0]["agent"]  # the root's decision comes first
    acting = {
        e["agent"] for e in ev if not (e["type"] == "tool_result" and e["agent"] == e.get("tool"))
    }
    agents = acting | {e["to"] for e in ev if e["type"] == "spawn"}
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
    return {
        "app": app,
        "agents": agents,
        "extra": agents - expected_agents,
        "delegations": delegations,
        "returns": returns,
        "tool_calls": calls,
        "tools": tools,
        "model_calls": Counter(e["agent"] for e in ev if e.get("role") == "llm_call"),
        "tokens": {"input": doc["costs"]["input_tokens"], "output": doc["costs"]["output_tokens"]},
    }


def expected_graph(run_: dict[str, Any]) -> dict[str, Any]:
    """What EXPECTED.yaml says of one run, in :func:`graph`'s terms."""
    agents = set(run_["agents"])
    delegations = Counter(tuple(d) for d in run_.get("delegations", ()))
    calls: Counter[str] = Counter()
    tools: dict[str, set[str]] = {}
    for agent, n in run_.get("tool_calls", {}).items():
        named = set(run_.get("tools", {}).get(agent, ())) & agents
        # A call of a tool named after an agent is that delegation (no tool span).
        n -= sum(c for (src, dst), c in delegations.items() if src == agent and dst in named)
        if n:
            calls[agent] = n
        rest = set(run_.get("tools", {}).get(agent, ())) - named
        if rest:
            tools[agent] = rest
    return {
        "delegations": delegations,
        "returns": Counter(tuple(r) for r in run_.get("returns", ())),
        "tool_calls": calls,
        "tools": tools,
        "model_calls": Counter({a: n for a, n in run_.get("model_calls", {}).items() if n}),
        "tokens": dict(run_.get("tokens", {"input": 0, "output": 0})),
    }


@dataclass
class Result:
    """The checks of one file of one run: check -> passed, and why a check failed."""

    folder: str
    run: str
    name: str
    passed: dict[str, bool] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    traces: int = 0
    summary: str = ""
    skipped: str = ""
    digest: str = ""  # of the traces written (the same digest: the same import)

    @property
    def score(self) -> int:
        return sum(self.passed.values())


def _one(key: str, got: Any, want: Any, missing: tuple[str, ...]) -> tuple[bool, str]:
    if key in missing and key == "tools" and got:
        # Tools written under other names: the same agents call tools.
        return set(got) == set(want), f"tools of {sorted(got)}, want {sorted(want)}"
    if key in missing:
        return not any(dict(got).values()), f"not written, yet the trace has {dict(got)}"
    return got == want, f"got {dict(got)}, want {dict(want)}"


def judge(result: Result, run_: dict[str, Any], doc: dict[str, Any], speedup: float | None) -> None:
    """Fill in the checks after "imports" and "traces" from the (largest) trace ``doc``."""
    got = graph(doc, set(run_["agents"]))
    want = expected_graph(run_)
    missing = absent(result.folder, result.name)
    if "tokens_other" in missing and run_.get("model_calls_other"):
        by_agent = run_.get("tokens_by_agent", {}).values()
        want["tokens"] = {k: sum(t.get(k, 0) for t in by_agent) for k in ("input", "output")}
    ok = len(got["extra"]) <= 1 and got["extra"] <= {got["app"]}
    if "agents" not in missing:
        ok = ok and set(run_["agents"]) <= got["agents"]
    result.passed["agents"] = ok
    result.why["agents"] = f"got {sorted(got['agents'])}, want {sorted(run_['agents'])}"
    for key in CHECKS[3:9]:
        result.passed[key], result.why[key] = _one(key, got[key], want[key], missing)
    if speedup is None:
        result.passed["speedup"], result.why["speedup"] = False, "no speedup"
        return
    concurrent = run_.get("mode", "sequential") != "sequential" and "speedup" not in missing
    result.passed["speedup"] = speedup > CONCURRENT_MIN if concurrent else speedup <= SEQUENTIAL_MAX
    result.why["speedup"] = f"{speedup:.2f} for a {run_.get('mode', 'sequential')} run"


def _invoke(*args: str) -> tuple[int, str]:
    """``survey ARGS...`` in this process: its exit code and what it said on stderr."""
    from click.testing import CliRunner  # noqa: PLC0415

    from survey_tools.cli import cli  # noqa: PLC0415

    res = CliRunner().invoke(cli, list(args))
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stderr


def check(folder: Path, key: str, run_: dict[str, Any], name: str, *options: str) -> Result:
    """Import one file of one run (``key``: the folder's name in the tables) and check it;
    ``options`` go to ``survey trace import`` (``--explain``)."""
    from survey_tools.traces.metrics import compute  # noqa: PLC0415
    from survey_tools.traces.validate import check_file  # noqa: PLC0415

    result = Result(key, run_["run"], name)
    if name.endswith(".parquet") and importlib.util.find_spec("pyarrow") is None:
        result.skipped = "a Parquet export needs pyarrow: pip install -e '.[scale]'"
        return result
    with tempfile.TemporaryDirectory() as tmp:
        code, err = _invoke("trace", "import", "auto", str(folder / name), "-o", tmp, *options)
        result.summary = err
        written = sorted(Path(tmp).iterdir())
        result.traces = len(written)
        checked = [check_file(p) for p in written]
        result.passed["imports"] = code == 0 and bool(written) and all(r.ok for r, _ in checked)
        result.why["imports"] = err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
        result.passed["traces"] = len(written) == run_.get("traces", 1)
        result.why["traces"] = f"{len(written)} traces, want {run_.get('traces', 1)}"
        if not written or not result.passed["imports"]:
            for k in CHECKS[2:]:
                result.passed[k], result.why[k] = False, "nothing imported"
            return result
        texts = [p.read_bytes() for p in written]
        result.digest = hashlib.sha256(b"\0".join(texts)).hexdigest()
        docs = [json.loads(t) for t in texts]
        big = max(range(len(docs)), key=lambda i: len(docs[i]["events"]))
        trace = checked[big][1]
        speedup = compute(trace)["parallelism_speedup"] if trace is not None else None
        judge(result, run_, docs[big], speedup)
    return result


def cases(root: Path) -> list[tuple[Path, str, dict[str, Any], str]]:
    """(folder, its key, run, file) for every file of every run under ``root`` (a folder
    holding EXPECTED.yaml, or folders of them at any depth)."""
    out = []
    for expected in sorted(root.rglob("EXPECTED.yaml")):
        d = expected.parent
        doc = yaml.safe_load(expected.read_text(encoding="utf-8"))
        key = d.relative_to(root).as_posix() if d != root else d.name
        for run_ in doc["runs"]:
            for name in run_["files"]:
                out.append((d, key, run_, name))
    return out
