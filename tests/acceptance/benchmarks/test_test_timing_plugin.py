"""benchmarks/pytest_test_cpu.py, the plugin behind ``bench_tests.py``: run by a real pytest on
three small tests in two folders, it records each one's wall time and CPU, and bench_tests adds
them up by folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.bench_tests import Timed, folder_rows, read_times

REPO = Path(__file__).resolve().parents[3]

UNIT = """
import time

def test_waits():
    time.sleep(0.3)

def test_burns():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
"""
BROWSER = """
def test_drives():
    assert True
"""


def run_three(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The three tests in tests/unit/core and tests/browser of a folder of their own, under a
    real pytest with the plugin."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for rel, text in (
        ("tests/unit/core/test_two.py", UNIT),
        ("tests/browser/test_one.py", BROWSER),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-p",
            "benchmarks.pytest_test_cpu",
            "-c",
            str(tmp_path / "pytest.ini"),
            "tests",
        ],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def test_each_test_is_recorded_with_its_wall_time_and_cpu_and_added_up_by_folder(
    tmp_path: Path,
) -> None:
    out = tmp_path / "times"
    out.mkdir()
    run_three(tmp_path, {**os.environ, "SURVEY_BENCH_TEST_TIMES": str(out)})
    files = list(out.iterdir())
    assert len(files) == 1  # one file per process
    rows = {
        r[0].split("::")[1]: r
        for r in map(json.loads, files[0].read_text(encoding="utf-8").splitlines())
    }
    assert sorted(rows) == ["test_burns", "test_drives", "test_waits"]
    waits, burns = Timed(*rows["test_waits"]), Timed(*rows["test_burns"])
    assert waits.wall >= 0.3 and waits.cpu < 0.2  # a sleep is wall time, not CPU
    assert burns.cpu >= 0.29 and burns.wall >= burns.cpu - 0.05  # a busy loop is both
    assert (waits.kind, waits.folder) == ("tests/unit", "tests/unit/core")
    tests = read_times(out)
    table = {name: (n, spent) for name, n, spent, _, _ in folder_rows(tests, workers=2)}
    assert list(table) == ["tests/unit/", "  tests/unit/core/", "tests/browser/", "all"]
    assert table["tests/unit/"][0] == 2 and table["tests/browser/"][0] == 1 and table["all"][0] == 3
    assert table["tests/unit/"][1] == waits.wall + burns.wall


def test_without_the_folder_it_writes_nothing(tmp_path: Path) -> None:
    res = run_three(
        tmp_path, {k: v for k, v in os.environ.items() if k != "SURVEY_BENCH_TEST_TIMES"}
    )
    assert "3 passed" in res.stdout
    assert not list(tmp_path.rglob("worker-*.jsonl"))
