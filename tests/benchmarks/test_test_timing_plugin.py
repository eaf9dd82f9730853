"""benchmarks/pytest_test_cpu.py, the plugin behind ``bench_tests.py --per-test``: run by a real
pytest on three small tests, it records each one's marker, browser fixture, wall time and CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.bench_tests import GROUPS, Timed

REPO = Path(__file__).resolve().parents[2]

TESTS = '''
import time
import pytest

@pytest.fixture
def browser():
    return "a stand-in: only the fixture's name matters to the plugin"

def test_waits():
    time.sleep(0.3)

@pytest.mark.slow
def test_burns():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass

@pytest.mark.slow
def test_drives(browser):
    assert browser
'''


def run_three(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The three tests in a folder of their own, under a real pytest with the plugin."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n", encoding="utf-8")
    (tmp_path / "test_three.py").write_text(TESTS, encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "benchmarks.pytest_test_cpu",
         "-c", str(tmp_path / "pytest.ini"), str(tmp_path / "test_three.py")],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def test_each_test_is_recorded_with_its_group_wall_time_and_cpu(tmp_path: Path) -> None:
    out = tmp_path / "times"
    out.mkdir()
    run_three(tmp_path, {**os.environ, "SURVEY_BENCH_TEST_TIMES": str(out)})
    files = list(out.iterdir())
    assert len(files) == 1  # one file per process
    rows = {r[0].split("::")[1]: r for r in map(json.loads, files[0].read_text(encoding="utf-8").splitlines())}
    assert sorted(rows) == ["test_burns", "test_drives", "test_waits"]
    assert [rows[n][1:3] for n in ("test_waits", "test_burns", "test_drives")] == [[False, False], [True, False], [True, True]]
    waits, burns = rows["test_waits"], rows["test_burns"]
    assert waits[3] >= 0.3 and waits[4] < 0.2  # a sleep is wall time, not CPU
    assert burns[4] >= 0.29 and burns[3] >= burns[4] - 0.05  # a busy loop is both
    # bench_tests.py reads the rows as they are written
    assert [Timed(*rows[n]).group for n in ("test_waits", "test_burns", "test_drives")] == [GROUPS[0], GROUPS[2], GROUPS[1]]


def test_without_the_folder_it_writes_nothing(tmp_path: Path) -> None:
    res = run_three(tmp_path, {k: v for k, v in os.environ.items() if k != "SURVEY_BENCH_TEST_TIMES"})
    assert "3 passed" in res.stdout
    assert not list(tmp_path.rglob("worker-*.jsonl"))
