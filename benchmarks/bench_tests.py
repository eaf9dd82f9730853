"""How long the test suite takes; prints a table (a benchmark, not a test).

The developers' quick loop is ``python3 -m pytest -q -m "not slow"`` (targets: under 60 s on a
quiet machine); the full suite, the README's test command, runs everything (under 150 s). The
machine's load average is printed with the times: on a busy machine both grow with the load.
The runs keep compiled modules (``PYTHONDONTWRITEBYTECODE`` is removed from their environment),
as a user's Python and ``tools/ci.sh`` do. The CPU seconds (user and system) of each run are
printed too: on the shared host the wall time of the same run moves with the minute.

    python3 benchmarks/bench_tests.py [--quick-only]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNS = {
    "quick loop: pytest -q -m 'not slow'": [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"],
    "full suite: pytest -q": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick-only", action="store_true")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
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
