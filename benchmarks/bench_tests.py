"""How long the test suite takes; prints a table (a benchmark, not a test).

The developers' quick loop is ``python3 -m pytest -q -m "not slow"`` (targets: under 60 s on a
quiet machine); the full suite, the README's test command, runs everything (under 150 s). The
machine's load average is printed with the times: on a busy machine both grow with the load.
The runs keep compiled modules (``PYTHONDONTWRITEBYTECODE`` is removed from their environment),
as a user's Python and ``tools/ci.sh`` do. The CPU seconds (user and system) of each run are
printed too: on the shared host the wall time of the same run moves with the minute.

    python3 benchmarks/bench_tests.py [--quick-only]
    python3 benchmarks/bench_tests.py --per-test

``--per-test`` runs the full suite once with the ``benchmarks/pytest_test_cpu.py`` plugin and
prints where its time goes: the tests by group (quick loop, slow tests of the browser, other slow
tests), each group's worker-seconds, and the wall time that group alone would take with the
suite's workers kept busy (its worker-seconds over the number of workers), then the slow
modules that cost most. That is the floor a group sets under the full suite's wall time.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
RUNS = {
    "quick loop: pytest -q -m 'not slow'": [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"],
    "full suite: pytest -q": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
}


# The groups --per-test adds up, in the order it prints them.
GROUPS = ("quick loop (not slow)", "slow: the browser tests", "slow: the others")


class Timed(NamedTuple):
    """One test as the plugin saw it."""

    nodeid: str
    slow: bool
    browser: bool
    wall: float
    cpu: float

    @property
    def group(self) -> str:
        if not self.slow:
            return GROUPS[0]
        return GROUPS[1] if self.browser else GROUPS[2]


def per_test(env: dict[str, str]) -> None:
    """The full suite once, each test timed by the plugin; the groups' floors."""
    workers = os.cpu_count() or 1  # `-n auto` in pyproject.toml: one worker per CPU
    with tempfile.TemporaryDirectory() as folder:
        run_env = {**env, "SURVEY_BENCH_TEST_TIMES": folder, "PYTHONPATH": str(REPO)}
        cmd = [*RUNS["full suite: pytest -q"], "-p", "benchmarks.pytest_test_cpu"]
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=run_env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        tests = [Timed(*json.loads(line)) for f in sorted(Path(folder).iterdir()) for line in f.read_text().splitlines()]
    last = (proc.stdout.strip().splitlines() or ["?"])[-1]
    print(f"{workers} workers; the run: {wall:.0f} s wall, {last}\n")
    print(f"| group | tests | worker-s | CPU s (waited for) | alone on {workers} workers, s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, got in [*((g, [t for t in tests if t.group == g]) for g in GROUPS), ("all", tests)]:
        spent = sum(t.wall for t in got)
        print(f"| {name} | {len(got)} | {spent:.0f} | {sum(t.cpu for t in got):.0f} | {spent / workers:.0f} |")
    by_module: dict[str, list[Timed]] = collections.defaultdict(list)
    for t in tests:
        if t.slow:
            by_module[t.nodeid.split("::")[0]].append(t)
    print("\n| slow module | tests | worker-s |")
    print("| --- | ---: | ---: |")
    for module, got in sorted(by_module.items(), key=lambda kv: -sum(t.wall for t in kv[1]))[:15]:
        print(f"| {module} | {len(got)} | {sum(t.wall for t in got):.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick-only", action="store_true")
    ap.add_argument("--per-test", action="store_true", help="the full suite once, timed test by test")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.per_test:
        per_test(env)
        return
    print(f"{os.cpu_count()} CPUs\n")
    print("| run | wall s | user s | system s | load before | load after | result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, cmd in RUNS.items():
        if args.quick_only and "full" in name:
            continue
        before = os.getloadavg()[0]
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU of pytest, its workers and what they started (Chromium counts once it has exited)
        user, system = after.ru_utime - used.ru_utime, after.ru_stime - used.ru_stime
        last = (proc.stdout.strip().splitlines() or ["?"])[-1]
        print(f"| {name} | {wall:.0f} | {user:.0f} | {system:.0f} | {before:.1f} | {os.getloadavg()[0]:.1f} | {last} |")


if __name__ == "__main__":
    main()
