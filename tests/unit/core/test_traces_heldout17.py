"""tests/fixtures/traces-heldout17/ is whole and well-formed: every file is listed in
tests/fixtures/SOURCES.md with the sha256 it has, every trace file is OTLP/JSON whose spans have
well-formed ids, names and times and no missing parent, and every run EXPECTED.yaml names has its
file. Standard library only: the set is held out from the trace importer, which this test never
imports (it checks the fixture, not how anything reads it)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

SET = Path(__file__).resolve().parents[2] / "fixtures" / "traces-heldout17"
# Each setup and its runs' modes, in EXPECTED.yaml's order (README: a setup whose framework
# offered no concurrent variant has one run).
SETUPS = {
    "agno-team-openinference": ("sequential", "concurrent delegates"),
    "pydantic-ai-openllmetry": ("sequential", "concurrent delegates"),
    "smolagents-openlit": ("sequential", "concurrent delegates"),
}
ROW = re.compile(r"^\| `(traces-heldout17/[^`]+)` \| `[^`]+` \| `([0-9a-f]{64})` \|$", re.M)
HEX = re.compile(r"^[0-9a-f]+$")
# Runs whose file holds more than one trace (none so far).
TRACES: dict[str, int] = {}
MAX_BYTES = 400_000  # each file a few hundred KB at most


def _spans(path: Path) -> list[dict[str, object]]:
    spans: list[dict[str, object]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                spans.extend(scope["spans"])
    return spans


def _runs(expected: Path) -> list[dict[str, object]]:
    """The runs of an EXPECTED.yaml, whose values are JSON (flow style) one key a line."""
    runs: list[dict[str, object]] = []
    for line in expected.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^  (- |  )(\w+): (.*)$", line)
        if not match:
            continue
        if match[1] == "- ":
            runs.append({})
        runs[-1][match[2]] = json.loads(match[3])
    return runs


def test_every_file_is_listed_with_its_sha256() -> None:
    listed = dict(ROW.findall((SET.parent / "SOURCES.md").read_text(encoding="utf-8")))
    on_disk = {
        f"traces-heldout17/{p.relative_to(SET).as_posix()}": hashlib.sha256(
            p.read_bytes()
        ).hexdigest()
        for p in SET.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert listed == on_disk
    assert sorted(p.name for p in SET.iterdir() if p.is_dir() and p.name != "scripts") == sorted(
        SETUPS
    )


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_each_setup_has_its_runs_environment_and_expectations(setup: str) -> None:
    folder = SET / setup
    assert (folder / "pip-freeze.txt").read_text(encoding="utf-8").count("==") > 10
    runs = _runs(folder / "EXPECTED.yaml")
    modes = tuple(run["mode"] for run in runs)
    assert modes == SETUPS[setup]
    assert sorted(p.name for p in folder.glob("*.otlp.jsonl")) == sorted(
        name
        for run in runs
        for name in run["files"]  # type: ignore[attr-defined]
    )
    for run in runs:
        if run["mode"] == "concurrent delegates":
            assert run["concurrent_delegates"] == [["web_researcher", "paper_researcher"]]
        else:
            assert run["concurrent_delegates"] == []
    for run in runs:
        agents = run["agents"]
        # A route run has two agents (the leader and the one member it picked).
        assert isinstance(agents, list) and len(agents) >= 2
        assert all(pair[0] in agents and pair[1] in agents for pair in run["delegations"])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "path", sorted(SET.glob("*/*.otlp.jsonl")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_each_trace_file_is_well_formed_otlp_json(path: Path) -> None:
    assert path.stat().st_size < MAX_BYTES
    spans = _spans(path)
    assert spans
    ids = {str(s["spanId"]) for s in spans}
    assert len(ids) == len(spans)
    for span in spans:
        assert len(str(span["traceId"])) == 32 and HEX.match(str(span["traceId"]))
        assert len(str(span["spanId"])) == 16 and HEX.match(str(span["spanId"]))
        assert span["name"]
        assert int(str(span["startTimeUnixNano"])) <= int(str(span["endTimeUnixNano"]))
        parent = str(span.get("parentSpanId") or "")
        assert not parent or parent in ids
    roots = [s for s in spans if not s.get("parentSpanId")]
    traces = {str(s["traceId"]) for s in spans}
    expected = TRACES.get(f"{path.parent.name}/{path.name}", 1)
    assert len(traces) == len(roots) == expected
    # The program's own root span, named after the run.
    assert any(s["name"] == path.name.split(".")[0] for s in roots)


def test_the_scripts_never_reach_for_the_toolkit() -> None:
    for script in (SET / "scripts").glob("*.py"):
        text = script.read_text(encoding="utf-8")
        assert "survey_tools" not in text, script.name
