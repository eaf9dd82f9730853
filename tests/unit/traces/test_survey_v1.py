"""The survey's trace format both ways: `survey trace validate --profile survey-v1`
accepts what the survey's schema and validator accept (tests/data/traces/survey-v1,
verdicts of the survey's own tools in its README) and `survey trace export` writes
traces the survey's JSON Schema (a fixture, tests/fixtures/SOURCES.md) accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from helpers.trace_paths import EXAMPLES, FIXTURES, REPO, WHO_AND_WHEN

from survey_tools.cli import cli
from survey_tools.traces.survey_v1 import check_file_v1, export_v1

DATA = REPO / "tests" / "data" / "traces" / "survey-v1"
THEIR_SCHEMA = json.loads((FIXTURES / "survey-artifact" / "trace_schema.json").read_text())


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["trace", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def their_verdict(doc: object) -> list[str]:
    """The survey's JSON Schema, plus the validator's rules that are not shape."""
    v = jsonschema.Draft202012Validator(THEIR_SCHEMA)
    errors = [e.message for e in v.iter_errors(doc)]
    assert isinstance(doc, dict)
    ids = [e["id"] for e in doc["events"]]
    if len(ids) != len(set(ids)):
        errors.append("duplicate event id")
    errors += [f"dangling {e}" for e in doc["edges"] if {e["src"], e["dst"]} - set(ids)]
    errors += [f"negative {k}" for k, x in doc["costs"].items() if x < 0]
    return errors


@pytest.mark.parametrize("path", sorted((DATA / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_what_the_survey_accepts_is_valid(path: Path) -> None:
    assert their_verdict(json.loads(path.read_text())) == []
    report = check_file_v1(path)
    assert report.ok, [p.format() for p in report.sorted()]


def test_our_stricter_rules_are_warnings() -> None:
    code, out, err = run("validate", "--profile", "survey-v1", str(DATA / "valid"))
    assert code == 0
    warned = {line.split(": ")[0].rsplit("/", 1)[-1] for line in out.splitlines()}
    assert warned == {
        "cycle.json",
        "extra-event-keys.json",
        "float-tokens.json",
        "long-ids.json",
        "spawn-without-to.json",
        "tool-call-without-tool.json",
    }
    assert all(line.endswith("(warning)") for line in out.splitlines())
    assert "[edge-time] (warning)" in out and "8 trace(s) checked, 0 invalid" in err
    # The same files in our own profile: those rules fail them.
    code, _, err = run("validate", str(DATA / "valid"))
    assert code == 1 and "6 invalid" in err


@pytest.mark.parametrize("path", sorted((DATA / "invalid").glob("*.json")), ids=lambda p: p.stem)
def test_what_the_survey_rejects_is_invalid(path: Path) -> None:
    code, out, _ = run("validate", "--profile", "survey-v1", str(path))
    assert code == 1
    expected = path.with_suffix(".expected").read_text()
    assert out.replace(str(path.parent) + "/", "") == expected


def _ours() -> list[Path]:
    return sorted((EXAMPLES / "valid").glob("*.json"))


@pytest.mark.parametrize("path", _ours(), ids=lambda p: p.stem)
def test_export_is_accepted_by_the_survey_schema(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    code, _, err = run("export", str(path), "--profile", "survey-v1", "-o", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert their_verdict(doc) == []
    assert check_file_v1(out).ok
    src = json.loads(path.read_text())
    assert [e["id"] for e in doc["events"]] == [e["id"] for e in src["events"]]
    assert len(doc["edges"]) == len(src["edges"])
    if any(e["type"] == "stop" for e in src["events"]):
        assert "stop event(s) written as orchestrator_decision with decision: stop" in err
        stop = next(e for e in doc["events"] if e.get("decision") == "stop")
        assert stop["type"] == "orchestrator_decision"


def test_export_of_an_imported_trace_says_what_is_lost(tmp_path: Path) -> None:
    trace = tmp_path / "run.trace.json"
    code, _, err = run(
        "import", "who-and-when", str(WHO_AND_WHEN / "hand-crafted-24.json"), "-o", str(trace)
    )
    assert code == 0, err
    code, out, err = run("export", str(trace))
    assert code == 0
    doc = json.loads(out)
    assert their_verdict(doc) == []
    assert "metadata" not in doc and "schema_version" not in doc
    assert "dropped (the survey's format has no place for them): metadata, schema_version" in err


def test_export_refuses_an_invalid_trace(tmp_path: Path) -> None:
    bad = EXAMPLES / "invalid" / "cycle.json"
    out = tmp_path / "out.json"
    code, _, err = run("export", str(bad), "-o", str(out))
    assert code == 1 and f"{bad}: not exported" in err and not out.exists()
    assert "[cycle]" in err or "cycle" in err


def test_export_value_round_trip() -> None:
    got = export_v1(EXAMPLES / "valid" / "debate.json")
    assert json.loads(got.to_bytes()) == got.doc
