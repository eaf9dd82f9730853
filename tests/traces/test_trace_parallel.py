"""The two-process decode (a helper resolves the edges) says exactly what one process says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trace_paths import EXAMPLES

from survey_tools.traces import decode
from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

FILES = sorted((EXAMPLES / "valid").glob("*.json")) + sorted((EXAMPLES / "invalid").glob("*.json"))


def _run(path: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    monkeypatch.setattr(decode, "PARALLEL_MIN_BYTES", 0 if parallel else 1 << 62)
    report, trace = check_file(path, name=path.name, limit=0)
    lines = [p.format() for p in report.sorted()]
    metrics = json.dumps(compute(trace), sort_keys=True) if trace and report.ok else ""
    return lines, metrics


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name + "/" + p.stem)
def test_parallel_matches_sequential(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(path, True, monkeypatch) == _run(path, False, monkeypatch)


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["edges"].append({"src": "e1", "dst": "nowhere", "type": "causal"}),
        lambda d: d["edges"].append({"src": "e1", "dst": "e2", "type": "bogus"}),
        lambda d: d["edges"].append({"src": "e1", "dst": "e2", "type": "causal", "x": 1}),
        lambda d: d["events"].append(dict(d["events"][0])),  # a duplicate id
        lambda d: d["events"].__setitem__(0, dict(d["events"][0], id=7)),
        lambda d: d.__setitem__("edges", {}),
    ],
)
def test_parallel_matches_sequential_on_broken_edges(
    edit: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((EXAMPLES / "valid" / "hierarchical.json").read_text(encoding="utf-8"))
    edit(doc)  # type: ignore[operator]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert _run(path, True, monkeypatch) == _run(path, False, monkeypatch)
