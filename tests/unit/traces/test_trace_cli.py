"""The ``survey trace`` commands through click's CliRunner."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
from click.testing import CliRunner
from helpers.trace_paths import EXAMPLES, REPO

from survey_tools.cli import cli
from survey_tools.traces.metrics import compute
from survey_tools.traces.schema import schema
from survey_tools.traces.validate import check_file

VALID = EXAMPLES / "valid"
INVALID = EXAMPLES / "invalid"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["trace", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def test_schema_is_printed_and_is_draft_2020_12() -> None:
    code, out, _ = run("schema")
    assert code == 0
    printed = json.loads(out)
    assert printed == schema()
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(printed)
    assert printed["properties"]["schema_version"] == {
        "description": printed["properties"]["schema_version"]["description"],
        "enum": ["1.0"],
    }


def test_validate_exit_codes() -> None:
    assert run("validate", str(VALID / "swarm.json"))[0] == 0
    code, out, err = run("validate", str(VALID), str(INVALID / "cycle.json"))
    assert code == 1
    assert "dependency cycle: e2 -> e3 -> e4 -> e2" in out
    assert "7 trace(s) checked, 1 invalid, 2 problem(s)" in err
    code, _, err = run("validate", "no/such/trace.json")
    assert code == 2 and "no such file or folder" in err


def test_validate_json_equals_library(tmp_path: Path) -> None:
    path = INVALID / "schema.json"
    code, out, _ = run("validate", "--format", "json", str(path))
    assert code == 1
    got = json.loads(out)
    report, _ = check_file(path)
    assert got == {"ok": False, "checked": 1, "invalid": 1, "traces": [report.to_dict()]}
    assert got["traces"][0]["problems"][1] == {
        "file": str(path),
        "path": "$.costs.tokens",
        "message": "must be >= 0, got -5",
        "check": "schema",
        "event_id": "",
        "line": 0,
        "col": 0,
    }


def test_max_problems_caps_lines_not_the_count() -> None:
    code, out, err = run("validate", "--max-problems", "2", str(INVALID / "schema.json"))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3 and "15 more problem(s) not shown" in lines[2]
    assert "17 problem(s)" in err


def test_metrics_json_equals_library() -> None:
    path = VALID / "hierarchical.json"
    code, out, _ = run("metrics", "--format", "json", str(path))
    assert code == 0
    _, trace = check_file(path)
    assert trace is not None
    assert json.loads(out) == compute(trace)


def test_metrics_table_for_one_trace() -> None:
    code, out, _ = run("metrics", str(VALID / "swarm.json"))
    assert code == 0
    rows = dict(line.split(None, 1) for line in out.splitlines() if len(line.split(None, 1)) == 2)
    assert rows["critical_path_s"] == "8"
    assert rows["taint_path[0]"] == "e3 -> e4 -> e5 -> e6 -> e7 -> e8"
    # swarm.json has no durations: waits would count as work, so the speedup is unknown.
    assert "parallelism_speedup" not in rows  # printed with an empty value
    assert any(line.split() == ["parallelism_speedup"] for line in out.splitlines())


def test_batch_skips_a_bad_trace_and_reports_it(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    shutil.copytree(VALID, folder)
    shutil.copy(INVALID / "truncated.json", folder / "zz-broken.json")
    code, out, err = run("metrics", "--format", "csv", "--no-progress", str(folder))
    assert code == 1
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [Path(r["file"]).stem for r in rows] == sorted(p.stem for p in VALID.glob("*.json"))
    assert "zz-broken.json:1:70: $: the file ends in the middle of a value" in err
    assert "metrics: 7 trace(s), 6 measured, 1 skipped (invalid)" in err
    by_id = {r["trace_id"]: r for r in rows}
    assert by_id["ex-swarm"]["tainted_sources"] == "2"


def test_batch_jsonl_to_a_file_is_deterministic(tmp_path: Path) -> None:
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run("metrics", "--format", "jsonl", "-o", str(out1), str(VALID))[0] == 0
    assert run("metrics", "--format", "jsonl", "-o", str(out2), str(VALID))[0] == 0
    assert out1.read_bytes() == out2.read_bytes()
    lines = out1.read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(x)["events"] > 0 for x in lines)


def test_batch_progress_bar_goes_to_stderr() -> None:
    code, out, err = run("metrics", "--format", "jsonl", "--progress", str(VALID))
    assert code == 0
    assert "metrics:" in err and "trace" in err
    assert len(out.splitlines()) == 6


def _process(
    *args: str, code: str = "from survey_tools.cli import main; main()"
) -> tuple[int, str, str]:
    """The survey process itself (its entry point ``main``, not click's test runner)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120
    )
    return res.returncode, res.stdout, res.stderr


def test_the_process_ends_as_the_test_runner_does() -> None:
    # The survey process leaves the last trace to its exit (heap.exit_leaves_heap, os._exit):
    # exit codes and every line of output are still the test runner's.
    for args in (
        ("trace", "validate", str(INVALID)),
        ("trace", "validate", "--format", "json", str(VALID / "swarm.json")),
        ("trace", "metrics", "--format", "json", str(VALID)),
    ):
        assert _process(*args) == run(*args[1:]), args


LEFT_TO_EXIT = """
import atexit, json, sys, weakref
from survey_tools import heap
class Obj: pass
out = {}
a = Obj(); wa = weakref.ref(a); heap.leave_to_exit(a); del a
out["outside_freed"] = wa() is None  # no block: nothing is kept
with heap.exit_leaves_heap():
    b = Obj(); wb = weakref.ref(b); heap.leave_to_exit(b); del b
    out["kept"] = wb() is not None
    heap.release_left()
    out["released"] = wb() is None
    heap.leave_to_exit(Obj())
    atexit.register(print, "teardown ran")
    print(json.dumps(out))
    sys.exit(4)
"""
FROZEN = """
import gc, json, sys, weakref
from survey_tools import heap
class Obj: pass
gc.freeze()  # a process that froze objects of its own (a test runner) is left alone
try:
    with heap.exit_leaves_heap():
        a = Obj(); wa = weakref.ref(a); heap.leave_to_exit(a); del a
        sys.exit(5)
except SystemExit as stop:
    print(json.dumps({"freed": wa() is None, "code": stop.code}))
"""


def test_objects_are_left_to_the_exit_only_inside_the_process_block() -> None:
    code, out, err = _process(code=LEFT_TO_EXIT)
    assert code == 4, err
    # Kept until released; the process then ended without its teardown (no atexit line).
    assert json.loads(out) == {"outside_freed": True, "kept": True, "released": True}
    code, out, err = _process(code=FROZEN)
    assert (code, json.loads(out)) == (0, {"freed": True, "code": 5}), err
