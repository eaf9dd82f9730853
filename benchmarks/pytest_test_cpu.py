"""A pytest plugin for ``benchmarks/bench_tests.py``: each test's wall time and CPU.

Loaded with ``-p benchmarks.pytest_test_cpu`` in every xdist worker. Each worker appends one
JSON line per test (node id, wall seconds, CPU seconds) to a file of its own in the folder named
by ``SURVEY_BENCH_TEST_TIMES``; the node id names the test's folder, which is its kind. The CPU is the worker's own and that of the
children it has waited for (builds, git, pip, Node); a browser's counts only once it exits, so a
module's browser time lands on the test that closes it.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FOLDER_VARIABLE = "SURVEY_BENCH_TEST_TIMES"


def _cpu() -> float:
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    folder = os.environ.get(FOLDER_VARIABLE)
    wall, cpu = time.perf_counter(), _cpu()
    yield
    if folder:
        row = [item.nodeid, time.perf_counter() - wall, _cpu() - cpu]
        with (Path(folder) / f"worker-{os.getpid()}.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
