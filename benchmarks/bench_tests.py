"""How long the test suite takes, and each folder of it; prints tables (a benchmark, not a test).

Tests live in folders by kind (tests/conftest.py): ``tests/unit`` is the developers' quick loop
(target: under 60 s on a quiet machine); the full suite, the README's test command, runs every
folder (target: ``.ci/run``, which installs and then runs it, under 10 minutes on two cores).

    python3 benchmarks/bench_tests.py [--quick-only] [--modules N]

Without ``--quick-only`` it runs the quick loop, then the full suite once with the
``benchmarks/pytest_test_cpu.py`` plugin, which times every test, and prints where the suite's time
goes: each kind of folder (unit, acceptance, browser, tools, stress) and each folder under it,
with its tests, its worker-seconds (the wall time its tests held a worker), its CPU seconds and
the wall time it would take alone with the suite's workers kept busy (worker-seconds over the
number of workers: the floor a folder sets under the full suite's wall time); then the modules
that cost most. The machine's load average is printed with the times: on a busy machine they
grow with the load, and the CPU seconds move less than the wall time. The runs keep compiled
modules (``PYTHONDONTWRITEBYTECODE`` is removed from their environment), as a user's Python and
``tools/ci.sh`` do.
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
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
QUICK = ("quick loop: pytest -q tests/unit", [*PYTEST, "tests/unit"])
FULL = ("full suite: pytest -q", [*PYTEST, "-p", "benchmarks.pytest_test_cpu"])


class Timed(NamedTuple):
    """One test as the plugin saw it."""

    nodeid: str
    wall: float
    cpu: float

    @property
    def kind(self) -> str:
        """The folder of its kind: ``tests/unit`` for ``tests/unit/core/test_x.py::test_y``."""
        return "/".join(self.nodeid.split("/")[:2])

    @property
    def folder(self) -> str:
        """The folder the module is in: ``tests/unit/core``."""
        return self.nodeid.split("::")[0].rpartition("/")[0]


class Run(NamedTuple):
    """One pytest run: wall and CPU seconds (its own and its children's), loads, last line."""

    name: str
    wall: float
    user: float
    system: float
    load_before: float
    load_after: float
    result: str


def run(name: str, cmd: list[str], env: dict[str, str]) -> Run:
    before = os.getloadavg()[0]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU of pytest, its workers and what they started (Chromium counts once it has exited)
    last = (proc.stdout.strip().splitlines() or ["?"])[-1]
    return Run(
        name,
        wall,
        after.ru_utime - used.ru_utime,
        after.ru_stime - used.ru_stime,
        before,
        os.getloadavg()[0],
        last,
    )


def read_times(folder: Path) -> list[Timed]:
    """The plugin's rows, one file per worker."""
    return [
        Timed(*json.loads(line))
        for f in sorted(folder.iterdir())
        for line in f.read_text().splitlines()
    ]


def folder_rows(tests: Iterable[Timed], workers: int) -> list[tuple[str, int, float, float, float]]:
    """Per kind of folder, then each folder under it: (folder, tests, worker-s, CPU s, alone s),
    kinds in the order of their worker-seconds, the folders of a kind below it; "all" last."""
    tests = list(tests)
    rows: list[tuple[str, int, float, float, float]] = []

    def row(name: str, got: list[Timed]) -> tuple[str, int, float, float, float]:
        spent = sum(t.wall for t in got)
        return (name, len(got), spent, sum(t.cpu for t in got), spent / workers)

    by_kind: dict[str, list[Timed]] = collections.defaultdict(list)
    for t in tests:
        by_kind[t.kind].append(t)
    for kind, got in sorted(by_kind.items(), key=lambda kv: -sum(t.wall for t in kv[1])):
        rows.append(row(kind + "/", got))
        by_folder: dict[str, list[Timed]] = collections.defaultdict(list)
        for t in got:
            by_folder[t.folder].append(t)
        for folder, inner in sorted(by_folder.items(), key=lambda kv: -sum(t.wall for t in kv[1])):
            if folder != kind:
                rows.append(row("  " + folder + "/", inner))
    rows.append(row("all", tests))
    return rows


def print_runs(runs: list[Run]) -> None:
    print("| run | wall s | user s | system s | load before | load after | result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in runs:
        print(
            f"| {r.name} | {r.wall:.0f} | {r.user:.0f} | {r.system:.0f} | {r.load_before:.1f} | {r.load_after:.1f} | {r.result} |"
        )


def print_folders(tests: list[Timed], workers: int, modules: int) -> None:
    print(f"\n| folder | tests | worker-s | CPU s | alone on {workers} workers, s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, n, spent, cpu, alone in folder_rows(tests, workers):
        print(f"| {name} | {n} | {spent:.0f} | {cpu:.0f} | {alone:.0f} |")
    by_module: dict[str, list[Timed]] = collections.defaultdict(list)
    for t in tests:
        by_module[t.nodeid.split("::")[0]].append(t)
    print("\n| module | tests | worker-s |")
    print("| --- | ---: | ---: |")
    for module, got in sorted(by_module.items(), key=lambda kv: -sum(t.wall for t in kv[1]))[
        :modules
    ]:
        print(f"| {module} | {len(got)} | {sum(t.wall for t in got):.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick-only", action="store_true", help="the quick loop alone")
    ap.add_argument(
        "--modules", type=int, default=15, help="how many of the costliest modules to list"
    )
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    workers = os.cpu_count() or 1  # `-n auto` in pyproject.toml: one worker per CPU
    print(f"{workers} CPUs, {workers} workers\n")
    runs = [run(*QUICK, env)]
    if args.quick_only:
        print_runs(runs)
        return
    with tempfile.TemporaryDirectory() as folder:
        runs.append(run(*FULL, {**env, "SURVEY_BENCH_TEST_TIMES": folder, "PYTHONPATH": str(REPO)}))
        tests = read_times(Path(folder))
    print_runs(runs)
    print_folders(tests, workers, args.modules)


if __name__ == "__main__":
    main()
